"""LoCoMo retrieval through the public gRPC API: recall@1/5/10/25 of the evidence turns.

    .venv/bin/python bench/locomo_recall.py --embedded            # starts its own memory service
    .venv/bin/python bench/locomo_recall.py --memory-addr 127.0.0.1:50051

For each conversation of ../shared/data/locomo-dev.json every turn is stored (Remember,
batches of 100) as a MEMORY_TYPE_MESSAGE memory "Speaker: text [shares caption]" in the
scope user_id = sample_id, valid_at = its session's date, metadata dia_id, idempotency
key "<sample_id>/<dia_id>" (a re-run writes nothing twice). Then every question of
categories 1-4 with evidence is asked (Recall, k = 25, record_access false, same scope) and
recall@k = |evidence ∩ dia_ids of the top k| / |evidence| is averaged per category and
overall (data/README.md); ingest rate and query latency percentiles are printed too.

``--embedded`` starts Postgres (migrated) and Redis from lore_devstack and the memory
service as its own process on a free port with a temporary data directory (qdrant-edge;
bench/memory_process.py); the benchmark talks to it only through gRPC. The org is random
("bench-locomo-<hex>") on every run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import secrets
import statistics
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from google.protobuf import timestamp_pb2
from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2 as pb
from lore.memory.v1 import memory_service_pb2_grpc
from measure import percentile
from memory_process import memory_service

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "locomo-dev.json"
KS = (1, 5, 10, 25)
BATCH = 100
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
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


def turns_of(sample: dict[str, Any]) -> list[tuple[dict[str, Any], datetime]]:
    conversation = sample["conversation"]
    sessions = sorted(
        (int(match.group(1)), key) for key in conversation if (match := _SESSION.fullmatch(key)) is not None
    )
    turns = []
    for number, key in sessions:
        when = parse_session_date(conversation[f"session_{number}_date_time"])
        turns += [(turn, when) for turn in conversation[key]]
    return turns


def content_of(turn: dict[str, Any]) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text


def timestamp(moment: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(moment)
    return stamp


async def ingest(stub: Any, metadata: Any, samples: list[dict[str, Any]]) -> tuple[int, float]:
    stored, began = 0, time.perf_counter()
    for sample in samples:
        scope = scope_pb2.Scope(user_id=sample["sample_id"])
        memories = [
            pb.MemoryInput(
                content=content_of(turn),
                memory_type=pb.MEMORY_TYPE_MESSAGE,
                scope=scope,
                valid_at=timestamp(when),
                metadata={"dia_id": turn["dia_id"]},
                idempotency_key=f"{sample['sample_id']}/{turn['dia_id']}",
            )
            for turn, when in turns_of(sample)
        ]
        for start in range(0, len(memories), BATCH):
            await stub.Remember(pb.RememberRequest(memories=memories[start : start + BATCH]), metadata=metadata)
        stored += len(memories)
    return stored, time.perf_counter() - began


async def evaluate(stub: Any, metadata: Any, samples: list[dict[str, Any]], k: int) -> dict[str, Any]:
    per_category: dict[int, list[list[float]]] = defaultdict(list)
    latencies: list[float] = []
    skipped = 0
    for sample in samples:
        known = {turn["dia_id"] for turn, _ in turns_of(sample)}
        scope = scope_pb2.Scope(user_id=sample["sample_id"])
        for qa in sample["qa"]:
            category = int(qa["category"])
            if category not in CATEGORIES:
                continue
            evidence = normalise_evidence(qa.get("evidence") or [], known)
            if not evidence:
                skipped += 1
                continue
            began = time.perf_counter()
            response = await stub.Recall(
                pb.RecallRequest(query=str(qa["question"]), scope=scope, k=k, record_access=False),
                metadata=metadata,
            )
            latencies.append(time.perf_counter() - began)
            found = [result.memory.metadata.get("dia_id", "") for result in response.results]
            per_category[category].append([len(set(evidence) & set(found[:cutoff])) / len(evidence) for cutoff in KS])
    return {"per_category": per_category, "latencies": latencies, "skipped": skipped}


def mean_row(rows: list[list[float]]) -> tuple[float, ...]:
    return tuple(statistics.fmean(row[i] for row in rows) for i in range(len(KS)))


def report(stored: int, ingest_seconds: float, result: dict[str, Any]) -> dict[str, Any]:
    per_category = result["per_category"]
    everything = [row for rows in per_category.values() for row in rows]
    overall = mean_row(everything)
    header = f"{'':28}{'n':>6}" + "".join(f"{'R@' + str(k):>8}" for k in KS)
    print(header)
    for category, name in CATEGORIES.items():
        rows = per_category.get(category, [])
        if rows:
            print(f"{f'{category} {name}':28}{len(rows):>6}" + "".join(f"{v:>8.3f}" for v in mean_row(rows)))
    print(f"{'Lore hybrid (categories 1-4)':28}{len(everything):>6}" + "".join(f"{v:>8.3f}" for v in overall))
    print()
    print(f"{'baseline (README)':28}{'':>6}" + "".join(f"{'R@' + str(k):>8}" for k in KS))
    beaten = True
    for name, values in BASELINES.items():
        marks = "".join(
            f"{value:>7.3f}{'+' if mine > value else '-'}" for value, mine in zip(values, overall, strict=True)
        )
        beaten &= all(mine > value for value, mine in zip(values, overall, strict=True))
        print(f"{name:28}{'':>6}{marks}")
    latencies = result["latencies"]
    p50, p95 = percentile(latencies, 0.5) * 1000, percentile(latencies, 0.95) * 1000
    rate = stored / ingest_seconds if ingest_seconds else float("nan")
    print()
    print(f"beats every baseline at every k: {'yes' if beaten else 'NO'}  ('+' = Lore higher)")
    print(f"ingest: {stored} turns in {ingest_seconds:.1f} s = {rate:.0f} items/s (batches of {BATCH})")
    print(
        f"recall: {len(latencies)} queries, p50 {p50:.1f} ms, p95 {p95:.1f} ms; skipped without evidence: "
        f"{result['skipped']}"
    )
    return {
        "overall": dict(zip((f"R@{k}" for k in KS), overall, strict=True)),
        "per_category": {
            CATEGORIES[c]: dict(zip((f"R@{k}" for k in KS), mean_row(rows), strict=True))
            for c, rows in sorted(per_category.items())
        },
        "questions": len(everything),
        "ingest_items_per_s": rate,
        "recall_p50_ms": p50,
        "recall_p95_ms": p95,
    }


async def run(
    address: str, samples: list[dict[str, Any]], k: int, org: str, environ: dict[str, str] | None = None
) -> dict[str, Any]:
    """Against the memory service at ``address``, with the service token of ``environ`` (else this process's
    LORE_SERVICE_TOKEN, else the local stack's token file)."""
    from lore_cli.service_calls import dial

    metadata = (("x-lore-org-id", org), ("x-lore-principal", "bench-locomo"))
    async with dial(environ if environ is not None else os.environ, address) as channel:
        stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
        stored, seconds = await ingest(stub, metadata, samples)
        result = await evaluate(stub, metadata, samples, k)
    return report(stored, seconds, result)


async def run_embedded(samples: list[dict[str, Any]], k: int, org: str) -> dict[str, Any]:
    async with memory_service() as service:
        return await run(service.address, samples, k, org, {"LORE_SERVICE_TOKEN": service.token})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memory-addr", default="127.0.0.1:50051")
    parser.add_argument("--embedded", action="store_true", help="start a memory service in-process on a free port")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--k", type=int, default=25)
    parser.add_argument("--samples", nargs="*", help="only these sample_ids")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    samples = json.loads(args.data.read_text())
    if args.samples:
        samples = [sample for sample in samples if sample["sample_id"] in set(args.samples)]
    org = f"bench-locomo-{secrets.token_hex(4)}"
    coroutine = run_embedded(samples, args.k, org) if args.embedded else run(args.memory_addr, samples, args.k, org)
    figures = asyncio.run(coroutine)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
