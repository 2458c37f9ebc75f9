"""Does the embedded engine's maintenance pause the memory service? A search every 0.5 s during and
after a bulk ingest, through gRPC.

    .venv/bin/python bench/maintenance_pause.py [--items 30000] [--after 120] [--interval 20] [--in-process]

Starts its own memory service (bench/memory_process.py) with the background optimisation every
``--interval`` seconds (LORE_QDRANT_OPTIMIZE_SECONDS), in a child process over a copy (the default)
or, with ``--in-process``, in the service's own process (LORE_QDRANT_OPTIMIZE_IN_CHILD=false).
It Remembers ``--items`` facts in one org (batches of 100, 2 writers) and keeps sending a Recall
(k=10, one user's scope, a text of its own each time) every 0.5 s, each on its own schedule (a
stalled one does not delay the next), from the start of the ingest until ``--after`` seconds past
its end. Prints the ingest rate, the searches' p50/p99/max latency during and after the ingest,
the searches above 1 s, the longest pause (the slowest search), and the service's optimisation
log lines (how long each run took and how long its swap held calls).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time

import grpc
from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2 as pb
from lore.memory.v1 import memory_service_pb2_grpc
from measure import UniqueTexts, percentile
from memory_load import QUESTIONS, USERS, ingest
from memory_process import memory_service

METADATA = (("x-lore-org-id", "bench-load"), ("x-lore-principal", "bench"))
PERIOD = 0.5


async def probe(
    stub, texts: UniqueTexts, stop: asyncio.Event, samples: list[tuple[float, float]], failures: list[str]
) -> None:
    """A Recall every ``PERIOD`` seconds until ``stop``: (start offset, latency in seconds) each, or
    its error in ``failures``."""
    rng = random.Random(3)
    began = time.perf_counter()
    pending: set[asyncio.Task[None]] = set()

    async def one(query: str, user: str) -> None:
        started = time.perf_counter()
        try:
            await stub.Recall(
                pb.RecallRequest(query=query, scope=scope_pb2.Scope(user_id=user), k=10), metadata=METADATA, timeout=30
            )
        except grpc.aio.AioRpcError as error:
            failures.append(f"{started - began:.0f} s: {error.code().name}")
            return
        samples.append((started - began, time.perf_counter() - started))

    tick = 0
    while not stop.is_set():
        task = asyncio.create_task(one(texts.take(1)[0], f"user-{rng.randrange(USERS)}"))
        pending.add(task)
        task.add_done_callback(pending.discard)
        tick += 1
        await asyncio.sleep(max(0.0, began + tick * PERIOD - time.perf_counter()))
    await asyncio.gather(*pending)


def summary(label: str, latencies: list[float]) -> str:
    if not latencies:
        return f"{label}: no searches"
    ms = [value * 1000 for value in latencies]
    return (
        f"{label}: {len(ms)} searches, p50 {statistics.median(ms):.1f} ms, p99 {percentile(ms, 99):.1f} ms, "
        f"max {max(ms):.1f} ms, above 1 s: {sum(value > 1000 for value in ms)}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=30_000)
    parser.add_argument("--after", type=float, default=120.0, help="seconds of searches after the ingest")
    parser.add_argument("--interval", type=float, default=20.0, help="LORE_QDRANT_OPTIMIZE_SECONDS")
    parser.add_argument("--in-process", action="store_true", help="optimise in the service's process")
    args = parser.parse_args()
    env = {
        "LORE_QDRANT_OPTIMIZE_SECONDS": str(args.interval),
        "LORE_QDRANT_OPTIMIZE_IN_CHILD": "false" if args.in_process else "true",
    }
    mode = "in the service's process" if args.in_process else "in a child process"
    async with memory_service(env) as service:
        async with service.channel() as channel:
            stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
            texts = UniqueTexts(QUESTIONS, seed=9)
            await stub.Recall(pb.RecallRequest(query="warm up", k=10), metadata=METADATA, timeout=60)
            samples: list[tuple[float, float]] = []
            failures: list[str] = []
            stop = asyncio.Event()
            prober = asyncio.create_task(probe(stub, texts, stop, samples, failures))
            began = time.perf_counter()
            rate = await ingest(stub, args.items, 2)
            ingest_end = time.perf_counter() - began
            await asyncio.sleep(args.after)
            stop.set()
            await prober
        log = (service.root / "memory.log").read_text(errors="replace")
    during = [latency for start, latency in samples if start < ingest_end]
    after = [latency for start, latency in samples if start >= ingest_end]
    print(f"optimisation {mode}, every {args.interval:.0f} s")
    print(f"ingest {args.items} items (batches of 100, 2 writers): {rate:.0f} items/s, {ingest_end:.0f} s")
    print(summary("during the ingest", during))
    print(summary(f"the {args.after:.0f} s after it", after))
    print(summary("all", during + after))
    slowest = max(samples, key=lambda sample: sample[1])
    print(f"failed searches (30 s deadline): {len(failures)} {failures[:5]}")
    print(f"longest pause: {slowest[1]:.2f} s (a search started {slowest[0]:.0f} s into the run)")
    for line in log.splitlines():
        if "optimis" in line:
            try:
                record = json.loads(line)
            except ValueError:
                print(f"  log: {line[:300]}")
                continue
            fields = {key: record[key] for key in record if key not in ("timestamp", "logger", "service")}
            print(f"  log: {fields}")


if __name__ == "__main__":
    asyncio.run(main())
