"""Managing single memories: get, list, update, forget (archive), and erasing a subject.

Nothing is deleted except by ForgetSubject (erasure, ARCHITECTURE.md §2: items, episodes, the
access log and the named sessions' working memory): ForgetMemory archives. UpdateMemory
re-embeds only when the content changes.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from lore_embeddings import Embedder
from lore_runtime import errors
from lore_runtime.clock import Clock
from lore_runtime.page_tokens import PageTokens, fingerprint

from memory_svc.domain import limits
from memory_svc.domain.index_text import index_text
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Scope, ScopeMatch
from memory_svc.usecases.episode_ports import EpisodeIndex
from memory_svc.usecases.memory_ports import (
    AccessLog,
    ErasedMemories,
    MemoryCatalog,
    MemoryCursor,
    MemoryIndex,
    MemoryOrder,
    OrderGenerations,
    SortValue,
)
from memory_svc.usecases.remember import embed_items
from memory_svc.usecases.working_memory import validate_session_id
from memory_svc.usecases.working_memory_ports import WorkingMemoryStore

UPDATABLE = ("content", "importance", "status", "metadata", "entities", "valid_at")
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500


@dataclass(frozen=True, slots=True)
class MemoryPage:
    items: list[MemoryItem]
    next_page_token: str


async def get_memory(org_id: str, memory_id: str, *, index: MemoryIndex) -> MemoryItem:
    found = await index.get(org_id, [memory_id]) if memory_id else []
    if not found:
        # Another org's id is indistinguishable from a missing one; the gateway answers this very error
        # for another user's memory (gateway_svc.api.auth.user_pin), so the two stay one.
        raise errors.NotFound(f"memory {memory_id} not found", reason="MEMORY_NOT_FOUND")
    return found[0]


LISTING = "memories"


def _filters(
    scope: Scope,
    memory_types: Sequence[MemoryType],
    statuses: Sequence[MemoryStatus],
    order: MemoryOrder,
    scope_match: ScopeMatch,
) -> str:
    return fingerprint(scope.as_filter(), sorted(memory_types), sorted(statuses), str(order), str(scope_match))


def _position(item: MemoryItem, order: MemoryOrder, generation: int | None) -> dict[str, object]:
    value = item.created_at.astimezone(UTC).isoformat() if order is MemoryOrder.NEWEST else item.current_salience
    position: dict[str, object] = {"v": value, "i": item.id}
    if generation is not None:
        position["g"] = generation
    return position


def _cursor(position: dict[str, object], order: MemoryOrder, generation: int | None) -> MemoryCursor:
    stale = errors.InvalidArgument(
        "page_token",
        "the salience order has changed since this page was listed (decay rewrote salience); "
        "start again without it, or list by newest for an order that never moves",
    )
    try:
        if order is MemoryOrder.NEWEST:
            value: SortValue = datetime.fromisoformat(str(position["v"]))
            if value.tzinfo is None:
                raise ValueError("naive")
        else:
            value = float(position["v"])  # type: ignore[arg-type]
        item_id = str(uuid.UUID(str(position["i"])))
        issued_under = position.get("g")
    except (KeyError, TypeError, ValueError):
        raise errors.InvalidArgument("page_token", "is not a page token this service issued") from None
    if generation is not None and issued_under != generation:
        raise stale
    return MemoryCursor(value, item_id)


async def list_memories(
    org_id: str,
    scope: Scope,
    memory_types: Sequence[MemoryType],
    statuses: Sequence[MemoryStatus],
    order: MemoryOrder,
    page_size: int,
    page_token: str,
    *,
    catalog: MemoryCatalog,
    generations: OrderGenerations,
    tokens: PageTokens,
    scope_match: ScopeMatch = ScopeMatch.BROWSE,
) -> MemoryPage:
    """One page of the items ``scope`` selects, read with ``scope_match`` (see ``recall``).

    Keyset paging: the token holds the last item's sort value and id, so following tokens returns
    each item exactly once while the order holds still. Creation times never change; salience
    moves when decay rewrites it (the token carries the org's salience generation, and a stale one
    is refused) and when an item is used (a recalled item may move past the page boundary)."""
    if page_size < 0 or page_size > MAX_PAGE_SIZE:
        raise errors.InvalidArgument(
            "page_size", f"must be between 1 and {MAX_PAGE_SIZE} (0 means {DEFAULT_PAGE_SIZE})"
        )
    size = page_size or DEFAULT_PAGE_SIZE
    filters = _filters(scope, memory_types, statuses, order, scope_match)
    generation = await generations.salience(org_id) if order is MemoryOrder.SALIENCE else None
    after = None
    if page_token:
        after = _cursor(tokens.open(page_token, org_id, LISTING, filters), order, generation)
    # One more than asked tells whether another page exists without a count.
    items = await catalog.page(org_id, scope, memory_types, statuses, order, size + 1, after, scope_match=scope_match)
    if len(items) <= size:
        return MemoryPage(items, "")
    last = items[size - 1]
    return MemoryPage(items[:size], tokens.seal(org_id, LISTING, filters, _position(last, order, generation)))


async def update_memory(
    org_id: str,
    memory_id: str,
    changes: Mapping[str, object],
    mask: Sequence[str],
    *,
    index: MemoryIndex,
    catalog: MemoryCatalog,
    embedder: Embedder,
    clock: Clock,
) -> MemoryItem:
    if not mask:
        raise errors.InvalidArgument("update_mask", f"name at least one of {', '.join(UPDATABLE)}")
    for path in mask:
        if path not in UPDATABLE:
            raise errors.InvalidArgument(
                "update_mask", f"{path!r} cannot be updated; updatable: {', '.join(UPDATABLE)}"
            )
    current = await get_memory(org_id, memory_id, index=index)
    updated = dataclasses.replace(current, **{path: changes[path] for path in mask})
    if updated.status is MemoryStatus.COMPLETED and current.memory_type is not MemoryType.COMMITMENT:
        raise errors.InvalidArgument("memory.status", "only a commitment can be completed")
    if updated == current:
        return current  # nothing changed: nothing written, and its update time stays
    updated = dataclasses.replace(updated, updated_at=clock.now())
    if index_text(updated) != index_text(current):
        await index.upsert([updated], *await embed_items([updated], embedder))
    else:
        await catalog.replace_payloads(org_id, [updated])
    return updated


async def forget_memory(
    org_id: str, memory_id: str, *, index: MemoryIndex, catalog: MemoryCatalog, clock: Clock
) -> MemoryItem:
    """Archive: the item stops being recalled but is never lost. Idempotent."""
    current = await get_memory(org_id, memory_id, index=index)
    if current.status is MemoryStatus.ARCHIVED:
        return current
    archived = dataclasses.replace(current, status=MemoryStatus.ARCHIVED, updated_at=clock.now())
    await catalog.replace_payloads(org_id, [archived])
    return archived


@dataclass(frozen=True, slots=True)
class SubjectErasure:
    memories_deleted: int
    access_records_deleted: int
    episodes_deleted: int = 0
    working_memories_cleared: int = 0


# Items whose ids are recorded as erased per write.
ERASE_BATCH = 1_000
# Working-memory clears in flight at once (one Redis DEL per session).
CLEAR_CONCURRENCY = 32


def validate_session_ids(session_ids: Sequence[str], field: str = "session_ids") -> list[str]:
    """Distinct ``session_ids`` in order; each a valid session id, at most MAX_FORGET_SESSION_IDS."""
    if len(session_ids) > limits.MAX_FORGET_SESSION_IDS:
        raise errors.InvalidArgument(field, f"at most {limits.MAX_FORGET_SESSION_IDS} session ids per call")
    for position, session_id in enumerate(session_ids):
        validate_session_id(session_id, f"{field}[{position}]")
    return list(dict.fromkeys(session_ids))


async def forget_subject(
    org_id: str,
    subject: Scope,
    session_ids: Sequence[str] = (),
    *,
    catalog: MemoryCatalog,
    access_log: AccessLog,
    episodes: EpisodeIndex,
    working_memory: WorkingMemoryStore,
    erased: ErasedMemories,
) -> SubjectErasure:
    """Erasure (ARCHITECTURE.md §2): hard-delete every item and episode of the subject, its access
    log, and the working memory of each of ``session_ids`` (the subject's sessions, which the agent
    service knows). Their ids are recorded first, so a replayed write never re-creates one.
    Idempotent: a retry deletes what is left and reports only that; every named session counts as
    cleared, whether or not its working memory still existed."""
    if not subject.as_filter():
        raise errors.InvalidArgument("subject", "must name a user, agent or team: an empty scope is the whole org")
    sessions = validate_session_ids(session_ids)
    # The ids are kept before the items go, so a crash in between still leaves every erased id
    # refused by Remember (a replay finds nothing left to delete, and so nothing to record).
    async for batch in catalog.iterate(org_id, subject, ERASE_BATCH):
        await erased.record(org_id, [item.id for item in batch])
    deleted = await catalog.delete_scope(org_id, subject)
    episodes_deleted = await episodes.delete_scope(org_id, subject)
    # The log holds episodes' uses too (RecordEpisodeAccess): theirs go with them.
    accesses = await access_log.forget(org_id, memory_ids=[*deleted, *episodes_deleted], user_id=subject.user_id)
    for start in range(0, len(sessions), CLEAR_CONCURRENCY):
        chunk = sessions[start : start + CLEAR_CONCURRENCY]
        await asyncio.gather(*(working_memory.clear(org_id, session_id) for session_id in chunk))
    return SubjectErasure(len(deleted), accesses, len(episodes_deleted), len(sessions))


def validate_ids(ids: Sequence[str], field: str) -> list[str]:
    if len(ids) > limits.MAX_ACCESS_IDS:
        raise errors.InvalidArgument(field, f"at most {limits.MAX_ACCESS_IDS} ids per call")
    return list(dict.fromkeys(ids))
