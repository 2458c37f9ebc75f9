"""Engagement hygiene on the real observations service: reflection of a
listed agent's session adds evidence to the matching hypothesis instead of forming a duplicate and
promotes it by the documented rule, a user's hunch alone forms nothing, a full list is a logged
skip (the run completes and the watermark moves), and no hypothesis states an unsourced figure.
The transcript and the other ports are the unit tests' fakes; the engagement port is the gRPC
adapter the agent runs with."""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from agent_svc.adapters.grpc_observations import GrpcEngagement
from agent_svc.domain.rules import RuleExtractor
from agent_svc.domain.transcript import Scope, Turn, turn_id_for
from agent_svc.usecases.reflect import ReflectionServices, reflect_through
from agent_svc.usecases.sessions import start_session
from lore.observations.v1 import engagement_service_pb2 as epb
from lore.observations.v1 import engagement_service_pb2_grpc
from lore_runtime import request_context
from lore_runtime.channels import create_channel

from tests.fakes import FixedClock
from tests.fakes_agent import FakeMemories, FakeObservations, FakeWorkingMemory, InMemoryTranscript, InMemoryTurnLoop
from tests.grpc_harness import SERVICE_TOKENS
from tests.integration.agent.support import tenant

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
SCOPE = Scope(user_id="u-1", agent_id="consultant")
CONCLUDED = "My working hypothesis is that the late deliveries come from the handoff between sales and ops."
HUNCH = "I suspect the late deliveries come from the handoff between sales and ops."


class Reflection:
    """One org's session of a listed agent, reflected through the real EngagementService."""

    def __init__(self, channel) -> None:
        self.org = f"org-{uuid.uuid4().hex[:12]}"
        self.transcript = InMemoryTranscript()
        self.results = InMemoryTurnLoop(self.transcript)
        self.memories = FakeMemories()
        self.services = ReflectionServices(
            self.transcript,
            self.results,
            RuleExtractor(),
            self.memories,
            FakeObservations(),
            GrpcEngagement(channel),
            FakeWorkingMemory(),
            frozenset({"consultant"}),
        )
        self.session_id = ""
        self.said = 0

    async def start(self) -> None:
        session = await start_session(self.org, SCOPE, {}, "s", transcript=self.transcript, clock=FixedClock(T0))
        self.session_id = session.id

    async def say(self, *lines: tuple[str, str]) -> int:
        turns = []
        for role, content in lines:
            key = f"{self.said}-{content}"
            turns.append(
                Turn(
                    turn_id_for(self.session_id, key),
                    self.session_id,
                    0,
                    role,
                    content,
                    T0 + timedelta(minutes=self.said),
                    {},
                    key,
                )
            )
            self.said += 1
        await self.transcript.append(self.org, self.session_id, turns, T0)
        return self.said

    async def reflect(self) -> int:
        # A job runs as the org's system principal, as the worker binds it.
        with request_context.bound(request_context.RequestContext(self.org, "lore-system")):
            return await reflect_through(self.org, self.session_id, self.said, self.services)


@pytest.fixture
async def engagement_channel(services):
    channel = create_channel(services["observations"].address, token=SERVICE_TOKENS)
    yield channel
    await channel.close()


@pytest.fixture
async def reflection(engagement_channel) -> Reflection:
    reflection = Reflection(engagement_channel)
    await reflection.start()
    return reflection


async def state(channel, org: str) -> epb.GetEngagementResponse:
    stub = engagement_service_pb2_grpc.EngagementServiceStub(channel)
    return await stub.GetEngagement(epb.GetEngagementRequest(), metadata=tenant(org))


async def test_a_repeated_hunch_adds_evidence_to_one_hypothesis_which_is_then_promoted(
    reflection, engagement_channel
) -> None:
    await reflection.say(("assistant", CONCLUDED), ("user", HUNCH), ("assistant", CONCLUDED))
    await reflection.reflect()

    (hypothesis,) = (await state(engagement_channel, reflection.org)).hypotheses
    assert hypothesis.statement == "The late deliveries come from the handoff between sales and ops."
    assert [line.statement for line in hypothesis.evidence] == [CONCLUDED, HUNCH]
    assert hypothesis.confidence == pytest.approx(0.75)

    await reflection.say(
        ("user", "Honestly, I suspect the late deliveries come from the handoff between sales and ops.")
    )
    await reflection.reflect()

    after = await state(engagement_channel, reflection.org)
    assert len(after.hypotheses) == 1 and after.hypotheses[0].status == epb.HYPOTHESIS_STATUS_PROMOTED
    (finding,) = after.findings
    assert finding.statement == hypothesis.statement and finding.source.startswith("user, 2026-03-02, turn:")


async def test_a_users_hunch_and_question_alone_write_nothing(reflection, engagement_channel) -> None:
    await reflection.say(("user", HUNCH), ("user", "I don't know whether the new forecast tool helps."))

    assert await reflection.reflect() == 2

    found = await state(engagement_channel, reflection.org)
    assert found.first_session and not found.hypotheses and not found.unknowns


async def test_a_full_list_is_a_logged_skip_and_the_run_completes(reflection, engagement_channel, caplog) -> None:
    stub = engagement_service_pb2_grpc.EngagementServiceStub(engagement_channel)
    for index in range(50):  # the org's limit of active hypotheses (docs/engagement.md, Limits)
        request = epb.FormHypothesisRequest(statement=f"Filler hypothesis number {index}.")
        await stub.FormHypothesis(request, metadata=tenant(reflection.org))
    await reflection.say(("assistant", CONCLUDED), ("user", "I'm vegetarian."))

    with caplog.at_level(logging.WARNING, logger="agent_svc.usecases.engage"):
        assert await reflection.reflect() == 2

    assert await reflection.results.reflected_through(reflection.org, reflection.session_id) == 2
    assert any("TOO_MANY_ACTIVE_HYPOTHESES" in record.getMessage() for record in caplog.records)
    statements = [h.statement for h in (await state(engagement_channel, reflection.org)).hypotheses]
    assert len(statements) == 50 and not any("deliveries" in s for s in statements)
    assert reflection.memories.remembered, "the rest of reflection went on"


async def test_no_hypothesis_states_a_precise_figure_without_a_source(reflection, engagement_channel) -> None:
    await reflection.say(
        ("assistant", "My hypothesis is that 37% of the late deliveries come from the handoff."),
        ("assistant", "My hypothesis is that the late deliveries come from the $2.5M freight contract."),
        ("assistant", "My hypothesis is that the late deliveries since March 2026 come from the handoff."),
    )

    await reflection.reflect()

    found = await state(engagement_channel, reflection.org)
    assert [h.statement for h in found.hypotheses] == ["The late deliveries since March 2026 come from the handoff."], (
        "a date is not a figure"
    )
