"""LoCoMo retrieval: recall@1/5/10/25 of the evidence turns, through either ingest path users take.

    .venv/bin/python -m bench.locomo_recall                    # Remember path, its own memory service
    .venv/bin/python -m bench.locomo_recall --path import      # sessions + ImportTurns, its own `lore up`
    .venv/bin/python -m bench.locomo_recall --memory-addr 127.0.0.1:50051    # a running memory service
    [--k 25] [--samples conv-26 conv-30] [--json FIGURES.json]

**Nothing of the benchmark's enters the system.** LoCoMo's ids (``dia_id``), its ``observation`` and
``session_summary`` fields never reach Lore: each written item's id is mapped back to its turn on
the benchmark's side (Remember answers in request order; an imported turn is found by its place in
its session's transcript), idempotency keys are random, and there is no metadata.

*Remember path* (``--path remember``, the default): every turn of every conversation is one
``MEMORY_TYPE_MESSAGE`` memory "Speaker: text [shares caption]" in the scope user_id =
``locomo-<sample_id>-<hex>`` (batches of 100, through gRPC to a memory service in its own process,
qdrant-edge, bench/memory_process.py), with provenance session = a UUID per LoCoMo session and
valid_at = the session's date plus the turn's place in seconds (turns keep their order, the day is
the session's). Questions go to Recall (k, same scope, default options: each one's use is recorded,
as in the product).

*Import path* (``--path import``): the stack as the README starts it (``lore up`` in a temporary
directory, bench/local_stack.py); each conversation is a user talking to the agent ``companion``
(speaker_a the user, speaker_b the assistant; the speaker's name in the turn's ``speaker`` field,
which the agent writes before the words of the turn's message memory), each LoCoMo session one Lore
session: StartSession, ImportTurns (createdAt = the session's date plus the turn's place in
seconds), EndSession; reflection and episode jobs run to the end (``GET /v1/admin/jobs``).
Questions go to ``POST /v1/memories:search`` (the client's ``search``) for the user and agent:
every memory type competes, as in the product.

**R@k counts the first k turns returned**: an item spends as many places as the turns it stands
for (its provenance turns: one for a message, every source turn for what reflection extracted),
so an item standing for ten turns cannot buy ten chances for one place. recall@k = |evidence ∩
first k turns| / |evidence|, averaged per category and overall, for every question of categories
1-4 with evidence; per category with n and a 95 % interval (mean ± 1.96·sd/√n: open-domain has
few questions). Figures are printed for the tuning part (conv-26, conv-30, conv-41), the part held
out (conv-42, conv-43, conv-44) and all, with ingest rate, Recall latency p50/p95 (one query at
a time, as the client sees it) and the services' CPU per Recall (``bench.measure.CpuMeter``: every
service process from the first question until they are idle again; not with ``--memory-addr``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import secrets
import shutil
import statistics
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from google.protobuf import timestamp_pb2
from lore.common.v1 import provenance_pb2, scope_pb2
from lore.memory.v1 import memory_service_pb2 as pb
from lore.memory.v1 import memory_service_pb2_grpc

from bench.measure import CpuMeter, percentile

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"
KS = (1, 5, 10, 25)
BATCH = 100
IMPORT_BATCH = 100
AGENT = "companion"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
PARTS = {
    "tuning": ("conv-26", "conv-30", "conv-41"),
    "held out": ("conv-42", "conv-43", "conv-44"),
}
BASELINES = {  # ../shared/data/README.md, categories 1-4, R@1/5/10/25
    "BM25": (0.284, 0.504, 0.572, 0.651),
    "MiniLM cosine": (0.178, 0.393, 0.489, 0.607),
    "RRF fusion": (0.249, 0.480, 0.565, 0.695),
    "BM25 + date": (0.316, 0.530, 0.603, 0.669),
    "MiniLM + date": (0.203, 0.424, 0.513, 0.634),
    "fusion + date": (0.283, 0.512, 0.604, 0.722),
}
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)")


@dataclass(frozen=True, slots=True)
class LocomoTurn:
    dia_id: str  # the benchmark's id: never sent
    speaker: str
    text: str  # with " [shares <caption>]" on image turns
    session: int
    said_at: datetime  # the session's date plus the turn's place in seconds


@dataclass(frozen=True, slots=True)
class Question:
    sample_id: str
    category: int
    text: str
    evidence: tuple[str, ...]


def parse_session_date(text: str) -> datetime:
    """ "1:56 pm on 8 May, 2023" -> an aware UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def normalise_evidence(raw: list[str], known: set[str]) -> list[str]:
    """ "D8:6; D9:17" -> D8:6, D9:17; "D:11:26" -> D11:26; "D30:05" -> D30:5; unknown ids dropped."""
    ids: list[str] = []
    for entry in raw:
        for session, turn in _EVIDENCE.findall(str(entry)):
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id in known and dia_id not in ids:
                ids.append(dia_id)
    return ids


