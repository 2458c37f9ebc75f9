"""The durable job queue on pgqueuer (schema ``agent``, migration ``0002_job_queue.sql``).

Why pgqueuer: it speaks asyncpg (the driver every Lore service already uses), so a job is queued
on the *same connection and transaction* as the turn or session change that calls for it — the
two commit together or not at all; its retries are database-level (the row goes back to
``queued`` with ``execute_after`` pushed by an exponential backoff, so a retry survives a
restart); a job whose worker died is picked again once its heartbeat is stale (at-least-once);
and ``on_failure="hold"`` parks a job that exhausted its attempts with status ``failed`` — the
dead-letter state, kept for inspection and re-queueing rather than deleted.

Each job runs as the org it belongs to (a system principal), so the gRPC calls it makes carry
that tenant, exactly as a client's call would.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
from lore_runtime import request_context
from pgqueuer.adapters.drivers.asyncpg import AsyncpgDriver
from pgqueuer.adapters.persistence.qb import QueryBuilderEnvironment, QueryQueueBuilder, QuerySchedulerBuilder
from pgqueuer.adapters.persistence.queries import Queries
from pgqueuer.core.executors import DatabaseRetryEntrypointExecutor, EntrypointExecutorParameters
from pgqueuer.core.qm import QueueManager
from pgqueuer.domain.models import Job as QueuedJob
from pgqueuer.domain.settings import DBSettings, Durability

from agent_svc.domain.jobs import KINDS, Job, QueueCounts

log = logging.getLogger(__name__)

CHANNEL = "lore_agent_jobs"
SETTINGS = DBSettings(db_schema="agent", channel=CHANNEL, durability=Durability.durable)
SYSTEM_PRINCIPAL = "system:agent-jobs"
RESTART_PAUSE_S = 1.0
MAX_RESTART_PAUSE_S = 30.0

Handler = Callable[[Job], Awaitable[object]]


def _queries(connection: asyncpg.Connection) -> Queries:
    return Queries(
        AsyncpgDriver(connection),
        qbe=QueryBuilderEnvironment(SETTINGS),
        qbq=QueryQueueBuilder(SETTINGS),
        qbs=QuerySchedulerBuilder(SETTINGS),
    )


async def enqueue_on(connection: asyncpg.Connection, jobs: Sequence[Job]) -> None:
    """Queue ``jobs`` on ``connection`` — inside the caller's transaction when it has one. A job
    identical to one still queued or running (same dedupe key) is skipped, not queued twice."""
    if not jobs:
        return
    await _queries(connection).enqueue(
        [job.kind for job in jobs],
        [job.encode() for job in jobs],
        [0] * len(jobs),
        dedupe_key=[job.dedupe_key for job in jobs],
        on_conflict="skip",
    )


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Attempts before the dead-letter state, and the exponential backoff between them."""

    max_attempts: int = 8
    initial_delay: timedelta = timedelta(seconds=1)
    max_delay: timedelta = timedelta(minutes=5)


