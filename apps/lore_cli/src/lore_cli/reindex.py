"""``lore reindex``: re-embed every memory item and episode with the configured model.

It only asks the memory service (``LORE_MEMORY_ADDR``) to do it through the Reindex RPC: the
embedded Qdrant engine allows one process per store, and that process is the service. Progress
bars go to stderr, the summary line to stdout. Interrupting it stops the run; running it again
resumes where it stopped.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import grpc
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_runtime.request_context import RequestContext
from lore_runtime.settings import DEFAULT_ADDRESSES
from tqdm import tqdm

from lore_cli.service_calls import dial

# An operator job across every org: the tenant metadata only satisfies the service's interceptor.
OPERATOR = RequestContext(org_id="system", principal="lore-cli")
PHASES = ("items", "episodes")


def memory_address(environ: Mapping[str, str]) -> str:
    host, _, port = (environ.get("LORE_MEMORY_ADDR") or DEFAULT_ADDRESSES["memory"]).rpartition(":")
    return f"{'127.0.0.1' if host in ('0.0.0.0', '', '::') else host}:{port}"


async def run(environ: Mapping[str, str], *, force: bool) -> int:
    bars: dict[str, tqdm] = {}
    last: dict[str, memory_service_pb2.ReindexResponse] = {}
    async with dial(environ, memory_address(environ)) as channel:
        stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
        request = memory_service_pb2.ReindexRequest(force=force)
        try:
            async for step in stub.Reindex(request, metadata=OPERATOR.metadata()):
                last[step.phase] = step
                if step.phase in PHASES:
                    if step.phase not in bars:
                        bars[step.phase] = tqdm(desc=step.phase, unit=" points", file=sys.stderr)
                    bar = bars[step.phase]
                    bar.total = step.total
                    bar.update(step.done - bar.n)
        except grpc.aio.AioRpcError as error:
            print(f"lore reindex: {error.code().name}: {error.details()}", file=sys.stderr)
            return 1
        finally:
            for bar in bars.values():
                bar.close()
    done = last.get("done")
    if done is None:
        print("lore reindex: the memory service ended the stream before it was done", file=sys.stderr)
        return 1
    items, episodes = (last[phase].done if phase in last else 0 for phase in PHASES)
    print(f"reindexed {items} items and {episodes} episodes with {done.model} ({done.dimension}-d)")
    return 0
