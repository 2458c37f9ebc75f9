"""One contract for the engagement store: InMemoryEngagementStore of tests/fakes_engagement.py and
PostgresEngagementStore (as lore_app, under row-level security) answer the same assertions, driven
through the use cases of usecases/engagement.py, so those can be unit-tested on the fake."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from lore_runtime import errors
from observations_svc.adapters.postgres.engagement_store import PostgresEngagementStore
from observations_svc.domain import engagement_limits as limits
from observations_svc.domain.engagement import (
    DIGEST_OF_FIRST_SESSION,
    FIRST_SESSION,
    EvidenceDraft,
    HypothesisStatus,
    Stance,
    UnknownStatus,
    digest_of,
)
from observations_svc.usecases import engagement as usecase

from tests.fakes import FixedClock
from tests.fakes_engagement import InMemoryEngagementStore
from tests.integration.observations.store_sides import fake_or_postgres

T0 = datetime(2026, 3, 2, 9, 0, 0, 123456, tzinfo=UTC)


@pytest.fixture
async def store(database) -> AsyncIterator[object]:
    async for opened in fake_or_postgres(database, InMemoryEngagementStore, PostgresEngagementStore):
        yield opened


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(T0)


def support(statement: str, weight: float = 1.0) -> EvidenceDraft:
    return EvidenceDraft(statement=statement, stance=Stance.SUPPORT, weight=weight, source="call notes")


def as_read(hypothesis):
    """A hypothesis as a read returns it: evidence by (recorded_at, id); lines of one call share a time."""
    return replace(
        hypothesis, evidence=tuple(sorted(hypothesis.evidence, key=lambda line: (line.recorded_at, line.id)))
    )


async def form(store, org: str, clock: FixedClock, statement: str, request_id: str = "", evidence=()):
    clock.advance(seconds=1)
    return await usecase.form_hypothesis(org, statement, list(evidence), request_id, store=store, clock=clock)


async def test_an_org_without_engagement_state_reads_as_its_first_session_and_a_read_writes_nothing(store, org) -> None:
    assert await store.read(org) == FIRST_SESSION
    assert await store.read(org) == FIRST_SESSION


async def test_a_formed_hypothesis_reads_back_as_formed_with_its_evidence_in_order(store, org, clock) -> None:
    formed = await form(
        store,
        org,
        clock,
        "The team ships on Fridays.",
        evidence=[support("Release notes are dated Fridays."), support("The deploy log shows Friday pushes.")],
    )

    state = await store.read(org)
    assert (state.week_number, state.first_session) == (1, False)
    assert state.hypotheses == (as_read(formed),)
    assert {line.statement for line in formed.evidence} == {
        "Release notes are dated Fridays.",
        "The deploy log shows Friday pushes.",
    }
    assert formed.status is HypothesisStatus.ACTIVE


async def test_a_replayed_request_id_returns_the_first_hypothesis_and_forms_no_second(store, org, clock) -> None:
    first = await form(store, org, clock, "The budget owner is Dana.", request_id="form-1")
    again = await form(store, org, clock, "The budget owner is Dana.", request_id="form-1")

    assert again == first
    assert [h.id for h in (await store.read(org)).hypotheses] == [first.id]


async def test_decide_sees_the_count_of_active_hypotheses_and_a_refusal_writes_nothing(store, org) -> None:
    seen: list[int] = []

    def refuse(active: int):
        seen.append(active)
        raise errors.QuotaExceeded("no room", reason="TEST")

    with pytest.raises(errors.QuotaExceeded):
        await store.form_hypothesis(org, "", T0, refuse)
    assert seen == [0]
    assert await store.read(org) == FIRST_SESSION  # the refused first write made no state row

    clock = FixedClock(T0)
    kept = await form(store, org, clock, "Kept.")
    archived = await form(store, org, clock, "Archived.")
    await usecase.archive_hypothesis(org, archived.id, "no longer relevant", store=store, clock=clock)
    with pytest.raises(errors.QuotaExceeded):
        await store.form_hypothesis(org, "", T0, refuse)
    assert seen == [0, 1]
    assert kept.id in {h.id for h in (await store.read(org)).hypotheses}


async def test_evidence_revision_and_promotion_are_kept_and_a_replayed_evidence_line_is_added_once(
    store, org, clock
) -> None:
    formed = await form(store, org, clock, "Customers prefer the annual plan.")
    for request_id in ("line-1", "line-1", "line-2"):
        clock.advance(seconds=1)
        await usecase.add_hypothesis_evidence(
            org, formed.id, support(f"Survey answer {request_id}.", 3.0), request_id, store=store, clock=clock
        )
    clock.advance(seconds=1)
    revised = await usecase.revise_hypothesis(org, formed.id, 0.9, "Two surveys agree.", "", store=store, clock=clock)
    clock.advance(seconds=1)
    promoted, finding = await usecase.promote_hypothesis(
        org, formed.id, "", "Q3 survey", threshold=0.8, store=store, clock=clock
    )

    assert [line.statement for line in revised.evidence] == ["Survey answer line-1.", "Survey answer line-2."]
    # two lines of weight 3 around the prior 0.5 (weight 2): (6 + 1) / (6 + 2)
    assert [(r.previous_confidence, r.confidence) for r in revised.revisions] == [(0.875, 0.9)]
    state = await store.read(org)
    assert state.hypotheses == (promoted,)
    assert (promoted.status, promoted.finding_id) == (HypothesisStatus.PROMOTED, finding.id)
    assert state.findings == (finding,)
    assert finding.statement == "Customers prefer the annual plan."


async def test_a_refused_change_writes_nothing(store, org, clock) -> None:
    formed = await form(store, org, clock, "Churn rises in winter.")
    with pytest.raises(errors.FailedPrecondition):
        await usecase.promote_hypothesis(org, formed.id, "", "", threshold=0.8, store=store, clock=clock)

    assert (await store.read(org)).hypotheses == (formed,)


async def test_the_active_come_first_then_the_closed_newest_first_at_most_as_many_as_shown(store, org, clock) -> None:
    closed = []
    for number in range(limits.CLOSED_HYPOTHESES_SHOWN + 1):
        hypothesis = await form(store, org, clock, f"Guess number {number}.")
        clock.advance(seconds=1)
        closed.append(await usecase.archive_hypothesis(org, hypothesis.id, "ruled out", store=store, clock=clock))
    active = [await form(store, org, clock, f"Open question {number}.") for number in range(2)]

    shown = (await store.read(org)).hypotheses
    assert [h.id for h in shown] == [
        *(h.id for h in active),
        *(h.id for h in reversed(closed[1:])),  # the oldest closed one is past the bound
    ]


async def test_unknowns_are_asked_once_per_request_id_resolved_once_and_listed_open_first(store, org, clock) -> None:
    clock.advance(seconds=1)
    first = await usecase.add_unknown(org, "Who signs off?", "Blocks the launch.", "ask-1", store=store, clock=clock)
    again = await usecase.add_unknown(org, "Who signs off?", "Blocks the launch.", "ask-1", store=store, clock=clock)
    clock.advance(seconds=1)
    second = await usecase.add_unknown(org, "Which region first?", "Sets the order.", "", store=store, clock=clock)
    clock.advance(seconds=1)
    resolved = await usecase.resolve_unknown(org, first.id, "The CFO signs off.", store=store, clock=clock)
    with pytest.raises(errors.FailedPrecondition):
        await usecase.resolve_unknown(org, first.id, "Again.", store=store, clock=clock)

    assert again == first
    assert (resolved.status, resolved.resolution, resolved.resolved_at) == (
        UnknownStatus.RESOLVED,
        "The CFO signs off.",
        clock.now(),
    )
    assert (await store.read(org)).unknowns == (second, resolved)


async def test_another_orgs_hypothesis_or_unknown_is_not_found_and_left_as_it_was(store, clock) -> None:
    owner, intruder = f"org-{uuid.uuid4().hex[:12]}", f"org-{uuid.uuid4().hex[:12]}"
    hypothesis = await form(store, owner, clock, "Our rival cuts prices in May.")
    unknown = await usecase.add_unknown(owner, "Why May?", "Pricing plan.", "", store=store, clock=clock)
    await form(store, intruder, clock, "The intruder's own guess.")

    with pytest.raises(errors.NotFound) as hypothesis_error:
        await usecase.archive_hypothesis(intruder, hypothesis.id, "taking it", store=store, clock=clock)
    with pytest.raises(errors.NotFound) as unknown_error:
        await usecase.resolve_unknown(intruder, unknown.id, "taking it", store=store, clock=clock)
    with pytest.raises(errors.NotFound):
        await usecase.archive_hypothesis(owner, str(uuid.uuid4()), "no such one", store=store, clock=clock)

    assert (hypothesis_error.value.reason, unknown_error.value.reason) == ("HYPOTHESIS_NOT_FOUND", "UNKNOWN_NOT_FOUND")
    owner_state = await store.read(owner)
    assert (owner_state.hypotheses, owner_state.unknowns) == ((hypothesis,), (unknown,))
    assert [h.statement for h in (await store.read(intruder)).hypotheses] == ["The intruder's own guess."]


async def test_the_week_advances_by_one_per_call_even_concurrently_and_a_stale_expectation_conflicts(
    store, org, clock
) -> None:
    with pytest.raises(errors.Conflict):
        await usecase.advance_week(org, 2, store=store, clock=clock)
    assert await store.read(org) == FIRST_SESSION  # the refused first write made no state row

    assert await usecase.advance_week(org, 1, store=store, clock=clock) == 2
    weeks = await asyncio.gather(*(usecase.advance_week(org, None, store=store, clock=clock) for _ in range(4)))
    with pytest.raises(errors.Conflict) as stale:
        await usecase.advance_week(org, 2, store=store, clock=clock)

    assert sorted(weeks) == [3, 4, 5, 6]
    assert (stale.value.reason, stale.value.metadata) == ("WEEK_MOVED", {"week_number": "6"})
    assert (await store.read(org)).week_number == 6


def contradict(statement: str) -> EvidenceDraft:
    return EvidenceDraft(statement=statement, stance=Stance.CONTRADICT, weight=1.0, source="call notes")


async def test_the_digest_is_the_full_views_open_part_with_its_evidence_counted(store, org, clock) -> None:
    assert await store.digest(org) == DIGEST_OF_FIRST_SESSION
    plain = await form(store, org, clock, "Plain guess.")
    # Two contradicting lines, then a revision (it reviews them), then one more contradicting line.
    revised = await form(store, org, clock, "Revised guess.", evidence=[support("A."), contradict("B.")])
    clock.advance(seconds=1)
    await usecase.add_hypothesis_evidence(org, revised.id, contradict("C."), "", store=store, clock=clock)
    clock.advance(seconds=1)
    await usecase.revise_hypothesis(org, revised.id, 0.6, "Weighed them.", "", store=store, clock=clock)
    clock.advance(seconds=1)
    await usecase.add_hypothesis_evidence(org, revised.id, contradict("D."), "", store=store, clock=clock)
    archived = await form(store, org, clock, "Archived guess.")
    clock.advance(seconds=1)
    await usecase.archive_hypothesis(org, archived.id, "ruled out", store=store, clock=clock)
    promoted = await form(store, org, clock, "Promoted guess.", evidence=[support("E.", 10.0)])
    clock.advance(seconds=1)
    await usecase.promote_hypothesis(org, promoted.id, "", "survey", threshold=0.8, store=store, clock=clock)
    clock.advance(seconds=1)
    open_unknown = await usecase.add_unknown(org, "Who decides?", "Blocks it.", "", store=store, clock=clock)
    resolved = await usecase.add_unknown(org, "Which week?", "Sets it.", "", store=store, clock=clock)
    clock.advance(seconds=1)
    await usecase.resolve_unknown(org, resolved.id, "Week two.", store=store, clock=clock)
    await usecase.advance_week(org, None, store=store, clock=clock)

    full = await store.read(org)
    digest = await store.digest(org)
    assert digest == digest_of(full)
    assert (digest.week_number, digest.first_session) == (2, False)
    assert [(h.id, h.evidence_count, h.outstanding_contradictions) for h in digest.hypotheses] == [
        (plain.id, 0, 0),
        (revised.id, 4, 1),
    ]
    assert [u.id for u in digest.unknowns] == [open_unknown.id]
    assert [f.hypothesis_id for f in digest.findings] == [promoted.id]
    assert digest.findings == full.findings


async def test_the_digest_reads_only_the_callers_org(store, clock) -> None:
    owner, other = f"org-{uuid.uuid4().hex[:12]}", f"org-{uuid.uuid4().hex[:12]}"
    await form(store, owner, clock, "The owner's guess.", evidence=[support("Seen.")])
    await usecase.add_unknown(owner, "The owner's question?", "Matters.", "", store=store, clock=clock)

    assert await store.digest(other) == DIGEST_OF_FIRST_SESSION
    theirs = await form(store, other, clock, "The other org's guess.")
    digest = await store.digest(other)
    assert ([h.id for h in digest.hypotheses], digest.unknowns, digest.findings) == ([theirs.id], (), ())
    assert [h.statement for h in (await store.digest(owner)).hypotheses] == ["The owner's guess."]
