"""The Engagement port: FakeEngagement and GrpcEngagement on the observations service answer alike
(what usecases/engage.py relies on: confidence from the evidence, replays by request id, closed
hypotheses leaving the state, the service's limits)."""

from __future__ import annotations

import pytest
from agent_svc.adapters.grpc_observations import GrpcEngagement
from agent_svc.domain.engagement import PROMOTION_THRESHOLD
from lore_runtime.errors import FailedPrecondition, InvalidArgument, QuotaExceeded

from tests.fakes_agent import FakeEngagement
from tests.integration.agent.port_contracts.conftest import ActingAs, new_org


@pytest.fixture
def engagement(channels):
    return ActingAs(GrpcEngagement(channels["observations"]), new_org()) if channels else FakeEngagement()


async def test_a_formed_hypothesis_starts_at_the_prior_and_a_replay_is_the_same_one(engagement) -> None:
    formed = await engagement.form("Late deliveries come from the handoff.", "form-1")

    assert (formed.statement, formed.confidence, formed.evidence_count, formed.active) == (
        "Late deliveries come from the handoff.",
        pytest.approx(0.5),
        0,
        True,
    )
    assert (await engagement.form("Late deliveries come from the handoff.", "form-1")).id == formed.id
    assert [h.id for h in (await engagement.state()).hypotheses] == [formed.id]


async def test_evidence_moves_the_confidence_and_a_replay_adds_nothing(engagement) -> None:
    formed = await engagement.form("Late deliveries come from the handoff.", "form-1")

    supported = await engagement.add_evidence(formed.id, "Ops said so.", True, "turn:1", "ev-1")
    assert (supported.confidence, supported.evidence_count) == (pytest.approx(2 / 3), 1)
    replayed = await engagement.add_evidence(formed.id, "Ops said so.", True, "turn:1", "ev-1")
    assert (replayed.confidence, replayed.evidence_count) == (pytest.approx(2 / 3), 1)

    contradicted = await engagement.add_evidence(formed.id, "Sales disagrees.", False, "turn:2", "ev-2")
    assert (contradicted.confidence, contradicted.evidence_count) == (pytest.approx(0.5), 2)
    assert contradicted.outstanding_contradictions == 1


async def test_promoted_and_archived_hypotheses_leave_the_state_and_take_no_evidence(engagement) -> None:
    promoted = await engagement.form("A", "form-a")
    archived = await engagement.form("B", "form-b")
    kept = await engagement.form("C", "form-c")
    for n in range(3):  # (3 + 1) / (3 + 2): the promotion threshold
        await engagement.add_evidence(promoted.id, f"Seen {n}.", True, f"turn:{n}", f"ev-{n}")

    await engagement.promote(promoted.id, "turn:3")
    await engagement.archive(archived.id, "no longer relevant")

    assert [h.statement for h in (await engagement.state()).hypotheses] == [kept.statement]
    with pytest.raises(FailedPrecondition):
        await engagement.add_evidence(archived.id, "More.", True, "turn:4", "ev-late")
    with pytest.raises(FailedPrecondition):
        await engagement.archive(archived.id, "again")
    with pytest.raises(FailedPrecondition):
        await engagement.promote(promoted.id, "turn:5")


async def test_promotion_is_refused_below_the_threshold_or_with_a_contradiction_outstanding(engagement) -> None:
    weak = await engagement.form("Weak", "form-weak")
    disputed = await engagement.form("Disputed", "form-disputed")
    for n in range(7):  # (7 + 1) / (7 + 1 + 2) with the contradiction: at the threshold
        await engagement.add_evidence(disputed.id, f"Seen {n}.", True, f"turn:{n}", f"ev-{n}")
    disputed = await engagement.add_evidence(disputed.id, "Not so.", False, "turn:9", "ev-9")
    assert disputed.confidence >= PROMOTION_THRESHOLD and disputed.outstanding_contradictions == 1

    for hypothesis in (weak, disputed):
        with pytest.raises(FailedPrecondition):
            await engagement.promote(hypothesis.id, "turn:10")
    assert len((await engagement.state()).hypotheses) == 2


async def test_unknowns_are_listed_once_per_request_id(engagement) -> None:
    await engagement.add_unknown("Who owns the handoff?", "It decides who fixes it.", "unknown-1")
    await engagement.add_unknown("Who owns the handoff?", "It decides who fixes it.", "unknown-1")
    await engagement.add_unknown("When did it start?", "It dates the cause.", "unknown-2")

    assert (await engagement.state()).unknowns == ("Who owns the handoff?", "When did it start?")


async def test_an_unknown_needs_its_question_and_why_it_matters(engagement) -> None:
    for question, why in (("Who owns the handoff?", " "), ("", "It decides who fixes it.")):
        with pytest.raises(InvalidArgument):
            await engagement.add_unknown(question, why, f"unknown-{question}")
    assert (await engagement.state()).unknowns == ()


async def test_the_active_hypotheses_are_bounded(engagement) -> None:
    for n in range(50):  # the service's MAX_ACTIVE_HYPOTHESES, the fake's default
        await engagement.form(f"Hypothesis {n}", f"form-{n}")

    with pytest.raises(QuotaExceeded):
        await engagement.form("One too many", "form-50")
    assert (await engagement.form("Hypothesis 0", "form-0")).statement == "Hypothesis 0"  # a replay still answers
