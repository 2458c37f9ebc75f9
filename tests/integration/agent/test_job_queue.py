"""The job queue's own upkeep on a real Postgres: a job is queued once while an identical one
waits, and pgqueuer's history (which it never deletes) is pruned past its retention."""

from __future__ import annotations

import uuid
from datetime import timedelta

import asyncpg
import pytest
from agent_svc.adapters.pgqueuer_jobs import JobWorker, enqueue_on, prune_history, queue_counts
from agent_svc.domain.jobs import reflect_job

from tests.polling import eventually


@pytest.fixture
async def pool(isolated_pg):
    pool = await asyncpg.create_pool(isolated_pg.app_dsn, min_size=1, max_size=2)
    yield pool
    await pool.close()


async def test_an_identical_waiting_job_is_queued_once_and_counted_for_its_org_only(pool):
    org = f"org-{uuid.uuid4().hex[:12]}"
    job = reflect_job(org, str(uuid.uuid4()), 3)
    async with pool.acquire() as connection:
        await enqueue_on(connection, [job])
        await enqueue_on(connection, [job, reflect_job(org, str(uuid.uuid4()), 1)])

    counts = {kind.kind: kind for kind in await queue_counts(pool, org)}
    elsewhere = {kind.kind: kind for kind in await queue_counts(pool, f"{org}-other")}

    assert counts["reflect"].queued == 2 and counts["episode"].queued == 0
    assert elsewhere["reflect"].queued == 0


async def test_history_past_its_retention_is_pruned(pool):
    org = f"org-{uuid.uuid4().hex[:12]}"
    async with pool.acquire() as connection:
        await enqueue_on(connection, [reflect_job(org, str(uuid.uuid4()), 1), reflect_job(org, str(uuid.uuid4()), 2)])
    ids = [row["id"] for row in await pool.fetch("SELECT id FROM agent.pgqueuer_log ORDER BY id DESC LIMIT 2")]
    # One folded into the statistics ten days ago, one recent and not yet folded.
    await pool.execute(
        "UPDATE agent.pgqueuer_log SET aggregated = true, created = now() - interval '10 days' WHERE id = $1", ids[0]
    )
    await pool.execute(
        "INSERT INTO agent.pgqueuer_statistics (created, count, priority, status, entrypoint)"
        " VALUES (now() - interval '10 days', 1, 0, 'successful', 'reflect')"
    )

    pruned = await prune_history(pool, timedelta(days=7))

    assert pruned == {"log_rows": 1, "statistics_rows": 1}
    remaining = {row["id"] for row in await pool.fetch("SELECT id FROM agent.pgqueuer_log WHERE id = ANY($1)", ids)}
    assert remaining == {ids[1]}


async def test_the_worker_reconnects_after_its_connection_is_killed(pool, isolated_pg):
    done: list[str] = []

    async def handle(job) -> None:
        done.append(str(job.args["session_id"]))

    worker = JobWorker(isolated_pg.app_dsn, {"reflect": handle}, heartbeat_timeout=timedelta(seconds=2))
    await worker.start()
    try:
        first, second = str(uuid.uuid4()), str(uuid.uuid4())
        async with pool.acquire() as connection:
            await enqueue_on(connection, [reflect_job("org-w", first, 1)])
        await eventually(lambda: first in done, 15, "the job was never handled")
        # The database drops the worker's connection (a failover, a restart, an operator).
        killed = worker._connection.get_server_pid()
        assert await pool.fetchval("SELECT pg_terminate_backend($1)", killed)
        async with pool.acquire() as connection:
            await enqueue_on(connection, [reflect_job("org-w", second, 1)])
        await eventually(lambda: second in done, 30, "the job was never handled after the reconnect")
        assert worker._connection.get_server_pid() != killed, "it reconnected"
    finally:
        await worker.stop()
