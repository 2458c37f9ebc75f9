"""The transcript store on Postgres (schema ``agent``), as the service's non-owner role: every
statement runs in a transaction scoped to the caller's org, so row-level security is a second
wall behind the ``org_id`` in each query."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import asyncpg
from lore_runtime.stores import tenant_transaction

from agent_svc.adapters.pgqueuer_jobs import enqueue_on
from agent_svc.adapters.postgres_rows import add_scope_conditions, row_by_id, row_of_request, scope_of_row
from agent_svc.domain.jobs import Job
from agent_svc.domain.transcript import Appended, Scope, Session, ToolInteraction, Turn

_SESSION_COLUMNS = (
    "id, org_id, user_id, agent_id, team_id, status, end_reason, started_at, last_active_at, ended_at,"
    " turn_count, metadata, reflected_through"
)


def _session(row: asyncpg.Record) -> Session:
    return Session(
        id=str(row["id"]),
        org_id=row["org_id"],
        scope=scope_of_row(row),
        status=row["status"],
        end_reason=row["end_reason"],
        started_at=row["started_at"],
        last_active_at=row["last_active_at"],
        ended_at=row["ended_at"],
        turn_count=row["turn_count"],
        metadata=json.loads(row["metadata"]),
        reflected_through=row["reflected_through"],
    )


def _turn(row: asyncpg.Record) -> Turn:
    return Turn(
        id=str(row["id"]),
        session_id=str(row["session_id"]),
        sequence=row["sequence"],
        role=row["role"],
        content=row["content"],
        created_at=row["created_at"],
        metadata=json.loads(row["metadata"]),
        idempotency_key=row["idempotency_key"],
        tool_interactions=tuple(_tool_from_json(tool) for tool in json.loads(row["tool_interactions"])),
        source=row["source"],
        speaker=row["speaker"],
    )


def _tool_to_json(tool: ToolInteraction) -> dict[str, Any]:
    return {
        "tool_name": tool.tool_name,
        "intent": tool.intent,
        "result": dict(tool.result),
        "summary": tool.summary,
        "salient_fields": list(tool.salient_fields),
        "occurred_at": tool.occurred_at.isoformat() if tool.occurred_at else None,
    }


def _tool_from_json(data: dict[str, Any]) -> ToolInteraction:
    occurred = data.get("occurred_at")
    return ToolInteraction(
        tool_name=data["tool_name"],
        intent=data.get("intent", ""),
        result=data.get("result") or {},
        summary=data.get("summary", ""),
        salient_fields=tuple(data.get("salient_fields") or ()),
        occurred_at=datetime.fromisoformat(occurred) if occurred else None,
    )


class PostgresTranscript:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def start(self, session: Session, request_id: str, requester: str = "") -> Session:
        """Insert ``session``; a request id the requester retries returns the session it first started."""
        async with tenant_transaction(self._pool, session.org_id) as connection:
            row = await connection.fetchrow(
                f"""
                INSERT INTO agent.sessions (id, org_id, user_id, agent_id, team_id, status, started_at,
                                            last_active_at, metadata, request_id, requester)
                VALUES ($1, $2, $3, $4, $5, 'active', $6, $6, $7::jsonb, $8, $9)
                ON CONFLICT (org_id, requester, request_id) WHERE request_id <> '' DO NOTHING
                RETURNING {_SESSION_COLUMNS}
                """,
                session.id,
                session.org_id,
                session.scope.user_id,
                session.scope.agent_id,
                session.scope.team_id,
                session.started_at,
                json.dumps(dict(session.metadata)),
                request_id,
                requester,
            )
            if row is None:
                row = await row_of_request(
                    connection, "agent.sessions", _SESSION_COLUMNS, session.org_id, requester, request_id
                )
        return _session(row)

    async def get(self, org_id: str, session_id: str) -> Session | None:
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await row_by_id(connection, "agent.sessions", _SESSION_COLUMNS, org_id, session_id)
        return _session(row) if row else None

    async def list(
        self, org_id: str, scope: Scope, status: str | None, limit: int, after: tuple[datetime, str] | None
    ) -> list[Session]:
        """Newest first by (started_at, id); ``after`` is the last (started_at, id) of the previous page."""
        conditions, values = ["org_id = $1"], [org_id]
        add_scope_conditions(scope, conditions, values)
        if status:
            values.append(status)
            conditions.append(f"status = ${len(values)}")
        if after is not None:
            values += [after[0], after[1]]
            conditions.append(f"(started_at, id) < (${len(values) - 1}, ${len(values)}::uuid)")
        values.append(limit)
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                f"SELECT {_SESSION_COLUMNS} FROM agent.sessions WHERE {' AND '.join(conditions)}"
                f" ORDER BY started_at DESC, id DESC LIMIT ${len(values)}",
                *values,
            )
        return [_session(row) for row in rows]

    async def end(
        self,
        org_id: str,
        session_id: str,
        reason: str,
        now: datetime,
        then: Callable[[Session], Sequence[Job]] = lambda session: (),
    ) -> Session | None:
        """End an active session; an ended one is returned as it is (ending twice changes nothing).
        The jobs ``then`` asks for are queued in the same transaction as the end itself."""
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await connection.fetchrow(
                f"""
                UPDATE agent.sessions SET status = 'ended', end_reason = $3, ended_at = $4
                WHERE org_id = $1 AND id = $2 AND status = 'active'
                RETURNING {_SESSION_COLUMNS}
                """,
                org_id,
                session_id,
                reason,
                now,
            )
            if row is not None:
                await enqueue_on(connection, then(_session(row)))
            else:
                row = await row_by_id(connection, "agent.sessions", _SESSION_COLUMNS, org_id, session_id)
        return _session(row) if row else None

    async def append(
        self,
        org_id: str,
        session_id: str,
        turns: Sequence[Turn],
        now: datetime,
        then: Callable[[Appended], Sequence[Job]] = lambda appended: (),
    ) -> Appended:
        """Append ``turns`` in order under the session's row lock (sequences without gaps); a turn
        whose idempotency key is already in the session is not written again: the stored one is
        returned in its place. Nothing is written when the session does not exist or has ended
        (``Appended.accepted`` is False). The jobs ``then`` asks for, given what was stored, are
        queued in the same transaction: a turn is never stored without its follow-up work."""
        async with tenant_transaction(self._pool, org_id) as connection:
            locked = await connection.fetchrow(
                "SELECT turn_count, status FROM agent.sessions WHERE org_id = $1 AND id = $2 FOR UPDATE",
                org_id,
                session_id,
            )
            if locked is None or locked["status"] != "active":
                return Appended([], 0, accepted=False)
            sequence = locked["turn_count"]
            stored: list[Turn] = []
            for turn in turns:
                # One statement per new turn: a key already in the session (its id is derived from
                # the key) makes the insert do nothing, and the stored turn is read instead.
                row = await connection.fetchrow(
                    """
                    INSERT INTO agent.turns (id, org_id, session_id, sequence, role, content, created_at,
                                             recorded_at, metadata, idempotency_key, tool_interactions, source,
                                             speaker)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11::jsonb, $12, $13)
                    ON CONFLICT DO NOTHING
                    RETURNING *
                    """,
                    turn.id,
                    org_id,
                    session_id,
                    sequence + 1,
                    turn.role,
                    turn.content,
                    turn.created_at,
                    now,
                    json.dumps(dict(turn.metadata)),
                    turn.idempotency_key,
                    json.dumps([_tool_to_json(tool) for tool in turn.tool_interactions]),
                    turn.source,
                    turn.speaker,
                )
                if row is None:
                    row = await connection.fetchrow(
                        "SELECT * FROM agent.turns WHERE session_id = $1 AND idempotency_key = $2 AND $2 <> ''",
                        session_id,
                        turn.idempotency_key,
                    )
                    if row is None:
                        raise RuntimeError(f"turn {turn.id} conflicts with a stored turn of another key")
                else:
                    sequence += 1
                stored.append(_turn(row))
            if sequence != locked["turn_count"]:  # a pure replay writes nothing at all
                await connection.execute(
                    "UPDATE agent.sessions SET turn_count = $3, last_active_at = greatest(last_active_at, $4)"
                    " WHERE org_id = $1 AND id = $2",
                    org_id,
                    session_id,
                    sequence,
                    now,
                )
            appended = Appended(stored, sequence - locked["turn_count"])
            await enqueue_on(connection, then(appended))
        return appended

    async def turns(self, org_id: str, session_id: str, limit: int, after_sequence: int) -> list[Turn]:
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                "SELECT * FROM agent.turns WHERE org_id = $1 AND session_id = $2 AND sequence > $3"
                " ORDER BY sequence LIMIT $4",
                org_id,
                session_id,
                after_sequence,
                limit,
            )
        return [_turn(row) for row in rows]

    async def turn(self, org_id: str, turn_id: str) -> Turn | None:
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await row_by_id(connection, "agent.turns", "*", org_id, turn_id)
        return _turn(row) if row else None
