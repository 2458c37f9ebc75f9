"""Reading beliefs: one with its evidence, filtered pages, hybrid search, the supersession chain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lore_embeddings import Embedder
from lore_runtime.errors import NotFound
from lore_runtime.page_tokens import PageTokens

from observations_svc.domain.model import Observation
from observations_svc.domain.page_tokens import LISTING, cursor_from, filters_key, position_of
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
    # The belief's stored embedding (unit length, the embedder's model), when the search asked for it.
    embedding: tuple[float, ...] | None = None


async def get_observation(org_id: str, observation_id: str, *, store: ObservationStore) -> Observation:
    found = await store.get(org_id, observation_id)
    if found is None:
        raise NotFound(f"observation {observation_id} not found", reason="OBSERVATION_NOT_FOUND")
    return found


async def query_observations(
    org_id: str,
    filters: QueryFilters,
    page_size: int,
    page_token: str,
    *,
    store: ObservationStore,
    tokens: PageTokens,
) -> tuple[list[Observation], str]:
    """Keyset paging: each belief once while the order holds still. Revalidation (a background
    job) advances the org's generation and stales older tokens; an Observe that moves a belief's
    confidence moves it in the listing, as it should."""
    key = filters_key(filters)
    generation = await store.order_generation(org_id)
    after = cursor_from(tokens.open(page_token, org_id, LISTING, key), generation) if page_token else None
    rows = await store.query(org_id, filters, after, page_size + 1)
    if len(rows) <= page_size:
        return rows, ""
    last = rows[page_size - 1]
    position = position_of(last.confidence, last.freshness, last.id, generation)
    return rows[:page_size], tokens.seal(org_id, LISTING, key, position)


async def search_observations(
    org_id: str,
    text: str,
    filters: SearchFilters,
    k: int,
    *,
    store: ObservationStore,
    embedder: Embedder,
    vector: Sequence[float] | None = None,
    include_embeddings: bool = False,
) -> list[SearchResult]:
    """Hybrid search; ``vector`` is ``text``'s embedding when the caller already has it. With
    ``include_embeddings`` each result carries its belief's stored embedding, read with the winners
    (never for the candidates that do not make the top k)."""
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
    ids = [hit.id for _, hit in top]
    winners: dict[str, tuple[Observation, tuple[float, ...] | None]] = (
        {row.id: (row, embedding) for row, embedding in await store.get_many_with_embeddings(org_id, ids)}
        if include_embeddings
        else {row.id: (row, None) for row in await store.get_many(org_id, ids)}
    )
    return [
        SearchResult(winners[hit.id][0], score, hit.similarity, hit.lexical, winners[hit.id][1])
        for score, hit in top
        if hit.id in winners
    ]


async def observation_history(org_id: str, observation_id: str, *, store: ObservationStore) -> list[Observation]:
    chain = await store.history(org_id, observation_id)
    if not chain:
        raise NotFound(f"observation {observation_id} not found", reason="OBSERVATION_NOT_FOUND")
    return chain
