"""Remember: validate a batch, embed it in one call, encode its BM25 terms, write it with deterministic ids."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lore_embeddings import Embedder
from lore_runtime import errors
from opentelemetry import trace

from memory_svc.domain import limits
from memory_svc.domain.ids import memory_id
from memory_svc.domain.index_text import index_text
from memory_svc.domain.lexical import SparseVector, encode_document
from memory_svc.domain.model import MemoryDraft, MemoryItem, MemoryStatus
from memory_svc.usecases.ports import Clock, MemoryIndex

tracer = trace.get_tracer(__name__)

DEFAULT_IMPORTANCE = 0.5


async def embed_items(items: Sequence[MemoryItem], embedder: Embedder) -> tuple[np.ndarray, list[SparseVector]]:
    """The dense and BM25 vectors of ``items``, both from ``index_text`` (what Remember, UpdateMemory
    and Reindex store)."""
    texts = [index_text(item) for item in items]
    vectors = await embedder.embed(texts)
    return vectors, [encode_document(text) for text in texts]


async def remember(
    org_id: str,
    drafts: Sequence[MemoryDraft],
    request_id: str,
    *,
    index: MemoryIndex,
    embedder: Embedder,
    clock: Clock,
) -> list[MemoryItem]:
    if not drafts:
        raise errors.InvalidArgument("memories", "at least one memory is required")
    if len(drafts) > limits.MAX_BATCH:
        raise errors.InvalidArgument("memories", f"at most {limits.MAX_BATCH} memories per call")
    now = clock.now()
    items = [
        MemoryItem(
            id=memory_id(org_id, draft.scope, draft.idempotency_key, request_id, position),
            org_id=org_id,
            content=draft.content,
            memory_type=draft.memory_type,
            scope=draft.scope,
            importance=DEFAULT_IMPORTANCE if draft.importance is None else draft.importance,
            status=MemoryStatus.ACTIVE,
            metadata=dict(draft.metadata),
            provenance=draft.provenance,
            entities=draft.entities,
            created_at=now,
            valid_at=draft.valid_at or now,
            last_accessed_at=now,
        )
        for position, draft in enumerate(drafts)
    ]
    with tracer.start_as_current_span("memory.remember") as span:
        span.set_attribute("lore.org_id", org_id)
        span.set_attribute("lore.memories", len(items))
        await index.upsert(items, *await embed_items(items, embedder))
    return items