def turns_of(sample: dict[str, Any]) -> list[LocomoTurn]:
    conversation = sample["conversation"]
    numbers = sorted(int(m.group(1)) for key in conversation if (m := _SESSION.fullmatch(key)) is not None)
    turns = []
    for number in numbers:
        began = parse_session_date(conversation[f"session_{number}_date_time"])
        for place, turn in enumerate(conversation[f"session_{number}"]):
            text = turn["text"] + (f" [shares {turn['blip_caption']}]" if turn.get("blip_caption") else "")
            turns.append(LocomoTurn(turn["dia_id"], turn["speaker"], text, number, began + timedelta(seconds=place)))
    return turns


def questions_of(sample: dict[str, Any]) -> tuple[list[Question], int]:
    """The questions of categories 1-4 with evidence, and how many were skipped for having none."""
    known = {turn.dia_id for turn in turns_of(sample)}
    found, skipped = [], 0
    for qa in sample["qa"]:
        category = int(qa["category"])
        if category not in CATEGORIES:
            continue
        evidence = normalise_evidence(qa.get("evidence") or [], known)
        if evidence:
            found.append(Question(sample["sample_id"], category, str(qa["question"]), tuple(evidence)))
        else:
            skipped += 1
    return found, skipped


def timestamp(moment: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def spent(items: Sequence[Sequence[str | None]]) -> list[str | None]:
    """The ranked turns of ranked items: each item spends one place per turn it stands for (at least one)."""
    return [turn for turns in items for turn in (turns or [None])]


def recall_row(evidence: Sequence[str], ranked_turns: Sequence[str | None]) -> list[float]:
    return [len(set(evidence) & set(ranked_turns[:k])) / len(evidence) for k in KS]


# -- the Remember path ----------------------------------------------------------------------------


async def remember_path(
    stub: Any, metadata: Any, samples: list[dict[str, Any]], k: int, run: str, meter: CpuMeter | None
) -> dict[str, Any]:
    turn_of: dict[str, str] = {}  # memory id -> dia_id, the benchmark's side only
    stored, began = 0, time.perf_counter()
    for sample in samples:
        scope = scope_pb2.Scope(user_id=f"locomo-{sample['sample_id']}-{run}")
        turns = turns_of(sample)
        sessions = {turn.session: str(uuid.uuid4()) for turn in turns}
        inputs = [
            pb.MemoryInput(
                content=f"{turn.speaker}: {turn.text}",
                memory_type=pb.MEMORY_TYPE_MESSAGE,
                scope=scope,
                valid_at=timestamp(turn.said_at),
                idempotency_key=uuid.uuid4().hex,
                provenance=provenance_pb2.Provenance(
                    session_id=sessions[turn.session],
                    source=provenance_pb2.PROVENANCE_SOURCE_IMPORT,
                    speaker=turn.speaker,
                ),
            )
            for turn in turns
        ]
        for start in range(0, len(inputs), BATCH):
            answer = await stub.Remember(pb.RememberRequest(memories=inputs[start : start + BATCH]), metadata=metadata)
            for memory, turn in zip(answer.memories, turns[start : start + BATCH], strict=True):
                turn_of[memory.id] = turn.dia_id
        stored += len(inputs)
    ingest_s = time.perf_counter() - began
    rows, latencies = [], []
    if meter is not None:
        meter.start()
    for sample in samples:
        scope = scope_pb2.Scope(user_id=f"locomo-{sample['sample_id']}-{run}")
        for question in questions_of(sample)[0]:
            began = time.perf_counter()
            answer = await stub.Recall(pb.RecallRequest(query=question.text, scope=scope, k=k), metadata=metadata)
            latencies.append(time.perf_counter() - began)
            ranked = spent([[turn_of.get(result.memory.id)] for result in answer.results])
            rows.append((question, recall_row(question.evidence, ranked)))
    cpu = (await meter.stop_async(len(latencies))).line() if meter is not None else ""
    return {"rows": rows, "latencies": latencies, "stored": stored, "ingest_s": ingest_s, "cpu": cpu}


async def run_remember(
    address: str, samples: list[dict[str, Any]], k: int, environ: dict[str, str], meter: CpuMeter | None = None
) -> dict[str, Any]:
    from lore_cli.service_calls import dial

    run = secrets.token_hex(3)
    metadata = (("x-lore-org-id", f"bench-locomo-{run}"), ("x-lore-principal", "bench-locomo"))
    async with dial(environ, address) as channel:
        stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
        return await remember_path(stub, metadata, samples, k, run, meter)


async def run_remember_embedded(samples: list[dict[str, Any]], k: int) -> dict[str, Any]:
    from bench.memory_process import memory_service

    async with memory_service() as service:
        meter = CpuMeter.of_children(service.root)
        return await run_remember(service.address, samples, k, {"LORE_SERVICE_TOKEN": service.token}, meter)


# -- the import path ------------------------------------------------------------------------------


async def import_path(lore: Any, samples: list[dict[str, Any]], k: int, run: str, meter: CpuMeter) -> dict[str, Any]:
    from lore_client import NewTurn

    from bench.context_quality import wait_for_jobs

    turn_of: dict[str, str] = {}  # Lore turn id -> dia_id, the benchmark's side only
    stored, began = 0, time.perf_counter()
    for sample in samples:
        scope = {"userId": f"locomo-{sample['sample_id']}-{run}", "agentId": AGENT}
        speaker_a = sample["conversation"]["speaker_a"]
        by_session: dict[int, list[LocomoTurn]] = defaultdict(list)
        for turn in turns_of(sample):
            by_session[turn.session].append(turn)
        for number, turns in sorted(by_session.items()):
            session = await lore.start_session(scope)
            for start in range(0, len(turns), IMPORT_BATCH):
                batch = turns[start : start + IMPORT_BATCH]
                await lore.import_turns(
                    session.id,
                    [
                        NewTurn(
                            content=turn.text,
                            role="user" if turn.speaker == speaker_a else "assistant",
                            created_at=turn.said_at,
                            idempotency_key=uuid.uuid4().hex,
                            speaker=turn.speaker,
                        )
                        for turn in batch
                    ],
                )
            await lore.end_session(session.id)
            transcript = [turn async for turn in lore.iter_turns(session.id)]
            if len(transcript) != len(turns):
                raise SystemExit(f"session {number} of {sample['sample_id']}: {len(transcript)} turns stored")
            for stored_turn, turn in zip(sorted(transcript, key=lambda t: t.sequence), turns, strict=True):
                turn_of[stored_turn.id] = turn.dia_id
            stored += len(turns)
    ingest_s = time.perf_counter() - began
    jobs_s = await wait_for_jobs(lore, 7200)
    rows, latencies = [], []
    meter.start()
    for sample in samples:
        scope = {"userId": f"locomo-{sample['sample_id']}-{run}", "agentId": AGENT}
        for question in questions_of(sample)[0]:
            began = time.perf_counter()
            hits = await lore.search(question.text, scope, k=k)
            latencies.append(time.perf_counter() - began)
            ranked = spent([[turn_of.get(turn) for turn in hit.memory.provenance.turn_ids] for hit in hits])
            rows.append((question, recall_row(question.evidence, ranked)))
    cpu = (await meter.stop_async(len(latencies))).line()
    return {"rows": rows, "latencies": latencies, "stored": stored, "ingest_s": ingest_s, "jobs_s": jobs_s, "cpu": cpu}


def run_import(samples: list[dict[str, Any]], k: int) -> dict[str, Any]:
    from lore_client import LoreClient

    from bench.local_stack import KEY, stack_environment, start, stop

    directory = Path(tempfile.mkdtemp(prefix="lore-bench-recall-"))
    env, url = stack_environment(directory / "data", KEY, LORE_RATE_LIMIT="0")
    process, _ = start(directory / "data", env, url, root=ROOT)
    meter = CpuMeter.of_stack(process.pid, directory / "data")

    async def talk(url: str) -> dict[str, Any]:
        async with LoreClient(url, KEY, timeout=300, max_retries=3) as lore:
            return await import_path(lore, samples, k, secrets.token_hex(3), meter)

    try:
        return asyncio.run(talk(url))
    finally:
        stop(process)
        shutil.rmtree(directory, ignore_errors=True)


# -- report ---------------------------------------------------------------------------------------


def mean_and_interval(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95 % interval (normal approximation)."""
    mean = statistics.fmean(values)
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, 1.96 * spread / math.sqrt(len(values))


def table(rows: list[tuple[Question, list[float]]], title: str) -> dict[str, Any]:
    print(f"\n{title}: {len(rows)} questions")
    print(f"{'':24}{'n':>5}" + "".join(f"{'R@' + str(k):>8}" for k in KS) + f"{'±95% @10':>10}{'±95% @25':>10}")
    figures: dict[str, Any] = {}
    groups = [(f"{c} {name}", [r for q, r in rows if q.category == c]) for c, name in CATEGORIES.items()]
    for name, values in [*groups, ("all (categories 1-4)", [r for _, r in rows])]:
        if not values:
            continue
        means = [statistics.fmean(row[i] for row in values) for i in range(len(KS))]
        half = [mean_and_interval([row[i] for row in values])[1] for i in (2, 3)]
        print(
            f"{name:24}{len(values):>5}"
            + "".join(f"{m:>8.3f}" for m in means)
            + "".join(f"{'±' + format(h, '.3f'):>10}" for h in half)
        )
        figures[name] = {"n": len(values), **{f"R@{k}": round(m, 4) for k, m in zip(KS, means, strict=True)}}
    return figures


def report(result: dict[str, Any]) -> dict[str, Any]:
    rows = result["rows"]
    figures = {
        part: table([(q, r) for q, r in rows if q.sample_id in ids], f"{part} ({', '.join(ids)})")
        for part, ids in PARTS.items()
        if any(q.sample_id in ids for q, _ in rows)
    }
    figures["all"] = table(rows, "all conversations")
    overall = [figures["all"]["all (categories 1-4)"][f"R@{k}"] for k in KS]
    print(f"\n{'baseline (all)':24}{'':>5}" + "".join(f"{'R@' + str(k):>8}" for k in KS))
    for name, values in BASELINES.items():
        marks = "".join(f"{v:>7.3f}{'+' if mine > v else '-'}" for v, mine in zip(values, overall, strict=True))
        print(f"{name:24}{'':>5}{marks}   ('+' = Lore higher)")
    latencies = result["latencies"]
    p50, p95 = percentile(latencies, 50) * 1000, percentile(latencies, 95) * 1000
    rate = result["stored"] / result["ingest_s"] if result["ingest_s"] else float("nan")
    print(f"\ningest: {result['stored']} turns in {result['ingest_s']:.1f} s = {rate:.0f} turns/s")
    if "jobs_s" in result:
        print(f"background jobs (reflection, episodes) done {result['jobs_s']:.0f} s after the import calls")
    print(f"recall: {len(latencies)} queries one at a time, p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    if result.get("cpu"):
        print(result["cpu"])
    return {
        **figures,
        "ingest_turns_per_s": round(rate, 1),
        "recall_p50_ms": p50,
        "recall_p95_ms": p95,
        "cpu": result.get("cpu", ""),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--path", choices=("remember", "import"), default="remember")
    parser.add_argument("--memory-addr", default="", help="remember path: a running memory service")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--k", type=int, default=25)
    parser.add_argument("--samples", nargs="*", help="only these sample_ids")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    samples = json.loads(args.data.read_text())
    if args.samples:
        samples = [sample for sample in samples if sample["sample_id"] in set(args.samples)]
    skipped = sum(questions_of(sample)[1] for sample in samples)
    print(f"{args.path} path, k={args.k}; {skipped} questions skipped for having no evidence", flush=True)
    if args.path == "import":
        result = run_import(samples, args.k)
    elif args.memory_addr:
        result = asyncio.run(run_remember(args.memory_addr, samples, args.k, dict(os.environ)))
    else:
        result = asyncio.run(run_remember_embedded(samples, args.k))
    figures = report(result)
    if args.json:
        args.json.write_text(json.dumps({"path": args.path, "k": args.k, **figures}, indent=2) + "\n")


if __name__ == "__main__":
    main()
