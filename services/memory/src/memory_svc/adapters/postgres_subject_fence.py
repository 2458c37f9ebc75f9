"""Erasure's fence (the SubjectFence port) in Postgres schema ``memory`` (migration
``0006_subject_fences.sql``): a row per erasure, and advisory locks on the scopes' ids so a fence
waits for the writes under way and a later write sees it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import asyncpg
from lore_runtime.stores import tenant_transaction

from memory_svc.domain.model import Scope


class PostgresSubjectFence:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def fence(self, org_id: str, erasure_id: str, subject: Scope) -> None:
        async with tenant_transaction(self._pool, org_id) as connection:
            await connection.execute(
                "SELECT memory.fence_subject($1, $2, $3, $4, $5)",
                org_id,
                erasure_id,
                subject.user_id,
                subject.agent_id,
                subject.team_id,
            )

    async def lift(self, org_id: str, erasure_id: str) -> None:
        async with tenant_transaction(self._pool, org_id) as connection:
            await connection.execute(
                "DELETE FROM memory.subject_fences WHERE org_id = $1 AND erasure_id = $2", org_id, erasure_id
            )

    @asynccontextmanager
    async def writing(self, org_id: str, scopes: Sequence[Scope]) -> AsyncIterator[None]:
        distinct = list(dict.fromkeys(scopes))
        async with tenant_transaction(self._pool, org_id) as connection:
            await connection.execute(
                "SELECT memory.refuse_while_erasing($1, $2::text[], $3::text[], $4::text[])",
                org_id,
                [scope.user_id for scope in distinct],
                [scope.agent_id for scope in distinct],
                [scope.team_id for scope in distinct],
            )
            yield
