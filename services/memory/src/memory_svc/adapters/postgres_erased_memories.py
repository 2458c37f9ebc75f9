"""The ids of erased memories in Postgres schema ``memory``, behind row-level security."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import asyncpg
from lore_runtime.stores import tenant_transaction


class PostgresErasedMemories:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def record(self, org_id: str, memory_ids: Sequence[str]) -> None:
        if not memory_ids:
            return
        async with tenant_transaction(self._pool, org_id) as connection:
            await connection.execute(
                """
                INSERT INTO memory.erased_memories (org_id, memory_id)
                SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING
                """,
                org_id,
                [uuid.UUID(memory_id) for memory_id in memory_ids],
            )

    async def erased(self, org_id: str, memory_ids: Sequence[str]) -> set[str]:
        if not memory_ids:
            return set()
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                "SELECT memory_id FROM memory.erased_memories WHERE org_id = $1 AND memory_id = ANY($2::uuid[])",
                org_id,
                [uuid.UUID(memory_id) for memory_id in memory_ids],
            )
        return {str(row["memory_id"]) for row in rows}
