"""The engagement hygiene rules reflection applies (agent_svc.domain.engagement), with the rule
extractor's proposals for the agent's own conclusions and open questions."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from agent_svc.domain import engagement as rules
from agent_svc.domain.extraction import EngagementProposal, EvidenceLine, HypothesisProposal, Utterance
from agent_svc.domain.rules import RuleExtractor
from agent_svc.domain.transcript import Turn
from agent_svc.usecases.engage import engage
from observations_svc.domain.engagement_figures import states_precise_figure as service_rule

from tests.fakes_agent import FakeEngagement


def active(statement: str, confidence: float = 0.5, contradictions: int = 0, evidence: int = 1):
    return rules.ActiveHypothesis("h-1", statement, confidence, contradictions, evidence)


@pytest.mark.parametrize(
    ("proposed", "existing"),
    [
        ("The onboarding emails cause the drop-off.", "the onboarding emails cause the drop-off"),
        ("That onboarding emails cause the drop-off!", "The onboarding emails cause the drop-off."),
        ("ONBOARDING EMAILS CAUSE THE DROP-OFF", "An onboarding emails cause the drop off."),
    ],
)
def test_the_same_statement_matches_whatever_its_case_punctuation_and_leading_article(proposed, existing) -> None:
    assert rules.match(proposed, [active("Something else entirely."), active(existing)]) is not None


@pytest.mark.parametrize(
    "proposed",
    [
        "The onboarding emails cause the drop-off in week one.",
        "The onboarding emails do not cause the drop-off.",
        "Onboarding calls cause the drop-off.",
    ],
)
def test_a_different_statement_does_not_match(proposed) -> None:
    assert rules.match(proposed, [active("The onboarding emails cause the drop-off.")]) is None


def test_only_the_agents_conclusion_forms_and_only_its_open_question_is_an_unknown() -> None:
    assert rules.may_form(["assistant"]) and rules.may_form(["user", "assistant"])
    assert not rules.may_form(["user"]) and not rules.may_form([])
    assert rules.may_add_unknown("assistant") and not rules.may_add_unknown("user")


def test_the_agent_restating_its_hypothesis_is_not_evidence_a_users_line_is() -> None:
    assert rules.counts_as_evidence("assistant", active("x", evidence=0)), "the line it is formed from"
    assert not rules.counts_as_evidence("assistant", active("x", evidence=1))
    assert rules.counts_as_evidence("user", active("x", evidence=3))


def test_promotion_and_archive_follow_the_documented_rule() -> None:
    assert rules.should_promote(active("x", confidence=0.8))
    assert not rules.should_promote(active("x", confidence=0.79))
    assert not rules.should_promote(active("x", confidence=0.9, contradictions=1)), "a contradiction is outstanding"
    assert rules.should_archive(active("x", confidence=0.25)) and not rules.should_archive(active("x", confidence=0.4))
    closed = rules.ActiveHypothesis("h", "x", 0.9, 0, 3, active=False)
    assert not rules.should_promote(closed) and not rules.should_archive(closed)


@pytest.mark.parametrize(
    "text",
    [
        "Returns doubled because 12 couriers quit.",
        "Margins fell 3.5 points.",
        "The kiosk costs €40k a month.",
        "About 40% of tickets are about billing.",
        "The slowdown began in March 2026.",
        "The backlog grew during sprint 4 of Q3.",
        "It started on 2026-03-05 at 9am.",
        "Nobody has measured it yet.",
        "Three stores report the same thing.",
    ],
)
def test_the_figure_rule_agrees_with_the_observations_service(text) -> None:
    assert rules.states_precise_figure(text) == service_rule(text)


async def test_the_rule_extractor_reads_the_agents_conclusions_and_open_questions() -> None:
    proposal = await RuleExtractor().engagement(
        [
            Utterance("assistant", "My working hypothesis is that the drop-off comes from the onboarding emails.", "a"),
            Utterance("assistant", "The evidence suggests the refunds are driven by late deliveries.", "b"),
            Utterance("assistant", "We don't know yet whether the new pricing page helps.", "c"),
            Utterance("assistant", "It looks like a good week for a review."),
        ]
    )
    assert [h.statement for h in proposal.hypotheses] == [
        "The drop-off comes from the onboarding emails.",
        "The refunds are driven by late deliveries.",
    ]
    assert proposal.unknowns == ("Whether the new pricing page helps",)


def said(role: str, content: str, index: int) -> Turn:
    return Turn(f"t-{index}", "s-1", index, role, content, datetime(2026, 3, 3, 9, index, tzinfo=UTC), {}, f"k-{index}")


def proposal(statement: str, turn: Turn, supports: bool = True) -> EngagementProposal:
    return EngagementProposal(
        hypotheses=(HypothesisProposal(statement, (EvidenceLine(turn.content, supports, turn.id),)),)
    )


async def test_contradicting_user_lines_archive_the_hypothesis_with_a_note() -> None:
    engagement = FakeEngagement()
    statement = "The refunds are driven by late deliveries."
    first = said("assistant", "The evidence suggests the refunds are driven by late deliveries.", 0)
    await engage(first, proposal(statement, first), engagement)
    for index in range(1, 6):
        denial = said("user", f"No, the refunds are not driven by late deliveries (store {index}).", index)
        await engage(denial, proposal(statement, denial, supports=False), engagement)

    (hypothesis,) = engagement.hypotheses.values()
    assert hypothesis["status"] == "archived" and len(hypothesis["evidence"]) == 6
    assert engagement.calls.count("archive") == 1 and "promote" not in engagement.calls


async def test_a_contradiction_alone_forms_nothing() -> None:
    engagement = FakeEngagement()
    turn = said("assistant", "It is not the pricing.", 0)

    await engage(turn, proposal("The churn comes from pricing.", turn, supports=False), engagement)

    assert engagement.hypotheses == {}
