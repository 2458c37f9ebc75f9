"""``lore decay run``, ``lore revalidate run`` and ``lore jobs list|retry``: maintenance by hand, for one org.

Decay materialises the current salience of every memory item (MemoryService.RunDecay);
revalidation recomputes the freshness of beliefs and marks those past their revalidation date
stale (ObservationService.RunRevalidation). Both act on the org named by ``--org`` only.
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc
from lore.agent.v1 import agent_service_pb2, agent_service_pb2_grpc
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore.observations.v1 import observation_service_pb2, observation_service_pb2_grpc

from lore_cli.service_calls import address, dial, report_rpc_error, tenant

# A maintenance run reads and rewrites every item of the org: generous, but never unbounded.
TIMEOUT_SECONDS = 600.0


async def run_decay(environ: Mapping[str, str], *, org: str) -> int:
    where = address(environ, "memory")
    async with dial(environ, where) as channel:
        stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
        try:
            report = await stub.RunDecay(
                memory_service_pb2.RunDecayRequest(), metadata=tenant(org), timeout=TIMEOUT_SECONDS
            )
        except grpc.aio.AioRpcError as error:
            return report_rpc_error("lore decay run", "memory", where, error)
    computed_at = report.computed_at.ToDatetime().isoformat(timespec="seconds") + "Z"
    print(f"decay of org {org}: {report.updated} memories updated (salience computed at {computed_at})")
    return 0


async def run_revalidation(environ: Mapping[str, str], *, org: str, agent: str = "") -> int:
    where = address(environ, "observations")
    async with dial(environ, where) as channel:
        stub = observation_service_pb2_grpc.ObservationServiceStub(channel)
        try:
            report = await stub.RunRevalidation(
                observation_service_pb2.RunRevalidationRequest(agent_id=agent),
                metadata=tenant(org),
                timeout=TIMEOUT_SECONDS,
            )
        except grpc.aio.AioRpcError as error:
            return report_rpc_error("lore revalidate run", "observations", where, error)
    print(
        f"revalidation of org {org}: {report.checked} beliefs checked, {report.marked_stale} marked stale, "
        f"{report.marked_invalidated} invalidated"
    )
    return 0


async def list_jobs(environ: Mapping[str, str], *, org: str) -> int:
    """The org's background jobs by kind and state (AgentService.GetJobStats)."""
    where = address(environ, "agent")
    async with dial(environ, where) as channel:
        try:
            stats = await agent_service_pb2_grpc.AgentServiceStub(channel).GetJobStats(
                agent_service_pb2.GetJobStatsRequest(), metadata=tenant(org), timeout=30
            )
        except grpc.aio.AioRpcError as error:
            return report_rpc_error("lore jobs list", "agent", where, error)
    print(f"{'kind':<10}{'queued':>8}{'running':>9}{'retrying':>10}{'dead':>6}  oldest waiting")
    for kind in stats.kinds:
        waiting = f"{kind.oldest_queued_seconds:.0f} s" if kind.oldest_queued_seconds else "-"
        print(f"{kind.kind:<10}{kind.queued:>8}{kind.running:>9}{kind.retrying:>10}{kind.dead:>6}  {waiting}")
    return 0


async def retry_jobs(environ: Mapping[str, str], *, org: str, kinds: list[str]) -> int:
    """Queue the org's dead-lettered jobs again (AgentService.RetryJobs), once their cause is fixed."""
    where = address(environ, "agent")
    async with dial(environ, where) as channel:
        try:
            done = await agent_service_pb2_grpc.AgentServiceStub(channel).RetryJobs(
                agent_service_pb2.RetryJobsRequest(kinds=kinds), metadata=tenant(org), timeout=60
            )
        except grpc.aio.AioRpcError as error:
            return report_rpc_error("lore jobs retry", "agent", where, error)
    skipped = f"; {done.skipped} left dead (the same job is already waiting or running)" if done.skipped else ""
    print(f"org {org}: {done.requeued} dead jobs queued again{skipped}")
    return 0
