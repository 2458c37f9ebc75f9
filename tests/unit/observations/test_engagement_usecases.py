"""The engagement use cases on the in-memory store (held to PostgresEngagementStore by
tests/integration/observations/test_engagement_store_contract.py): what they refuse names the field
and the rule, and a refusal writes nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from lore_runtime.errors import InvalidArgument
from observations_svc.api import engagement_convert
from observations_svc.domain import engagement_limits as limits
from observations_svc.domain.engagement import DIGEST_OF_FIRST_SESSION, FIRST_SESSION, EvidenceDraft, Stance, digest_of
from observations_svc.usecases import engagement as usecase

from tests.fakes import FixedClock
from tests.fakes_engagement import InMemoryEngagementStore

ORG = "org-a"


@pytest.fixture
def store() -> InMemoryEngagementStore:
    return InMemoryEngagementStore()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(datetime(2026, 3, 2, 9, tzinfo=UTC))


async def refused_field(call) -> str:
    with pytest.raises(InvalidArgument) as refused:
        await call
    return refused.value.field


async def test_a_hypothesis_id_that_is_no_uuid_is_a_bad_argument_not_a_missing_hypothesis(store, clock) -> None:
    field = await refused_field(usecase.archive_hypothesis(ORG, "hyp-7", "done", store=store, clock=clock))
    assert field == "hypothesis_id"


@pytest.mark.parametrize(("confidence", "reason"), [(None, "because"), (1.5, "because"), (float("nan"), "because")])
async def test_a_revision_needs_a_confidence_in_the_unit_interval(store, clock, confidence, reason) -> None:
    hypothesis = await usecase.form_hypothesis(ORG, "Sales dip in August.", [], "", store=store, clock=clock)
    call = usecase.revise_hypothesis(ORG, hypothesis.id, confidence, reason, "", store=store, clock=clock)

    assert await refused_field(call) == "confidence"
    assert (await store.read(ORG)).hypotheses == (hypothesis,)


async def test_too_many_evidence_lines_or_an_unsourced_precise_figure_form_nothing(store, clock) -> None:
    line = EvidenceDraft(statement="A customer said so.", stance=Stance.SUPPORT)
    too_many = [line] * (limits.MAX_EVIDENCE_PER_HYPOTHESIS + 1)
    figure = EvidenceDraft(statement="Revenue grew 12.5% last quarter.", stance=Stance.SUPPORT)

    assert await refused_field(usecase.form_hypothesis(ORG, "Growth.", too_many, "", store=store, clock=clock)) == (
        "evidence"
    )
    assert await refused_field(usecase.form_hypothesis(ORG, "Growth.", [figure], "", store=store, clock=clock)) == (
        "evidence[0].source"
    )
    assert await store.read(ORG) == FIRST_SESSION


async def test_weeks_start_at_one(store, clock) -> None:
    assert await refused_field(usecase.advance_week(ORG, 0, store=store, clock=clock)) == "expected_week_number"
    assert await store.read(ORG) == FIRST_SESSION


async def test_the_digest_use_case_answers_the_stores_digest_and_a_first_session_digest_is_empty(store, clock) -> None:
    assert await usecase.get_engagement_digest(ORG, store=store) == DIGEST_OF_FIRST_SESSION
    formed = await usecase.form_hypothesis(
        ORG,
        "Churn comes from onboarding.",
        [EvidenceDraft("Seen.", Stance.CONTRADICT, 1.0, "notes")],
        "",
        store=store,
        clock=clock,
    )
    digest = await usecase.get_engagement_digest(ORG, store=store)
    assert digest == digest_of(await usecase.get_engagement(ORG, store=store))
    assert [(h.id, h.evidence_count, h.outstanding_contradictions) for h in digest.hypotheses] == [(formed.id, 1, 1)]


@pytest.mark.parametrize(("view", "digest"), [(0, False), (1, False), (2, True)])
def test_the_view_is_full_unless_the_digest_is_asked_for(view, digest) -> None:
    assert engagement_convert.digest_requested(view) is digest


@pytest.mark.parametrize("view", [3, -1, 99])
def test_a_view_outside_the_enum_is_invalid_argument_naming_view(view) -> None:
    with pytest.raises(InvalidArgument) as refused:
        engagement_convert.digest_requested(view)
    assert refused.value.field == "view"
