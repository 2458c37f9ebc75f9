"""Assembler: the pure pipeline with 200 candidates, then AssembleContext and Prime end to end
through the gateway's REST API with 10k memories in the org.

    .venv/bin/python -m bench.assembler_load [--memories 10000] [--calls 200] [--clients 1,4,10]

Starts the whole stack as the README does (``lore up``, embedded back ends, a temporary data
directory, free ports), writes the memories through POST /v1/memories (one user, facts,
preferences, commitments and messages, a few near-duplicates), forms a few beliefs and an
engagement, then times POST /v1/context:assemble (``--recall-k``: 20 by default, as the
service's default; 100 makes each call rank ~113 candidates) and GET /v1/memory/prime (with an
initial message) at each concurrency, with the CPU each service spent per call (bench.measure.CpuMeter:
every process of the stack, from the run's start until it is idle again). Every call goes
through ``lore_client``, as a user makes it, with default options (access recorded); latencies
include parsing the answer.

Every call of the run, warm-up included, Prime's and AssembleContext's alike, asks a text of its
own, so none is answered from the memory service's query-embedding cache: bench.measure.UniqueTexts
over ``QUESTIONS`` (400 questions about the seeded people and things), then the same with a prefix
or suffix ("Quick question: How is Tom doing with the marathon? no rush."), one per text the
memory service embeds (it leaves the names out, so "How is Tom…" and "How is Aiko…" about the
marathon are one). The cache's hits and misses over the timed calls are printed
(bench.measure.EmbeddingCacheMeter).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import random
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from lore_client import AssembledContext, LoreClient, NewEvidence, NewMemory, Prime

from bench import assembler_pipeline
from bench.local_stack import stack_environment, start, stop
from bench.measure import CpuMeter, EmbeddingCacheMeter, UniqueTexts, percentile, tree_rss_mib

KEY = "bench-development-key-0123456789"
USER = "bench-user"
PEOPLE = ["Caroline", "Melanie", "John", "Priya", "Tom", "Aiko", "Lena", "Omar", "Noor", "Felix"]
THINGS = [
    "the billing migration",
    "the Lisbon offsite",
    "the violin lessons",
    "the marathon",
    "the book club",
    "the quarterly report",
    "the new flat",
    "the Go course",
    "the sourdough starter",
    "the hiring plan",
]
VERBS = [
    "is worried about",
    "is excited about",
    "asked twice about",
    "postponed",
    "finished",
    "started",
    "wants help with",
    "complained about",
    "celebrated",
    "has questions on",
]
TYPES = ["MEMORY_TYPE_FACT"] * 5 + ["MEMORY_TYPE_PREFERENCE", "MEMORY_TYPE_COMMITMENT"] + ["MEMORY_TYPE_MESSAGE"] * 3
QUESTIONS = [
    *(
        question
        for person in PEOPLE
        for thing in THINGS
        for question in (
            f"How is {person} doing with {thing}?",
            f"What did {person} say about {thing}?",
            f"Any news from {person} on {thing}?",
        )
    ),
    *(f"Who {verb} {thing}?" for verb in VERBS for thing in THINGS),
]


def memory(rng: random.Random, index: int) -> NewMemory:
    person, thing, verb = rng.choice(PEOPLE), rng.choice(THINGS), rng.choice(VERBS)
    when = datetime.now(UTC) - timedelta(days=rng.uniform(0, 400))
    return NewMemory(
        content=f"{person} {verb} {thing} ({index}).",
        memory_type=rng.choice(TYPES),
        scope=USER,
        importance=round(rng.uniform(0.2, 0.95), 2),
        entities=[person.lower()],
        valid_at=when,
        idempotency_key=f"bench-{index}",
    )


async def seed(lore: LoreClient, count: int) -> float:
    """Write ``count`` memories in batches of 100 (timed: the seconds returned), then the beliefs
    and the hypothesis the assembler and the agent read."""
    rng = random.Random(7)
    writer = lore.with_options(timeout=120)  # a batch of 100 embeds and indexes 100 memories
    began = time.monotonic()
    for start_index in range(0, count, 100):
        await writer.remember([memory(rng, index) for index in range(start_index, min(count, start_index + 100))])
    seconds = time.monotonic() - began
    for person in PEOPLE:
        await lore.observe(
            "",  # agentId left unset, as this seed has always sent it
            kind="relationship_fact",
            subject_type="entity",
            subject_id=person.lower(),
            slot="role",
            summary=f"{person} is on the user's team and reports on {rng.choice(THINGS)}.",
            evidence=[NewEvidence(stance="support", source_type="message", source_id="t-1")],
        )
    await lore.form_hypothesis("The team's delays come from the billing migration.")
    return seconds


async def timed(
    lore: LoreClient,
    calls: int,
    clients: int,
    request: Callable[[LoreClient, int, str], Awaitable[AssembledContext | Prime]],
    texts: UniqueTexts,
) -> tuple[list[float], float, int]:
    """``calls`` requests over ``clients`` concurrent callers, each with a new text of ``texts``;
    the latency of each is the typed method's, answer parsed (what a user of ``lore_client`` waits)."""
    latencies: list[float] = []
    sizes: list[int] = []
    queue = list(enumerate(texts.take(calls)))

    async def worker() -> None:
        while queue:
            index, text = queue.pop()
            began = time.perf_counter()
            answer = await request(lore, index, text)
            latencies.append((time.perf_counter() - began) * 1000)
            sizes.append(len(answer.manifest))

    began = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return latencies, calls / (time.monotonic() - began), round(sum(sizes) / max(1, len(sizes)))


