"""Reading beliefs: one with its evidence, filtered pages, hybrid search, the supersession chain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lore_embeddings import Embedder
from lore_runtime.errors import NotFound

from observations_svc.domain.model import Observation
from observations_svc.domain.page_tokens import decode_offset, encode_offset
from observations_svc.usecases.ports import ObservationStore, QueryFilters, SearchFilters

# Fusion (docs/observations.md): the memory service's weights, dense 0.4 and lexical 0.6,
# lexical normalised by the best lexical score of the candidates.
DENSE_SHARE = 0.4
LEXICAL_SHARE = 0.6
# Candidates read from each side per result asked for.
CANDIDATES_PER_RESULT = 8
MAX_CANDIDATES = 200


@dataclass(frozen=True, slots=True)
class SearchResult:
    observation: Observation
    score: float
    similarity: float
    lexical: float


async def get_observation(org_id: str, observation_id: str, *, store: ObservationStore) -> Observation:
    found = await store.get(org_id, observation_id)
    if found is None:
        raise NotFound(f"observation {observation_id} not found", reason="OBSERVATION_NOT_FOUND")
    return found


async def query_observations(
    org_id: str, filters: QueryFilters, page_size: int, page_token: str, *, store: ObservationStore
) -> tuple[list[Observation], str]:
    offset = decode_offset(page_token, filters)
    rows = await store.query(org_id, filters, offset, page_size + 1)
    next_token = encode_offset(offset + page_size, filters) if len(rows) > page_size else ""
    return rows[:page_size], next_token


async def search_observations(
    org_id: str,
    text: str,
    filters: SearchFilters,
    k: int,
    *,
    store: ObservationStore,
    embedder: Embedder,
    vector: Sequence[float] | None = None,
) -> list[SearchResult]:
    """Hybrid search; ``vector`` is ``text``'s embedding when the caller already has it."""
    if vector is None:
        [vector] = await embedder.embed([text])
    hits = await store.search(org_id, text, list(vector), filters, min(k * CANDIDATES_PER_RESULT, MAX_CANDIDATES))
    best_lexical = max((hit.lexical for hit in hits), default=0.0)
    scored = [
        (
            DENSE_SHARE * max(0.0, hit.similarity)
            + LEXICAL_SHARE * (hit.lexical / best_lexical if best_lexical > 0 else 0.0),
            hit,
        )
        for hit in hits
    ]
    scored.sort(key=lambda pair: (-pair[0], -pair[1].confidence, pair[1].id))
    top = scored[:k]
    # Only the winners are read in full (an erasure in between simply drops one).
    observations = {row.id: row for row in await store.get_many(org_id, [hit.id for _, hit in top])}
    return [
        SearchResult(observations[hit.id], score, hit.similarity, hit.lexical)
        for score, hit in top
        if hit.id in observations
    ]


async def observation_history(org_id: str, observation_id: str, *, store: ObservationStore) -> list[Observation]:
    chain = await store.history(org_id, observation_id)
    if not chain:
        raise NotFound(f"observation {observation_id} not found", reason="OBSERVATION_NOT_FOUND")
    return chain
