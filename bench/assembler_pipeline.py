"""The assembler's pure pipeline: ``assemble`` latency on a realistic turn, real tokenizer.

    .venv/bin/python -m bench.assembler_pipeline [--candidates 200] [--iterations 2000] [--seed 7]

A turn's candidates: pinned persona, user profile text, working summary, guidance, tool results
(rendered by ``render_tool_result``) and caller opinions; the rest memories (384-d random unit
vectors, a few near-duplicates of others, some preferences and commitments), episodes, open threads
and observations, texts of 10–80 words. Measured twice: cold (every text counted again each
iteration, the headline ``p50_ms``/``p95_ms``/``p99_ms``) and warm (``warm_*``: the counter's
cross-call cache holds the texts, as on a session's later turns). Target: p95 ≤ 5 ms for 200
candidates on a slow 2-core machine. In-process, no services: the CPU per call printed (and
``cpu_ms``/``warm_cpu_ms``) is this process's (``time.process_time``) over each timed loop. BLAS
runs on one thread, as in the assembler service (``lore_runtime.blas.use_one_thread`` before numpy
is imported): OpenBLAS's spinning pool would add CPU the service does not spend.
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from datetime import UTC, datetime, timedelta

from lore_runtime import blas

blas.use_one_thread()  # as the services do, before anything imports numpy (hence the imports below)

from assembler_svc.adapters.tiktoken_counter import TiktokenCounter  # noqa: E402
from assembler_svc.domain.model import AssemblyPolicy, Candidate, Outcome, Section, Source  # noqa: E402
from assembler_svc.domain.pipeline import assemble  # noqa: E402
from assembler_svc.domain.sections import section_for_memory_type, section_for_observation_kind  # noqa: E402
from assembler_svc.domain.tool_results import ToolResult, render_tool_result  # noqa: E402

from bench.measure import CpuMeter, CpuUse, percentile, rss_mib  # noqa: E402

DIMENSION = 384
NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
VOCABULARY = (
    "the user said they prefer to work in the morning and asked about their project deadline next week "
    "because the team in Lisbon moved the review meeting again after the client changed scope twice "
    "she mentioned her sister Ana visits in May and that coffee after noon keeps her awake "
    "we agreed to send a summary every Friday with the open questions budget risks and decisions "
    "he dislikes long emails wants bullet points and often works late on Tuesdays from home"
).split()
MEMORY_TYPES = ["fact"] * 6 + ["preference", "commitment", "opinion", "decision", "message", "insight"]
OBSERVATION_KINDS = ["operator_preference", "relationship_fact", "project_state", "risk", "habit"]


def _text(rng: random.Random, low: int = 10, high: int = 80) -> str:
    words = [rng.choice(VOCABULARY) for _ in range(rng.randint(low, high))]
    sentences, start = [], 0
    while start < len(words):
        end = min(len(words), start + rng.randint(6, 16))
        sentence = " ".join(words[start:end])
        sentences.append(sentence[0].upper() + sentence[1:] + rng.choice(".!?."))
        start = end
    return " ".join(sentences)


def _unit(rng: random.Random) -> list[float]:
    vector = [rng.gauss(0.0, 1.0) for _ in range(DIMENSION)]
    norm = sum(x * x for x in vector) ** 0.5
    return [x / norm for x in vector]


def make_candidates(count: int = 200, seed: int = 7) -> list[Candidate]:
    rng = random.Random(seed)
    pinned = [
        Candidate(Source.CALLER, "persona", Section.PERSONA, _text(rng, 120, 200), pinned=True),
        Candidate(Source.CALLER, "user-profile", Section.USER_PROFILE, _text(rng, 30, 50), pinned=True),
        Candidate(Source.WORKING_MEMORY, "summary", Section.WORKING_SUMMARY, _text(rng, 60, 120), pinned=True),
        Candidate(Source.ENGAGEMENT, "mood", Section.GUIDANCE, "The user seems frustrated today.", pinned=True),
        Candidate(Source.ENGAGEMENT, "week", Section.GUIDANCE, "Week 3 of the engagement.", pinned=True),
        Candidate(Source.ENGAGEMENT, "unknown-1", Section.GUIDANCE, _text(rng, 10, 20), pinned=True),
        *(
            Candidate(
                Source.CALLER,
                f"tool-{n}",
                Section.TOOL_RESULTS,
                render_tool_result(
                    ToolResult(
                        tool_name=f"crm.lookup_{n}",
                        intent="find the account",
                        summary=_text(rng, 15, 40),
                        fields={"account": {"id": f"A-{n}", "owner": "Ana", "open": True}, "items": [{"qty": n}]},
                        salient_fields=["account.id", "account.open", "items.0.qty"],
                    )
                ),
                pinned=True,
            )
            for n in range(3)
        ),
        Candidate(Source.CALLER, "opinion-0", Section.OPINIONS, _text(rng, 10, 20), pinned=True),
    ]
    ranked: list[Candidate] = []
    vectors: list[tuple[float, ...]] = []
    remaining = max(0, count - len(pinned))
    for n in range(remaining):
        kind = rng.random()
        when = NOW - timedelta(hours=rng.uniform(0, 24 * 90))
        scores = {"similarity": rng.uniform(-0.1, 0.9), "recency": rng.random(), "importance": rng.random()}
        if kind < 0.70:  # memories, 1 in 12 a near-duplicate of an earlier one
            if vectors and rng.random() < 1 / 12:
                base = rng.choice(vectors)
                vector = tuple(x + rng.gauss(0, 0.01) for x in base)
            else:
                vector = tuple(_unit(rng))
            vectors.append(vector)
            section = section_for_memory_type(rng.choice(MEMORY_TYPES))
            ranked.append(
                Candidate(Source.MEMORY, f"mem-{n}", section, _text(rng), **scores, vector=vector, occurred_at=when)
            )
        elif kind < 0.80:
            vector = tuple(_unit(rng))
            ranked.append(
                Candidate(
                    Source.EPISODE, f"ep-{n}", Section.MEMORIES, _text(rng), **scores, vector=vector, occurred_at=when
                )
            )
        elif kind < 0.85:
            ranked.append(
                Candidate(Source.OPEN_THREAD, f"thread-{n}", Section.MEMORIES, _text(rng), **scores, occurred_at=when)
            )
        else:
            section = section_for_observation_kind(rng.choice(OBSERVATION_KINDS))
            ranked.append(
                Candidate(
                    Source.OBSERVATION,
                    f"obs-{n}",
                    section,
                    _text(rng),
                    **scores,
                    vector=tuple(_unit(rng)),
                    occurred_at=when,
                )
            )
    return pinned[:count] + ranked


def _time(
    items: list[Candidate], counter: TiktokenCounter, policy: AssemblyPolicy, iterations: int
) -> tuple[list[float], float, CpuUse]:
    samples: list[float] = []
    gc.collect()
    meter = CpuMeter.of_this_process()
    meter.start()
    started = time.perf_counter()
    for _ in range(iterations):
        begin = time.perf_counter()
        assemble(items, policy=policy, counter=counter, persona_mode="coach", mood="frustrated")
        samples.append((time.perf_counter() - begin) * 1000)
    elapsed = time.perf_counter() - started
    return samples, elapsed, meter.stop(iterations, idle=False)


def run(candidates: int = 200, iterations: int = 2000, seed: int = 7) -> dict[str, float]:
    """The figures of ``measure``."""
    return measure(candidates, iterations, seed)[0]


def measure(candidates: int = 200, iterations: int = 2000, seed: int = 7) -> tuple[dict[str, float], CpuUse, CpuUse]:
    """Cold: a counter without its cross-call cache, so every iteration counts every text (the
    first turn of a session; the headline figure). Warm: the service's counter, whose LRU already
    holds these texts (a later turn seeing the same persona, guidance and memories). With the
    process's CPU over each loop, cold and warm."""
    items = make_candidates(candidates, seed)
    policy = AssemblyPolicy()
    cold_counter, warm_counter = TiktokenCounter(cache_size=0), TiktokenCounter()
    assembly = assemble(items, policy=policy, counter=warm_counter, persona_mode="coach", mood="frustrated")
    assert assembly == assemble(items, policy=policy, counter=cold_counter, persona_mode="coach", mood="frustrated")
    cold, cold_elapsed, cold_cpu = _time(items, cold_counter, policy, iterations)
    warm, _, warm_cpu = _time(items, warm_counter, policy, iterations)
    outcomes = {outcome: sum(entry.outcome is outcome for entry in assembly.manifest) for outcome in Outcome}
    figures = {
        "candidates": float(len(items)),
        "iterations": float(iterations),
        "p50_ms": percentile(cold, 50),
        "p95_ms": percentile(cold, 95),
        "p99_ms": percentile(cold, 99),
        "max_ms": max(cold),
        "per_second": iterations / cold_elapsed,
        "warm_p50_ms": percentile(warm, 50),
        "warm_p95_ms": percentile(warm, 95),
        "warm_p99_ms": percentile(warm, 99),
        "rss_mib": rss_mib(),
        "total_tokens": float(assembly.total_tokens),
        "kept": float(outcomes[Outcome.KEPT]),
        "below_threshold": float(outcomes[Outcome.BELOW_THRESHOLD]),
        "duplicate": float(outcomes[Outcome.DUPLICATE]),
        "over_budget": float(outcomes[Outcome.OVER_BUDGET]),
        "cpu_ms": cold_cpu.per_call_ms()["total"],
        "warm_cpu_ms": warm_cpu.per_call_ms()["total"],
    }
    return figures, cold_cpu, warm_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, default=200)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    figures, cold_cpu, warm_cpu = measure(args.candidates, args.iterations, args.seed)
    print(f"{'metric':<16}{'value':>12}")
    for name, value in figures.items():
        shown = f"{value:,.3f}" if name.endswith("_ms") else f"{value:,.1f}" if name == "rss_mib" else f"{value:,.0f}"
        print(f"{name:<16}{shown:>12}")
    print("cold:" + cold_cpu.line(" "))
    print("warm:" + warm_cpu.line(" "))


if __name__ == "__main__":
    main()