class JobWorker:
    """Runs the handlers of queued jobs in the background of the service process.

    The queue manager listens on its own connection (LISTEN needs one for itself); handlers use
    the service's pool through whatever they were built with.
    """

    def __init__(
        self,
        dsn: str,
        handlers: Mapping[str, Handler],
        policy: RetryPolicy = RetryPolicy(),
        *,
        concurrency: int = 4,
        heartbeat_timeout: timedelta = timedelta(seconds=30),
    ) -> None:
        self._dsn = dsn
        self._handlers = dict(handlers)
        self._policy = policy
        self._concurrency = concurrency
        self._heartbeat_timeout = heartbeat_timeout
        self._connection: asyncpg.Connection | None = None
        self._manager: QueueManager | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        """Start working in the background; the first connection is made here, so a database that
        cannot be reached fails the service's start-up like its other stores."""
        self._connection = await asyncpg.connect(self._dsn)
        self._task = asyncio.create_task(self._supervise(), name="agent-job-worker")

    def _manager_on(self, connection: asyncpg.Connection) -> QueueManager:
        manager = QueueManager(_queries(connection), channel=CHANNEL)
        for kind, handler in self._handlers.items():
            manager.entrypoint(
                kind,
                concurrency_limit=self._concurrency,
                on_failure="hold",
                executor_factory=self._executor,
            )(self._runner(kind, handler))
        return manager

    async def _supervise(self) -> None:
        """Run the queue manager; when it fails (the database restarted, the connection broke),
        reconnect and run a new one after a pause. The jobs it held are picked again once their
        heartbeat is stale: nothing is lost, and the worker never silently stops."""
        pause = RESTART_PAUSE_S
        while not self._stopping:
            try:
                if self._connection is None or self._connection.is_closed():
                    self._connection = await asyncpg.connect(self._dsn)
                self._manager = self._manager_on(self._connection)
                await self._run(self._manager)
                pause = RESTART_PAUSE_S
            except Exception as error:  # any failure of the manager: log it, reconnect, go on
                log.warning("job worker stopped (%s); restarting in %.0f s", error or type(error), pause)
                with contextlib.suppress(Exception):
                    if self._connection is not None:
                        await self._connection.close()
                self._connection = None
                await asyncio.sleep(pause)
                pause = min(pause * 2, MAX_RESTART_PAUSE_S)

    def _executor(self, parameters: EntrypointExecutorParameters) -> DatabaseRetryEntrypointExecutor:
        return DatabaseRetryEntrypointExecutor(
            parameters=parameters,
            max_attempts=self._policy.max_attempts,
            initial_delay=self._policy.initial_delay,
            max_delay=self._policy.max_delay,
        )

    @staticmethod
    def _runner(kind: str, handler: Handler) -> Callable[[QueuedJob], Awaitable[None]]:
        async def run(queued: QueuedJob) -> None:
            job = Job.decode(kind, queued.payload or b"{}")
            began = time.monotonic()
            waited_ms = max(0.0, (datetime.now(UTC) - queued.created).total_seconds() * 1000)
            with request_context.bound(request_context.RequestContext(job.org_id, SYSTEM_PRINCIPAL)):
                try:
                    await handler(job)
                except Exception as error:
                    log.warning(
                        "job %s %s failed (attempt %d): %s", kind, queued.id, queued.attempts + 1, error or type(error)
                    )
                    raise
            # Latency of the queue (waited: since it was queued) and of the work itself, per job.
            log.info(
                "job %s %s done: waited %.0f ms, ran %.0f ms",
                kind,
                queued.id,
                waited_ms,
                (time.monotonic() - began) * 1000,
                extra={"job_kind": kind, "org_id": job.org_id, "waited_ms": waited_ms},
            )

        return run

    async def _run(self, manager: QueueManager) -> None:
        await manager.run(
            dequeue_timeout=timedelta(seconds=5),
            batch_size=self._concurrency,
            heartbeat_timeout=self._heartbeat_timeout,
        )

    async def stop(self) -> None:
        self._stopping = True
        if self._manager is not None:
            self._manager.shutdown.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._task, timeout=10)
        if self._connection is not None:
            await self._connection.close()


class PgqueuerStats:
    """The JobStats port on the queue table."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def counts(self, org_id: str) -> list[QueueCounts]:
        return await queue_counts(self._pool, org_id)


async def queue_counts(pool: asyncpg.Pool, org_id: str) -> list[QueueCounts]:
    """One org's jobs by kind and state, counted on the queue table itself (a finished job leaves
    it; a dead one stays, status ``failed``). The org is read from each job's payload."""
    rows = await pool.fetch(
        """
        SELECT entrypoint,
               count(*) FILTER (WHERE status = 'queued' AND attempts = 0) AS queued,
               count(*) FILTER (WHERE status = 'picked') AS running,
               count(*) FILTER (WHERE status = 'queued' AND attempts > 0) AS retrying,
               count(*) FILTER (WHERE status = 'failed') AS dead,
               coalesce(extract(epoch FROM now() - min(created) FILTER (WHERE status = 'queued')), 0) AS oldest
        FROM agent.pgqueuer
        WHERE convert_from(payload, 'UTF8')::jsonb ->> 'org_id' = $1
        GROUP BY entrypoint
        """,
        org_id,
    )
    found = {
        row["entrypoint"]: QueueCounts(
            row["entrypoint"], row["queued"], row["running"], row["retrying"], row["dead"], float(row["oldest"])
        )
        for row in rows
    }
    return [found.get(kind, QueueCounts(kind)) for kind in KINDS]


async def prune_history(pool: asyncpg.Pool, keep: timedelta) -> dict[str, int]:
    """pgqueuer keeps a log row per job state change and per-second statistics, and deletes
    neither: drop what is older than ``keep`` (log rows only once folded into the statistics)."""
    log_rows = await pool.execute(
        "DELETE FROM agent.pgqueuer_log WHERE aggregated AND created < now() - $1::interval", keep
    )
    statistics = await pool.execute("DELETE FROM agent.pgqueuer_statistics WHERE created < now() - $1::interval", keep)
    return {"log_rows": int(log_rows.split()[-1]), "statistics_rows": int(statistics.split()[-1])}