async def assemble_call(lore: LoreClient, index: int, text: str, recall_k: int = 20) -> AssembledContext:
    return await lore.assemble_context(
        text,
        USER,
        session_id=f"bench-session-{index % 20}",
        options={"persona": "You are a helpful chief of staff.", "recallK": recall_k},
    )


async def prime_call(lore: LoreClient, index: int, text: str) -> Prime:
    return await lore.prime(USER, initial_message=text)


def line(label: str, latencies: list[float], rate: float, candidates: int) -> str:
    return (
        f"{label:<36} {rate:7.1f}/s  p50 {percentile(latencies, 50):7.1f} ms  p95 {percentile(latencies, 95):7.1f} ms"
        f"  p99 {percentile(latencies, 99):7.1f} ms  ({candidates} candidates in the manifest)"
    )


async def end_to_end(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        data_dir = Path(temporary) / "data"
        env, url = stack_environment(data_dir, KEY, **dict(setting.split("=", 1) for setting in args.env))
        process, ready = start(data_dir, env, url)
        try:
            limits = httpx.Limits(max_connections=32)  # every caller keeps its connection
            async with LoreClient(url, KEY, timeout=30, max_retries=0, limits=limits) as lore:
                seconds = await seed(lore, args.memories)
                print(
                    f"stack ready in {ready:.1f} s; {args.memories} memories written in {seconds:.0f} s "
                    f"({args.memories / seconds:.0f}/s)"
                )
                await asyncio.sleep(args.settle)  # let the background index optimisation finish
                texts = UniqueTexts(QUESTIONS, seed=3)  # one stream: no text asked twice in the run
                for index, (first, second) in enumerate(zip(texts.take(5), texts.take(5), strict=True)):
                    await assemble_call(lore, index, first)
                    await prime_call(lore, index, second)
                assemble = functools.partial(assemble_call, recall_k=args.recall_k)
                chosen = {"assemble": ("AssembleContext", assemble), "prime": ("Prime", prime_call)}
                meter, cache = CpuMeter.of_stack(process.pid, data_dir), EmbeddingCacheMeter.of_env(env)
                cache.start()
                for name, call in (chosen[rpc] for rpc in args.rpcs):
                    for clients in args.clients:
                        meter.start()
                        latencies, rate, size = await timed(lore, args.calls, clients, call, texts)
                        print(line(f"{name}, {clients} client(s)", latencies, rate, size))
                        print((await meter.stop_async(args.calls)).line())
                print(cache.line("every timed call: "))
                print(f"resident memory of the whole stack: {tree_rss_mib(process.pid):.0f} MiB")
        finally:
            stop(process)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--clients", type=lambda text: [int(n) for n in text.split(",")], default=[1, 4, 10])
    parser.add_argument("--settle", type=float, default=30.0, help="seconds to wait after writing")
    parser.add_argument("--recall-k", type=int, default=20, help="AssembleContext's options.recallK (20 by default)")
    parser.add_argument("--rpcs", type=lambda text: text.split(","), default=["assemble", "prime"])
    parser.add_argument("--env", action="append", default=[], help="LORE_X=value for the stack (repeatable)")
    parser.add_argument("--skip-pipeline", action="store_true")
    args = parser.parse_args()
    if not args.skip_pipeline:
        figures, cold_cpu, _ = assembler_pipeline.measure(candidates=200, iterations=1000)
        print(
            f"pipeline alone, {figures['candidates']:.0f} candidates: p50 {figures['p50_ms']:.2f} ms, "
            f"p95 {figures['p95_ms']:.2f} ms, p99 {figures['p99_ms']:.2f} ms "
            f"({figures['per_second']:.0f}/s; warm token cache p95 {figures['warm_p95_ms']:.2f} ms)"
        )
        print(cold_cpu.line())
    asyncio.run(end_to_end(args))


if __name__ == "__main__":
    main()
