"""Query pieces the agent's Postgres stores share: the filter on a scope's ids and the scope a row
stores, and the reads of a row by its id or by the request id that made it. Every query names the
org: row-level security is the second wall, not the only one."""

from __future__ import annotations

from typing import Any

import asyncpg

from agent_svc.domain.transcript import Scope


def add_scope_conditions(scope: Scope, conditions: list[str], values: list[Any]) -> None:
    """``column = $n`` for each id the scope sets (an empty id matches any), its value appended to
    ``values`` so ``$n`` numbers on from what is already there."""
    for column, value in (("user_id", scope.user_id), ("agent_id", scope.agent_id), ("team_id", scope.team_id)):
        if value:
            values.append(value)
            conditions.append(f"{column} = ${len(values)}")


def scope_of_row(row: asyncpg.Record) -> Scope:
    return Scope(row["user_id"], row["agent_id"], row["team_id"])


async def row_by_id(
    connection: asyncpg.Connection, table: str, columns: str, org_id: str, row_id: str
) -> asyncpg.Record | None:
    return await connection.fetchrow(f"SELECT {columns} FROM {table} WHERE org_id = $1 AND id = $2", org_id, row_id)


async def row_of_request(
    connection: asyncpg.Connection, table: str, columns: str, org_id: str, requester: str, request_id: str
) -> asyncpg.Record | None:
    """The row a requester's request id made the first time: a retry's insert (``ON CONFLICT DO
    NOTHING``) returns nothing, and the retry answers with what the first call stored."""
    return await connection.fetchrow(
        f"SELECT {columns} FROM {table} WHERE org_id = $1 AND requester = $2 AND request_id = $3",
        org_id,
        requester,
        request_id,
    )
