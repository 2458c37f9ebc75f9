"""SearchEpisodes' use case on the fake index: nearest summaries first, the caller's vector, scope
and org walls, salience as of now, and the input rules."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from lore_runtime import errors
from memory_svc.domain.episode import EpisodeDraft
from memory_svc.domain.model import Scope, ScopeMatch
from memory_svc.usecases.episode_search import DEFAULT_K, MAX_K, search_episodes
from memory_svc.usecases.episodes import create_episode

from tests.fakes import FixedClock, HashingEmbedder
from tests.fakes_episodes import InMemoryEpisodeIndex

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def deps() -> dict[str, object]:
    return {"index": InMemoryEpisodeIndex(), "embedder": HashingEmbedder(), "clock": FixedClock(T0)}


async def create(deps, org: str, summary: str, scope: Scope = Scope(user_id="alice"), **fields):
    draft = EpisodeDraft(conversation_id=f"c-{uuid.uuid4().hex[:8]}", summary=summary, scope=scope, **fields)
    return await create_episode(org, draft, "r", **deps)


async def search(deps, org: str, query: str, scope: Scope = Scope(user_id="alice"), k: int = 0, **options):
    return await search_episodes(
        org,
        query,
        scope,
        k,
        index=deps["index"],
        embedder=deps["embedder"],
        clock=deps["clock"],
        scope_match=options.pop("scope_match", ScopeMatch.CONTEXT),
        **options,
    )


async def test_an_old_relevant_episode_outranks_a_new_irrelevant_one(deps) -> None:
    org = "org-a"
    old = await create(deps, org, "Alice adopted a rescue dog called Biscuit from the shelter.")
    deps["clock"].advance(days=40)
    await create(deps, org, "Alice compared mortgage rates for the flat in Porto.")

    hits = await search(deps, org, "What is the name of Alice's dog from the shelter?")

    assert hits[0].episode.id == old.id
    assert hits[0].similarity > hits[1].similarity
    assert hits[0].episode.current_salience == pytest.approx(0.5 ** (40 / 30))


async def test_the_callers_vector_is_used_instead_of_embedding_the_query(deps) -> None:
    org = "org-a"
    dog = await create(deps, org, "Alice adopted a rescue dog.")
    await create(deps, org, "Mortgage rates in Porto.")
    calls = len(deps["embedder"].calls)
    (vector,) = await deps["embedder"].embed(["rescue dog adopted"])

    hits = await search(deps, org, "", vector=vector)

    assert hits[0].episode.id == dog.id
    assert len(deps["embedder"].calls) == calls + 1  # only the test's own embedding


async def test_a_context_search_never_reaches_another_user_or_another_org(deps) -> None:
    theirs = await create(deps, "org-a", "Bob adopted a rescue dog.", Scope(user_id="bob"))
    shared = await create(deps, "org-a", "The shelter's rescue dog policy.", Scope())
    elsewhere = await create(deps, "org-b", "Alice adopted a rescue dog.")

    hits = await search(deps, "org-a", "rescue dog", k=MAX_K)

    assert [hit.episode.id for hit in hits] == [shared.id]
    assert theirs.id not in {hit.episode.id for hit in await search(deps, "org-a", "dog", Scope(), k=MAX_K)}
    assert elsewhere.id not in {hit.episode.id for hit in hits}


async def test_k_defaults_to_five_and_min_salience_reads_the_decayed_value(deps) -> None:
    org = "org-a"
    old = [await create(deps, org, f"Walked the dog, day {n}.") for n in range(8)]
    deps["clock"].advance(days=60)
    fresh = await create(deps, org, "Walked the dog again.", ended_at=T0 + timedelta(days=60))

    default = await search(deps, org, "walked the dog")
    salient = await search(deps, org, "walked the dog", min_salience=0.3)

    assert len(default) == DEFAULT_K
    assert [hit.episode.id for hit in salient] == [fresh.id]
    assert all(hit.episode.id in {e.id for e in old} for hit in default if hit.episode.id != fresh.id)


@pytest.mark.parametrize(
    ("query", "k", "options", "field"),
    [
        ("", 0, {}, "query"),
        ("   ", 0, {}, "query"),
        ("x" * 4001, 0, {}, "query"),
        ("dog", MAX_K + 1, {}, "k"),
        ("dog", -1, {}, "k"),
        ("dog", 0, {"min_salience": -0.1}, "min_salience"),
        ("dog", 0, {"min_salience": float("nan")}, "min_salience"),
    ],
)
async def test_bad_input_is_invalid_argument_naming_the_field(deps, query, k, options, field) -> None:
    with pytest.raises(errors.InvalidArgument) as raised:
        await search(deps, "org-a", query, k=k, **options)
    assert raised.value.field == field


async def test_a_query_may_be_empty_when_the_vector_is_given(deps) -> None:
    vector = np.ones(deps["embedder"].dimension, dtype=np.float32)
    assert await search(deps, "org-a", "", vector=vector) == []
