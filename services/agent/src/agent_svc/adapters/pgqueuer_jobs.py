"""The durable job queue on pgqueuer (schema ``agent``, migration ``0002_job_queue.sql``).

Why pgqueuer: it speaks asyncpg (the driver every Lore service already uses), so a job is queued
on the *same connection and transaction* as the turn or session change that calls for it — the
two commit together or not at all; its retries are database-level (the row goes back to
``queued`` with ``execute_after`` pushed by an exponential backoff, so a retry survives a
restart); a job whose worker died is picked again once its heartbeat is stale (at-least-once);
and ``on_failure="hold"`` parks a job that exhausted its attempts with status ``failed`` — the
dead-letter state, kept for inspection and re-queueing rather than deleted.

Each job runs as the org it belongs to (a system principal), so the gRPC calls it makes carry
that tenant, exactly as a client's call would. Its payload also keeps the ``traceparent`` of the
call that queued it: the job runs in a trace of its own (a turn's trace ends with its answer),
whose root span links back to that call.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
from lore_runtime import request_context
from lore_runtime.stores import postgres_calls
from lore_runtime.telemetry import current_traceparent, job_links
from opentelemetry import context as otel_context
from opentelemetry import trace
from pgqueuer.adapters.drivers.asyncpg import AsyncpgDriver
from pgqueuer.adapters.persistence.qb import QueryBuilderEnvironment, QueryQueueBuilder, QuerySchedulerBuilder
from pgqueuer.adapters.persistence.queries import Queries
from pgqueuer.core.executors import DatabaseRetryEntrypointExecutor, EntrypointExecutorParameters
from pgqueuer.core.qm import QueueManager
from pgqueuer.domain.models import Job as QueuedJob
from pgqueuer.domain.settings import DBSettings, Durability

from agent_svc.domain.jobs import KINDS, Job, JobRecord, QueueCounts

log = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)

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
        [_traced(job.encode()) for job in jobs],
        [0] * len(jobs),
        dedupe_key=[job.dedupe_key for job in jobs],
        on_conflict="skip",
    )


def _traced(payload: bytes) -> bytes:
    """The payload with the queuing call's ``traceparent`` (``Job.decode`` ignores the key)."""
    parent = current_traceparent()
    return json.dumps({**json.loads(payload), "traceparent": parent}, sort_keys=True).encode() if parent else payload


def _traceparent_of(payload: bytes) -> str:
    with contextlib.suppress(ValueError, AttributeError):
        return str(json.loads(payload).get("traceparent") or "")
    return ""


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
            # A new trace (the empty context), linked to the call that queued the job.
            span = tracer.start_as_current_span(
                f"job {kind}",
                context=otel_context.Context(),
                kind=trace.SpanKind.CONSUMER,
                links=job_links(_traceparent_of(queued.payload or b"{}")),
                attributes={"lore.job.kind": kind, "lore.job.id": int(queued.id), "lore.org_id": job.org_id},
            )
            with span, request_context.bound(request_context.RequestContext(job.org_id, SYSTEM_PRINCIPAL)):
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


class PgqueuerAdmin:
    """The JobQueueAdmin port on the queue table."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def counts(self, org_id: str) -> list[QueueCounts]:
        return await queue_counts(self._pool, org_id)

    async def jobs(self, org_id: str, kind: str, state: str, limit: int, before_id: int | None) -> list[JobRecord]:
        """Read from the queue table (a finished job has left it; its log row has no org to list it
        by), the last error from pgqueuer's log: the newest entry of the job with a traceback."""
        async with postgres_calls():
            rows = await self._pool.fetch(_JOBS, org_id, kind, state, limit, before_id)
        return [_job_record(row) for row in rows]

    async def retry_dead(self, org_id: str, kinds: Sequence[str]) -> tuple[int, int]:
        """Queue the org's dead jobs of ``kinds`` again with fresh attempts; the queue's trigger
        wakes the workers. One job per dedupe key, and none whose twin is waiting or running (the
        queue refuses two live jobs with one key): those stay dead. Returns (requeued, skipped)."""
        async with postgres_calls(), self._pool.acquire() as connection, connection.transaction():
            dead = await connection.fetch(_DEAD, org_id, list(kinds))
            live = {
                row["dedupe_key"]
                for row in await connection.fetch(_LIVE_KEYS, [row["dedupe_key"] for row in dead if row["dedupe_key"]])
            }
            chosen, seen = [], set(live)
            for row in dead:
                if row["dedupe_key"] is None or row["dedupe_key"] not in seen:
                    chosen.append(row["id"])
                    seen.add(row["dedupe_key"])
            await connection.execute(_REQUEUE, chosen)
        return len(chosen), len(dead) - len(chosen)


