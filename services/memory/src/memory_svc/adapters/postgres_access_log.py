"""The access log (memories' and episodes' uses) in Postgres schema ``memory``, behind row-level
security keyed on org."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import asyncpg
from lore_runtime.column_arrays import column_arrays
from lore_runtime.stores import tenant_transaction

from memory_svc.usecases.memory_ports import Access

# The columns after memory_id, in the order of the INSERT's unnest.
_ACCESS_ARRAYS = ("user_id", "session_id", "reason", "principal", "request_id", "accessed_at", "kind")


class PostgresAccessLog:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def record(self, org_id: str, accesses: Sequence[Access]) -> list[str]:
        if not accesses:
            return []
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                """
                INSERT INTO memory.access_log
                    (org_id, memory_id, user_id, session_id, reason, principal, request_id, accessed_at, kind)
                SELECT $1, a.memory_id, a.user_id, a.session_id, a.reason, a.principal, a.request_id, a.accessed_at,
                       a.kind
                FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[],
                            $9::text[])
                     AS a(memory_id, user_id, session_id, reason, principal, request_id, accessed_at, kind)
                ON CONFLICT (org_id, request_id, memory_id) WHERE request_id <> '' DO NOTHING
                RETURNING memory_id
                """,
                org_id,
                [uuid.UUID(access.memory_id) for access in accesses],
                *column_arrays(accesses, *_ACCESS_ARRAYS),
            )
        return [str(row["memory_id"]) for row in rows]

    async def count(self, org_id: str, memory_id: str) -> int:
        async with tenant_transaction(self._pool, org_id) as connection:
            return await connection.fetchval(
                "SELECT count(*) FROM memory.access_log WHERE org_id = $1 AND memory_id = $2",
                org_id,
                uuid.UUID(memory_id),
            )

    async def forget(self, org_id: str, *, memory_ids: Sequence[str] = (), user_id: str = "") -> int:
        async with tenant_transaction(self._pool, org_id) as connection:
            result = await connection.execute(
                """
                DELETE FROM memory.access_log
                WHERE org_id = $1 AND (memory_id = ANY($2::uuid[]) OR ($3 <> '' AND user_id = $3))
                """,
                org_id,
                [uuid.UUID(memory_id) for memory_id in memory_ids],
                user_id,
            )
        return int(result.split()[-1])
