"""When a keyed write is a replay (ARCHITECTURE.md §3: deterministic ids).

A memory's id is fixed by its org, scope and idempotency key (or request id and position), so a
second write with the same key lands on the same id. One rule, the same as turns and the gateway's
``Idempotency-Key``: the same write again replays the first (same id, the item as it is now);
another write under the same key is refused (409 IDEMPOTENCY_KEY_REUSED), never an overwrite.

"The same write" is what the caller chose: content, type, importance, entities, metadata and
``valid_at`` when given (an omitted ``valid_at`` means "now", which differs on every retry).
"""

from __future__ import annotations

import hashlib
import json

from memory_svc.domain.model import MemoryDraft, MemoryItem


def write_digest(draft: MemoryDraft) -> str:
    described = [
        draft.content,
        str(draft.memory_type),
        draft.importance,
        sorted(draft.entities),
        sorted(draft.metadata.items()),
        draft.valid_at.isoformat() if draft.valid_at is not None else None,
    ]
    return hashlib.sha256(json.dumps(described, separators=(",", ":")).encode()).hexdigest()[:32]


def replays(draft: MemoryDraft, stored: MemoryItem) -> bool:
    """Whether ``draft`` repeats the write that created ``stored`` (items stored before digests
    existed are compared field by field, as they are now)."""
    if stored.write_digest:
        return stored.write_digest == write_digest(draft)
    return (
        draft.content == stored.content
        and draft.memory_type == stored.memory_type
        and draft.metadata == stored.metadata
        and (draft.valid_at is None or draft.valid_at == stored.valid_at)
    )
