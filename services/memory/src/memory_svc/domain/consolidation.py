"""Consolidation: folding near-duplicate memories into one, without deleting anything.

Within one group (same org, exact same scope, same type, all active) items are taken in
*priority* order — most accessed, then most important, then most recently true, then id —
and each item either joins the first earlier survivor it is a near-duplicate of (cosine of
the stored vectors above the threshold) or becomes a survivor itself. This is leader
clustering rather than connected components on purpose: every folded item is a
near-duplicate of its survivor, so a chain A≈B≈C never folds C into an unrelated A.

The survivor keeps its content and metadata and takes the union of the group's provenance
(turn ids, sessions, entities), the largest importance, the sum of access counts and the
latest access — what the group as a whole has earned; each other member becomes
``consolidated`` with ``consolidated_into`` pointing at it. Folding again is a no-op: only
active items are considered, and a survivor already holding a member's ids changes nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType

DEFAULT_THRESHOLD = 0.92
# Raw records are evidence of what was said or done, not knowledge to deduplicate.
DEFAULT_EXCLUDED_TYPES = frozenset({MemoryType.MESSAGE, MemoryType.TOOL_INTERACTION})
# Rows of the similarity matrix computed at once: 512 x n float32 stays small at n = 100k.
BLOCK_ROWS = 512


@dataclass(frozen=True, slots=True)
class Fold:
    """One group of near-duplicates: the survivor as it should be stored, and its members
    as they should be stored (``consolidated``, linked to the survivor)."""

    survivor: MemoryItem
    members: tuple[MemoryItem, ...]


def priority(item: MemoryItem) -> tuple[float, float, float, str]:
    return (-item.access_count, -item.importance, -item.valid_at.timestamp(), item.id)


def find_folds(items: Sequence[MemoryItem], vectors: np.ndarray, threshold: float) -> list[Fold]:
    """The folds of one group (items of one scope and type); ``vectors`` are their stored
    dense vectors, row for row. Deterministic for the same input, whatever its order."""
    if len(items) != len(vectors):
        raise ValueError("one vector per item is required")
    if len(items) < 2:
        return []
    order = sorted(range(len(items)), key=lambda index: priority(items[index]))
    ordered = _unit_rows(np.asarray(vectors, dtype=np.float32)[order])
    leader_of = np.full(len(order), -1)
    for start in range(0, len(order), BLOCK_ROWS):
        block = ordered[start : start + BLOCK_ROWS] @ ordered.T
        for offset, row in enumerate(block):
            position = start + offset
            if leader_of[position] != -1:
                continue
            leader_of[position] = position
            # Later items (lower priority), still free, close enough to this survivor.
            candidates = np.flatnonzero(row > threshold)
            candidates = candidates[(candidates > position) & (leader_of[candidates] == -1)]
            leader_of[candidates] = position
    groups: dict[int, list[int]] = {}
    for position, leader in enumerate(leader_of):
        if leader != position:
            groups.setdefault(int(leader), []).append(position)
    return [
        merge(items[order[leader]], [items[order[member]] for member in members])
        for leader, members in sorted(groups.items())
    ]


def merge(survivor: MemoryItem, members: Sequence[MemoryItem]) -> Fold:
    """The survivor with the union of the group's provenance, and the members linked to it."""
    group = [survivor, *members]
    sessions = [item.provenance.session_id for item in members if item.provenance.session_id]
    provenance = dataclasses.replace(
        survivor.provenance,
        turn_ids=_union(item.provenance.turn_ids for item in group),
        consolidated_from=_union([survivor.provenance.consolidated_from, [item.id for item in members]]),
        session_ids=tuple(
            session
            for session in _union([survivor.provenance.session_ids, sessions])
            if session != survivor.provenance.session_id
        ),
    )
    kept = dataclasses.replace(
        survivor,
        provenance=provenance,
        entities=_union(item.entities for item in group),
        importance=max(item.importance for item in group),
        # A re-run after a crash between the two writes must not count a member twice.
        access_count=survivor.access_count
        + sum(item.access_count for item in members if item.id not in survivor.provenance.consolidated_from),
        last_accessed_at=max(item.last_accessed_at for item in group),
    )
    folded = tuple(
        dataclasses.replace(
            item,
            status=MemoryStatus.CONSOLIDATED,
            provenance=dataclasses.replace(item.provenance, consolidated_into=survivor.id),
        )
        for item in members
    )
    return Fold(kept, folded)


def _union(sequences: Iterable[Iterable[str]]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(value for sequence in sequences for value in sequence))


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)
