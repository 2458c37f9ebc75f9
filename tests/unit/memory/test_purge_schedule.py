"""The purge schedule (usecases/purge.py): deferred requests coalesce into one run, a request made
while a run is under way gets a run of its own after it, and a pending request kept in a file
survives a restart."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from memory_svc.adapters.file_flag import FileFlag
from memory_svc.usecases.maintenance_ports import PurgedStore
from memory_svc.usecases.purge import PurgeSchedule

from tests.polling import eventually, holds_for


class CountingStore:
    def __init__(self) -> None:
        self.runs = 0
        self.release = asyncio.Event()
        self.release.set()
        self.started = asyncio.Event()

    async def compact(self) -> list[PurgedStore]:
        self.runs += 1
        self.started.set()
        await self.release.wait()
        return [PurgedStore("fake", "compacted", kept=1)]


@contextlib.asynccontextmanager
async def running(schedule: PurgeSchedule):
    task = asyncio.create_task(schedule.run_forever())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def until(condition) -> None:
    await eventually(condition, what="the purge schedule's state", interval=0.01)


async def test_requests_made_together_are_served_by_one_purge(tmp_path: Path) -> None:
    store = CountingStore()
    schedule = PurgeSchedule([store], FileFlag(tmp_path / "pending"), delay=0.1)
    async with running(schedule):
        for _ in range(5):
            assert schedule.request() == [PurgedStore("all", "scheduled", detail="within 0.1 s")]
        await until(lambda: not schedule.pending)
        await holds_for(lambda: store.runs <= 1, 0.3, "no second purge within three delays")
    assert store.runs == 1


async def test_a_request_made_during_a_purge_gets_another_purge_after_it(tmp_path: Path) -> None:
    store = CountingStore()
    store.release.clear()
    schedule = PurgeSchedule([store], FileFlag(tmp_path / "pending"), delay=0.0)
    async with running(schedule):
        schedule.request()
        await store.started.wait()
        schedule.request()  # this erasure may have deleted after the copy began
        store.release.set()
        await until(lambda: store.runs == 2 and not schedule.pending)


async def test_a_pending_purge_survives_a_restart_and_runs_then(tmp_path: Path) -> None:
    before = PurgeSchedule([CountingStore()], FileFlag(tmp_path / "pending"), delay=3600)
    before.request()  # the process dies before the delay is over

    store = CountingStore()
    after = PurgeSchedule([store], FileFlag(tmp_path / "pending"), delay=0.0)
    async with running(after):
        await until(lambda: store.runs == 1 and not after.pending)
    assert not (tmp_path / "pending").exists()


async def test_an_operators_purge_runs_now_and_serves_what_was_pending(tmp_path: Path) -> None:
    store = CountingStore()
    schedule = PurgeSchedule([store], FileFlag(tmp_path / "pending"), delay=3600)
    schedule.request()

    assert await schedule.run_now() == [PurgedStore("fake", "compacted", kept=1)]
    assert store.runs == 1 and not schedule.pending
