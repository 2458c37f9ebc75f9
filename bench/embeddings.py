"""Local embeddings: model load time, throughput at batch 1 and 64, single-embed latency, RSS.

    .venv/bin/python bench/embeddings.py [--singles 300] [--batches 10] [--threads N] [--batch-size 32]

Runs OnnxMiniLmEmbedder (all-MiniLM-L6-v2 int8 on onnxruntime) in this process on generated
memory-like sentences of 8-20 words.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from pathlib import Path

from lore_embeddings import OnnxMiniLmEmbedder
from lore_embeddings.onnx import available_cpus

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
TAILS = [
    "",
    " with her sister",
    " because a friend suggested it",
    " and loved every minute of it",
    " after a long and difficult week at work",
    " to feel closer to the local community",
]


def sentences(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{rng.choice(SUBJECTS)} {rng.choice(ACTIVITIES)} {rng.choice(WHEN)}{rng.choice(TAILS)}." for _ in range(count)
    ]


def rss_mib() -> tuple[float, float]:
    """(current, peak) resident set size of this process, MiB (Linux)."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


async def run(args: argparse.Namespace) -> None:
    rss_before, _ = rss_mib()
    began = time.perf_counter()
    embedder = OnnxMiniLmEmbedder.load(intra_op_threads=args.threads, batch_size=args.batch_size)
    load_s = time.perf_counter() - began
    rss_loaded, _ = rss_mib()

    texts = sentences(max(args.singles, 64 * args.batches))
    await embedder.embed(texts[:8])  # warm-up

    latencies = []
    began = time.perf_counter()
    for text in texts[: args.singles]:
        start = time.perf_counter()
        await embedder.embed([text])
        latencies.append(time.perf_counter() - start)
    batch1 = args.singles / (time.perf_counter() - began)

    began = time.perf_counter()
    for index in range(args.batches):
        await embedder.embed(texts[index * 64 : (index + 1) * 64])
    batch64 = 64 * args.batches / (time.perf_counter() - began)
    rss_end, rss_peak = rss_mib()
    await embedder.aclose()

    cuts = statistics.quantiles(latencies, n=100)
    print(f"model            {embedder.model_name} (dim {embedder.dimension})")
    print(
        f"cpus / threads   {available_cpus()} / {args.threads or min(4, available_cpus())}"
        f"   internal batch {args.batch_size}"
    )
    print(f"load time        {load_s * 1000:.0f} ms (sha256 check + tokenizer + session)")
    print(f"embeddings/s     batch 1: {batch1:.0f}   batch 64: {batch64:.0f}")
    print(f"single latency   p50 {cuts[49] * 1000:.2f} ms   p95 {cuts[94] * 1000:.2f} ms   ({args.singles} calls)")
    print(
        f"RSS              before load {rss_before:.0f} MiB, after load {rss_loaded:.0f} MiB, "
        f"after run {rss_end:.0f} MiB (peak {rss_peak:.0f} MiB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--singles", type=int, default=300, help="single-text embeds to time")
    parser.add_argument("--batches", type=int, default=10, help="64-text embeds to time")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads")
    parser.add_argument("--batch-size", type=int, default=32, help="the embedder's internal batch size")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
