"""The scheduled-job loop survives the outages it is written for: a claim that fails because Postgres
is unreachable is logged and tried again next period; the loop never dies of it."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import asyncpg
import pytest
from lore_runtime.scheduled import ScheduledJob, run_periodically


class FlakyClaims:
    """Refuses the first claims as an unreachable database would, then lets the job run."""

    def __init__(self, failures: list[BaseException]) -> None:
        self.failures = failures
        self.ran = asyncio.Event()

    async def claim(self, job: ScheduledJob) -> bool:
        if self.failures:
            raise self.failures.pop(0)
        return True

    async def finish(self, job: ScheduledJob, result) -> None:
        self.ran.set()


@pytest.mark.parametrize(
    "failure",
    [ConnectionRefusedError("no route"), asyncpg.exceptions.CannotConnectNowError("starting"), TimeoutError()],
)
async def test_an_unreachable_database_is_retried_next_period(failure) -> None:
    claims = FlakyClaims([failure, failure])

    async def work() -> dict[str, int]:
        return {"done": 1}

    loop = asyncio.create_task(
        run_periodically(claims, [ScheduledJob("tidy", timedelta(hours=1), work)], timedelta(milliseconds=10))
    )
    try:
        await asyncio.wait_for(claims.ran.wait(), timeout=5)  # the loop lived through both refusals
    finally:
        loop.cancel()
    assert claims.failures == []
