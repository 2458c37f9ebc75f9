"""Agent: ProcessTurn end to end through the gateway with no language model, the import rate,
and whether reflection keeps up.

    .venv/bin/python -m bench.agent_load [--memories 10000] [--sessions 10] [--turns 30]
                                         [--import-turns 2000] [--rate 20] [--seconds 60]

Starts the whole stack as the README does (``lore up``, embedded back ends, a temporary data
directory, free ports) and writes ``--memories`` memories for one user (as bench.assembler_load
does), then:

1. ProcessTurn (POST /v1/sessions/{id}/turns), ``--turns`` turns per session: one session back to
   back; ``--sessions`` sessions each speaking every ``--pace`` seconds (people typing); the same
   sessions back to back (saturation). Latency percentiles, turns/s, the CPU each service spent per
   turn (the reflection of those turns runs meanwhile, as it would in production);
2. import: ``--import-turns`` historical turns into one session through POST …/turns:import in
   batches of 200 (transcript and message memories, so indexing included): turns/s, CPU per turn;
   then how fast the queued reflection reads them (turns/s, from the session's ``reflectedTurns``);
3. sustained: turns posted at ``--rate`` per second across the sessions for ``--seconds``; the
   reflection backlog (turns stored but not yet reflected) sampled every 5 s — it must not grow.

CPU per turn is bench.measure.CpuMeter's: every process of the stack, from the phase's start until
it is idle again (so the reflection of the phase's turns is included), ÷ the turns.

Every call goes through ``lore_client`` (``start_session``, ``process_turn``, ``get_session``,
``import_turns``), as a user makes it, with default options; latencies include parsing the answer.
Every turn of the run says something of its own, so no turn's query embedding is answered from
the memory service's cache: bench.measure.UniqueTexts over ``LINES`` (24 remarks and questions),
then the same with a prefix or suffix ("Oh, and I live in Lisbon now. cheers."), one per text the
service embeds for the turn's recall (it leaves the names out); imported turns end with their
number. The cache's hits and misses over all the phases are printed
(bench.measure.EmbeddingCacheMeter). It does hit, as in production: reflection writes a turn in
which it found nothing else as a message memory alone, one text, which the turn's own recall
embedded moments before when the turn names no one.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from lore_client import LoreClient, NewTurn

from bench.assembler_load import USER, seed
from bench.local_stack import stack_environment, start, stop
from bench.measure import (
    REMARK_PREFIXES,
    REMARK_SUFFIXES,
    CpuMeter,
    EmbeddingCacheMeter,
    UniqueTexts,
    percentile,
    tree_rss_mib,
)

KEY = "bench-development-key-0123456789"
LINES = [
    "I'm vegetarian, by the way.",
    "We decided to go with Postgres for the billing service.",
    "I'll send the migration plan on Friday.",
    "How is Caroline doing with the Lisbon offsite?",
    "I prefer tea over coffee in the afternoon.",
    "Can you remind me what we said about the hiring plan?",
    "I live in Lisbon now.",
    "Honestly I'm a bit frustrated with the quarterly report.",
    "Let's go with option B for the book club.",
    "What did Priya say about the marathon?",
    "I work at Acme as a data engineer.",
    "Thanks, that helps a lot!",
    "My sister Ana visits in May.",
    "I'm allergic to peanuts.",
    "We moved the standup to 9:30.",
    "Can you summarise what Tom said about the new flat?",
    "I started learning Go last month.",
    "Remind me to call the bank on Monday.",
    "I don't like long emails; bullet points please.",
    "The billing migration slipped again.",
    "Who is handling the hiring plan now?",
    "I'm running the marathon in October.",
    "Felix asked about the sourdough starter.",
    "I usually work from home on Tuesdays.",
]


def turn_texts() -> UniqueTexts:
    """What the run's turns say, each text once (see the docstring)."""
    return UniqueTexts(LINES, seed=13, prefixes=REMARK_PREFIXES, suffixes=REMARK_SUFFIXES)


