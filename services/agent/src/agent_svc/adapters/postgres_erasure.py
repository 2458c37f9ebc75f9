"""The erasure store on Postgres (``agent.erasures``, migration ``0004_erasure.sql``), as the
service's non-owner role, in transactions scoped to the caller's org.

The dead-letter state is the queue's: the worker's ``DatabaseRetryEntrypointExecutor`` parks a
job that exhausted its attempts with status ``failed`` in ``agent.pgqueuer`` (``on_failure="hold"``).
A handler cannot tell it runs its last attempt, so the row is not updated then; instead every read
reports an unfinished erasure whose job is parked there (and not queued again) as ``dead_lettered``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime

import asyncpg
from lore_runtime.stores import tenant_transaction

from agent_svc.adapters.pgqueuer_jobs import enqueue_on
from agent_svc.adapters.postgres_rows import add_scope_conditions, row_by_id, row_of_request, scope_of_row
from agent_svc.domain.jobs import Job, erase_job, session_job_keys
from agent_svc.domain.transcript import Scope
from agent_svc.usecases.erasure_ports import Erasure

_COLUMNS = "id, org_id, user_id, agent_id, team_id, principal, status, requested_at, completed_at, counts"

# Whether the erasure's job sits in the dead-letter state with no newer attempt queued or running.
_DEAD = """
    EXISTS (SELECT 1 FROM agent.pgqueuer q WHERE q.entrypoint = 'erase' AND q.dedupe_key = $3
            AND q.status = 'failed')
    AND NOT EXISTS (SELECT 1 FROM agent.pgqueuer q WHERE q.entrypoint = 'erase' AND q.dedupe_key = $3
                    AND q.status IN ('queued', 'picked'))
