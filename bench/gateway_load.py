"""Gateway: what REST adds over direct gRPC, requests/s at saturation, and behaviour at twice the
rate limit.

    .venv/bin/python -m bench.gateway_load [--memories 1000] [--calls 300] [--clients 1,4,16]

Starts the whole stack as the README does (``lore up``, embedded back ends, a temporary data
directory, free ports), with no default rate limit and ``sessions:read`` limited to 20/s (bursts
of 20). Writes ``--memories`` memories, then, at each concurrency, times the search both ways:
``POST /v1/memories:search`` through the gateway and ``MemoryService.Recall`` straight to the memory
service (with the tenant metadata the gateway would send), both with default options (access
recorded); then REST at 32 clients (saturation);
then ``GET /v1/sessions`` offered at 40/s for 10 s: how many are admitted, how fast, and how many
get 429. Beside the comparison, the gateway's own time per answer (its ``Server-Timing``: the
time from arrival to first byte, minus the gRPC calls), and after each timed run the CPU each
process of the stack spent per call (bench.measure.CpuMeter: from the run's start until the stack
is idle again). The REST side is ``lore_client``
(``LoreClient.search``, ``list_sessions``), as a user calls it: its latency includes parsing the
answer into dataclasses, as the gRPC side's includes decoding the protobuf.

Every search of the run, warm-up included, asks a text of its own, so none is answered from the
memory service's query-embedding cache: bench.measure.UniqueTexts over bench.assembler_load's 400
questions, then the same with a prefix or suffix ("Remind me: What did Aiko say about the book
club?"), one per text the service embeds (it leaves the names out). REST and gRPC ask different
texts drawn alike. The cache's hits and misses over the timed searches are printed
(bench.measure.EmbeddingCacheMeter).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

import httpx
from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_cli.service_calls import dial
from lore_client import LoreApiError, LoreClient

from bench.assembler_load import QUESTIONS, USER, seed
from bench.local_stack import stack_environment, start, stop
from bench.measure import CpuMeter, EmbeddingCacheMeter, UniqueTexts, percentile

KEY = "bench-development-key-0123456789"
TENANT = (("x-lore-org-id", "dev"), ("x-lore-principal", "bench"))


async def concurrently(calls: int, clients: int, call) -> tuple[list[float], float]:
    latencies: list[float] = []
    queue = list(range(calls))

    async def worker() -> None:
        while queue:
            index = queue.pop()
            began = time.perf_counter()
            await call(index)
            latencies.append((time.perf_counter() - began) * 1000)

    began = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return latencies, calls / (time.monotonic() - began)


class ServerTimingTransport(httpx.AsyncHTTPTransport):
    """Keeps the gateway's own share of each answer, from its ``Server-Timing`` header."""

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.timings: dict[str, list[float]] = {"gateway": [], "upstream": []}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await super().handle_async_request(request)
        for metric in response.headers.get("server-timing", "").split(","):
            name, _, parameters = metric.strip().partition(";")
            if name in self.timings:
                self.timings[name].append(float(parameters.partition("dur=")[2].partition(";")[0]))
        return response


def rest_search(lore: LoreClient, texts: list[str]):
    """A search of ``texts[index]`` for each call's index."""

    async def call(index: int) -> None:
        await lore.search(texts[index], USER, k=10)

    return call


def grpc_recall(stub: memory_service_pb2_grpc.MemoryServiceStub, texts: list[str]):
    """A Recall of ``texts[index]`` for each call's index."""

    async def call(index: int) -> None:
        request = memory_service_pb2.RecallRequest(query=texts[index], scope=scope_pb2.Scope(user_id=USER), k=10)
        await stub.Recall(request, metadata=TENANT, timeout=30)

    return call


def comparison(clients: int, rest: list[float], rest_rate: float, direct: list[float], direct_rate: float) -> str:
    rest50, rest95 = percentile(rest, 50), percentile(rest, 95)
    grpc50, grpc95 = percentile(direct, 50), percentile(direct, 95)
    return (
        f"{clients:>2} client(s): REST p50 {rest50:6.1f} / p95 {rest95:6.1f} ms ({rest_rate:5.1f}/s);"
        f" gRPC p50 {grpc50:6.1f} / p95 {grpc95:6.1f} ms ({direct_rate:5.1f}/s);"
        f" REST adds p50 {rest50 - grpc50:+.1f} ms, p95 {rest95 - grpc95:+.1f} ms (×{rest95 / grpc95:.2f})"
    )


