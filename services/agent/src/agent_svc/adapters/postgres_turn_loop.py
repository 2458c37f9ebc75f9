"""What the per-turn loop and its background jobs keep beside the transcript (schema ``agent``,
migration ``0003_turn_loop.sql``): each processed turn's first result, how far reflection has
read each session, the idle-session scan, and a per-session lock for reflection."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import AsyncIterator
from datetime import datetime

import asyncpg
from lore_runtime.errors import NotFound
from lore_runtime.stores import tenant_transaction

from agent_svc.adapters.postgres_rows import scope_of_row
from agent_svc.domain.forget_requests import ForgottenItem
from agent_svc.domain.transcript import Scope
from agent_svc.domain.turn_loop import KeptResult, TurnResult


def _lock_key(session_id: str) -> int:
    """A signed 64-bit advisory-lock key for the session (a hash: ids are UUIDs)."""
    return int.from_bytes(hashlib.sha256(f"agent-session\x00{session_id}".encode()).digest()[:8], "big", signed=True)


class PostgresTurnLoop:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def result(self, org_id: str, turn_id: str) -> TurnResult | None:
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await _kept_result(connection, org_id, turn_id)
        return _result(row) if row else None

    async def kept_result(self, org_id: str, turn_id: str) -> KeptResult | None:
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await _kept_result(connection, org_id, turn_id)
        return KeptResult(_result(row), row["created_at"]) if row else None

    async def save_result(
        self, org_id: str, session_id: str, turn_id: str, result: TurnResult, now: datetime
    ) -> TurnResult:
        """Keep the first result of a turn; a concurrent or later save returns the one kept. The
        session erased while the turn ran is NOT_FOUND (its erasure's fence, while it runs, refuses
        the save as SUBJECT_ERASING)."""
        try:
            async with tenant_transaction(self._pool, org_id) as connection:
                row = await connection.fetchrow(
                    """
                    INSERT INTO agent.turn_results (turn_id, org_id, session_id, reply, reply_turn_id, context,
                                                    created_at, forget_status, forgotten, reply_status)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10) ON CONFLICT (turn_id) DO NOTHING
                    RETURNING reply, reply_turn_id, context, forget_status, forgotten, reply_status
                    """,
                    turn_id,
                    org_id,
                    session_id,
                    result.reply,
                    result.reply_turn_id or None,
                    result.context,
                    now,
                    result.forget_status,
                    json.dumps([[item.id, item.type, item.text] for item in result.forgotten]),
                    result.reply_status,
                )
                if row is None:  # a concurrent or earlier save won: return what it kept
                    row = await _kept_result(connection, org_id, turn_id)
        except asyncpg.ForeignKeyViolationError:
            raise NotFound(f"session {session_id} not found", reason="SESSION_ERASED") from None
        return _result(row)

    async def prune_results(self, before: datetime, batch: int = 1_000) -> int:
        """Delete every org's turn results kept since before ``before``, a batch per transaction."""
        deleted = 0
        while True:
            count = await self._pool.fetchval("SELECT agent.prune_turn_results($1, $2)", before, batch)
            deleted += count
            if count < batch:
                return deleted

    async def reflected_through(self, org_id: str, session_id: str) -> int:
        async with tenant_transaction(self._pool, org_id) as connection:
            value = await connection.fetchval(
                "SELECT reflected_through FROM agent.sessions WHERE org_id = $1 AND id = $2", org_id, session_id
            )
        return value or 0

    async def mark_reflected(self, org_id: str, session_id: str, sequence: int) -> None:
        async with tenant_transaction(self._pool, org_id) as connection:
            await connection.execute(
                "UPDATE agent.sessions SET reflected_through = greatest(reflected_through, $3)"
                " WHERE org_id = $1 AND id = $2",
                org_id,
                session_id,
                sequence,
            )

    async def idle_sessions(self, before: datetime, limit: int) -> list[tuple[str, str]]:
        rows = await self._pool.fetch("SELECT org_id, id FROM agent.idle_sessions($1, $2)", before, limit)
        return [(row["org_id"], str(row["id"])) for row in rows]

    async def active_scopes(self, start: datetime, end: datetime) -> list[tuple[str, Scope]]:
        rows = await self._pool.fetch("SELECT * FROM agent.active_scopes($1, $2)", start, end)
        return [(row["org_id"], scope_of_row(row)) for row in rows]

    @contextlib.asynccontextmanager
    async def session_lock(self, session_id: str) -> AsyncIterator[None]:
        """Held while a job works on the session, so two jobs never reflect one session at once.
        A session-level advisory lock on a connection held for the duration: a crashed holder's
        connection closes and the lock goes with it."""
        async with self._pool.acquire() as connection:
            key = _lock_key(session_id)
            await connection.execute("SELECT pg_advisory_lock($1)", key)
            try:
                yield
            finally:
                await connection.execute("SELECT pg_advisory_unlock($1)", key)


async def _kept_result(connection: asyncpg.Connection, org_id: str, turn_id: str) -> asyncpg.Record | None:
    return await connection.fetchrow(
        "SELECT reply, reply_turn_id, context, created_at, forget_status, forgotten, reply_status"
        " FROM agent.turn_results"
        " WHERE org_id = $1 AND turn_id = $2",
        org_id,
        turn_id,
    )


def _result(row: asyncpg.Record) -> TurnResult:
    return TurnResult(
        reply=row["reply"],
        reply_turn_id=str(row["reply_turn_id"]) if row["reply_turn_id"] else "",
        context=bytes(row["context"]),
        forget_status=row["forget_status"],
        forgotten=tuple(ForgottenItem(*item) for item in json.loads(row["forgotten"])),
        reply_status=row["reply_status"],
    )
