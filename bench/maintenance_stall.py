"""The embedded store alone: how long its optimisation stalls the event loop, in the process
(``optimize()``) and in a child over a copy (``edge_maintenance.optimize_in_child``).

    .venv/bin/python bench/maintenance_stall.py [--items 10000] [--in-process]

Writes ``--items`` random 384-d items (bench/qdrant_index.py's) into a fresh QdrantEdgeMemoryIndex,
then optimises it while a search (top-10, one user's scope) runs every 0.5 s and a ticker measures
the event loop's lag every 10 ms; writes go on during the run (50 items every 0.5 s). Prints the
run's duration, the longest event-loop lag, the searches' p50/p99/max, the writes' max, and that
every item written is found after. No services: a quicker, direct view than maintenance_pause.py.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time

import numpy as np
from measure import percentile
from memory_svc.adapters.edge_maintenance import optimize_in_child
from memory_svc.adapters.qdrant_edge_index import QdrantEdgeMemoryIndex
from memory_svc.domain.model import Scope
from qdrant_index import ORGS, USERS, make_items

PERIOD = 0.5


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--in-process", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(5)
    with tempfile.TemporaryDirectory(prefix="lore-stall-") as root:
        store = await QdrantEdgeMemoryIndex.open(root, embedding_model="bench", dimension=384)
        items, vectors = make_items(args.items + 4000, rng)
        for start in range(0, args.items, 1000):
            await store.upsert(items[start : start + 1000], vectors[start : start + 1000])
        done = asyncio.Event()
        lags: list[float] = []
        searches: list[float] = []
        writes: list[float] = []
        written = args.items

        async def ticker() -> None:
            last = time.perf_counter()
            while not done.is_set():
                await asyncio.sleep(0.01)
                now = time.perf_counter()
                lags.append(now - last - 0.01)
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
        if args.in_process:
            await store.optimize()
            detail = ""
        else:
            run = await optimize_in_child(store)
            detail = (
                ""
                if run is None
                else (
                    f"; writes held {run.writes_held_seconds:.2f} s, calls held (swap) {run.calls_held_seconds:.2f} s,"
                    f" {run.journaled} writes journaled"
                )
            )
        took = time.perf_counter() - began
        done.set()
        await asyncio.gather(*background)
        found = sum([await store.count(org) for org in ORGS])
        await store.close()
    ms = [value * 1000 for value in searches]
    mode = "in the process" if args.in_process else "in a child over a copy"
    print(f"optimisation of {args.items} new items {mode}: {took:.1f} s{detail}")
    print(f"longest event-loop lag: {max(lags) * 1000:.0f} ms")
    print(
        f"searches every 0.5 s: {len(ms)}, p50 {statistics.median(ms):.1f} ms, p99 {percentile(ms, 99):.1f} ms,"
        f" max {max(ms):.1f} ms; writes of 50: max {max(writes, default=0) * 1000:.0f} ms"
    )
    print(f"items found after: {found} of {written}")


if __name__ == "__main__":
    asyncio.run(main())
