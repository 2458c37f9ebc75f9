"""Each org's salience-order generation in Postgres schema ``memory``, behind row-level security."""

from __future__ import annotations

import asyncpg
from lore_runtime.stores import tenant_transaction


class PostgresOrderGenerations:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def salience(self, org_id: str) -> int:
        async with tenant_transaction(self._pool, org_id) as connection:
            value = await connection.fetchval("SELECT salience FROM memory.order_generations WHERE org_id = $1", org_id)
        return int(value or 0)

    async def advance_salience(self, org_id: str) -> int:
        async with tenant_transaction(self._pool, org_id) as connection:
            return int(
                await connection.fetchval(
                    """
                    INSERT INTO memory.order_generations AS g (org_id, salience) VALUES ($1, 1)
                    ON CONFLICT (org_id) DO UPDATE SET salience = g.salience + 1, changed_at = now()
                    RETURNING salience
                    """,
                    org_id,
                )
            )