def figures(label: str, latencies: list[float], count: int, seconds: float) -> str:
    return (
        f"{label:<44} {count / seconds:7.1f}/s  p50 {percentile(latencies, 50):6.1f} ms"
        f"  p95 {percentile(latencies, 95):6.1f} ms  p99 {percentile(latencies, 99):6.1f} ms"
    )


async def start_session(lore: LoreClient, name: str) -> str:
    return (await lore.start_session({"userId": USER, "agentId": "bench-agent"}, request_id=name)).id


async def post_turn(lore: LoreClient, session_id: str, content: str, key: str) -> float:
    """One ProcessTurn, in milliseconds; a refusal raises ``LoreApiError``."""
    began = time.perf_counter()
    await lore.process_turn(session_id, content, role="user", turn_idempotency_key=key)
    return (time.perf_counter() - began) * 1000


async def backlog(lore: LoreClient, session_ids: list[str]) -> int:
    """Turns stored but not yet reflected, over the sessions."""
    behind = 0
    for session_id in session_ids:
        session = await lore.get_session(session_id)
        behind += session.turn_count - session.reflected_turns
    return behind


async def caught_up(lore: LoreClient, session_ids: list[str]) -> float:
    """Seconds until reflection has read every stored turn of the sessions."""
    began = time.monotonic()
    while True:
        if await backlog(lore, session_ids) == 0:
            return time.monotonic() - began
        await asyncio.sleep(0.5)


async def process_turns(
    lore: LoreClient, meter: CpuMeter, texts: UniqueTexts, ids: list[str], turns: int, pace: float, label: str
) -> None:
    """Each session posts ``turns`` turns of ``texts``, one every ``pace`` seconds (0: as soon as answered)."""
    latencies: list[float] = []
    said = {session_id: texts.take(turns) for session_id in ids}

    async def talk(number: int, session_id: str) -> None:
        await asyncio.sleep(pace * number / len(ids))  # sessions do not all speak at the same instant
        for turn, line in enumerate(said[session_id]):
            began = time.monotonic()
            latencies.append(await post_turn(lore, session_id, line, f"{label}-{number}-{turn}"))
            await asyncio.sleep(max(0.0, pace - (time.monotonic() - began)))

    meter.start()
    began = time.monotonic()
    await asyncio.gather(*(talk(number, session_id) for number, session_id in enumerate(ids)))
    seconds = time.monotonic() - began
    rhythm = f"a turn every {pace:g} s each" if pace else "back to back"
    print(figures(f"ProcessTurn, {len(ids)} session(s), {rhythm}", latencies, len(latencies), seconds))
    # The stack goes idle once reflection is done; caught_up's polling is counted (a GetSession per session per 0.5 s).
    cpu, reflected = await asyncio.gather(meter.stop_async(len(latencies)), caught_up(lore, ids))
    print(cpu.line(unit="turn"))
    print(f"  reflection caught up {reflected:.1f} s after the last turn")


async def import_and_reflect(lore: LoreClient, meter: CpuMeter, count: int) -> None:
    session_id = await start_session(lore, "bench-import")
    said = datetime.now(UTC) - timedelta(days=30)
    turns = [
        NewTurn(
            role="user" if index % 2 == 0 else "assistant",
            content=f"{LINES[index % len(LINES)]} ({index})",
            created_at=said + timedelta(seconds=30 * index),
            idempotency_key=f"import-{index}",
        )
        for index in range(count)
    ]
    importer = lore.with_options(timeout=300)  # a batch of 200 stores and indexes 200 turns
    latencies = []
    meter.start()
    began = time.monotonic()
    for start_index in range(0, count, 200):
        batch = turns[start_index : start_index + 200]
        started = time.perf_counter()
        await importer.import_turns(session_id, batch)
        latencies.append((time.perf_counter() - started) * 1000)
    seconds = time.monotonic() - began
    label = "import, batches of 200 (indexing included)"
    print(f"{label:<44} {count / seconds:7.1f} turns/s  p50 batch {percentile(latencies, 50):.0f} ms")
    cpu, reflected = await asyncio.gather(meter.stop_async(count), caught_up(lore, [session_id]))
    print(cpu.line(unit="turn"))
    print(
        f"{'reflection of the imported turns':<44} {count / (seconds + reflected):7.1f} turns/s end to end "
        f"(the backlog of {count} cleared {reflected:.0f} s after the import)"
    )


