"""LangGraph store: 6,000 concurrent operations through ``LoreStore`` on a real stack.

    .venv/bin/python -m bench.langgraph_store [--rounds 10] [--keys 100] [--threads 10]

Starts the stack as the README does (``lore up``, embedded back ends, a temporary data directory,
free ports), then runs LangGraph's own large-batch mix (their store tests' ``test_large_batches``):
for each of ``--rounds`` × ``--keys``, a put, a get, a ``list_namespaces`` (max depth 1 to
``--rounds``), a search of the whole prefix, the put again and a delete — 6 operations each, 6,000
by default, all started at once:

- async: ``asyncio.gather`` of ``aput``/``aget``/… on a ``LoreClient`` (one event loop);
- sync: the same on a ``SyncLoreClient`` from ``--threads`` threads (a ``ThreadPoolExecutor``, as
  LangGraph's test does);
- then 6,000 concurrent puts of distinct keys, and 6,000 concurrent gets of them (async).

Prints each run's wall time and the HTTP requests it cost (an httpx transport counting them, on
the client's default, bounded connection pool). The stack keeps its default rate limit (50
requests/s per credential and scope) unless ``--rate-limit`` sets another (``0``: none); the
client waits out a 429's ``Retry-After``.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
from lore_client import LoreClient, SyncLoreClient
from lore_client.integrations.langgraph_store import LoreStore

from bench.local_stack import stack_environment, start, stop

KEY = "bench-development-key-0123456789"


class CountingTransport(httpx.AsyncHTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.requests = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        return await super().handle_async_request(request)


class CountingSyncTransport(httpx.HTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.requests = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1  # a race between threads may lose a count: the figure is a floor
        return super().handle_request(request)


def mix(store: LoreStore, user: str, rounds: int, keys: int, asynchronous: bool) -> list:
    """LangGraph's large-batch mix: the calls (coroutines, or thunks for threads)."""
    calls = []
    for m in range(rounds):
        namespace = ("users", user, "test", str(m % 2))
        for i in range(keys):
            if asynchronous:
                calls += [
                    store.aput(namespace, f"key{i}", {"foo": f"bar{i}"}),
                    store.aget(namespace, f"key{i}"),
                    store.alist_namespaces(prefix=("users", user), max_depth=m + 1),
                    store.asearch(("users", user)),
                    store.aput(namespace, f"key{i}", {"foo": f"bar{i}"}),
                    store.adelete(namespace, f"key{i}"),
                ]
            else:
                calls += [
                    lambda ns=namespace, i=i: store.put(ns, f"key{i}", {"foo": f"bar{i}"}),
                    lambda ns=namespace, i=i: store.get(ns, f"key{i}"),
                    lambda m=m: store.list_namespaces(prefix=("users", user), max_depth=m + 1),
                    lambda: store.search(("users", user)),
                    lambda ns=namespace, i=i: store.put(ns, f"key{i}", {"foo": f"bar{i}"}),
                    lambda ns=namespace, i=i: store.delete(ns, f"key{i}"),
                ]
    return calls


async def run_async(url: str, rounds: int, keys: int) -> None:
    transport = CountingTransport()
    async with LoreClient(url, KEY, transport=transport) as client:
        store = LoreStore(client)
        user = f"bench-{uuid.uuid4().hex[:8]}"
        calls = mix(store, user, rounds, keys, asynchronous=True)
        began = time.monotonic()
        answers = await asyncio.gather(*calls)
        report("async mix", len(answers), time.monotonic() - began, transport.requests)

        transport.requests = 0
        namespace = ("users", user, "many")
        began = time.monotonic()
        await asyncio.gather(*(store.aput(namespace, f"k{i}", {"text": f"Item {i}."}) for i in range(6_000)))
        report("async puts", 6_000, time.monotonic() - began, transport.requests)

        transport.requests = 0
        began = time.monotonic()
        got = await asyncio.gather(*(store.aget(namespace, f"k{i}") for i in range(6_000)))
        assert all(item is not None for item in got)
        report("async gets", 6_000, time.monotonic() - began, transport.requests)


def run_sync(url: str, rounds: int, keys: int, threads: int) -> None:
    transport = CountingSyncTransport()
    with SyncLoreClient(url, KEY, transport=transport) as client:
        store = LoreStore(client)
        calls = mix(store, f"bench-{uuid.uuid4().hex[:8]}", rounds, keys, asynchronous=False)
        began = time.monotonic()
        with ThreadPoolExecutor(max_workers=threads) as pool:
            answers = [future.result() for future in [pool.submit(call) for call in calls]]
        report(f"sync mix, {threads} threads", len(answers), time.monotonic() - began, transport.requests)


def report(what: str, operations: int, seconds: float, requests: int) -> None:
    print(f"{what:<24} {operations:>6,} operations  {seconds:7.2f} s  {requests:>6,} HTTP requests", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--keys", type=int, default=100)
    parser.add_argument("--threads", type=int, default=10)
    parser.add_argument("--rate-limit", help="the gateway's LORE_RATE_LIMIT (requests/s:burst; 0: none)")
    parser.add_argument("--sync-only", action="store_true", help="only the threads' run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lore-bench-langgraph-") as scratch:
        data_dir = Path(scratch) / "data"
        data_dir.mkdir()
        extra = {"LORE_RATE_LIMIT": args.rate_limit} if args.rate_limit is not None else {}
        env, url = stack_environment(data_dir, KEY, **extra)
        process, ready = start(data_dir, env, url)
        print(f"stack ready in {ready:.1f} s", flush=True)
        try:
            if not args.sync_only:
                asyncio.run(run_async(url, args.rounds, args.keys))
            run_sync(url, args.rounds, args.keys, args.threads)
        finally:
            stop(process)


if __name__ == "__main__":
    main()
