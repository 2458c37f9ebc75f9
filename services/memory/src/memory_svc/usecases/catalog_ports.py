"""What managing memories needs from the index beyond search: pages, payload rewrites, deletes.

The real adapters implement this beside ``MemoryIndex``; it is a separate protocol so use
cases state exactly what they touch.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np

from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Scope, ScopeMatch


class MemoryOrder(enum.StrEnum):
    NEWEST = "newest"
    SALIENCE = "salience"


# created_at for the newest order, current_salience for the salience order.
SortValue = datetime | float


@dataclass(frozen=True, slots=True)
class MemoryCursor:
    """Where a page ended: the last item's sort value and id."""

    value: SortValue
    item_id: str


class MemoryCatalog(Protocol):
    async def page(
        self,
        org_id: str,
        scope: Scope,
        memory_types: Sequence[MemoryType],
        statuses: Sequence[MemoryStatus],
        order: MemoryOrder,
        limit: int,
        after: MemoryCursor | None = None,
        *,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> list[MemoryItem]:
        """Up to ``limit`` items of ``org_id`` that ``scope`` selects (read with ``scope_match``), in
        ``order`` descending with ties by id ascending, strictly after ``after`` (keyset paging:
        exactly once while the sort values hold still)."""
        ...

    def iterate(self, org_id: str, scope: Scope, batch_size: int) -> AsyncIterator[list[MemoryItem]]:
        """Every item of ``org_id`` within ``scope`` (browse: its set ids), in batches, in no particular order."""
        ...

    def iterate_vectors(
        self,
        org_id: str,
        scope: Scope,
        memory_types: Sequence[MemoryType],
        statuses: Sequence[MemoryStatus],
        batch_size: int,
    ) -> AsyncIterator[tuple[list[MemoryItem], np.ndarray]]:
        """Matching items of ``org_id`` with their stored dense vectors (one row per item), in batches."""
        ...

    async def org_ids(self) -> list[str]:
        """Every organisation that has items: scheduled jobs run one org at a time (ARCHITECTURE §2)."""
        ...

    async def replace_payloads(
        self, org_id: str, items: Sequence[MemoryItem], fields: Sequence[str] | None = None
    ) -> None:
        """Rewrite the stored fields of existing items of ``org_id`` (vectors untouched): all of
        them, or only ``fields`` (MemoryItem attribute names) — much cheaper on the hot path."""
        ...

    async def delete_scope(self, org_id: str, scope: Scope) -> list[str]:
        """Erasure: delete every item of ``org_id`` whose scope has each id ``scope`` sets (browse,
        never the context match: the org's shared items are not the subject's); returns their ids."""
        ...
