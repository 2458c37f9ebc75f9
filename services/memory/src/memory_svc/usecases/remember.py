"""Remember: validate a batch, embed it in one call, encode its BM25 terms, write it with deterministic ids;
with ``restatements``, what reflection learnt again reinforces the memory already kept (usecases/restate.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from lore_embeddings import Embedder
from lore_runtime import errors
from lore_runtime.clock import Clock
from opentelemetry import trace

from memory_svc.domain import limits
from memory_svc.domain.idempotency import replays, write_digest
from memory_svc.domain.ids import memory_id
from memory_svc.domain.index_text import index_text
from memory_svc.domain.lexical import SparseVector, encode_document
from memory_svc.domain.model import MemoryDraft, MemoryItem, MemoryStatus
from memory_svc.usecases.memory_ports import ErasedMemories, MemoryIndex
from memory_svc.usecases.restate import Restatements

tracer = trace.get_tracer(__name__)

DEFAULT_IMPORTANCE = 0.5


async def embed_items(items: Sequence[MemoryItem], embedder: Embedder) -> tuple[np.ndarray, list[SparseVector]]:
    """The dense and BM25 vectors of ``items``, both from ``index_text`` (what Remember, UpdateMemory
    and Reindex store)."""
    texts = [index_text(item) for item in items]
    vectors = await embedder.embed(texts)
    return vectors, [encode_document(text) for text in texts]


def _key_field(draft: MemoryDraft, position: int) -> str:
    return f"memories[{position}].idempotency_key" if draft.idempotency_key else "request_id"


async def remember(
    org_id: str,
    drafts: Sequence[MemoryDraft],
    request_id: str,
    *,
    index: MemoryIndex,
    embedder: Embedder,
    clock: Clock,
    erased: ErasedMemories,
    restatements: Restatements | None = None,
    principal: str = "",
) -> list[MemoryItem]:
    """Writes ``drafts``; a keyed draft whose id exists replays it (the item as it is now) when it
    is the same write, and the whole call is refused when it is not, or when the id was erased
    (domain.idempotency). Nothing is written unless every draft is accepted. With ``restatements``,
    a draft reflection learnt that restates a kept memory is answered by that memory, reinforced."""
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
            write_digest=write_digest(draft),
        )
        for position, draft in enumerate(drafts)
    ]
    keyed = [position for position, draft in enumerate(drafts) if draft.idempotency_key or request_id]
    existing = await _replayed(
        org_id, [(position, drafts[position], items[position]) for position in keyed], index, erased
    )
    fresh = {item.id: item for position, item in enumerate(items) if position not in existing}
    with tracer.start_as_current_span("memory.remember") as span:
        span.set_attribute("lore.org_id", org_id)
        span.set_attribute("lore.memories", len(fresh))
        span.set_attribute("lore.replayed", len(existing))
        if fresh:
            written = list(fresh.values())
            vectors, sparse = await embed_items(written, embedder)
            if restatements is not None:
                folded = await restatements.fold(org_id, written, vectors, principal)
                span.set_attribute("lore.restated", len(folded.stands))
                # What Remember answers: an item as it is written, or what stands for a folded one.
                fresh.update({item.id: item for item in folded.items} | folded.stands)
                keep = folded.written
                written = [folded.items[p] for p in keep]
                vectors, sparse = vectors[keep], [sparse[p] for p in keep]
            if written:
                await index.upsert(written, vectors, sparse)
    return [existing.get(position) or fresh[item.id] for position, item in enumerate(items)]


async def _replayed(
    org_id: str,
    keyed: Sequence[tuple[int, MemoryDraft, MemoryItem]],
    index: MemoryIndex,
    erased: ErasedMemories,
) -> dict[int, MemoryItem]:
    """The stored item each replayed draft repeats, by position; raises for a key reused with
    another write (also within the batch) or for an erased id."""
    if not keyed:
        return {}
    ids = list(dict.fromkeys(item.id for _, _, item in keyed))
    gone = await erased.erased(org_id, ids)
    stored = {item.id: item for item in await index.get(org_id, ids)}
    first: dict[str, MemoryDraft] = {}
    replayed: dict[int, MemoryItem] = {}
    for position, draft, item in keyed:
        field = _key_field(draft, position)
        if item.id in gone:
            raise errors.Conflict(
                f"{field}: the memory this key wrote was erased (ForgetSubject); an erased memory is never "
                "written again",
                reason="MEMORY_ERASED",
                metadata={"field": field, "id": item.id},
            )
        earlier = stored.get(item.id)
        if earlier is not None:
            if not replays(draft, earlier):
                raise _reused(field, item.id)
            replayed[position] = earlier
        elif item.id in first:
            # Twice in one batch: the same write is one item; another write under the key is refused.
            if write_digest(first[item.id]) != write_digest(draft):
                raise _reused(field, item.id)
        else:
            first[item.id] = draft
    return replayed


def _reused(field: str, item_id: str) -> errors.AlreadyExists:
    return errors.AlreadyExists(
        f"{field}: this key already wrote memory {item_id} with other content, type, importance, entities, "
        "metadata or validAt; a key replays its first write and never overwrites it (change the memory with "
        "UpdateMemory, or use a new key)",
        reason="IDEMPOTENCY_KEY_REUSED",
        metadata={"field": field, "id": item_id},
    )