# A job's state from pgqueuer's status: 'picked' is running, 'failed' (held by on_failure="hold")
# dead, 'queued' retrying once an attempt failed.
_JOBS = """
    WITH jobs AS (
        SELECT id, entrypoint, attempts, created, updated, execute_after,
               convert_from(payload, 'UTF8')::jsonb -> 'args' AS args,
               CASE WHEN status = 'picked' THEN 'running'
                    WHEN status = 'failed' THEN 'dead'
                    WHEN attempts > 0 THEN 'retrying'
                    ELSE 'queued' END AS state
        FROM agent.pgqueuer
        WHERE status IN ('queued', 'picked', 'failed')
          AND convert_from(payload, 'UTF8')::jsonb ->> 'org_id' = $1
          AND ($2 = '' OR entrypoint = $2)
          AND ($5::bigint IS NULL OR id < $5::bigint)
    )
    SELECT jobs.*, failure.traceback, failure.created AS failed_at
    FROM jobs
    LEFT JOIN LATERAL (
        SELECT traceback, created FROM agent.pgqueuer_log
        WHERE job_id = jobs.id AND traceback IS NOT NULL
        ORDER BY created DESC, id DESC LIMIT 1
    ) failure ON true
    WHERE $3 = '' OR jobs.state = $3
    ORDER BY jobs.id DESC
    LIMIT $4
"""
MAX_ERROR_CHARS = 2_000


def _job_record(row: asyncpg.Record) -> JobRecord:
    args = json.loads(row["args"]) if isinstance(row["args"], str) else (row["args"] or {})
    error, failed_at = _last_error(row["traceback"]), row["failed_at"]
    through = args.get("through")
    return JobRecord(
        id=int(row["id"]),
        kind=row["entrypoint"],
        state=row["state"],
        attempts=int(row["attempts"]),
        created_at=row["created"],
        updated_at=row["updated"],
        next_attempt_at=row["execute_after"] if row["state"] in ("queued", "retrying") else None,
        last_error=error,
        last_error_at=failed_at if error else None,
        session_id=str(args.get("session_id") or ""),
        through_sequence=through if isinstance(through, int) and not isinstance(through, bool) else 0,
        erasure_id=str(args.get("erasure_id") or ""),
    )


def _last_error(traceback: object) -> str:
    """What failed, from pgqueuer's traceback record: a retried attempt keeps its error as the retry's
    ``reason`` (the record itself is the RetryRequested that re-queued it), a dead one as the exception."""
    record = json.loads(traceback) if isinstance(traceback, str) else traceback
    if not isinstance(record, dict):
        return ""
    context = record.get("additional_context") or {}
    reason = context.get("reason") if isinstance(context, dict) else None
    text = reason or record.get("exception_message") or record.get("exception_type") or ""
    return str(text)[:MAX_ERROR_CHARS]


_DEAD = """
    SELECT id, dedupe_key FROM agent.pgqueuer
    WHERE status = 'failed' AND entrypoint = ANY($2::text[])
      AND convert_from(payload, 'UTF8')::jsonb ->> 'org_id' = $1
    ORDER BY id DESC
    FOR UPDATE SKIP LOCKED
"""
_LIVE_KEYS = """
    SELECT dedupe_key FROM agent.pgqueuer WHERE dedupe_key = ANY($1::text[]) AND status IN ('queued', 'picked')
"""
_REQUEUE = """
    UPDATE agent.pgqueuer
    SET status = 'queued', attempts = 0, execute_after = now(), updated = now(), queue_manager_id = NULL
    WHERE id = ANY($1::bigint[])
"""


async def queue_counts(pool: asyncpg.Pool, org_id: str) -> list[QueueCounts]:
    """One org's jobs by kind and state, counted on the queue table itself (a finished job leaves
    it; a dead one stays, status ``failed``). The org is read from each job's payload."""
    async with postgres_calls():
        rows = await pool.fetch(
            _COUNTS.format(where="WHERE convert_from(payload, 'UTF8')::jsonb ->> 'org_id' = $1"), org_id
        )
    return _counts(rows)


async def queue_totals(pool: asyncpg.Pool) -> list[QueueCounts]:
    """Every org's jobs by kind and state together: what the metrics export (an org label would
    make a series per tenant)."""
    return _counts(await pool.fetch(_COUNTS.format(where="")))


_COUNTS = """
    SELECT entrypoint,
           count(*) FILTER (WHERE status = 'queued' AND attempts = 0) AS queued,
           count(*) FILTER (WHERE status = 'picked') AS running,
           count(*) FILTER (WHERE status = 'queued' AND attempts > 0) AS retrying,
           count(*) FILTER (WHERE status = 'failed') AS dead,
           coalesce(extract(epoch FROM now() - min(created) FILTER (WHERE status = 'queued')), 0) AS oldest
    FROM agent.pgqueuer
    {where}
    GROUP BY entrypoint
"""


def _counts(rows: Sequence[asyncpg.Record]) -> list[QueueCounts]:
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
