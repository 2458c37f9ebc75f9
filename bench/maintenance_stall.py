"""The embedded stores alone: how long their optimisation, or a purge's compaction, stalls the event
loop, in the process and in a child over a copy (``edge_maintenance.optimize_in_child``).

    .venv/bin/python bench/maintenance_stall.py [--items 10000] [--in-process] [--purge]

Writes ``--items`` random 384-d items (bench/qdrant_index.py's) into fresh embedded stores
(``EdgeVectorStores``), then optimises the items shard (``optimize()`` in the process, else in a
child) or, with ``--purge``, first deletes the memories of 4 of the 20 users (~20 %) and purges
both shards (``EdgeVectorStores.compact()``, in the process with ``--in-process``, which is
``LORE_QDRANT_OPTIMIZE_IN_CHILD=false``), while a search (top-10, one user's scope) runs every
0.5 s and a ticker measures the event loop's lag every 10 ms; writes go on during the run (50
items every 0.5 s). Searches and writes go through the guarded stores the use cases get, so they
wait where the service's calls would. Prints the run's duration, the longest event-loop lag (and
the maintenance step of each wake-up later than 250 ms), the searches' p50/p99/max, the writes'
max, the longest call, and that every item written (and not erased) is found after. No services:
a quicker, direct view than maintenance_pause.py.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import statistics
import tempfile
import time

import numpy as np
from measure import percentile
from memory_svc.adapters.edge_maintenance import Step, optimize_in_child
from memory_svc.adapters.qdrant_edge_stores import EdgeVectorStores
from memory_svc.domain.model import Scope
from qdrant_index import ORGS, USERS, make_items

PERIOD = 0.5
LATE = 0.25  # a wake-up later than this is a pause
ERASED_USERS = USERS[:4]  # of 20: ~20 % of the items


class Runs(logging.Handler):
    """The figures a purge logs for each shard a child compacted (qdrant_edge_stores' log line)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.runs: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if hasattr(record, "calls_held_seconds"):
            self.runs.append(
                f"{record.shard}: writes held {record.writes_held_seconds:.2f} s (snapshot"
                f" {getattr(record, 'snapshot_held_seconds', math.nan):.2f} s), calls held (swap)"  # nan: older code
                f" {record.calls_held_seconds:.2f} s, {record.journaled} writes journaled"
            )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--in-process", action="store_true")
    parser.add_argument("--purge", action="store_true", help="erase ~20 %% of the items, then purge")
    args = parser.parse_args()
    rng = np.random.default_rng(5)
    with tempfile.TemporaryDirectory(prefix="lore-stall-") as root:
        stores = await EdgeVectorStores.open(
            root, embedding_model="bench", dimension=384, in_child=not args.in_process, niceness=10
        )
        store = stores.items  # guarded: waits while an in-process purge has the shards closed
        items, vectors = make_items(args.items + 4000, rng)
        for start in range(0, args.items, 1000):
            await store.upsert(items[start : start + 1000], vectors[start : start + 1000])
        erased = 0
        if args.purge:  # a live store has been optimised by the background task before
            await store.store.optimize()
            erased = sum(item.scope.user_id in ERASED_USERS for item in items[: args.items])
            for org in ORGS:
                for user in ERASED_USERS:
                    await store.delete_scope(org, Scope(user_id=user))
        done = asyncio.Event()
        lags: list[float] = []
        searches: list[float] = []
        writes: list[float] = []
        written = args.items

        step = "before"
        pauses: list[str] = []

        async def observe(at: Step) -> None:
            nonlocal step
            step = at.name

        async def ticker() -> None:
            last = time.perf_counter()
            while not done.is_set():
                await asyncio.sleep(0.01)
                now = time.perf_counter()
                lags.append(now - last - 0.01)
                if lags[-1] > LATE:
                    pauses.append(f"{lags[-1] * 1000:.0f} ms ({step})")
                last = now

        async def searcher() -> None:
            n = 0
            while not done.is_set():
                started = time.perf_counter()
                await store.search(ORGS[n % len(ORGS)], Scope(user_id=USERS[n % len(USERS)]), vectors[n], k=10)
                searches.append(time.perf_counter() - started)
                n += 1
                await asyncio.sleep(max(0.0, PERIOD - (time.perf_counter() - started)))

        async def writer() -> None:
            nonlocal written
            while not done.is_set() and written + 50 <= len(items):
                started = time.perf_counter()
                await store.upsert(items[written : written + 50], vectors[written : written + 50])
                written += 50
                writes.append(time.perf_counter() - started)
                await asyncio.sleep(max(0.0, PERIOD - (time.perf_counter() - started)))

        background = [asyncio.create_task(work()) for work in (ticker, searcher, writer)]
        began = time.perf_counter()
        if args.purge:
            runs = Runs()
            logger = logging.getLogger("memory_svc.adapters.qdrant_edge_stores")
            logger.setLevel(logging.INFO)
            logger.addHandler(runs)
            purged = await stores.compact(observe=observe)
            logger.removeHandler(runs)
            kept = ", ".join(f"{part.store} {part.outcome}, {part.kept} kept" for part in purged)
            detail = "".join(f"; {run}" for run in [kept, *runs.runs])
        elif args.in_process:
            await store.store.optimize()
            detail = ""
        else:
            run = await optimize_in_child(store.store, observe=observe)
            detail = (
                ""
                if run is None
                else (
                    f"; writes held {run.writes_held_seconds:.2f} s"
                    f" (snapshot {getattr(run, 'snapshot_held_seconds', math.nan):.2f} s),"
                    f" calls held (swap) {run.calls_held_seconds:.2f} s,"
                    f" {run.journaled} writes journaled"
                )
            )
        took = time.perf_counter() - began
        done.set()
        await asyncio.gather(*background)
        found = sum([await store.count(org) for org in ORGS])
        await stores.close()
    ms = [value * 1000 for value in searches]
    mode = "in the process" if args.in_process else "in a child over a copy"
    work = f"purge of {args.items} items ({erased} erased)" if args.purge else f"optimisation of {args.items} new items"
    print(f"{work} {mode}: {took:.1f} s{detail}")
    late = sum(lag > LATE for lag in lags)
    print(f"longest event-loop lag: {max(lags) * 1000:.0f} ms; wake-ups later than 250 ms: {late} of {len(lags)}")
    if pauses:
        print(f"  late wake-ups (the maintenance step they fell in): {', '.join(pauses)}")
    print(
        f"searches every 0.5 s: {len(ms)}, p50 {statistics.median(ms):.1f} ms, p99 {percentile(ms, 99):.1f} ms,"
        f" max {max(ms):.1f} ms; writes of 50: max {max(writes, default=0) * 1000:.0f} ms"
    )
    longest = max([*searches, *writes])
    print(f"longest call: {longest * 1000:.0f} ms")
    print(f"items found after: {found} of {written - erased}")


if __name__ == "__main__":
    asyncio.run(main())
