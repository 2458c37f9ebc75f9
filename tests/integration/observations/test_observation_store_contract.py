"""One contract for the store Observe, Confirm and Contradict write through: InMemoryObservationStore
of tests/fakes_observations.py and PostgresObservationStore (as lore_app, under row-level security)
answer the same assertions, so usecases/observe.py can be unit-tested on the fake."""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from lore_runtime import errors
from observations_svc.adapters.postgres.observation_store import PostgresObservationStore
from observations_svc.domain.keys import canonical_key
from observations_svc.domain.model import BeliefScope, Candidate, EvidenceDraft
from observations_svc.usecases import observe as usecase

from tests.fakes import FixedClock, HashingEmbedder
from tests.fakes_observations import InMemoryObservationStore
from tests.integration.observations.store_sides import fake_or_postgres

T0 = datetime(2026, 2, 3, 4, 5, 6, tzinfo=UTC)
_SECONDS = itertools.count()
SCOPE = BeliefScope(agent_id="aria", user_id="sam")
KEY = canonical_key("entity", "sam", "operator_preference", "drink")


@pytest.fixture
async def store(database) -> AsyncIterator[object]:
    async for opened in fake_or_postgres(database, InMemoryObservationStore, PostgresObservationStore):
        yield opened


def claim(summary: str, *sources: str, stance: str = "support") -> Candidate:
    lines = tuple(EvidenceDraft(stance, 1.0, "message", source, f"said {source}", T0) for source in sources or ("t-1",))
    return Candidate("operator_preference", "entity", "sam", "drink", summary, "", ("drinks",), lines)


async def observe(store, org: str, candidate: Candidate, request_id: str = "", scope: BeliefScope = SCOPE):
    return await usecase.observe(
        org, scope, candidate, request_id, store=store, embedder=HashingEmbedder(384), clock=clock()
    )


def clock() -> FixedClock:
    """A second after the last call's: evidence of one call shares a time, a later call's comes after."""
    return FixedClock(T0 + timedelta(seconds=next(_SECONDS)))


def sources(observation) -> list[tuple[str, str]]:
    return [(item.stance, item.source_id) for item in observation.evidence]


async def test_a_claim_is_created_then_supported_with_its_evidence_in_order(store, org) -> None:
    created, outcome = await observe(store, org, claim("Sam drinks tea.", "t-1", "t-2"))
    assert outcome == usecase.CREATED
    supported, outcome = await observe(store, org, claim("sam drinks tea", "t-3"))

    assert (outcome, supported.id) == (usecase.SUPPORTED, created.id)
    stored = await store.get(org, created.id)
    assert sources(stored) == [("support", "t-1"), ("support", "t-2"), ("support", "t-3")]
    assert stored.evidence[0].created_at < stored.evidence[1].created_at < stored.evidence[2].created_at
    assert stored.confidence == supported.confidence and stored.status == "active"
    assert await store.current_summary(org, SCOPE, KEY) == "Sam drinks tea."


async def test_a_different_claim_that_wins_supersedes_the_belief(store, org) -> None:
    first, _ = await observe(store, org, claim("Sam drinks tea.", "t-1"))

    successor, outcome = await observe(store, org, claim("Sam drinks coffee.", "t-2"))

    assert outcome == usecase.SUPERSEDED and successor.supersedes_observation_id == first.id
    earlier = await store.get(org, first.id)
    assert earlier.status == "superseded" and sources(earlier) == [("support", "t-1"), ("contradict", "t-2")]
    assert sources(await store.get(org, successor.id)) == [("support", "t-2")]
    assert await store.current_summary(org, SCOPE, KEY) == "Sam drinks coffee."


async def test_a_replayed_request_answers_what_it_did_and_adds_nothing(store, org) -> None:
    first = await observe(store, org, claim("Sam drinks tea.", "t-1"), "r-1")
    await observe(store, org, claim("Sam drinks tea.", "t-2"), "r-2")

    again = await observe(store, org, claim("Sam drinks tea.", "t-2"), "r-2")

    assert (again[0].id, again[1]) == (first[0].id, usecase.SUPPORTED)
    assert sources(await store.get(org, first[0].id)) == [("support", "t-1"), ("support", "t-2")]


async def test_each_scope_and_each_org_has_its_own_belief(store, org) -> None:
    mine, _ = await observe(store, org, claim("Sam drinks tea.", "t-1"))

    theirs, outcome = await observe(store, org, claim("Sam drinks coffee.", "t-2"), scope=BeliefScope("aria", "kim"))
    assert outcome == usecase.CREATED and theirs.id != mine.id
    other_org = f"org-{uuid.uuid4().hex[:12]}"
    assert await store.get(other_org, mine.id) is None
    assert await store.current_summary(other_org, SCOPE, KEY) is None
    assert (await observe(store, other_org, claim("Sam drinks coffee.", "t-3")))[1] == usecase.CREATED


async def test_contradiction_without_a_correction_is_kept_and_can_invalidate(store, org) -> None:
    belief, _ = await observe(store, org, claim("Sam drinks tea.", "t-1"))
    against = EvidenceDraft("contradict", 2.0, "message", "t-2", "no tea", T0)

    contradicted, outcome = await usecase.contradict(
        org, belief.id, against, "", store=store, embedder=HashingEmbedder(384), clock=clock()
    )

    assert outcome == usecase.CONTRADICTED and contradicted.status == "invalidated"
    assert await store.current_summary(org, SCOPE, KEY) is None
    with pytest.raises(errors.FailedPrecondition):
        await usecase.confirm(org, belief.id, "ops", "yes", store=store, clock=clock())


async def test_evidence_never_cites_an_observation(store, org) -> None:
    belief, _ = await observe(store, org, claim("Sam drinks tea.", "t-1"))

    with pytest.raises(errors.InvalidArgument):
        await observe(store, org, claim("Sam drinks tea.", belief.id.upper()))
    assert sources(await store.get(org, belief.id)) == [("support", "t-1")]


async def test_a_transaction_that_fails_writes_nothing_and_frees_its_key(store, org) -> None:
    belief, _ = await observe(store, org, claim("Sam drinks tea.", "t-1"))
    draft = EvidenceDraft("support", 1.0, "message", "t-9", "", T0)

    with pytest.raises(RuntimeError):
        async with store.transaction(org) as tx:
            await tx.lock_key(SCOPE, KEY)
            await tx.add_evidence(belief.id, [draft], T0)
            raise RuntimeError("the use case failed")

    assert sources(await store.get(org, belief.id)) == [("support", "t-1")]
    assert (await observe(store, org, claim("Sam drinks tea.", "t-2")))[1] == usecase.SUPPORTED


async def test_a_second_current_belief_of_a_key_is_refused(store, org) -> None:
    belief, _ = await observe(store, org, claim("Sam drinks tea.", "t-1"))
    rival = replace(belief, id=str(uuid.uuid4()), summary="Sam drinks water.", evidence=())

    with pytest.raises(errors.Conflict):
        async with store.transaction(org) as tx:
            await tx.insert(rival, [1.0] + [0.0] * 383)
    assert await store.get(org, rival.id) is None


async def test_writers_of_one_key_take_turns(store, org) -> None:
    """The key lock: two first claims at once make one belief, created then supported, never a conflict."""
    results = await asyncio.gather(*(observe(store, org, claim("Sam drinks tea.", f"t-{n}")) for n in range(2)))

    assert sorted(outcome for _, outcome in results) == [usecase.CREATED, usecase.SUPPORTED]
    assert results[0][0].id == results[1][0].id
