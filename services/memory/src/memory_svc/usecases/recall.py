"""Recall: hybrid retrieval of the caller's memories, re-scored with salience and importance.

The query is embedded without its names (dense, ``domain/dense_query.py``) and encoded into BM25
terms as written (``domain/lexical.py``); both
searches run concurrently with the same org, scope (browse or context match), type, status,
time and materialised salience filters, each returning ``k × CANDIDATE_FACTOR`` (8)
candidates (at most ``MAX_CANDIDATES``); ``domain/ranking.py`` fuses them, computes each
candidate's exact salience at query time (per-type half-life), drops those under
``min_salience`` and keeps the best ``k`` by ``w_rel·(relevance + lift) + w_sal·salience +
w_imp·importance``, where ``lift`` is what the messages of one conversation give each other among
the first ``max(2k, 8)`` candidates and the sessions of their best messages, read whole, plus
the lift of the one speaker of those messages the query names (``domain/conversation.py``; 0
elsewhere).

The searches return ids and scores only: reading a point's payload costs far more than
finding it (at 10k items, ~0.3 ms for 80 ids against ~4 ms with their payloads). The window is
read first (nearly always needed), then where every message of its best session was said (a few
payload fields, one small read), which fixes every lift; then the unread items are read most
promising first, a chunk
(``max(2k, 8)``) at a time, until no unread candidate can still reach the k-th score (salience and
importance are capped at 1, so relevance + lift bounds the final score): the result is exactly
that of ranking every candidate, for a fraction of the reads.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from lore_embeddings import Embedder
from lore_runtime import errors
from lore_runtime.clock import Clock
from opentelemetry import trace

from memory_svc.domain import limits
from memory_svc.domain.conversation import SESSION_READ_LIMIT, Said, said_of, sessions_to_read, window_size
from memory_svc.domain.dense_query import dense_query
from memory_svc.domain.lexical import encode_query
from memory_svc.domain.model import MemoryStatus, MemoryType, Scope, ScopeMatch, ScoredMemory
from memory_svc.domain.ranking import (
    DEFAULT_WEIGHTS,
    Candidate,
    RankingWeights,
    best_first,
    best_possible_score,
    conversation_order,
    fuse,
    rank,
    whole_session,
)
from memory_svc.usecases.access_behind import AccessWriteBehind
from memory_svc.usecases.memory_ports import DEFAULT_STATUSES, AccessRequest, MemoryIndex, SearchFilter

tracer = trace.get_tracer(__name__)

CANDIDATE_FACTOR = 8
MAX_CANDIDATES = 200


@dataclass(frozen=True, slots=True)
class RecallAnswer:
    """What the Recall RPC answers: the hits, the query's vector, and the hits' stored vectors
    (empty unless asked for)."""

    hits: list[ScoredMemory]
    query_vector: np.ndarray
    vectors: dict[str, np.ndarray]


async def answer_recall(
    org_id: str,
    query: str,
    scope: Scope,
    k: int,
    memory_types: Sequence[MemoryType] = (),
    *,
    index: MemoryIndex,
    embedder: Embedder,
    clock: Clock,
    behind: AccessWriteBehind,
    use: AccessRequest | None,
    include_embeddings: bool = False,
    **options: Any,
) -> RecallAnswer:
    """The Recall RPC: ``recall_with_query_vector``, the use of the hits handed to the write-behind
    flusher (``use``; None: not recorded) — never waited for — and, when asked, the hits' stored
    vectors (what the assembler's dedupe compares)."""
    hits, vector = await recall_with_query_vector(
        org_id, query, scope, k, memory_types, index=index, embedder=embedder, clock=clock, **options
    )
    if use is not None:
        behind.offer(org_id, [hit.item for hit in hits], use)
    stored = await index.vectors(org_id, [hit.item.id for hit in hits]) if include_embeddings and hits else {}
    return RecallAnswer(hits, vector, stored)


async def recall(*args: Any, **kwargs: Any) -> list[ScoredMemory]:
    """The best ``k`` memories for ``query`` (``recall_with_query_vector`` without the vector)."""
    results, _ = await recall_with_query_vector(*args, **kwargs)
    return results


async def recall_with_query_vector(
    org_id: str,
    query: str,
    scope: Scope,
    k: int,
    memory_types: Sequence[MemoryType] = (),
    *,
    index: MemoryIndex,
    embedder: Embedder,
    clock: Clock,
    statuses: Sequence[MemoryStatus] = (),
    min_salience: float | None = None,
    valid_after: datetime | None = None,
    valid_before: datetime | None = None,
    weights: RankingWeights = DEFAULT_WEIGHTS,
    scope_match: ScopeMatch = ScopeMatch.BROWSE,
) -> tuple[list[ScoredMemory], np.ndarray]:
    """``recall``, also returning the query's vector (for a caller searching other stores with it).

    ``scope_match``: BROWSE keeps the items sharing each id ``scope`` sets; CONTEXT keeps what a
    context for ``scope`` may show (``Scope.allowed_values``): never another user's items."""
    query = query.strip()
    if not query:
        raise errors.InvalidArgument("query", "must not be empty")
    if len(query) > limits.MAX_QUERY_CHARS:
        raise errors.InvalidArgument("query", f"at most {limits.MAX_QUERY_CHARS} characters")
    if k < 0 or k > limits.MAX_K:
        raise errors.InvalidArgument("k", f"must be between 1 and {limits.MAX_K} (0 means {limits.DEFAULT_K})")
    if min_salience is not None and not (math.isfinite(min_salience) and min_salience >= 0):
        raise errors.InvalidArgument("min_salience", "must be a non-negative number")
    if valid_after is not None and valid_before is not None and valid_after >= valid_before:
        raise errors.InvalidArgument("valid_before", "must be later than valid_after")
    k = k or limits.DEFAULT_K
    filters = SearchFilter(
        statuses=tuple(dict.fromkeys(statuses)) or DEFAULT_STATUSES,
        valid_after=valid_after,
        valid_before=valid_before,
        min_salience=min_salience,
    )
    depth = min(MAX_CANDIDATES, max(k, k * CANDIDATE_FACTOR))
    with tracer.start_as_current_span("memory.recall") as span:
        span.set_attribute("lore.org_id", org_id)
        span.set_attribute("lore.k", k)
        span.set_attribute("lore.scope_match", str(scope_match))
        (vector,) = await embedder.embed([dense_query(query)])
        terms = encode_query(query)
        dense, lexical = await asyncio.gather(
            index.search(org_id, scope, vector, depth, memory_types, filters=filters, scope_match=scope_match),
            index.search_lexical(org_id, scope, terms, depth, memory_types, filters=filters, scope_match=scope_match),
        )
        candidates = fuse(dense, lexical, weights)

        def read_session(session_id: str) -> Awaitable[list[Said]]:
            return index.said_in_session(
                org_id,
                scope,
                session_id,
                SESSION_READ_LIMIT + 1,
                memory_types,
                filters=filters,
                scope_match=scope_match,
            )

        results, read = await _best_k(
            org_id, query, candidates, k, index, read_session, clock.now(), weights, min_salience
        )
        span.set_attribute("lore.candidates.dense", len(dense))
        span.set_attribute("lore.candidates.lexical", len(lexical))
        span.set_attribute("lore.candidates.read", read)
        span.set_attribute("lore.results", len(results))
    return results, vector


async def _best_k(
    org_id: str,
    query: str,
    candidates: Sequence[Candidate],
    k: int,
    index: MemoryIndex,
    read_session: Callable[[str], Awaitable[list[Said]]],
    now: datetime,
    weights: RankingWeights,
    min_salience: float | None,
) -> tuple[list[ScoredMemory], int]:
    """The top ``k`` of ``candidates`` (most relevant first) with their conversations' lift, reading
    as few items as the bound allows; also returns how many were read."""
    chunk_size = window_size(k)
    window = candidates[:chunk_size]
    items = {item.id: item for item in await index.get(org_id, [candidate.id for candidate in window])}
    ordered = list(candidates)
    if weights.conversation.lifts_anything:
        said = {key: place for key, item in items.items() if (place := said_of(item)) is not None}
        relevance = {candidate.id: candidate.relevance for candidate in window}
        sessions = sessions_to_read(relevance, said, weights.conversation)
        for told in await asyncio.gather(*(read_session(session) for session in sessions)):
            said |= whole_session(told)
        ordered = conversation_order(candidates, said, weights, query)
    kept: list[ScoredMemory] = []
    position = 0
    while position < len(ordered):
        if len(kept) >= k and best_possible_score(ordered[position], weights) < kept[k - 1].score:
            break
        chunk = ordered[position : position + chunk_size]
        unread = [candidate.id for candidate in chunk if candidate.id not in items]
        if unread:
            items |= {item.id: item for item in await index.get(org_id, unread)}
        position += len(chunk)
        kept = best_first([*kept, *rank(chunk, items, now, len(chunk), weights, min_salience)], k)
    return kept, len(items)
