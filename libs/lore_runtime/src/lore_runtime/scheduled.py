"""Scheduled jobs that exactly one replica runs per period (ARCHITECTURE §8).

Each service keeps a ``<schema>.scheduled_runs`` table (one row per job; see the memory
service's ``0002_scheduled_runs.sql``). A replica *claims* a run with one conditional upsert: it wins
only when the previous run finished at least ``interval`` ago and no other replica holds
an unexpired lease, so two replicas never run a job at once and a crashed holder's lease
simply expires. Postgres's clock decides, so replicas need not agree on time. The row
also keeps when the job last finished, how it went and its error: what an operator (or
``lore doctor``) reads to see that the job runs.

An advisory lock would serialise replicas too, but it remembers nothing: after a restart
a daily job would run again at once, and nobody could see when it last ran.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import asyncpg
from opentelemetry import trace

from lore_runtime.stores import POSTGRES_UNAVAILABLE

log = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)


@dataclass(frozen=True, slots=True)
class ScheduledJob:
    """``run`` does the work and returns a JSON-able summary kept in ``last_result``."""

    name: str
    interval: timedelta
    run: Callable[[], Awaitable[Mapping[str, Any]]]
    # How long a claim stays exclusive: longer than the job ever takes.
    lease: timedelta = timedelta(hours=1)


class JobClaims:
    """The claim/finish statements on one schema's ``scheduled_runs`` table."""

    def __init__(self, pool: asyncpg.Pool, schema: str, holder: str | None = None) -> None:
        if not schema.isidentifier():
            raise ValueError(f"not a schema name: {schema!r}")
        self._pool = pool
        self._table = f"{schema}.scheduled_runs"
        self.holder = holder or f"{socket.gethostname()}:{os.getpid()}"

    async def claim(self, job: ScheduledJob) -> bool:
        row = await self._pool.fetchrow(
            f"""
            INSERT INTO {self._table} AS runs (job, holder, lease_until, last_started_at, last_status)
            VALUES ($1, $2, now() + $3::interval, now(), 'running')
            ON CONFLICT (job) DO UPDATE
               SET holder = EXCLUDED.holder, lease_until = EXCLUDED.lease_until,
                   last_started_at = now(), last_status = 'running'
             WHERE runs.lease_until < now()
               AND (runs.last_finished_at IS NULL OR runs.last_finished_at <= now() - $4::interval)
            RETURNING job
            """,
            job.name,
            self.holder,
            job.lease,
            job.interval,
        )
        return row is not None

    async def finish(self, job: ScheduledJob, result: Mapping[str, Any] | None, error: str = "") -> None:
        await self._pool.execute(
            f"""
            UPDATE {self._table}
               SET last_finished_at = now(), lease_until = '-infinity',
                   last_status = $3, last_result = $4::jsonb, last_error = $5
             WHERE job = $1 AND holder = $2
            """,
            job.name,
            self.holder,
            "failed" if error else "ok",
            json.dumps(dict(result or {})),
            error[:2000],
        )

    async def status(self) -> list[dict[str, Any]]:
        rows = await self._pool.fetch(f"SELECT * FROM {self._table} ORDER BY job")
        return [dict(row) for row in rows]


async def run_once(claims: JobClaims, job: ScheduledJob) -> bool:
    """Run ``job`` if this replica wins its claim; returns whether it ran. Failures are logged
    and recorded, never raised: the next period tries again."""
    if not await claims.claim(job):
        return False
    with tracer.start_as_current_span(f"scheduled.{job.name}") as span:
        try:
            result = await job.run()
        except Exception as error:  # recorded in the table and the logs; the loop must survive it
            span.record_exception(error)
            log.exception("scheduled job %s failed", job.name)
            await claims.finish(job, None, f"{type(error).__name__}: {error}")
            return True
    log.info("scheduled job %s finished", job.name, extra={"job": job.name, "result": dict(result)})
    await claims.finish(job, result)
    return True


async def run_periodically(claims: JobClaims, jobs: list[ScheduledJob], poll: timedelta) -> None:
    """Every ``poll``, try to claim each job that is due; for a background task of the bootstrap."""
    while True:
        for job in jobs:
            try:
                await run_once(claims, job)
            except (*POSTGRES_UNAVAILABLE, asyncpg.PostgresError):
                log.warning("cannot claim scheduled job %s: Postgres unavailable; retrying later", job.name)
        await asyncio.sleep(poll.total_seconds())


def run_in_background(stack: AsyncExitStack, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """``work`` as a task (a service's scheduled jobs, its background loops), cancelled and awaited
    when ``stack`` unwinds."""
    task = asyncio.create_task(work)
    stack.push_async_callback(_cancel, task)
    return task


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
