"""One fact once: a memory reflection learnt again reinforces the one already kept (Remember).

For each new item Remember is about to write whose provenance is ``reflection`` and whose type is
knowledge (``domain.restatement.FOLDED_TYPES``), the nearest current (active or warm) items of the
same org, exact scope and type are read, and when one of them says the same fact
(``domain.restatement.restates``) the new item is not written: the kept one takes the new
evidence instead — the turn ids, the other session, the entities, the larger importance, and the
new item's id in ``consolidated_from`` (the mark a retried write finds, so it reinforces nothing
twice) — and its use is recorded as an access with reason ``restated`` (its salience grows as a
recall's would; the access counters are written behind the answer, once per write: the access
row's request id is the folded item's id). Two items of one batch that say the same fact are one.

Another user's, team's or the organisation's memory is never reinforced: the scope must be the
same, id for id. What Remember answers for a folded item is the kept item.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memory_svc.domain.model import MemoryItem, MemoryStatus
from memory_svc.domain.restatement import FOLDED_SOURCE, FOLDED_TYPES, restates
from memory_svc.domain.salience import salience_of_type
from memory_svc.usecases.access_behind import AccessWriteBehind
from memory_svc.usecases.memory_ports import AccessRequest, MemoryCatalog, MemoryIndex, SearchFilter

# Nearest items read per new item: the same fact, if kept, is among the closest few.
CANDIDATES = 5
CURRENT = SearchFilter(statuses=(MemoryStatus.ACTIVE, MemoryStatus.WARM))
REINFORCED_FIELDS = ("provenance", "entities", "importance", "updated_at")
REASON = "restated"


def folds(item: MemoryItem) -> bool:
    """Whether ``item`` is a write that may reinforce a kept memory instead of being written."""
    return item.memory_type in FOLDED_TYPES and item.provenance.source_type == FOLDED_SOURCE


@dataclass(frozen=True, slots=True)
class Folded:
    """What Remember writes of a batch after folding, and what stands for each item it does not."""

    written: list[int]  # positions of the items still to write
    items: list[MemoryItem]  # the batch, an item that took a later twin's evidence replaced
    stands: dict[str, MemoryItem]  # folded item id -> the item Remember answers for it


@dataclass(frozen=True, slots=True)
class Restatements:
    index: MemoryIndex
    catalog: MemoryCatalog  # the fenced payload writer
    behind: AccessWriteBehind

    async def fold(self, org_id: str, items: Sequence[MemoryItem], vectors: np.ndarray, principal: str) -> Folded:
        """Fold the new ``items`` (their dense ``vectors`` row for row) into what they restate: an
        earlier item of the batch, else a kept memory (reinforced here)."""
        items = list(items)
        twins = within_batch(items, vectors)
        for later, earlier in twins.items():
            items[earlier] = reinforce(items[earlier], items[later], counted=True)
        survivors = [position for position in range(len(items)) if position not in twins]
        eligible = [position for position in survivors if folds(items[position])]
        found = await asyncio.gather(*(self._nearest(org_id, items[p], vectors[p]) for p in eligible))
        stands: dict[str, MemoryItem] = {}
        for position, candidates in zip(eligible, found, strict=True):
            item = items[position]
            kept = _restated(item, candidates)
            if kept is None:
                continue
            if item.id not in kept.provenance.consolidated_from:
                kept = reinforce(kept, item)
                await self.catalog.replace_payloads(org_id, [kept], REINFORCED_FIELDS)
                # The use is counted once per folded write: the access row's request id is its id.
                use = AccessRequest(REASON, item.provenance.session_id, principal, f"{REASON}:{item.id}")
                self.behind.offer(org_id, [kept], use)
            stands[item.id] = kept  # else a retried write, reinforced already
        for later, earlier in twins.items():
            stands[items[later].id] = stands.get(items[earlier].id, items[earlier])
        return Folded([p for p in survivors if items[p].id not in stands], items, stands)

    async def _nearest(self, org_id: str, item: MemoryItem, vector: np.ndarray) -> list[tuple[MemoryItem, float]]:
        hits = await self.index.search(org_id, item.scope, vector, CANDIDATES, [item.memory_type], filters=CURRENT)
        cosine = dict(hits)
        kept = await self.index.get(org_id, list(cosine)) if cosine else []
        # The search matches the scope's set ids; a fold wants the same scope exactly.
        return [(other, cosine[other.id]) for other in kept if other.scope == item.scope]


def within_batch(items: Sequence[MemoryItem], vectors: np.ndarray) -> dict[int, int]:
    """Later items of one batch that restate an earlier one: position -> the earlier one's position."""
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    twins: dict[int, int] = {}
    for position, item in enumerate(items):
        if not folds(item):
            continue
        for earlier in range(position):
            other = items[earlier]
            if earlier in twins or not folds(other) or other.scope != item.scope:
                continue
            if other.memory_type != item.memory_type:
                continue
            if restates(item.content, other.content, float(unit[position] @ unit[earlier])):
                twins[position] = earlier
                break
    return twins


def _restated(item: MemoryItem, candidates: Sequence[tuple[MemoryItem, float]]) -> MemoryItem | None:
    """The closest kept memory ``item`` restates (a retry's earlier fold first), or None."""
    for kept, _ in candidates:
        if item.id in kept.provenance.consolidated_from:
            return kept
    for kept, cosine in sorted(candidates, key=lambda pair: -pair[1]):
        if restates(item.content, kept.content, cosine):
            return kept
    return None


def reinforce(kept: MemoryItem, item: MemoryItem, *, counted: bool = False) -> MemoryItem:
    """``kept`` with the evidence of ``item``, which says the same fact again; ``counted``: the
    restatement is counted as a use on ``kept`` itself (an item not written yet, whose counters no
    other writer touches)."""
    sessions = [kept.provenance.session_id, *kept.provenance.session_ids, item.provenance.session_id]
    provenance = dataclasses.replace(
        kept.provenance,
        turn_ids=_union(kept.provenance.turn_ids, item.provenance.turn_ids),
        # The item and what it took in (a twin of its batch): a retry of either finds its id here.
        consolidated_from=_union(kept.provenance.consolidated_from, (item.id,), item.provenance.consolidated_from),
        session_ids=tuple(s for s in _union(sessions) if s and s != kept.provenance.session_id),
    )
    reinforced = dataclasses.replace(
        kept,
        provenance=provenance,
        entities=_union(kept.entities, item.entities),
        importance=max(kept.importance, item.importance),
        updated_at=max(kept.changed_at, item.created_at),
    )
    if not counted:
        return reinforced
    count = kept.access_count + 1
    return dataclasses.replace(
        reinforced,
        access_count=count,
        current_salience=salience_of_type(kept.memory_type, count, kept.last_accessed_at, kept.last_accessed_at),
    )


def _union(*sequences: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(value for sequence in sequences for value in sequence))
