import uuid
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope
from memory_svc.domain.ranking import FusionMethod, RankingWeights, fuse, hybrid_rank, rank

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def item(n: int, importance: float = 0.5, days_old: float = 0.0, accesses: int = 0) -> MemoryItem:
    when = NOW - timedelta(days=days_old)
    return MemoryItem(
        id=str(uuid.UUID(int=n)),
        org_id="org",
        content=f"memory {n}",
        memory_type=MemoryType.FACT,
        scope=Scope(),
        importance=importance,
        status=MemoryStatus.ACTIVE,
        metadata={},
        provenance=Provenance(),
        entities=(),
        created_at=when,
        valid_at=when,
        last_accessed_at=when,
        access_count=accesses,
    )


scores = st.floats(min_value=-1, max_value=1, allow_nan=False)
lexical_scores = st.floats(min_value=0.01, max_value=50, allow_nan=False)
hits = st.lists(st.tuples(st.integers(min_value=0, max_value=30), scores), max_size=20)
lex_hits = st.lists(st.tuples(st.integers(min_value=0, max_value=30), lexical_scores), max_size=20)
weights = st.builds(
    RankingWeights,
    relevance=st.floats(min_value=0.1, max_value=1),
    salience=st.floats(min_value=0, max_value=1),
    importance=st.floats(min_value=0, max_value=1),
    lexical_weight=st.floats(min_value=0, max_value=1),
    fusion=st.sampled_from(list(FusionMethod)),
)


def as_items(pairs):
    return [(item(n), score) for n, score in pairs]


@given(hits, lex_hits, weights, st.integers(min_value=0, max_value=40))
def test_results_are_unique_sorted_bounded_and_come_from_the_candidates(dense, lexical, weights, k):
    results = hybrid_rank(as_items(dense), as_items(lexical), NOW, k, weights)
    ids = [result.item.id for result in results]
    assert len(ids) == len(set(ids)) <= k
    assert ids == [
        item_.id for item_, _ in sorted(((r.item, r.score) for r in results), key=lambda h: (-h[1], h[0].id))
    ]
    found = {item(n).id for n, _ in dense} | {item(n).id for n, _ in lexical}
    assert set(ids) <= found
    assert len(results) == min(k, len(found))
    total = weights.relevance + weights.salience + weights.importance
    assert all(0 <= result.score <= total + 1e-9 for result in results)


@given(hits, lex_hits)
def test_similarity_is_the_dense_cosine_and_zero_for_lexical_only_hits(dense, lexical):
    best_dense: dict[str, float] = {}
    for n, score in dense:
        best_dense[item(n).id] = max(score, best_dense.get(item(n).id, -2))
    for result in hybrid_rank(as_items(dense), as_items(lexical), NOW, 50):
        assert result.similarity == best_dense.get(result.item.id, 0.0)
        if result.item.id not in {item(n).id for n, _ in lexical}:
            assert result.lexical_score == 0.0


@given(st.floats(min_value=0, max_value=1), st.floats(min_value=0, max_value=1))
def test_relevance_dominates_with_the_default_weights(low, high):
    # A clearly better match wins over a stale, unimportant one... unless both are equally relevant.
    fresh = item(1, importance=1.0)
    stale = item(2, importance=0.0, days_old=3_650)
    results = hybrid_rank([(stale, 0.9), (fresh, 0.5)], [(stale, 10.0), (fresh, 2.0)], NOW, 2)
    assert results[0].item.id == stale.id
    tie = hybrid_rank([(stale, 0.7), (fresh, 0.7)], [], NOW, 2)
    assert tie[0].item.id == fresh.id


def test_salience_and_importance_reorder_equally_relevant_items():
    accessed = item(1, accesses=5, days_old=10)
    forgotten = item(2, days_old=400)
    important = item(3, importance=0.9, days_old=400)
    results = hybrid_rank([(forgotten, 0.6), (accessed, 0.6), (important, 0.6)], [], NOW, 3)
    assert [result.item.id for result in results] == [accessed.id, important.id, forgotten.id]
    assert results[0].salience == pytest.approx((1 + 0.5) * 0.5 ** (10 / 30))


def test_min_salience_uses_the_exact_salience_at_query_time():
    fresh, old = item(1), item(2, days_old=365)
    results = hybrid_rank([(fresh, 0.1), (old, 0.9)], [], NOW, 10, min_salience=0.5)
    assert [result.item.id for result in results] == [fresh.id]


def test_weighted_fusion_normalises_bm25_by_the_best_lexical_hit():
    a, b = item(1), item(2)
    fused = fuse([(a.id, 0.4)], [(b.id, 8.0), (a.id, 4.0)], RankingWeights(lexical_weight=0.5))
    candidates = {c.id: c for c in fused}
    assert [c.id for c in fused] == [b.id, a.id]  # most relevant first
    assert candidates[a.id].relevance == pytest.approx(0.5 * 0.4 + 0.5 * 0.5)
    assert candidates[b.id].relevance == pytest.approx(0.5 * 1.0)
    assert candidates[b.id].similarity == 0.0 and candidates[b.id].lexical_score == 8.0


def test_rrf_gives_one_to_an_item_first_in_both_lists():
    a, b = item(1), item(2)
    candidates = fuse(
        [(a.id, 0.9), (b.id, 0.1)], [(a.id, 3.0)], RankingWeights(fusion=FusionMethod.RRF, lexical_weight=0.5)
    )
    relevance = {c.id: c.relevance for c in candidates}
    assert relevance[a.id] == pytest.approx(1.0)
    assert relevance[b.id] == pytest.approx(0.5 * 61 / 62)


@pytest.mark.parametrize(
    "bad", [{"relevance": -1}, {"lexical_weight": 1.5}, {"relevance": 0, "salience": 0, "importance": 0}]
)
def test_bad_weights_are_refused(bad):
    with pytest.raises(ValueError):
        RankingWeights(**bad)


def test_rank_of_nothing_is_empty():
    assert rank([], {}, NOW, 5) == []
