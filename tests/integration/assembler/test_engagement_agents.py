"""LORE_ENGAGEMENT_AGENTS on the running services: the org's engagement state reaches the contexts
of the agents it lists and no other agent's — for those, GetEngagement is not even called."""

from __future__ import annotations

import uuid
from contextlib import AsyncExitStack

import assembler_svc.bootstrap
import assembler_svc.config
import assembler_svc.server
from lore.assembler.v1 import assembler_service_pb2 as pb
from lore.assembler.v1 import assembler_service_pb2_grpc
from lore.common.v1 import context_pb2, scope_pb2
from lore.observations.v1 import engagement_service_pb2, engagement_service_pb2_grpc

from tests.grpc_harness import start_service

ENGAGEMENT = context_pb2.CANDIDATE_SOURCE_ENGAGEMENT


async def test_only_the_listed_agents_contexts_show_the_engagement_state(services) -> None:
    tenant = (("x-lore-org-id", f"org-{uuid.uuid4().hex[:12]}"), ("x-lore-principal", "test"))
    engagement = engagement_service_pb2_grpc.EngagementServiceStub(services["observations"].channel)
    await engagement.FormHypothesis(
        engagement_service_pb2.FormHypothesisRequest(statement="Churn comes from onboarding"), metadata=tenant
    )
    async with AsyncExitStack() as stack:
        listing = await start_service(
            stack,
            "assembler",
            assembler_svc.bootstrap,
            assembler_svc.server,
            assembler_svc.config.Settings,
            {
                "LORE_MEMORY_ADDR": services["memory"].address,
                "LORE_OBSERVATIONS_ADDR": services["observations"].address,
                "LORE_ENGAGEMENT_AGENTS": "coach, aria",
            },
        )
        listed = assembler_service_pb2_grpc.AssemblerServiceStub(listing.channel)
        by_default = assembler_service_pb2_grpc.AssemblerServiceStub(services["assembler"].channel)

        async def context(stub, agent_id: str) -> context_pb2.AssembledContext:
            request = pb.AssembleContextRequest(
                message="Why do customers leave?", scope=scope_pb2.Scope(user_id="u-1", agent_id=agent_id)
            )
            return (await stub.AssembleContext(request, metadata=tenant, timeout=10)).context

        shown = await context(listed, "aria")
        other_agent = await context(listed, "companion")
        no_agent = await context(listed, "")
        nothing_listed = await context(by_default, "aria")

    assert "Churn comes from onboarding" in shown.text and "Week 1" in shown.text
    assert {e.source for e in shown.manifest} >= {ENGAGEMENT}
    for hidden in (other_agent, no_agent, nothing_listed):
        assert "Churn comes from onboarding" not in hidden.text and "Week 1" not in hidden.text
        assert all(e.source != ENGAGEMENT for e in hidden.manifest)