"""


def _erasure(row: asyncpg.Record, dead: bool = False) -> Erasure:
    status = row["status"]
    return Erasure(
        id=str(row["id"]),
        org_id=row["org_id"],
        subject=scope_of_row(row),
        principal=row["principal"],
        status="dead_lettered" if dead and status != "completed" else status,
        requested_at=row["requested_at"],
        completed_at=row["completed_at"],
        counts={key: int(value) for key, value in json.loads(row["counts"]).items()},
    )


class PostgresErasureStore:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def request(
        self, erasure: Erasure, request_id: str, then: Callable[[Erasure], Sequence[Job]], requester: str = ""
    ) -> Erasure:
        async with tenant_transaction(self._pool, erasure.org_id) as connection:
            # The fence (migration 0009): waits for the subject's writes under way, so the job reads them.
            await connection.execute(
                "SELECT agent.lock_subject_for_erasure($1, $2, $3, $4)",
                erasure.org_id,
                erasure.subject.user_id,
                erasure.subject.agent_id,
                erasure.subject.team_id,
            )
            row = await connection.fetchrow(
                f"""
                INSERT INTO agent.erasures (id, org_id, user_id, agent_id, team_id, request_id, status,
                                            requested_at, principal, requester)
                VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9)
                ON CONFLICT (org_id, requester, request_id) WHERE request_id <> '' DO NOTHING
                RETURNING {_COLUMNS}
                """,
                erasure.id,
                erasure.org_id,
                erasure.subject.user_id,
                erasure.subject.agent_id,
                erasure.subject.team_id,
                request_id,
                erasure.requested_at,
                erasure.principal[:256],
                requester,
            )
            if row is not None:
                stored = _erasure(row)
                await enqueue_on(connection, then(stored))
                return stored
            row = await row_of_request(connection, "agent.erasures", _COLUMNS, erasure.org_id, requester, request_id)
        return _erasure(row)

    async def get(self, org_id: str, erasure_id: str) -> Erasure | None:
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await connection.fetchrow(
                f"SELECT {_COLUMNS}, {_DEAD} AS dead FROM agent.erasures WHERE org_id = $1 AND id = $2",
                org_id,
                erasure_id,
                erase_job(org_id, erasure_id).dedupe_key,
            )
        return _erasure(row, row["dead"]) if row else None

    async def requeue(self, erasure: Erasure, jobs: Sequence[Job]) -> None:
        async with tenant_transaction(self._pool, erasure.org_id) as connection:
            await enqueue_on(connection, jobs)

    async def mark_running(self, org_id: str, erasure_id: str) -> Erasure | None:
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await connection.fetchrow(
                f"""
                UPDATE agent.erasures SET status = 'running'
                WHERE org_id = $1 AND id = $2 AND status <> 'completed'
                RETURNING {_COLUMNS}
                """,
                org_id,
                erasure_id,
            )
            if row is None:
                row = await row_by_id(connection, "agent.erasures", _COLUMNS, org_id, erasure_id)
        return _erasure(row) if row else None

    async def subject_sessions(self, org_id: str, subject: Scope) -> list[str]:
        conditions, values = ["org_id = $1"], [org_id]
        add_scope_conditions(subject, conditions, values)
        if len(values) == 1:  # never the whole org (validated before; kept as a last wall)
            return []
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                f"SELECT id FROM agent.sessions WHERE {' AND '.join(conditions)} ORDER BY id", *values
            )
        return [str(row["id"]) for row in rows]

    async def erasing(self, org_id: str, scope: Scope) -> bool:
        async with tenant_transaction(self._pool, org_id) as connection:
            return bool(
                await connection.fetchval(
                    """
                    SELECT EXISTS (
                        SELECT 1 FROM agent.erasures e
                        WHERE e.org_id = $1 AND e.status <> 'completed'
                          AND (e.user_id = '' OR e.user_id = $2) AND (e.agent_id = '' OR e.agent_id = $3)
                          AND (e.team_id = '' OR e.team_id = $4)
                    )
                    """,
                    org_id,
                    scope.user_id,
                    scope.agent_id,
                    scope.team_id,
                )
            )

    async def running_session_jobs(self, org_id: str, session_ids: Sequence[str]) -> int:
        keys = [key for session_id in session_ids for key in session_job_keys(org_id, session_id)]
        if not keys:
            return 0
        count = await self._pool.fetchval(
            """
            SELECT count(*) FROM agent.pgqueuer q
            WHERE q.status = 'picked' AND (q.dedupe_key = ANY ($1::text[]) OR q.dedupe_key LIKE ANY ($2::text[]))
            """,
            keys,
            [f"{key}:%" for key in keys],
        )
        return int(count)

    async def turn_ids(self, org_id: str, session_ids: Sequence[str]) -> list[str]:
        if not session_ids:
            return []
        async with tenant_transaction(self._pool, org_id) as connection:
            rows = await connection.fetch(
                "SELECT id FROM agent.turns WHERE org_id = $1 AND session_id = ANY($2::uuid[]) ORDER BY id",
                org_id,
                list(session_ids),
            )
        return [str(row["id"]) for row in rows]

    async def record(self, org_id: str, erasure_id: str, counts: dict[str, int]) -> None:
        async with tenant_transaction(self._pool, org_id) as connection:
            await _record(connection, org_id, erasure_id, counts)

    async def forget_shown(self, org_id: str, erasure_id: str, observation_ids: Sequence[str]) -> None:
        if not observation_ids:
            return
        async with tenant_transaction(self._pool, org_id) as connection:
            # The stored context is the assembler's protobuf: an item's id is in it as plain UTF-8.
            deleted = await connection.execute(
                """
                DELETE FROM agent.turn_results r
                WHERE r.org_id = $1 AND EXISTS (
                    SELECT 1 FROM unnest($2::text[]) AS shown(id)
                    WHERE position(convert_to(shown.id, 'UTF8') IN r.context) > 0
                )
                """,
                org_id,
                list(observation_ids),
            )
            await _record(connection, org_id, erasure_id, {"cached_contexts": _deleted(deleted)})

    async def delete_transcript(self, org_id: str, erasure_id: str, session_ids: Sequence[str]) -> None:
        async with tenant_transaction(self._pool, org_id) as connection:
            ids = list(session_ids)
            jobs = await _delete_session_jobs(connection, org_id, ids)
            await connection.execute(
                "DELETE FROM agent.turn_results WHERE org_id = $1 AND session_id = ANY($2::uuid[])", org_id, ids
            )
            turns = await connection.execute(
                "DELETE FROM agent.turns WHERE org_id = $1 AND session_id = ANY($2::uuid[])", org_id, ids
            )
            sessions = await connection.execute(
                "DELETE FROM agent.sessions WHERE org_id = $1 AND id = ANY($2::uuid[])", org_id, ids
            )
            await _record(
                connection,
                org_id,
                erasure_id,
                {"turns": _deleted(turns), "sessions": _deleted(sessions), "jobs": jobs},
            )

    async def complete(self, org_id: str, erasure_id: str, now: datetime) -> Erasure:
        async with tenant_transaction(self._pool, org_id) as connection:
            row = await connection.fetchrow(
                f"""
                UPDATE agent.erasures SET status = 'completed', completed_at = coalesce(completed_at, $3)
                WHERE org_id = $1 AND id = $2
                RETURNING {_COLUMNS}
                """,
                org_id,
                erasure_id,
                now,
            )
        return _erasure(row)


async def _record(connection: asyncpg.Connection, org_id: str, erasure_id: str, counts: dict[str, int]) -> None:
    current = await connection.fetchval(
        "SELECT counts FROM agent.erasures WHERE org_id = $1 AND id = $2 FOR UPDATE", org_id, erasure_id
    )
    merged = {key: int(value) for key, value in json.loads(current or "{}").items()}
    for key, value in counts.items():
        merged[key] = max(merged.get(key, 0), int(value))
    await connection.execute(
        "UPDATE agent.erasures SET counts = $3::jsonb WHERE org_id = $1 AND id = $2",
        org_id,
        erasure_id,
        json.dumps(merged, sort_keys=True),
    )


async def _delete_session_jobs(connection: asyncpg.Connection, org_id: str, session_ids: Sequence[str]) -> int:
    """The sessions' reflect and episode jobs that wait or were dead-lettered, with their log lines (a
    failure's traceback); a job running now is left to finish (it finds its session gone)."""
    keys = [key for session_id in session_ids for key in session_job_keys(org_id, session_id)]
    if not keys:
        return 0
    count = await connection.fetchval(
        """
        WITH gone AS (
            DELETE FROM agent.pgqueuer q
            WHERE q.status <> 'picked' AND (q.dedupe_key = ANY ($1::text[]) OR q.dedupe_key LIKE ANY ($2::text[]))
            RETURNING q.id
        ), logged AS (
            DELETE FROM agent.pgqueuer_log l USING gone WHERE l.job_id = gone.id
        )
        SELECT count(*) FROM gone
        """,
        keys,
        [f"{key}:%" for key in keys],
    )
    return int(count)


def _deleted(status: str) -> int:
    """The row count of a ``DELETE n`` command status."""
    return int(status.rsplit(" ", 1)[-1])
