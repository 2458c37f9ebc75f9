"""Hybrid ranking: fuse the dense and the lexical candidate lists, then re-score with salience
and importance. Pure: no I/O.

Fusion (``fuse``): a weighted sum of the two signals, each brought to [0, 1] first:

    relevance = (1 − λ) · max(0, cosine) + λ · bm25 / max(bm25 of the lexical candidates)

Why not reciprocal-rank fusion: RRF throws the scores away and keeps only ranks, so a
lexical hit on a rare exact term (a name, a date, a code) weighs the same as the 5th of 50
near-identical weak matches. On LoCoMo (bench/locomo_recall.py) RRF of MiniLM and BM25 is
*worse* than BM25 alone at R@1/5/10 (data/README.md baselines), while the weighted sum keeps
both signals' confidence. RRF (k = 60) is still available (``FusionMethod.RRF``) for
comparison. ``λ`` = ``lexical_weight``; BM25 is normalised by the best lexical candidate
of the query (its absolute value depends on the query's length and the corpus' IDF), the
cosine is used as is (already on a fixed scale). A candidate missing from one list scores
0 on that side: both lists are deep (k × 4), so what is missing is far down anyway.

Re-scoring (``rank``):

    score = w_rel · relevance + w_sal · min(1, salience) + w_imp · importance

with relevance dominant by default (0.8 / 0.1 / 0.1): salience and importance only
reorder results of similar relevance — a stale or unimportant memory that matches much
better still wins. Salience is the exact formula at query time (per-type half-life);
``min_salience`` drops items below it.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from memory_svc.domain.conversation import (
    DEFAULT_LIFT,
    SESSION_READ_LIMIT,
    ConversationLift,
    Said,
    lifts,
    named_speaker,
    require_non_negative,
    said_of,
    sessions_to_read,
    window_size,
)
from memory_svc.domain.model import MemoryItem, MemoryType, ScoredMemory
from memory_svc.domain.salience import salience_of_type

RRF_K = 60


class FusionMethod(enum.StrEnum):
    WEIGHTED = "weighted"
    RRF = "rrf"


@dataclass(frozen=True, slots=True)
class RankingWeights:
    """How recall ranks; the defaults are documented in the module docstring."""

    relevance: float = 0.8
    salience: float = 0.1
    importance: float = 0.1
    lexical_weight: float = 0.6
    fusion: FusionMethod = FusionMethod.WEIGHTED
    rrf_k: int = RRF_K
    half_lives: Mapping[MemoryType, float] = field(default_factory=dict)
    conversation: ConversationLift = DEFAULT_LIFT

    def __post_init__(self) -> None:
        require_non_negative(self, "relevance", "salience", "importance", "lexical_weight")
        if not 0 <= self.lexical_weight <= 1:
            raise ValueError("lexical_weight must be between 0 and 1")
        if self.relevance + self.salience + self.importance <= 0:
            raise ValueError("at least one weight must be positive")
        if self.rrf_k < 0:
            raise ValueError("rrf_k must be non-negative")


DEFAULT_WEIGHTS = RankingWeights()


@dataclass(frozen=True, slots=True)
class Candidate:
    """An item id found by either search, with its raw score on each side (0 where not found),
    its fused relevance in [0, 1] and the lift its conversation gives it (``domain.conversation``)."""

    id: str
    similarity: float = 0.0
    lexical_score: float = 0.0
    relevance: float = 0.0
    lift: float = 0.0


def _unique(hits: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Best score per id, best first (ties by id, so the order is deterministic)."""
    best: dict[str, float] = {}
    for key, score in hits:
        if math.isfinite(score) and (key not in best or score > best[key]):
            best[key] = score
    return sorted(best.items(), key=lambda hit: (-hit[1], hit[0]))


def fuse(
    dense: Sequence[tuple[str, float]],
    lexical: Sequence[tuple[str, float]],
    weights: RankingWeights = DEFAULT_WEIGHTS,
) -> list[Candidate]:
    """One candidate per id found by either list, most relevant first (ties by id)."""
    dense, lexical = _unique(dense), _unique(lexical)
    similarity = dict(dense)
    lexical_score = dict(lexical)
    keys = list(dict.fromkeys([key for key, _ in dense] + [key for key, _ in lexical]))
    lam = weights.lexical_weight
    relevance: dict[str, float] = {}
    if weights.fusion is FusionMethod.RRF:
        best = (1 - lam) / (weights.rrf_k + 1) + lam / (weights.rrf_k + 1)
        for position, (key, _) in enumerate(dense, start=1):
            relevance[key] = relevance.get(key, 0.0) + (1 - lam) / (weights.rrf_k + position)
        for position, (key, _) in enumerate(lexical, start=1):
            relevance[key] = relevance.get(key, 0.0) + lam / (weights.rrf_k + position)
        relevance = {key: value / best for key, value in relevance.items()}
    else:
        top_lexical = max((score for _, score in lexical), default=0.0)
        for key in keys:
            dense_part = min(1.0, max(0.0, similarity.get(key, 0.0)))
            lexical_part = lexical_score.get(key, 0.0) / top_lexical if top_lexical > 0 else 0.0
            relevance[key] = (1 - lam) * dense_part + lam * max(0.0, lexical_part)
    candidates = [
        Candidate(
            id=key,
            similarity=similarity.get(key, 0.0),
            lexical_score=lexical_score.get(key, 0.0),
            relevance=min(1.0, max(0.0, relevance.get(key, 0.0))),
        )
        for key in keys
    ]
    candidates.sort(key=lambda candidate: (-candidate.relevance, candidate.id))
    return candidates


