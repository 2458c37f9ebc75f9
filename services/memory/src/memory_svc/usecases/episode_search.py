"""SearchEpisodes: the episodes whose summaries are nearest in meaning to a text.

Dense only: an episode's vector is its summary's (``embed_episodes``), so the query is embedded
the same way, or the caller's vector is used when it was made by this service's model (the
assembler passes the one Recall returned, so a turn embeds its message once). The index filters
by org and scope (a context's read never reaches another user's episodes) and by the stored
salience; each hit then gets its salience as of now, and ``min_salience`` is checked on that.
"""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np
from lore_embeddings import Embedder
from lore_runtime import errors
from lore_runtime.clock import Clock
from opentelemetry import trace

from memory_svc.domain import limits
from memory_svc.domain.episode import ScoredEpisode
from memory_svc.domain.episode_salience import as_of
from memory_svc.domain.model import Scope, ScopeMatch
from memory_svc.domain.salience import DEFAULT_HALF_LIFE_DAYS
from memory_svc.usecases.episode_ports import EpisodeIndex

tracer = trace.get_tracer(__name__)

DEFAULT_K = 5
MAX_K = 50
# With ``min_salience``, hits the stored copy let through may fall under it now: the search is
# widened (×4) until k are kept, the index has no more, or this many were read.
MAX_CANDIDATES = 200


def check_k(k: int) -> int:
    if not 0 <= k <= MAX_K:
        raise errors.InvalidArgument("k", f"must be between 1 and {MAX_K} (0 means {DEFAULT_K})")
    return k or DEFAULT_K


def check_query(query: str, has_vector: bool, model: str) -> str:
    """The stripped query; required unless the caller's vector will be used."""
    query = query.strip()
    if len(query) > limits.MAX_QUERY_CHARS:
        raise errors.InvalidArgument("query", f"at most {limits.MAX_QUERY_CHARS} characters")
    if not query and not has_vector:
        raise errors.InvalidArgument(
            "query", f"must not be empty unless query_embedding is sent with query_embedding_model {model!r}"
        )
    return query


async def search_episodes(
    org_id: str,
    query: str,
    scope: Scope,
    k: int,
    *,
    index: EpisodeIndex,
    embedder: Embedder,
    clock: Clock,
    vector: np.ndarray | None = None,
    min_salience: float | None = None,
    scope_match: ScopeMatch = ScopeMatch.BROWSE,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
) -> list[ScoredEpisode]:
    """The ``k`` episodes nearest to ``query`` (or to ``vector``, already of this service's model),
    most similar first. Raises InvalidArgument naming ``query``, ``k`` or ``min_salience``."""
    query = check_query(query, vector is not None, embedder.model_name)
    k = check_k(k)
    if min_salience is not None and not (math.isfinite(min_salience) and min_salience >= 0):
        raise errors.InvalidArgument("min_salience", "must be a non-negative number")
    with tracer.start_as_current_span("memory.search_episodes") as span:
        span.set_attribute("lore.org_id", org_id)
        span.set_attribute("lore.k", k)
        span.set_attribute("lore.scope_match", str(scope_match))
        span.set_attribute("lore.query_embedding_given", vector is not None)
        if vector is None:
            (vector,) = await embedder.embed([query])
        now = clock.now()
        results = await _nearest(org_id, scope, vector, k, index, now, min_salience, scope_match, half_life_days)
        span.set_attribute("lore.results", len(results))
    return results


async def _nearest(
    org_id: str,
    scope: Scope,
    vector: np.ndarray,
    k: int,
    index: EpisodeIndex,
    now: datetime,
    min_salience: float | None,
    scope_match: ScopeMatch,
    half_life_days: float,
) -> list[ScoredEpisode]:
    depth = k
    while True:
        hits = await index.search(org_id, scope, vector, depth, min_salience=min_salience, scope_match=scope_match)
        kept = [ScoredEpisode(as_of(episode, now, half_life_days), score) for episode, score in hits]
        if min_salience is not None:
            kept = [hit for hit in kept if hit.episode.current_salience >= min_salience]
        if len(kept) >= k or len(hits) < depth or depth >= MAX_CANDIDATES:
            return kept[:k]
        depth = min(MAX_CANDIDATES, depth * 4)
