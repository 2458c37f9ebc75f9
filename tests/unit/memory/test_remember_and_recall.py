from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lore_runtime import errors
from memory_svc.domain.ids import memory_id
from memory_svc.domain.model import MemoryDraft, MemoryStatus, MemoryType, Scope
from memory_svc.domain.salience import salience
from memory_svc.usecases.recall import recall
from memory_svc.usecases.remember import remember

from tests.fakes import FixedClock, HashingEmbedder, InMemoryErasedMemories, InMemoryMemoryIndex


@pytest.fixture
def deps():
    return {"index": InMemoryMemoryIndex(), "embedder": HashingEmbedder(), "clock": FixedClock()}


def draft(content, user="u-1", **kwargs):
    return MemoryDraft(
        content=content, memory_type=kwargs.pop("memory_type", MemoryType.FACT), scope=Scope(user_id=user), **kwargs
    )


async def test_remember_embeds_the_batch_in_one_call_and_defaults_importance_and_valid_at(deps):
    items = await remember(
        "org-a",
        [draft("likes tea"), draft("lives in Lisbon", importance=0.9)],
        "",
        **deps,
        erased=InMemoryErasedMemories(),
    )
    assert deps["embedder"].calls == [2]
    assert [item.importance for item in items] == [0.5, 0.9]
    assert all(item.valid_at == item.created_at == deps["clock"].now() for item in items)


async def test_a_retried_write_with_the_same_idempotency_key_lands_once(deps):
    first = await remember(
        "org-a", [draft("likes tea", idempotency_key="k-1")], "", **deps, erased=InMemoryErasedMemories()
    )
    second = await remember(
        "org-a", [draft("likes tea", idempotency_key="k-1")], "", **deps, erased=InMemoryErasedMemories()
    )
    assert first[0].id == second[0].id
    assert await deps["index"].count("org-a") == 1


async def test_request_id_makes_items_without_their_own_key_retry_safe(deps):
    first = await remember("org-a", [draft("a"), draft("b")], "req-1", **deps, erased=InMemoryErasedMemories())
    second = await remember("org-a", [draft("a"), draft("b")], "req-1", **deps, erased=InMemoryErasedMemories())
    assert [item.id for item in first] == [item.id for item in second]
    assert first[0].id != first[1].id


async def test_historical_valid_at_is_kept(deps):
    when = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    (item,) = await remember(
        "org-a", [draft("went to the animal shelter", valid_at=when)], "", **deps, erased=InMemoryErasedMemories()
    )
    assert item.valid_at == when and item.created_at == deps["clock"].now()


async def test_empty_and_oversized_batches_are_refused(deps):
    with pytest.raises(errors.InvalidArgument) as raised:
        await remember("org-a", [], "", **deps, erased=InMemoryErasedMemories())
    assert raised.value.field == "memories"
    with pytest.raises(errors.InvalidArgument):
        await remember("org-a", [draft(f"m{i}") for i in range(101)], "", **deps, erased=InMemoryErasedMemories())
    assert await deps["index"].count("org-a") == 0


async def test_recall_finds_the_closest_memory_of_the_scope_only(deps):
    await remember(
        "org-a",
        [draft("Noor went to the animal shelter"), draft("Tomasz paints sunsets")],
        "",
        **deps,
        erased=InMemoryErasedMemories(),
    )
    await remember(
        "org-a", [draft("Noor went to the animal shelter", user="u-2")], "", **deps, erased=InMemoryErasedMemories()
    )
    results = await recall("org-a", "animal shelter", Scope(user_id="u-1"), 5, **deps)
    assert results[0].item.content == "Noor went to the animal shelter"
    assert all(result.item.scope.user_id == "u-1" for result in results)
    assert results[0].salience == 1.0


async def test_recall_never_returns_another_orgs_memories(deps):
    await remember("org-b", [draft("a secret of org b")], "", **deps, erased=InMemoryErasedMemories())
    assert await recall("org-a", "secret", Scope(), 10, **deps) == []


@pytest.mark.parametrize(
    ("query", "k", "field"), [("  ", 5, "query"), ("x" * 4001, 5, "query"), ("q", 101, "k"), ("q", -1, "k")]
)
async def test_recall_refuses_bad_queries(deps, query, k, field):
    with pytest.raises(errors.InvalidArgument) as raised:
        await recall("org-a", query, Scope(), k, **deps)
    assert raised.value.field == field


def test_memory_ids_are_deterministic_per_org_scope_and_key():
    scope = Scope(user_id="u-noor")
    assert memory_id("org", scope, "u-noor/D1:3", "", 0) == memory_id("org", scope, "u-noor/D1:3", "r", 7)
    assert memory_id("org", scope, "k", "", 0) != memory_id("other", scope, "k", "", 0)
    assert memory_id("org", scope, "k", "", 0) != memory_id("org", Scope(user_id="x"), "k", "", 0)
    assert memory_id("org", scope, "", "", 0) != memory_id("org", scope, "", "", 0)