def best_possible_score(candidate: Candidate, weights: RankingWeights = DEFAULT_WEIGHTS) -> float:
    """The highest final score ``candidate`` could reach: salience and importance at their cap of 1.
    Recall stops reading items once this falls below the k-th score it already has."""
    return weights.relevance * (candidate.relevance + candidate.lift) + weights.salience + weights.importance


def conversation_order(
    candidates: Sequence[Candidate],
    said: Mapping[str, Said],
    weights: RankingWeights = DEFAULT_WEIGHTS,
    query: str = "",
) -> list[Candidate]:
    """Every candidate, and one (relevance 0) for each message of ``said`` that neither search found,
    each with the lift its conversation gives it (``conversation.lifts`` over ``said``, with the
    speaker ``query`` names), most promising first: relevance + lift, ties by id."""
    if not said:  # nothing said together: the order is the fused one
        return list(candidates)
    relevance = {candidate.id: candidate.relevance for candidate in candidates}
    gained = lifts(relevance, said, weights.conversation, named_speaker(query, said))
    found = {candidate.id for candidate in candidates}
    everyone = [*candidates, *(Candidate(id=key) for key in said if key not in found)]
    ordered = [
        replace(candidate, lift=gained[candidate.id]) if candidate.id in gained else candidate for candidate in everyone
    ]
    ordered.sort(key=lambda candidate: (-(candidate.relevance + candidate.lift), candidate.id))
    return ordered


def whole_session(told: Sequence[Said]) -> dict[str, Said]:
    """The messages of a session read whole, by id; none when it holds more than ``SESSION_READ_LIMIT``."""
    return {} if len(told) > SESSION_READ_LIMIT else {place.id: place for place in told}


def score(
    candidate: Candidate, item: MemoryItem, now: datetime, weights: RankingWeights = DEFAULT_WEIGHTS
) -> ScoredMemory:
    """The final score of one candidate, with its exact salience at ``now``."""
    value = salience_of_type(item.memory_type, item.access_count, item.last_accessed_at, now, weights.half_lives)
    total = (
        weights.relevance * (candidate.relevance + candidate.lift)
        + weights.salience * min(1.0, value)
        + weights.importance * min(1.0, max(0.0, item.importance))
    )
    return ScoredMemory(
        item=item, score=total, similarity=candidate.similarity, salience=value, lexical_score=candidate.lexical_score
    )


def best_first(scored: Sequence[ScoredMemory], k: int) -> list[ScoredMemory]:
    """The top ``k`` by final score (ties by id)."""
    return sorted(scored, key=lambda hit: (-hit.score, hit.item.id))[: max(0, k)]


def rank(
    candidates: Sequence[Candidate],
    items: Mapping[str, MemoryItem],
    now: datetime,
    k: int,
    weights: RankingWeights = DEFAULT_WEIGHTS,
    min_salience: float | None = None,
) -> list[ScoredMemory]:
    """The top ``k`` candidates by final score, each with its salience at ``now``; candidates
    missing from ``items`` (gone since the search) and those under ``min_salience`` are dropped."""
    scored = [score(candidate, items[candidate.id], now, weights) for candidate in candidates if candidate.id in items]
    if min_salience is not None:
        scored = [hit for hit in scored if hit.salience >= min_salience]
    return best_first(scored, k)


def hybrid_rank(
    dense: Sequence[tuple[MemoryItem, float]],
    lexical: Sequence[tuple[MemoryItem, float]],
    now: datetime,
    k: int,
    weights: RankingWeights = DEFAULT_WEIGHTS,
    min_salience: float | None = None,
    kept_by_filters: Sequence[MemoryItem] = (),
    query: str = "",
) -> list[ScoredMemory]:
    """``fuse``, read the first window (``conversation.window_size``) and its best sessions whole
    from ``kept_by_filters`` (every item the searches' filters keep), lift (with the speaker
    ``query`` names), then ``rank`` every candidate: the exact reference recall's pruning must match."""
    items = {item.id: item for item, _ in [*dense, *lexical]}
    candidates = fuse(
        [(item.id, value) for item, value in dense], [(item.id, value) for item, value in lexical], weights
    )
    window = candidates[: window_size(k)]
    said = {candidate.id: place for candidate in window if (place := said_of(items[candidate.id]))}
    relevance = {candidate.id: candidate.relevance for candidate in window}
    for session in sessions_to_read(relevance, said, weights.conversation):
        told = [place for item in kept_by_filters if (place := said_of(item)) and place.session_id == session]
        said |= whole_session(told)
    items |= {item.id: item for item in kept_by_filters}
    return rank(conversation_order(candidates, said, weights, query), items, now, k, weights, min_salience)
