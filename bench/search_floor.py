"""REST search against its floor, in one run: how much the stack adds to the work a search must do.

    .venv/bin/python -m bench.search_floor [--memories 2500] [--searches 400] [--root WORKTREE]

The floor is the least a search can cost: one query embedding (the packaged MiniLM, loaded with
the defaults the services use) plus one filtered dense search of qdrant-edge over the same
memories, both in this process (``memory_svc.adapters.qdrant_edge_index``, the service's own
adapter, ids only). The
stack is ``lore up`` as the README starts it (bench/local_stack.py), searched through
``POST /v1/memories:search`` with ``lore_client``, one client, default options (each search's use is
recorded, as in the product).

Memories are LoCoMo's turns ("Speaker: text", ``../shared/data/locomo-dev.json``, measuring only),
the same texts in both; queries are LoCoMo's questions, each asked once (no embedding cache answers
them), alternately: the stack, then the floor, question by question. Printed: p50 / p95 of both,
the ratio of the medians (the target: REST p50 ≤ 1.6 × the floor) and the per-question
ratio's median, and the stack's CPU per search by service (``bench.measure.CpuMeter``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from lore_client import LoreClient, NewMemory

from bench.local_stack import KEY, ROOT, stack_environment, start, stop
from bench.locomo_recall import DATA, questions_of, turns_of
from bench.measure import CpuMeter, percentile

ORG, USER = "floor-org", "bench"


def texts_and_questions(count: int, searches: int) -> tuple[list[str], list[str]]:
    samples = json.loads(DATA.read_text())
    texts = [f"{turn.speaker}: {turn.text}" for sample in samples for turn in turns_of(sample)][:count]
    questions = list(dict.fromkeys(q.text for sample in samples for q in questions_of(sample)[0]))
    return texts, questions[:searches]


async def floor_index(texts: list[str], directory: Path):
    """An in-process qdrant-edge index holding ``texts`` as the service stores them, and the embedder."""
    from lore_embeddings.onnx import OnnxMiniLmEmbedder
    from memory_svc.adapters.qdrant_edge_index import QdrantEdgeMemoryIndex
    from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope

    embedder = OnnxMiniLmEmbedder.load()
    index = await QdrantEdgeMemoryIndex.open(
        directory, embedding_model=embedder.model_name, dimension=embedder.dimension
    )
    now = datetime.now(UTC)
    for start_at in range(0, len(texts), 100):
        batch = texts[start_at : start_at + 100]
        items = [
            MemoryItem(
                id=str(uuid.uuid4()),
                org_id=ORG,
                content=text,
                memory_type=MemoryType.MESSAGE,
                scope=Scope(user_id=USER),
                importance=0.5,
                status=MemoryStatus.ACTIVE,
                metadata={},
                provenance=Provenance(),
                entities=(),
                created_at=now,
                valid_at=now,
                last_accessed_at=now,
            )
            for text in batch
        ]
        await index.upsert(items, await embedder.embed(batch))
    return index, embedder


async def run(args: argparse.Namespace) -> None:
    from memory_svc.domain.model import Scope, ScopeMatch

    texts, questions = texts_and_questions(args.memories, args.searches)
    with tempfile.TemporaryDirectory(prefix="lore-bench-floor-") as temporary:
        directory = Path(temporary)
        env, url = stack_environment(directory / "data", KEY)
        process, _ = start(directory / "data", env, url, root=args.root)
        try:
            index, embedder = await floor_index(texts, directory / "floor")
            async with LoreClient(url, KEY, timeout=60, max_retries=0) as lore:
                for offset in range(0, len(texts), 100):
                    batch = texts[offset : offset + 100]
                    await lore.remember([NewMemory(content=text, memory_type="message") for text in batch], scope=USER)
                await lore.search("a warm-up question nobody asks later", USER)
                await embedder.embed(["a warm-up question nobody asks later"])
                stack, floor = [], []
                meter = CpuMeter.of_stack(process.pid, directory / "data")
                meter.start()
                for question in questions:
                    began = time.perf_counter()
                    await lore.search(question, USER)
                    stack.append((time.perf_counter() - began) * 1000)
                    began = time.perf_counter()
                    (vector,) = await embedder.embed([question])
                    await index.search(ORG, Scope(user_id=USER), vector, 10, scope_match=ScopeMatch.CONTEXT)
                    floor.append((time.perf_counter() - began) * 1000)
                cpu = await meter.stop_async(len(questions))
            await index.close()
        finally:
            stop(process)
    ratios = [mine / least for mine, least in zip(stack, floor, strict=True)]
    print(f"{len(texts)} memories, {len(questions)} unique questions, one client, alternately")
    print(f"  REST search  p50 {percentile(stack, 50):6.1f} ms  p95 {percentile(stack, 95):6.1f} ms")
    print(f"  floor        p50 {percentile(floor, 50):6.1f} ms  p95 {percentile(floor, 95):6.1f} ms")
    print(
        f"  REST p50 / floor p50 = {percentile(stack, 50) / percentile(floor, 50):.2f}; "
        f"per question: median {statistics.median(ratios):.2f}, p95 {percentile(ratios, 95):.2f} (target ≤ 1.6)"
    )
    print(cpu.line())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=2500)
    parser.add_argument("--searches", type=int, default=400)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose `lore up` to run")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
