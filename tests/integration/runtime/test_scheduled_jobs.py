"""Scheduled jobs on the real Postgres: one replica per run, once per interval, failures kept."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import asyncpg
import pytest
from lore_runtime.scheduled import JobClaims, ScheduledJob, run_once

from tests.polling import eventually


@pytest.fixture
async def pool(migrated_pg):
    pool = await asyncpg.create_pool(migrated_pg.app_dsn, min_size=1, max_size=6)
    await pool.execute("DELETE FROM memory.scheduled_runs")
    yield pool
    await pool.close()


def _job(name: str, runs: list[str], interval: timedelta = timedelta(hours=24), fail: bool = False) -> ScheduledJob:
    async def work():
        runs.append(name)
        await asyncio.sleep(0.05)  # a deliberately slow job: the other replicas try while it runs
        if fail:
            raise RuntimeError("the store said no")
        return {"done": len(runs)}

    return ScheduledJob(name, interval, work)


async def test_of_many_replicas_exactly_one_runs_a_due_job(pool):
    runs: list[str] = []
    job = _job("nightly", runs)
    replicas = [JobClaims(pool, "memory", holder=f"replica-{index}") for index in range(5)]

    ran = await asyncio.gather(*(run_once(claims, job) for claims in replicas))

    assert sum(ran) == 1 and runs == ["nightly"]
    (row,) = await replicas[0].status()
    assert (row["last_status"], row["last_error"]) == ("ok", "")
    assert row["last_result"] == '{"done": 1}'


async def test_a_finished_job_is_not_due_again_before_its_interval(pool):
    runs: list[str] = []
    claims = JobClaims(pool, "memory", holder="replica-a")
    assert await run_once(claims, _job("daily", runs))
    assert not await run_once(JobClaims(pool, "memory", holder="replica-b"), _job("daily", runs))

    assert await run_once(claims, _job("daily", runs, interval=timedelta(0)))
    assert runs == ["daily", "daily"]


async def test_a_crashed_holders_lease_expires_and_another_replica_takes_over(pool):
    crashed = JobClaims(pool, "memory", holder="crashed")
    job = ScheduledJob("hourly", timedelta(hours=1), lambda: asyncio.sleep(0), lease=timedelta(milliseconds=50))
    assert await crashed.claim(job)  # ... and never finishes
    runs: list[str] = []
    survivor = JobClaims(pool, "memory", holder="survivor")
    assert not await run_once(survivor, _job("hourly", runs))

    assert await eventually(lambda: survivor.claim(job), what="the crashed holder's lease lapsed")


async def test_a_failing_job_is_recorded_and_does_not_raise(pool):
    claims = JobClaims(pool, "memory")
    runs: list[str] = []

    assert await run_once(claims, _job("flaky", runs, fail=True))

    (row,) = await claims.status()
    assert row["last_status"] == "failed"
    assert row["last_error"] == "RuntimeError: the store said no"
