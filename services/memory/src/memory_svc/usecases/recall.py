"""Recall: embed the query and find the nearest memories of the caller's org and scope.

Dense similarity for now; hybrid retrieval (BM25 fused with dense) and re-scoring by
salience and importance arrive with the memory-service issue.
"""

from __future__ import annotations

from collections.abc import Sequence

from lore_embeddings import Embedder
from lore_runtime import errors
from opentelemetry import trace

from memory_svc.domain import limits
from memory_svc.domain.model import MemoryType, Scope, ScoredMemory
from memory_svc.domain.salience import salience
from memory_svc.usecases.ports import Clock, MemoryIndex

tracer = trace.get_tracer(__name__)


async def recall(
    org_id: str,
    query: str,
    scope: Scope,
    k: int,
    memory_types: Sequence[MemoryType] = (),
    *,
    index: MemoryIndex,
    embedder: Embedder,
    clock: Clock,
) -> list[ScoredMemory]:
    query = query.strip()
    if not query:
        raise errors.InvalidArgument("query", "must not be empty")
    if len(query) > limits.MAX_QUERY_CHARS:
        raise errors.InvalidArgument("query", f"at most {limits.MAX_QUERY_CHARS} characters")
    if k < 0 or k > limits.MAX_K:
        raise errors.InvalidArgument("k", f"must be between 1 and {limits.MAX_K} (0 means {limits.DEFAULT_K})")
    k = k or limits.DEFAULT_K
    with tracer.start_as_current_span("memory.recall") as span:
        span.set_attribute("lore.org_id", org_id)
        span.set_attribute("lore.k", k)
        (vector,) = await embedder.embed([query])
        hits = await index.search(org_id, scope, vector, k, memory_types)
        span.set_attribute("lore.results", len(hits))
    now = clock.now()
    return [
        ScoredMemory(
            item=item,
            score=similarity,
            similarity=similarity,
            salience=salience(item.access_count, item.last_accessed_at, now),
        )
        for item, similarity in hits
    ]