async def sustained(
    lore: LoreClient, meter: CpuMeter, texts: UniqueTexts, session_ids: list[str], rate: float, seconds: float
) -> None:
    interval = 1 / rate
    said = texts.take(int(rate * seconds) + 2)  # one turn every interval, at most
    latencies: list = []
    refused: list = []
    samples: list[tuple[float, int]] = []
    began = time.monotonic()
    pending: set[asyncio.Task[float]] = set()
    sent = 0
    meter.start()
    next_sample = began
    while (now := time.monotonic()) - began < seconds:
        session_id = session_ids[sent % len(session_ids)]
        task = asyncio.create_task(post_turn(lore, session_id, said[sent], f"rate-{sent}"))
        task.add_done_callback(lambda done: (refused if done.exception() else latencies).append(done))
        pending.add(task)
        task.add_done_callback(pending.discard)
        sent += 1
        if now >= next_sample:
            samples.append((now - began, await backlog(lore, session_ids)))
            next_sample += 5
        await asyncio.sleep(max(0.0, began + sent * interval - time.monotonic()))
    await asyncio.gather(*pending, return_exceptions=True)
    answered = [task.result() for task in latencies]
    print(figures(f"ProcessTurn at {rate:.0f}/s for {seconds:.0f} s", answered, sent, time.monotonic() - began))
    if refused:
        print(f"  refused: {len(refused)} (first: {refused[0].exception()})")
    print("  reflection backlog (turns) every 5 s: " + " ".join(str(behind) for _, behind in samples))
    cpu, cleared = await asyncio.gather(meter.stop_async(sent), caught_up(lore, session_ids))
    print(cpu.line(unit="turn"))
    print(f"  backlog cleared {cleared:.1f} s after the last turn")


async def main_async(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        data_dir = Path(temporary) / "data"
        env, url = stack_environment(data_dir, KEY, **dict(setting.split("=", 1) for setting in args.env))
        process, ready = start(data_dir, env, url)
        try:
            limits = httpx.Limits(max_connections=64)  # every session keeps its connection
            async with LoreClient(url, KEY, timeout=60, max_retries=0, limits=limits) as lore:
                written = await seed(lore, args.memories)
                print(f"stack ready in {ready:.1f} s; {args.memories} memories written in {written:.0f} s")
                await asyncio.sleep(args.settle)
                ids = [await start_session(lore, f"bench-loop-{index}") for index in range(args.sessions)]
                meter = CpuMeter.of_stack(process.pid, data_dir)
                texts, cache = turn_texts(), EmbeddingCacheMeter.of_env(env)
                cache.start()
                await process_turns(lore, meter, texts, ids[:1], args.turns, 0, "single")
                await process_turns(lore, meter, texts, ids, args.turns, args.pace, "paced")
                await process_turns(lore, meter, texts, ids, args.turns, 0, "saturated")
                await import_and_reflect(lore, meter, args.import_turns)
                await sustained(lore, meter, texts, ids, args.rate, args.seconds)
                print(cache.line("every phase: "))
                print(f"resident memory of the whole stack: {tree_rss_mib(process.pid):.0f} MiB")
        finally:
            stop(process)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--turns", type=int, default=30, help="turns per session in each latency run")
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between a session's turns (paced run)")
    parser.add_argument("--import-turns", type=int, default=2_000)
    parser.add_argument("--rate", type=float, default=20.0, help="turns per second in the sustained run")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--settle", type=float, default=20.0, help="seconds to wait after writing the memories")
    parser.add_argument("--env", action="append", default=[], help="LORE_X=value for the stack (repeatable)")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
