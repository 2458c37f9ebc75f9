"""Memory index adapters: bulk upsert time and filtered top-10 search latency.

    .venv/bin/python bench/qdrant_index.py [--edge-items 20000] [--client-items 2000] [--searches 300]

Random unit 384-d vectors spread over 10 orgs x 20 users; each search is a top-10 with the
org condition plus a user_id scope (the recall path). qdrant-edge is measured before and
after ``optimize()`` (the background task's job); qdrant-client runs in local mode
(brute-force Python emulation, API compatibility only), so it gets fewer items. In-process, no
services: the CPU per search printed is this process's (``time.process_time``, every thread of it,
the engine's included) over the searches.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime

import numpy as np
from measure import CpuMeter, CpuUse
from memory_svc.adapters.qdrant_client_index import QdrantClientMemoryIndex
from memory_svc.adapters.qdrant_edge_index import QdrantEdgeMemoryIndex
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope
from qdrant_client import AsyncQdrantClient

DIMENSION = 384
ORGS = [f"org-{n}" for n in range(10)]
USERS = [f"user-{n}" for n in range(20)]
TYPES = list(MemoryType)
BATCH = 1000


def make_items(count: int, rng: np.random.Generator) -> tuple[list[MemoryItem], np.ndarray]:
    now = datetime.now(UTC)
    items = [
        MemoryItem(
            id=str(uuid.uuid4()),
            org_id=ORGS[n % len(ORGS)],
            content=f"memory number {n}",
            memory_type=TYPES[int(rng.integers(len(TYPES)))],
            scope=Scope(user_id=USERS[int(rng.integers(len(USERS)))]),
            importance=0.5,
            status=MemoryStatus.ACTIVE,
            metadata={"n": str(n)},
            provenance=Provenance(),
            entities=(),
            created_at=now,
            valid_at=now,
            last_accessed_at=now,
        )
        for n in range(count)
    ]
    vectors = rng.standard_normal((count, DIMENSION)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return items, vectors


def percentiles(samples: list[float]) -> str:
    ms = sorted(sample * 1000 for sample in samples)
    cuts = statistics.quantiles(ms, n=100, method="inclusive")
    return f"p50 {cuts[49]:7.2f} ms  p95 {cuts[94]:7.2f} ms  p99 {cuts[98]:7.2f} ms  (n={len(ms)})"


async def upsert_all(index, items: list[MemoryItem], vectors: np.ndarray) -> float:
    start = time.perf_counter()
    for offset in range(0, len(items), BATCH):
        await index.upsert(items[offset : offset + BATCH], vectors[offset : offset + BATCH])
    return time.perf_counter() - start


async def search_latencies(index, searches: int, rng: np.random.Generator) -> tuple[list[float], float, CpuUse]:
    samples, returned = [], 0
    queries = rng.standard_normal((searches, DIMENSION)).astype(np.float32)
    meter = CpuMeter.of_this_process()
    meter.start()
    for query in queries:
        org, user = ORGS[int(rng.integers(len(ORGS)))], USERS[int(rng.integers(len(USERS)))]
        start = time.perf_counter()
        hits = await index.search(org, Scope(user_id=user), query, k=10)  # ids and scores
        samples.append(time.perf_counter() - start)
        returned += len(hits)
    return samples, returned / searches, meter.stop(searches, idle=False)


async def bench_edge(count: int, searches: int) -> None:
    rng = np.random.default_rng(7)
    items, vectors = make_items(count, rng)
    with tempfile.TemporaryDirectory(prefix="lore-bench-edge-") as path:
        index = await QdrantEdgeMemoryIndex.open(path, embedding_model="bench/random", dimension=DIMENSION)
        try:
            elapsed = await upsert_all(index, items, vectors)
            print(f"qdrant-edge: upsert {count} x {DIMENSION}-d in {elapsed:.2f} s ({count / elapsed:,.0f} items/s)")
            samples, mean_hits, cpu = await search_latencies(index, searches, rng)
            print(f"qdrant-edge: filtered top-10 before optimize  {percentiles(samples)}  mean hits {mean_hits:.1f}")
            print(cpu.line())
            start = time.perf_counter()
            await index.optimize()
            print(f"qdrant-edge: optimize {time.perf_counter() - start:.1f} s")
            samples, mean_hits, cpu = await search_latencies(index, searches, rng)
            print(f"qdrant-edge: filtered top-10 after optimize   {percentiles(samples)}  mean hits {mean_hits:.1f}")
            print(cpu.line())
        finally:
            start = time.perf_counter()
            await index.close()
            print(f"qdrant-edge: close {time.perf_counter() - start:.2f} s")
        start = time.perf_counter()
        index = await QdrantEdgeMemoryIndex.open(path, embedding_model="bench/random", dimension=DIMENSION)
        print(
            f"qdrant-edge: reopen {time.perf_counter() - start:.2f} s, "
            f"{sum([await index.count(org) for org in ORGS])} items"
        )
        await index.close()


async def bench_client_local(count: int, searches: int) -> None:
    rng = np.random.default_rng(8)
    items, vectors = make_items(count, rng)
    index = await QdrantClientMemoryIndex.open(
        AsyncQdrantClient(location=":memory:"), embedding_model="bench/random", dimension=DIMENSION, owns_client=True
    )
    try:
        elapsed = await upsert_all(index, items, vectors)
        print(
            f"qdrant-client local: upsert {count} x {DIMENSION}-d in {elapsed:.2f} s ({count / elapsed:,.0f} items/s)"
        )
        samples, mean_hits, cpu = await search_latencies(index, searches, rng)
        print(f"qdrant-client local: filtered top-10            {percentiles(samples)}  mean hits {mean_hits:.1f}")
        print(cpu.line())
    finally:
        await index.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edge-items", type=int, default=20_000)
    parser.add_argument("--client-items", type=int, default=2_000)
    parser.add_argument("--searches", type=int, default=300)
    args = parser.parse_args()
    await bench_edge(args.edge_items, args.searches)
    await bench_client_local(args.client_items, args.searches)


if __name__ == "__main__":
    asyncio.run(main())
