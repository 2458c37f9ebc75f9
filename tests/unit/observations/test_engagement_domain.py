"""The engagement rules: confidence from evidence, revisions as priors, promotion, archive, limits."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lore_runtime.errors import FailedPrecondition, InvalidArgument, QuotaExceeded
from observations_svc.domain import engagement as model
from observations_svc.domain import engagement_limits as limits

T0 = datetime(2026, 1, 1, tzinfo=UTC)
weights = st.floats(min_value=0.01, max_value=10.0, allow_nan=False)
stances = st.sampled_from(list(model.Stance))
lines = st.lists(st.tuples(stances, weights), max_size=20)


def _line(stance: model.Stance, weight: float = 1.0, epoch: int = 0, statement: str = "seen") -> model.EvidenceLine:
    return model.EvidenceLine(
        id=f"e-{stance.value}-{weight}", statement=statement, stance=stance, weight=weight, source="",
        observed_at=T0, recorded_at=T0, epoch=epoch,
    )  # fmt: skip


def _hypothesis(*evidence: tuple[model.Stance, float]) -> model.Hypothesis:
    drafts = [(f"e{i}", model.EvidenceDraft("seen", stance, weight)) for i, (stance, weight) in enumerate(evidence)]
    return model.form_hypothesis("h1", "users want SSO", drafts, active_count=0, now=T0)


def _draft(stance: model.Stance = model.Stance.SUPPORT, weight: float = 1.0) -> model.EvidenceDraft:
    return model.EvidenceDraft("another interview", stance, weight)


def test_a_new_hypothesis_without_evidence_is_undecided():
    assert _hypothesis().confidence == 0.5


def test_the_confidence_is_the_documented_smoothed_ratio():
    hypothesis = _hypothesis((model.Stance.SUPPORT, 3.0), (model.Stance.CONTRADICT, 1.0))
    assert hypothesis.confidence == pytest.approx((3.0 + 2 * 0.5) / (3.0 + 1.0 + 2))


@given(lines, weights)
def test_more_support_never_lowers_the_confidence(evidence, weight):
    before = _hypothesis(*evidence)
    after = model.add_evidence(before, "new", _draft(model.Stance.SUPPORT, weight), T0).hypothesis
    assert after.confidence >= before.confidence
    assert 0.0 <= after.confidence <= 1.0


@given(lines, weights)
def test_a_contradiction_never_raises_the_confidence(evidence, weight):
    before = _hypothesis(*evidence)
    after = model.add_evidence(before, "new", _draft(model.Stance.CONTRADICT, weight), T0).hypothesis
    assert after.confidence <= before.confidence
    assert 0.0 <= after.confidence <= 1.0


@given(lines, st.floats(min_value=0.0, max_value=1.0), lines)
def test_a_revision_sets_the_prior_and_later_evidence_moves_from_there(before, revised, after):
    hypothesis = model.revise(_hypothesis(*before), revised, "analyst call", "", T0).hypothesis
    assert hypothesis.confidence == revised
    for i, (stance, weight) in enumerate(after):
        hypothesis = model.add_evidence(hypothesis, f"n{i}", _draft(stance, weight), T0).hypothesis
    support = sum(w for s, w in after if s is model.Stance.SUPPORT)
    contradiction = sum(w for s, w in after if s is model.Stance.CONTRADICT)
    expected = (support + 2 * revised) / (support + contradiction + 2)
    assert hypothesis.confidence == pytest.approx(expected)


def test_a_revision_keeps_the_previous_statement_and_confidence_with_its_reason():
    hypothesis = _hypothesis((model.Stance.SUPPORT, 1.0))
    change = model.revise(hypothesis, 0.9, "three more calls", "most users want SSO", T0 + timedelta(hours=1))
    assert change.new_revision == model.Revision(
        previous_statement="users want SSO", statement="most users want SSO",
        previous_confidence=hypothesis.confidence, confidence=0.9, reason="three more calls",
        revised_at=T0 + timedelta(hours=1),
    )  # fmt: skip
    assert change.hypothesis.statement == "most users want SSO"
    assert all(change.hypothesis.is_reviewed(line) for line in change.hypothesis.evidence)


def test_promotion_needs_the_threshold():
    hypothesis = _hypothesis((model.Stance.SUPPORT, 1.0))
    with pytest.raises(FailedPrecondition, match=r"below the promotion threshold 0\.800"):
        model.promote(hypothesis, "f1", "", "", 0.8, T0)
    change = model.promote(hypothesis, "f1", "", "", 0.6, T0)
    assert change.hypothesis.status is model.HypothesisStatus.PROMOTED
    assert change.finding == model.Finding("f1", "users want SSO", "", "h1", T0)


def test_an_outstanding_contradiction_blocks_promotion_until_a_revision_answers_it():
    hypothesis = _hypothesis((model.Stance.SUPPORT, 10.0), (model.Stance.CONTRADICT, 0.5))
    assert hypothesis.confidence >= 0.8
    with pytest.raises(FailedPrecondition, match="contradicting evidence line"):
        model.promote(hypothesis, "f1", "", "", 0.8, T0)
    revised = model.revise(hypothesis, 0.85, "the contradicting customer is on the legacy plan", "", T0).hypothesis
    assert revised.outstanding_contradictions() == []
    assert model.promote(revised, "f1", "", "", 0.8, T0).finding is not None


def test_a_blocked_promotion_says_every_reason():
    hypothesis = _hypothesis((model.Stance.CONTRADICT, 1.0))
    with pytest.raises(FailedPrecondition) as raised:
        model.promote(hypothesis, "f1", "", "", 0.8, T0)
    assert "below the promotion threshold" in raised.value.message
    assert "outstanding" in raised.value.message


def test_a_finding_with_a_figure_needs_a_source():
    hypothesis = model.revise(_hypothesis(), 0.9, "clear", "", T0).hypothesis
    with pytest.raises(InvalidArgument) as raised:
        model.promote(hypothesis, "f1", "42% of users want SSO", "", 0.8, T0)
    assert raised.value.field == "source"
    change = model.promote(hypothesis, "f1", "42% of users want SSO", "survey 2026-01", 0.8, T0)
    assert change.finding.source == "survey 2026-01"


def test_closed_hypotheses_are_final():
    archived = model.archive(_hypothesis(), "customers moved on", T0).hypothesis
    assert archived.archive_note == "customers moved on"
    for attempt in (
        lambda: model.add_evidence(archived, "e", _draft(), T0),
        lambda: model.revise(archived, 0.5, "why", "", T0),
        lambda: model.archive(archived, "again", T0),
    ):
        with pytest.raises(FailedPrecondition):
            attempt()
    with pytest.raises(FailedPrecondition, match="archived"):
        model.promote(archived, "f1", "", "", 0.0, T0)


@pytest.mark.parametrize(
    ("draft", "field"),
    [
        (model.EvidenceDraft("  ", model.Stance.SUPPORT), "evidence.statement"),
        (model.EvidenceDraft("x" * (limits.MAX_STATEMENT_CHARS + 1), model.Stance.SUPPORT), "evidence.statement"),
        (model.EvidenceDraft("seen", model.Stance.SUPPORT, 0.0), "evidence.weight"),
        (model.EvidenceDraft("seen", model.Stance.SUPPORT, 10.5), "evidence.weight"),
        (model.EvidenceDraft("seen", model.Stance.SUPPORT, float("nan")), "evidence.weight"),
        (model.EvidenceDraft("seen", model.Stance.SUPPORT, 1.0, "s" * 201), "evidence.source"),
        (model.EvidenceDraft("1,200 users churned", model.Stance.SUPPORT), "evidence.source"),
    ],
)
def test_bad_evidence_is_refused_naming_the_field(draft, field):
    with pytest.raises(InvalidArgument) as raised:
        model.validate_evidence(draft, "evidence")
    assert raised.value.field == field


def test_evidence_with_a_figure_and_a_source_is_accepted_trimmed():
    draft = model.validate_evidence(
        model.EvidenceDraft(" 1,200 users churned ", model.Stance.CONTRADICT, 10.0, " billing export "), "evidence"
    )
    assert (draft.statement, draft.source) == ("1,200 users churned", "billing export")


def test_limits_on_counts():
    with pytest.raises(QuotaExceeded):
        model.form_hypothesis("h", "s", [], active_count=limits.MAX_ACTIVE_HYPOTHESES, now=T0)
    full = replace(_hypothesis(), evidence=tuple(_line(model.Stance.SUPPORT) for _ in range(50)))
    with pytest.raises(QuotaExceeded):
        model.add_evidence(full, "e", _draft(), T0)
    hypothesis = _hypothesis()
    for _ in range(limits.MAX_REVISIONS_PER_HYPOTHESIS):
        hypothesis = model.revise(hypothesis, 0.5, "again", "", T0).hypothesis
    with pytest.raises(QuotaExceeded):
        model.revise(hypothesis, 0.5, "once more", "", T0)
    with pytest.raises(QuotaExceeded):
        model.new_unknown("u", "q", "w", limits.MAX_OPEN_UNKNOWNS, T0)


def test_an_unknown_is_resolved_once():
    unknown = model.new_unknown("u1", "Who signs off?", "Blocks the contract", 0, T0)
    resolved = model.resolve(unknown, "the CFO", T0 + timedelta(days=1))
    assert (resolved.status, resolved.resolution, resolved.resolved_at) == (
        model.UnknownStatus.RESOLVED, "the CFO", T0 + timedelta(days=1),
    )  # fmt: skip
    with pytest.raises(FailedPrecondition):
        model.resolve(resolved, "the CEO", T0)
