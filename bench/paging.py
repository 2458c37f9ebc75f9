"""Paging and keyed writes through REST: does following nextPageToken return every memory once,
and what does a keyed write cost when it is new, replayed and refused?

    .venv/bin/python -m bench.paging [--memories 3300] [--root PATH]

Starts `lore up` (of ``--root``, default this checkout: point it at a worktree of an older commit,
which bootstraps its own .venv, to measure the code before) in a temporary data dir, writes the
memories of two users in batches of 100 (each batch shares one creation time; every new memory has
salience 1.0, so both orders are full of ties), then follows nextPageToken for each order, page
size and scope, and reports rows, distinct items, items never returned, and the page latency with
the CPU each process of the stack spent per page (bench.measure.CpuMeter: from the paging's start
until the stack is idle again; a page refused with 429 and retried counts as one).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from bench.local_stack import KEY, ROOT, stack_environment, start, stop
from bench.measure import CpuMeter, percentile

USERS = ("bench-a", "bench-b")
BATCH = 100


def write(client: httpx.Client, count: int) -> dict[str, set[str]]:
    written: dict[str, set[str]] = {user: set() for user in USERS}
    for offset in range(0, count, BATCH):
        user = USERS[(offset // BATCH) % len(USERS)]
        body = {
            "memories": [
                {"content": f"Note {offset + n}: a fact about the garden.", "memoryType": "MEMORY_TYPE_FACT",
                 "scope": {"userId": user}}
                for n in range(min(BATCH, count - offset))
            ]
        }  # fmt: skip
        answer = client.post("/v1/memories", json=body)
        answer.raise_for_status()
        written[user] |= {memory["id"] for memory in answer.json()["memories"]}
    return written


def page_through(client: httpx.Client, order: str, size: int, user: str | None) -> tuple[list[str], list[float]]:
    seen: list[str] = []
    latencies: list[float] = []
    token = ""
    while True:
        params: dict[str, str | int] = {"pageSize": size, "orderBy": order}
        if user:
            params["scope.userId"] = user
        if token:
            params["pageToken"] = token
        while True:
            began = time.perf_counter()
            answer = client.get("/v1/memories", params=params)
            if answer.status_code != 429:  # the key's rate limit: wait as a client would, untimed
                break
            time.sleep(float(answer.headers.get("Retry-After", "1")))
        latencies.append((time.perf_counter() - began) * 1000)
        answer.raise_for_status()
        seen += [memory["id"] for memory in answer.json()["memories"]]
        if not (token := answer.json().get("nextPageToken", "")):
            return seen, latencies


def keyed_writes(client: httpx.Client, meter: CpuMeter) -> None:
    """100 keyed memories: written new, replayed identically, then one key reused with new content."""

    def body(content: str) -> dict:
        return {
            "memories": [
                {"content": f"{content} {n}", "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": "bench-keys"},
                 "idempotencyKey": f"key-{n}"}
                for n in range(BATCH)
            ]
        }  # fmt: skip

    for label, content in (("new", "Keyed fact"), ("replayed", "Keyed fact"), ("other content", "Changed fact")):
        meter.start()
        began = time.perf_counter()
        answer = client.post("/v1/memories", json=body(content))
        elapsed = (time.perf_counter() - began) * 1000
        print(f"  keyed Remember of {BATCH}, {label:<13}: {answer.status_code} in {elapsed:7.1f} ms")
        print(meter.stop(BATCH).line("    ", unit="item"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=3300)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose `lore up` to run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        data_dir = Path(temporary) / "data"
        env, url = stack_environment(data_dir, KEY)
        process, _ = start(data_dir, env, url, root=args.root)
        try:
            with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {KEY}"}, timeout=120) as client:
                began = time.monotonic()
                written = write(client, args.memories)
                print(f"wrote {args.memories} memories for {len(USERS)} users in {time.monotonic() - began:.1f} s")
                everything = set().union(*written.values())
                meter = CpuMeter.of_stack(process.pid, data_dir)
                for order in ("MEMORY_ORDER_NEWEST", "MEMORY_ORDER_SALIENCE"):
                    for size, user in ((500, None), (7, None), (7, USERS[0])):
                        expected = written[user] if user else everything
                        meter.start()
                        seen, latencies = page_through(client, order, size, user)
                        cpu = meter.stop(len(latencies))
                        print(
                            f"  {order.removeprefix('MEMORY_ORDER_').lower():<8} pageSize {size:>3} "
                            f"{'user ' + user if user else 'whole org':<14}: {len(seen):5} rows, "
                            f"{len(set(seen)):5} distinct of {len(expected)}, "
                            f"{len(expected - set(seen)):4} never returned; "
                            f"{len(latencies)} pages p50 {statistics.median(latencies):6.1f} / "
                            f"p95 {percentile(latencies, 95):6.1f} ms"
                        )
                        print(cpu.line("    ", unit="page"))
                keyed_writes(client, meter)
        finally:
            stop(process)


if __name__ == "__main__":
    main()
