"""The job queue's own upkeep on a real Postgres: a job is queued once while an identical one
waits, and pgqueuer's history (which it never deletes) is pruned past its retention; the org's
jobs are listed (ListJobs) in the states pgqueuer itself puts them in, with their last error."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import asyncpg
import pytest
from agent_svc.adapters.pgqueuer_jobs import (
    JobWorker,
    PgqueuerAdmin,
    RetryPolicy,
    enqueue_on,
    prune_history,
    queue_counts,
)
from agent_svc.domain.jobs import episode_job, erase_job, reflect_job

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


async def test_the_org_jobs_are_listed_in_the_states_the_worker_leaves_them_with_their_last_error(pool, isolated_pg):
    org, other = f"org-{uuid.uuid4().hex[:12]}", f"org-{uuid.uuid4().hex[:12]}"
    doomed, waiting, later = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    admin = PgqueuerAdmin(pool)
    release = asyncio.Event()

    # The queue's database is shared with other tests: their leftover jobs are done at once, so
    # none of them holds the one running slot an entrypoint has, or fails in this test's place.
    async def refused(job) -> None:
        if job.org_id == org:
            raise RuntimeError(f"the memory service refused session {job.args['session_id']}")

    async def held(job) -> None:
        if job.org_id == org:
            await release.wait()

    # Dead: one attempt, retried once after 10 ms, then held as failed by pgqueuer.
    dying = JobWorker(isolated_pg.app_dsn, {"reflect": refused}, RetryPolicy(1, timedelta(milliseconds=10)))
    await dying.start()
    try:
        async with pool.acquire() as connection:
            await enqueue_on(connection, [reflect_job(org, doomed, 3)])
        await eventually(lambda: admin.jobs(org, "", "dead", 10, None), 30, "the job never died")
    finally:
        await dying.stop()
    # Retrying (one failure, the next attempt an hour away) and running (its handler holds it).
    async with pool.acquire() as connection:
        await enqueue_on(
            connection, [episode_job(org, waiting), erase_job(org, "erase-1"), reflect_job(other, later, 1)]
        )
    busy = JobWorker(isolated_pg.app_dsn, {"episode": refused, "erase": held}, RetryPolicy(5, timedelta(minutes=1)))
    await busy.start()
    try:
        await eventually(lambda: admin.jobs(org, "episode", "retrying", 10, None), 30, "the job was never retried")
        await eventually(lambda: admin.jobs(org, "erase", "running", 10, None), 30, "the job never ran")

        listed = await admin.jobs(org, "", "", 10, None)
        first_page = await admin.jobs(org, "", "", 2, None)
        second_page = await admin.jobs(org, "", "", 2, first_page[-1].id)
        theirs = await admin.jobs(other, "", "", 10, None)
    finally:
        release.set()
        await busy.stop()

    erase, episode, reflect = listed
    assert [job.id for job in listed] == sorted((job.id for job in listed), reverse=True), "newest first"
    assert (reflect.kind, reflect.state, reflect.attempts) == ("reflect", "dead", 1)
    assert (reflect.session_id, reflect.through_sequence) == (doomed, 3)
    assert reflect.last_error == f"the memory service refused session {doomed}"
    assert reflect.last_error_at is not None and reflect.next_attempt_at is None
    assert (episode.kind, episode.state, episode.attempts, episode.session_id) == ("episode", "retrying", 1, waiting)
    assert episode.last_error == f"the memory service refused session {waiting}"
    assert episode.next_attempt_at > episode.updated_at + timedelta(seconds=50)
    assert (erase.kind, erase.state, erase.erasure_id, erase.last_error) == ("erase", "running", "erase-1", "")
    assert erase.last_error_at is None and erase.session_id == ""
    # Filters and keyset pages; another org's job is never among them.
    assert [job.id for job in await admin.jobs(org, "reflect", "", 10, None)] == [reflect.id]
    assert [job.id for job in await admin.jobs(org, "", "dead", 10, None)] == [reflect.id]
    assert [job.id for job in first_page] == [erase.id, episode.id]
    assert [job.id for job in second_page] == [reflect.id]
    assert [job.session_id for job in theirs] == [later]
    # A job that finished has left the queue, and the listing.
    assert [job.id for job in await admin.jobs(org, "erase", "", 10, None)] == []
