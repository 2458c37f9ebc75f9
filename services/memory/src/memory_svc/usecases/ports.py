"""What the memory use cases need from the outside world (implemented in adapters/)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np

from memory_svc.domain.lexical import SparseVector
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Scope, ScopeMatch

DEFAULT_STATUSES: tuple[MemoryStatus, ...] = (MemoryStatus.ACTIVE, MemoryStatus.WARM)


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """What a search keeps beyond org and scope (the adapters turn it into index-backed conditions).

    ``statuses``: ACTIVE and WARM unless given. ``valid_after``/``valid_before``: ``valid_at``
    within [after, before). ``min_salience``: on the materialised ``current_salience`` (a
    superset of the exact filter, which recall applies afterwards: salience only decays
    between two materialisations, and an access rewrites it).
    """

    statuses: tuple[MemoryStatus, ...] = DEFAULT_STATUSES
    valid_after: datetime | None = None
    valid_before: datetime | None = None
    min_salience: float | None = None


DEFAULT_FILTER = SearchFilter()


class MemoryIndex(Protocol):
    """Long-term memory items with their vectors, always filtered by org."""

    async def upsert(
        self, items: Sequence[MemoryItem], vectors: np.ndarray, sparse: Sequence[SparseVector] | None = None
    ) -> None:
        """Write ``items`` with their dense ``vectors`` and, when given, their BM25 ``sparse`` vectors
        (``memory_svc.domain.lexical.encode_document`` of each content; one per item)."""
        ...

    async def search(
        self,
        org_id: str,
        scope: Scope,
        vector: np.ndarray,
        k: int,
        memory_types: Sequence[MemoryType] = (),
        *,
        filters: SearchFilter = DEFAULT_FILTER,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> list[tuple[str, float]]:
        """The ids of the k nearest items of ``org_id`` that ``scope`` selects (read with
        ``scope_match``: ``Scope.allowed_values``), with their cosine similarity, best first. Ids
        only: reading payloads costs more than the search (``get`` reads the items)."""
        ...

    async def search_lexical(
        self,
        org_id: str,
        scope: Scope,
        query: SparseVector,
        k: int,
        memory_types: Sequence[MemoryType] = (),
        *,
        filters: SearchFilter = DEFAULT_FILTER,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> list[tuple[str, float]]:
        """The ids of the k best BM25 matches of ``org_id`` that ``scope`` selects, as ``search``
        (``query`` from ``encode_query``):
        score = sum over shared terms of idf × stored weight, idf = ln(1 + (N − n + 0.5) / (n + 0.5))
        over the whole collection (Qdrant's IDF modifier). Items without a shared term are not returned."""
        ...

    async def get(self, org_id: str, ids: Sequence[str]) -> list[MemoryItem]:
        """The items of ``org_id`` with these ids, in the order asked; unknown ids are skipped."""
        ...

    async def vectors(self, org_id: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored dense vectors of the items of ``org_id`` with these ids (unknown ids are
        absent): what a caller needs to tell near-duplicates apart (the assembler's dedupe)."""
        ...

    async def count(self, org_id: str) -> int: ...