@given(
    access_count=st.integers(min_value=0, max_value=10_000),
    days=st.floats(min_value=0, max_value=36_500, allow_nan=False),
    half_life=st.floats(min_value=0.5, max_value=3_650),
)
def test_salience_never_reaches_zero_and_decays_with_time(access_count, days, half_life):
    from datetime import timedelta

    start = datetime(2026, 1, 1, tzinfo=UTC)
    now = start + timedelta(days=days)
    value = salience(access_count, start, now, half_life)
    assert value >= 0.01
    assert value <= 1.0 + 0.1 * access_count
    later = salience(access_count, start, now + timedelta(days=1), half_life)
    assert later <= value


def test_salience_formula_values():
    start = datetime(2026, 1, 1, tzinfo=UTC)
    from datetime import timedelta

    assert salience(0, start, start) == 1.0
    assert salience(0, start, start + timedelta(days=30)) == pytest.approx(0.5)
    assert salience(10, start, start + timedelta(days=30)) == pytest.approx(1.0)
    assert salience(0, start, start + timedelta(days=3650)) == 0.01


async def test_recall_returns_lexical_and_dense_scores_and_finds_rare_exact_terms(deps):
    await remember(
        "org-a",
        [draft("The launch code is XJ-4471"), draft("Noor likes tangerines"), draft("Tomasz likes sunsets")],
        "",
        **deps,
        erased=InMemoryErasedMemories(),
    )
    results = await recall("org-a", "what is the xj 4471 code?", Scope(user_id="u-1"), 3, **deps)
    assert results[0].item.content == "The launch code is XJ-4471"
    assert results[0].lexical_score > 0 and results[0].similarity > 0
    assert results == sorted(results, key=lambda result: -result.score)


async def test_recall_filters_by_status_time_and_salience(deps):
    may, june = datetime(2023, 5, 8, tzinfo=UTC), datetime(2023, 6, 8, tzinfo=UTC)
    await remember(
        "org-a",
        [draft("tea in May", valid_at=may), draft("tea in June", valid_at=june)],
        "",
        **deps,
        erased=InMemoryErasedMemories(),
    )
    found = await recall("org-a", "tea", Scope(), 10, **deps, valid_after=june)
    assert [result.item.content for result in found] == ["tea in June"]
    found = await recall("org-a", "tea", Scope(), 10, **deps, valid_before=june)
    assert [result.item.content for result in found] == ["tea in May"]
    assert await recall("org-a", "tea", Scope(), 10, **deps, statuses=[MemoryStatus.ARCHIVED]) == []
    deps["clock"].advance(days=30)  # every type halves in 30 days (seed 001)
    assert len(await recall("org-a", "tea", Scope(), 10, **deps, min_salience=0.45)) == 2
    assert await recall("org-a", "tea", Scope(), 10, **deps, min_salience=0.55) == []


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"min_salience": -0.1}, "min_salience"),
        ({"min_salience": float("nan")}, "min_salience"),
        (
            {"valid_after": datetime(2024, 1, 1, tzinfo=UTC), "valid_before": datetime(2023, 1, 1, tzinfo=UTC)},
            "valid_before",
        ),
    ],
)
async def test_recall_refuses_bad_filters(deps, kwargs, field):
    with pytest.raises(errors.InvalidArgument) as raised:
        await recall("org-a", "tea", Scope(), 5, **deps, **kwargs)
    assert raised.value.field == field


def test_recall_request_filters_are_converted_and_validated():
    from google.protobuf import timestamp_pb2
    from lore.memory.v1 import memory_service_pb2 as pb
    from memory_svc.api import memory_convert as convert

    after = timestamp_pb2.Timestamp(seconds=1_700_000_000)
    request = pb.RecallRequest(query="q", statuses=[pb.MEMORY_STATUS_ARCHIVED], min_salience=0.2, valid_after=after)
    assert convert.recall_filters_from_pb(request) == {
        "statuses": [MemoryStatus.ARCHIVED],
        "min_salience": 0.2,
        "valid_after": datetime.fromtimestamp(1_700_000_000, tz=UTC),
        "valid_before": None,
    }
    for bad, field in (
        (pb.RecallRequest(statuses=[pb.MEMORY_STATUS_UNSPECIFIED]), "statuses[0]"),
        (pb.RecallRequest(min_salience=-1), "min_salience"),
        (pb.RecallRequest(valid_after=after, valid_before=after), "valid_before"),
    ):
        with pytest.raises(errors.InvalidArgument) as raised:
            convert.recall_filters_from_pb(bad)
        assert raised.value.field == field
