"""Memory service under load, through gRPC: ingest rate and Recall latency with concurrent clients.

    .venv/bin/python bench/memory_load.py --items 10000 [--clients 4 [1 ...]] [--queries 400] [--optimize-wait 0]
        [--data DIR]

Starts its own memory service process (bench/memory_process.py), Remembers ``--items``
synthetic facts in one org (batches of 100, ``--writers`` concurrent writers), then runs
``--queries`` hybrid Recalls (k=10, query embedding included, default options: access recorded,
by the service's write-behind) from ``--clients`` concurrent clients and prints throughput,
p50/p95/p99, the CPU per call of the service and its stores (bench.measure.CpuMeter: from the
phase's start until they are idle again, the access flushes included) and the service's RSS.
Every Recall of the run, warm-up included, asks a text of its own, so none is answered from the
service's query-embedding cache: bench.measure.UniqueTexts over 216 questions about the facts'
people and things, then the same with a prefix or suffix ("Remind me: Who collects orchids?
thanks!"), one per text the service embeds (it leaves the names out: "What about Ana and orchids?"
and "What about Ben and orchids?" are one). The cache's hits and misses over the Recalls are
printed (bench.measure.EmbeddingCacheMeter).
With ``--optimize-wait N`` it measures again after N seconds, once the background optimiser
(LORE_QDRANT_OPTIMIZE_SECONDS, set to 5 here) has indexed the shard. With ``--queries-when PATH``
it waits after the ingest until PATH exists: a 100k ingest takes ten minutes, which can run while
the machine is busy, and the Recalls then run once it is quiet. With ``--data DIR`` the engine's
files are kept in DIR, and a later run with the same ``--items`` and DIR serves them again instead
of ingesting (Postgres and Redis start empty; they hold no items): the 100k set is ingested once
(with ``--optimize-wait``, so that it is stored optimised) for any number of Recall runs, which
then run without the background optimiser (its default period). With several ``--clients``
values the Recalls run once per value, one after the other on the same service.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from pathlib import Path

from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2 as pb
from lore.memory.v1 import memory_service_pb2_grpc
from lore_devstack import free_port
from measure import CpuMeter, EmbeddingCacheMeter, UniqueTexts, percentile, rss_breakdown, service_cpu_seconds
from memory_process import memory_service

METADATA = (("x-lore-org-id", "bench-load"), ("x-lore-principal", "bench"))
NAMES = ["Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Goran", "Hana", "Ivo", "Jun", "Kemal", "Lea"]
THINGS = [
    "green tea",
    "jazz records",
    "mountain bikes",
    "sourdough",
    "chess openings",
    "Rust compilers",
    "Lisbon trams",
    "orchids",
    "marathon training",
    "film cameras",
    "board games",
    "sea kayaks",
]
VERBS = ["loves", "is learning about", "collects", "writes a blog on", "was gifted", "dislikes"]
USERS = 50
QUESTIONS = [
    *(f"Who {verb} {thing}?" for verb in VERBS for thing in THINGS),
    *(f"What about {name} and {thing}?" for name in NAMES for thing in THINGS),
]


def fact(rng: random.Random) -> tuple[str, str]:
    return f"{rng.choice(NAMES)} {rng.choice(VERBS)} {rng.choice(THINGS)} since {rng.randint(1990, 2025)}.", (
        f"user-{rng.randrange(USERS)}"
    )


async def ingest(stub, items: int, writers: int) -> float:
    rng = random.Random(11)
    batches = []
    for start in range(0, items, 100):
        batch = [fact(rng) for _ in range(min(100, items - start))]
        batches.append(
            pb.RememberRequest(
                memories=[
                    pb.MemoryInput(
                        content=text,
                        memory_type=pb.MEMORY_TYPE_FACT,
                        scope=scope_pb2.Scope(user_id=user),
                        idempotency_key=f"load-{start + n}",
                    )
                    for n, (text, user) in enumerate(batch)
                ]
            )
        )
    queue: asyncio.Queue[pb.RememberRequest] = asyncio.Queue()
    for batch in batches:
        queue.put_nowait(batch)

    async def writer() -> None:
        while not queue.empty():
            await stub.Remember(queue.get_nowait(), metadata=METADATA, timeout=120)

    began = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(writers)))
    return items / (time.perf_counter() - began)


async def recall_load(stub, texts: list[str], clients: int, rng: random.Random) -> tuple[float, list[float]]:
    """A Recall of each of ``texts``, each by a user picked at random, over ``clients`` clients."""
    work = [(text, f"user-{rng.randrange(USERS)}") for text in texts]
    latencies: list[float] = []

    async def client(share: list[tuple[str, str]]) -> None:
        for query, user in share:
            started = time.perf_counter()
            await stub.Recall(
                pb.RecallRequest(query=query, scope=scope_pb2.Scope(user_id=user), k=10),
                metadata=METADATA,
                timeout=30,
            )
            latencies.append((time.perf_counter() - started) * 1000)

    began = time.perf_counter()
    await asyncio.gather(*(client(work[n::clients]) for n in range(clients)))
    return len(work) / (time.perf_counter() - began), latencies


async def measured_recalls(stub, service, texts: list[str], clients: int, users: random.Random, label: str) -> None:
    """One Recall load, printed with its latencies, the CPU per call of every process and the cores
    the memory service used over it (its CPU seconds over the load's wall seconds)."""
    meter = CpuMeter.of_children(service.root)
    meter.start()
    cpu_before, began = service_cpu_seconds(service.pid).get("memory", 0.0), time.perf_counter()
    throughput, latencies = await recall_load(stub, texts, clients, users)
    cores = (service_cpu_seconds(service.pid).get("memory", 0.0) - cpu_before) / (time.perf_counter() - began)
    print(line(label, throughput, latencies))
    print(f"  memory service: {cores:.2f} cores over the Recalls")
    print((await meter.stop_async(len(texts))).line(), flush=True)


async def wait_for_file(path: Path) -> None:
    print(f"waiting for {path} before the Recalls", flush=True)
    while not path.exists():  # noqa: ASYNC110 (a file another process creates: nothing to await)
        await asyncio.sleep(1)


def line(label: str, throughput: float, latencies: list[float]) -> str:
    return (
        f"{label}: {throughput:.1f} recalls/s, p50 {statistics.median(latencies):.1f} ms, "
        f"p95 {percentile(latencies, 95):.1f} ms, p99 {percentile(latencies, 99):.1f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--clients", type=int, nargs="+", default=[4])
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--optimize-wait", type=float, default=0.0)
    parser.add_argument("--queries-when", type=Path, help="after the ingest, wait until this file exists")
    parser.add_argument("--data", type=Path, help="keep the engine's files here; reuse them if they hold --items")
    args = parser.parse_args()
    metrics = f"127.0.0.1:{free_port()}"
    cache = EmbeddingCacheMeter({"memory": metrics})
    ingested = args.data / "bench-items" if args.data else None
    reused = ingested is not None and ingested.exists() and ingested.read_text().strip() == str(args.items)
    if args.data and not reused and args.data.exists() and any(args.data.iterdir()):
        raise SystemExit(f"{args.data} holds another run's data (not {args.items} items): give an empty directory")
    env = {"LORE_MEMORY_METRICS_ADDR": metrics}
    if not reused:  # stored items were optimised by the run that ingested them: no maintenance pass now
        env["LORE_QDRANT_OPTIMIZE_SECONDS"] = "5"
    async with memory_service(env, args.data) as service:
        async with service.channel() as channel:
            stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
            meter = CpuMeter.of_children(service.root)
            if reused:
                print(f"reusing the {args.items} items in {args.data}")
            else:
                meter.start()
                rate = await ingest(stub, args.items, args.writers)
                print(f"ingest {args.items} items (batches of 100, {args.writers} writers): {rate:.0f} items/s")
                print((await meter.stop_async(args.items)).line(unit="item"), flush=True)
                if ingested is not None:
                    ingested.write_text(f"{args.items}\n")
            if args.queries_when is not None:
                await wait_for_file(args.queries_when)
            texts, users = UniqueTexts(QUESTIONS, seed=5), random.Random(5)
            cache.start()
            await recall_load(stub, texts.take(20), 1, users)  # warm-up, with texts of its own
            when = "reusing the stored items" if reused else "right after ingest"
            for clients in args.clients:
                label = f"recall at {args.items} items, {clients} clients, {when}"
                await measured_recalls(stub, service, texts.take(args.queries), clients, users, label)
            if args.optimize_wait:
                await asyncio.sleep(args.optimize_wait)
                for clients in args.clients:
                    label = f"recall, {clients} clients, after {args.optimize_wait:.0f} s of background optimisation"
                    await measured_recalls(stub, service, texts.take(args.queries), clients, users, label)
            print(cache.line("every Recall, warm-up included: "))
            print(f"memory service RSS: {rss_breakdown(service.pid)}")


if __name__ == "__main__":
    asyncio.run(main())
