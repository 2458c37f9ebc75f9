"""The Observations port: FakeObservations and GrpcObservations on the observations service answer alike. What
reflection relies on: a claim superseding the slot's belief hands back that belief's memories
(which it then supersedes), a claim agreeing with it hands back none, and a replay of a request id
answers what the call first answered."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from agent_svc.adapters.grpc_observations import GrpcObservations
from agent_svc.domain.extraction import ExtractedClaim
from agent_svc.domain.transcript import Scope
from agent_svc.usecases.reflection_ports import Evidence

from tests.fakes_agent import FakeObservations
from tests.integration.agent.port_contracts.conftest import ActingAs, new_org

# Recent: the service lets any claim replace a stale belief.
NOW = datetime.now(UTC)
SCOPE = Scope(user_id="u-1", agent_id="a-1")


@pytest.fixture
def observations(channels):
    return ActingAs(GrpcObservations(channels["observations"]), new_org()) if channels else FakeObservations()


def diet(summary: str, slot: str = "diet") -> ExtractedClaim:
    return ExtractedClaim("operator_preference", "user", "", slot, summary, summary)


def evidence(turn: str, *memory_ids: str) -> Evidence:
    return Evidence(turn, memory_ids, NOW)


async def test_a_new_claim_on_a_slot_supersedes_nothing(observations) -> None:
    assert await observations.observe(SCOPE, diet("The user is vegetarian."), evidence("t-1", "m-1"), "r-1") == []


async def test_a_different_claim_on_the_slot_hands_back_the_earlier_beliefs_memories(observations) -> None:
    await observations.observe(SCOPE, diet("The user is vegetarian."), evidence("t-1", "m-1", "m-2"), "r-1")

    replaced = await observations.observe(
        SCOPE, diet("The user is no longer vegetarian."), evidence("t-2", "m-3"), "r-2"
    )

    # Its memories, and this call's, recorded against it (reflection drops its own).
    assert sorted(replaced) == ["m-1", "m-2", "m-3"]


async def test_the_same_claim_again_supports_the_belief_and_hands_back_nothing(observations) -> None:
    await observations.observe(SCOPE, diet("The user is vegetarian."), evidence("t-1", "m-1"), "r-1")

    assert await observations.observe(SCOPE, diet("the user is  Vegetarian"), evidence("t-2", "m-2"), "r-2") == []


async def test_claims_on_other_slots_or_of_other_users_are_other_beliefs(observations) -> None:
    await observations.observe(SCOPE, diet("The user is vegetarian."), evidence("t-1", "m-1"), "r-1")

    other_slot = diet("The user drinks coffee.", slot="drink")
    assert await observations.observe(SCOPE, other_slot, evidence("t-2", "m-2"), "r-2") == []
    other_user = Scope(user_id="u-2", agent_id="a-1")
    assert await observations.observe(other_user, diet("The user eats meat."), evidence("t-3", "m-3"), "r-3") == []


async def test_a_belief_supported_twice_holds_against_one_different_claim_and_yields_to_a_second(observations) -> None:
    await observations.observe(SCOPE, diet("The user is vegetarian."), evidence("t-1", "m-1"), "r-1")
    await observations.observe(SCOPE, diet("The user is vegetarian."), evidence("t-2", "m-2"), "r-2")

    assert await observations.observe(SCOPE, diet("The user eats fish."), evidence("t-3", "m-3"), "r-3") == []
    replaced = await observations.observe(SCOPE, diet("The user eats fish."), evidence("t-4", "m-4"), "r-4")

    assert sorted(replaced) == ["m-1", "m-2", "m-3", "m-4"]


async def test_the_slot_is_compared_as_the_service_spells_it(observations) -> None:
    await observations.observe(SCOPE, diet("The user is vegetarian.", slot="Diet"), evidence("t-1", "m-1"), "r-1")

    replaced = await observations.observe(SCOPE, diet("The user eats meat.", slot="diet"), evidence("t-2"), "r-2")

    assert replaced == ["m-1"]


async def test_a_replayed_request_answers_what_it_first_answered(observations) -> None:
    await observations.observe(SCOPE, diet("The user is vegetarian."), evidence("t-1", "m-1"), "r-1")
    later = diet("The user is no longer vegetarian.")
    first = await observations.observe(SCOPE, later, evidence("t-2"), "r-2")

    assert await observations.observe(SCOPE, later, evidence("t-2"), "r-2") == first == ["m-1"]
    assert await observations.observe(SCOPE, diet("The user is vegetarian."), evidence("t-1", "m-1"), "r-1") == []
