"""Private by scope on the running services: reflection records each user's beliefs under that
user's scope (a context for another user of the org never sees them), and writes engagement state
only for the agents LORE_ENGAGEMENT_AGENTS lists (the in-process agent lists none; a child agent
lists ``aria``)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import grpc
from google.protobuf import timestamp_pb2
from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore.observations.v1 import engagement_service_pb2, engagement_service_pb2_grpc
from lore.observations.v1 import observation_service_pb2 as opb

from tests.grpc_harness import service_channel
from tests.integration.agent.support import eventually, say, tenant

HEDGED = "I suspect the churn comes from pricing."
# Only the agent's own conclusion forms a hypothesis (docs/engagement.md); the user's hunch adds evidence.
CONCLUDED = "My working hypothesis is that the churn comes from pricing."


async def start(agent, org: str, user: str, agent_id: str = "aria") -> str:
    request = pb.StartSessionRequest(scope=scope_pb2.Scope(user_id=user, agent_id=agent_id))
    return (await agent.StartSession(request, metadata=tenant(org))).session.id


async def preferences(memories, org: str, user: str) -> list[memory_service_pb2.Memory]:
    request = memory_service_pb2.ListMemoriesRequest(
        scope=scope_pb2.Scope(user_id=user), memory_types=[memory_service_pb2.MEMORY_TYPE_PREFERENCE]
    )
    return list((await memories.ListMemories(request, metadata=tenant(org))).memories)


async def reflected(agent, memories, org: str, user: str, agent_id: str, *lines: str, concluded: str = "") -> None:
    """Say the lines in one session (after the assistant's ``concluded``, imported), then a
    preference, and wait for the preference's memory: reflection takes turns in order, so every
    line before it has been reflected."""
    session_id = await start(agent, org, user, agent_id)
    if concluded:
        said = timestamp_pb2.Timestamp()
        said.FromDatetime(datetime.now(UTC) - timedelta(minutes=1))
        turn = turn_pb2.Turn(role=turn_pb2.TURN_ROLE_ASSISTANT, content=concluded, created_at=said)
        await agent.ImportTurns(pb.ImportTurnsRequest(session_id=session_id, turns=[turn]), metadata=tenant(org))
    for line in (*lines, "I prefer tea over coffee."):
        await say(agent, org, session_id, line)
    await eventually(lambda: preferences(memories, org, user), 60, "reflection never finished")


async def engagement_of(channel: grpc.aio.Channel, org: str) -> engagement_service_pb2.GetEngagementResponse:
    stub = engagement_service_pb2_grpc.EngagementServiceStub(channel)
    return await stub.GetEngagement(engagement_service_pb2.GetEngagementRequest(), metadata=tenant(org))


async def test_reflection_records_each_users_beliefs_under_their_scope(agent, memories, observations) -> None:
    org = f"org-{uuid.uuid4().hex[:12]}"
    await reflected(agent, memories, org, "u-ann", "aria", "I'm vegetarian.")
    await reflected(agent, memories, org, "u-bob", "aria", "I live in Lisbon.")

    async def beliefs_of(user: str) -> list[opb.Observation]:
        query = opb.QueryObservationsRequest(agent_id="aria", user_id=user)
        return list((await observations.QueryObservations(query, metadata=tenant(org))).observations)

    ann = await eventually(lambda: beliefs_of("u-ann"))
    bob = await eventually(lambda: beliefs_of("u-bob"))

    assert {(o.scope.user_id, o.scope.agent_id, o.agent_id) for o in ann} == {("u-ann", "aria", "aria")}
    assert {(o.scope.user_id, o.scope.agent_id, o.agent_id) for o in bob} == {("u-bob", "aria", "aria")}
    assert not any(o.unattributed for o in ann + bob)
    assert any("vegetarian" in o.summary.lower() for o in ann) and not any("lisbon" in o.summary.lower() for o in ann)


async def test_an_unlisted_agents_reflection_writes_no_engagement(services, agent, memories) -> None:
    org = f"org-{uuid.uuid4().hex[:12]}"

    await reflected(agent, memories, org, "u-1", "aria", HEDGED, concluded=CONCLUDED)

    state = await engagement_of(services["observations"].channel, org)
    assert state.first_session and not state.hypotheses and not state.unknowns


async def test_only_a_listed_agents_reflection_writes_engagement(agent_process, services) -> None:
    listed_org, unlisted_org = f"org-{uuid.uuid4().hex[:12]}", f"org-{uuid.uuid4().hex[:12]}"
    agent_process.env.update(LORE_ENGAGEMENT_AGENTS="coach,aria")
    await agent_process.start()
    memories = memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)
    async with service_channel(agent_process.address) as channel:
        child = agent_service_pb2_grpc.AgentServiceStub(channel)
        await reflected(child, memories, listed_org, "u-1", "aria", HEDGED, concluded=CONCLUDED)
        await reflected(child, memories, unlisted_org, "u-1", "companion", HEDGED, concluded=CONCLUDED)

    listed = await engagement_of(services["observations"].channel, listed_org)
    unlisted = await engagement_of(services["observations"].channel, unlisted_org)
    assert [h.statement for h in listed.hypotheses] == ["The churn comes from pricing."]
    assert [line.statement for line in listed.hypotheses[0].evidence] == [CONCLUDED, HEDGED], "one, with more evidence"
    assert unlisted.first_session and not unlisted.hypotheses and not unlisted.unknowns