async def over_the_limit(lore: LoreClient, meter: CpuMeter, rate: float, seconds: float) -> None:
    admitted: list[float] = []
    refused = 0
    once = lore.with_options(max_retries=0)  # every 429 counted, none retried after Retry-After

    async def one() -> None:
        nonlocal refused
        began = time.perf_counter()
        try:
            await once.list_sessions()
        except LoreApiError as error:
            if error.status != 429:
                raise
            refused += 1
        else:
            admitted.append((time.perf_counter() - began) * 1000)

    tasks = []
    meter.start()
    began = time.monotonic()
    sent = 0
    while time.monotonic() - began < seconds:
        tasks.append(asyncio.create_task(one()))
        sent += 1
        await asyncio.sleep(max(0.0, began + sent / rate - time.monotonic()))
    await asyncio.gather(*tasks)
    p50, p95 = percentile(admitted, 50), percentile(admitted, 95)
    print(
        f"GET /v1/sessions offered at {rate:.0f}/s for {seconds:.0f} s (limit 20/s): {len(admitted)} admitted "
        f"({len(admitted) / seconds:.1f}/s; p50 {p50:.1f} ms, p95 {p95:.1f} ms), {refused} refused with 429"
    )
    print((await meter.stop_async(sent)).line())


async def main_async(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        data_dir = Path(temporary) / "data"
        env, url = stack_environment(
            data_dir,
            KEY,
            LORE_RATE_LIMIT="0",
            LORE_RATE_LIMITS="sessions:read=20:20",
            **dict(setting.split("=", 1) for setting in args.env),
        )
        process, ready = start(data_dir, env, url)
        try:
            # Every caller keeps its connection; the transport notes the gateway's own time per answer.
            transport = ServerTimingTransport(limits=httpx.Limits(max_connections=64))
            async with (
                LoreClient(url, KEY, timeout=30, max_retries=0, transport=transport) as lore,
                dial(env, env["LORE_MEMORY_ADDR"]) as channel,
            ):
                written = await seed(lore, args.memories)
                print(f"stack ready in {ready:.1f} s; {args.memories} memories written in {written:.0f} s")
                await asyncio.sleep(args.settle)
                stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
                texts = UniqueTexts(QUESTIONS, seed=5)  # one stream: no text asked twice in the run
                rest, direct = rest_search(lore, texts.take(20)), grpc_recall(stub, texts.take(20))
                for index in range(20):  # warm both paths
                    await rest(index)
                    await direct(index)
                meter, cache = CpuMeter.of_stack(process.pid, data_dir), EmbeddingCacheMeter.of_env(env)
                cache.start()
                for clients in args.clients:
                    # Interleave the two so a drift of the machine affects both alike.
                    for samples in transport.timings.values():
                        samples.clear()
                    meter.start()
                    rest_ms, rest_rate = await concurrently(
                        args.calls, clients, rest_search(lore, texts.take(args.calls))
                    )
                    rest_cpu = await meter.stop_async(args.calls)
                    meter.start()
                    grpc_ms, grpc_rate = await concurrently(
                        args.calls, clients, grpc_recall(stub, texts.take(args.calls))
                    )
                    grpc_cpu = await meter.stop_async(args.calls)
                    print(comparison(clients, rest_ms, rest_rate, grpc_ms, grpc_rate))
                    print(rest_cpu.line("            REST: "))
                    print(grpc_cpu.line("            gRPC: "))
                    own, upstream = transport.timings["gateway"], transport.timings["upstream"]
                    print(
                        f"            Server-Timing: the gateway's own p50 {percentile(own, 50):.2f} /"
                        f" p95 {percentile(own, 95):.2f} / p99 {percentile(own, 99):.2f} ms;"
                        f" its Recall call p50 {percentile(upstream, 50):.1f} / p95 {percentile(upstream, 95):.1f} ms"
                    )
                async with httpx.AsyncClient(base_url=url) as plain:  # HTTP alone: no route work, no service
                    floor, _rate = await concurrently(args.calls, 1, lambda _index: plain.get("/healthz"))
                print(
                    f"HTTP round trip alone (GET /healthz, httpx, one client): p50 {percentile(floor, 50):.1f} /"
                    f" p95 {percentile(floor, 95):.1f} ms"
                )
                meter.start()
                saturated, rate = await concurrently(args.calls, 32, rest_search(lore, texts.take(args.calls)))
                print(f"REST at 32 clients: {rate:.1f} requests/s, p95 {percentile(saturated, 95):.1f} ms")
                print((await meter.stop_async(args.calls)).line())
                print(cache.line("every timed search: "))
                await over_the_limit(lore, meter, 40, 10)
        finally:
            stop(process)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--clients", type=lambda text: [int(n) for n in text.split(",")], default=[1, 4, 16])
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--env", action="append", default=[], help="LORE_X=value for the stack (repeatable)")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
