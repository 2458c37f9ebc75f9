"""Local stack: time from `./lore up` to ready (fresh and restarted), and REST search latency.

    .venv/bin/python -m bench.local_stack [--searches 200] [--memories 500]

Starts the stack as the README does in a temporary data directory on free ports, writes
memories through POST /v1/memories, then times POST /v1/memories:search sequentially (both with
``lore_client``, as a user would, default options), with the CPU each service spent per search
(bench.measure.CpuMeter: every process of the stack, from the searches' start until it is idle again).
Every search asks a text of its own, and the warm-up's text is none of them, so no search is
answered from the memory service's query-embedding cache: bench.measure.UniqueTexts over ~500
questions about the memories' people, activities and times, then the same rephrased with a prefix
or suffix, one per text the service embeds (it leaves the names out). The cache's hits and misses
over the searches are printed (bench.measure.EmbeddingCacheMeter).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import secrets
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
from lore_client import LoreClient, NewMemory
from lore_devstack import free_port

from bench.measure import CpuMeter, CpuUse, EmbeddingCacheMeter, UniqueTexts, percentile, tree_rss_mib

ROOT = Path(__file__).resolve().parents[1]
KEY = "bench-development-key-0123456789"
SUBJECTS = ["Caroline", "Melanie", "John", "Priya", "Tom", "Aiko", "Lena", "Omar"]
ACTIVITIES = [
    "went to a support group",
    "bought a violin",
    "ran a marathon",
    "painted a sunset",
    "adopted a puppy",
    "visited Lisbon",
    "started learning Go",
    "baked sourdough bread",
    "moved to a new flat",
    "joined a book club",
]
WHEN = ["yesterday", "last week", "in May", "on Sunday", "two years ago"]


def questions() -> list[str]:
    """What a user asks about such memories: ~500 distinct questions."""
    return [
        *(f"What did {subject} do {when}?" for subject in SUBJECTS for when in WHEN),
        *(f"Who {activity} {when}?" for activity in ACTIVITIES for when in WHEN),
        *(
            f"Is it true that {subject} {activity} {when}?"
            for subject in SUBJECTS
            for activity in ACTIVITIES
            for when in WHEN
        ),
        *(f"What do you know about {subject}?" for subject in SUBJECTS),
    ]


def stack_environment(data_dir: Path, api_key: str, **extra: str) -> tuple[dict[str, str], str]:
    """The environment of a stack of its own: free ports, ``data_dir``, a fixed development key,
    none of the caller's ``LORE_*`` settings but ``extra``; and the gateway's URL."""
    ports = {name: free_port() for name in ("MEMORY", "OBSERVATIONS", "ASSEMBLER", "AGENT", "GATEWAY")}
    env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    env.update({f"LORE_{name}_ADDR": f"127.0.0.1:{port}" for name, port in ports.items()})
    # Pages of their own (bench.measure.EmbeddingCacheMeter reads the memory and observations ones).
    env.update(
        {
            f"LORE_{name}_METRICS_ADDR": f"127.0.0.1:{free_port()}"
            for name in ("MEMORY", "OBSERVATIONS", "ASSEMBLER", "AGENT")
        }
    )
    env.update(LORE_DATA_DIR=str(data_dir), LORE_DEV_API_KEY=api_key, LORE_LOG_LEVEL="WARNING")
    env.update(LORE_SERVICE_TOKEN=secrets.token_hex(32), **extra)  # benchmarks calling gRPC directly send it
    return env, f"http://127.0.0.1:{ports['GATEWAY']}"


def start(data_dir: Path, env: dict[str, str], url: str, *, root: Path = ROOT) -> tuple[subprocess.Popen[bytes], float]:
    """``root``: the checkout whose ``lore up`` to run (another commit's worktree, to compare)."""
    began = time.monotonic()
    log = open(data_dir.parent / "bench-lore-up.log", "ab")
    process = subprocess.Popen(
        [str(root / "lore"), "up"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    while True:
        if process.poll() is not None:
            raise SystemExit(f"lore up exited with {process.returncode}; see {log.name}")
        with contextlib.suppress(httpx.HTTPError):  # not listening yet: poll again
            if httpx.get(f"{url}/v1/status", timeout=2).status_code == 200:
                return process, time.monotonic() - began
        time.sleep(0.1)


def stop(process: subprocess.Popen[bytes]) -> float:
    began = time.monotonic()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=120)
    return time.monotonic() - began


async def exercise(
    url: str, texts: list[str], queries: list[str], meter: CpuMeter, cache: EmbeddingCacheMeter
) -> tuple[float, float, list[float], CpuUse, str]:
    """Write ``texts`` in batches of 100, then time each search sequentially, through ``lore_client``."""
    async with LoreClient(url, KEY, timeout=60, max_retries=0) as lore:
        began = time.monotonic()
        for offset in range(0, len(texts), 100):
            batch = [
                NewMemory(content=text, memory_type="message", idempotency_key=f"bench-{offset + n}")
                for n, text in enumerate(texts[offset : offset + 100])
            ]
            await lore.remember(batch, scope="bench")
        write_seconds = time.monotonic() - began

        await lore.search("warm-up", "bench")  # a text no timed search asks
        latencies = []
        cache.start()
        meter.start()
        began = time.monotonic()
        for query in queries:
            start_one = time.perf_counter()
            await lore.search(query, "bench", k=10)
            latencies.append((time.perf_counter() - start_one) * 1000)
        search_seconds = time.monotonic() - began
        return write_seconds, search_seconds, latencies, await meter.stop_async(len(queries)), cache.line()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--memories", type=int, default=500)
    args = parser.parse_args()
    random.seed(7)
    with tempfile.TemporaryDirectory() as temporary:
        data_dir = Path(temporary) / "data"
        env, url = stack_environment(data_dir, KEY)

        process, fresh = start(data_dir, env, url)
        texts = [
            f"{random.choice(SUBJECTS)} {random.choice(ACTIVITIES)} {random.choice(WHEN)}."
            for _ in range(args.memories)
        ]
        queries = UniqueTexts(questions(), seed=7).take(args.searches)
        meter = CpuMeter.of_stack(process.pid, data_dir)
        cache = EmbeddingCacheMeter.of_env(env)
        write_seconds, search_seconds, latencies, cpu, cached = asyncio.run(exercise(url, texts, queries, meter, cache))
        rss = tree_rss_mib(process.pid)
        stopped = stop(process)
        process, restarted = start(data_dir, env, url)
        stop(process)

    print(f"time to ready, fresh data dir : {fresh:6.1f} s")
    print(f"time to ready, restart        : {restarted:6.1f} s")
    print(f"clean stop (SIGTERM)          : {stopped:6.1f} s")
    print(
        f"remember {args.memories} memories in batches of 100: {write_seconds:.2f} s "
        f"({args.memories / write_seconds:.0f} memories/s)"
    )
    print(
        f"search x{args.searches} (sequential, REST, k=10): {args.searches / search_seconds:.1f} req/s, "
        f"p50 {statistics.median(latencies):.1f} ms, p95 {percentile(latencies, 95):.1f} ms, "
        f"p99 {percentile(latencies, 99):.1f} ms, max {max(latencies):.1f} ms"
    )
    print(cpu.line())
    print(cached)
    print(f"resident memory of the whole stack after the searches: {rss:.0f} MiB")


if __name__ == "__main__":
    main()
