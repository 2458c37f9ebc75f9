"""What the memory use cases need from the outside world (implemented in adapters/): the index of
long-term items (search and its filter) and its catalog (pages in a sort order with a cursor,
payload rewrites, deletes); the small Postgres-kept records consulted beside them (each org's
salience-order generation, the ids of erased memories); and the access log (which memories and
episodes were used, for salience and for audit)."""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np

from memory_svc.domain.conversation import Said
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

    async def access_counts(self, org_id: str, ids: Sequence[str]) -> dict[str, int]:
        """The stored ``access_count`` of each item of ``org_id`` with these ids (unknown ids are
        absent): one field, not the items, for the access flusher."""
        ...

    async def said_in_session(
        self,
        org_id: str,
        scope: Scope,
        session_id: str,
        limit: int,
        memory_types: Sequence[MemoryType] = (),
        *,
        filters: SearchFilter = DEFAULT_FILTER,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> list[Said]:
        """Where each ``message`` of session ``session_id`` (``provenance.session_id``) that a search
        with the same org, scope, types and filters keeps was said: ids and times only, at most
        ``limit`` of them (which ones, when there are more, is unspecified), in no particular order."""
        ...

    async def get(self, org_id: str, ids: Sequence[str]) -> list[MemoryItem]:
        """The items of ``org_id`` with these ids, in the order asked; unknown ids are skipped."""
        ...

    async def access_targets(self, org_id: str, ids: Sequence[str]) -> list[AccessTarget]:
        """What recording a use reads of the items of ``org_id`` with these ids (``AccessTarget``: a
        few fields, not the items), in the order asked; unknown ids are skipped."""
        ...

    async def vectors(self, org_id: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored dense vectors of the items of ``org_id`` with these ids (unknown ids are
        absent): what a caller needs to tell near-duplicates apart (the assembler's dedupe)."""
        ...

    async def count(self, org_id: str) -> int: ...


# --- the catalog: pages in a sort order, payload rewrites, deletes


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
    """What managing memories needs from the index beyond search: pages, payload rewrites, deletes.

    The real adapters implement this beside ``MemoryIndex``; it is a separate protocol so use
    cases state exactly what they touch.
    """

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

    async def write_access(self, org_id: str, refreshed: Sequence[AccessRefresh]) -> None:
        """Rewrite the access fields (``access_count``, ``last_accessed_at``, ``current_salience``)
        of existing items of ``org_id``, nothing else: the access flusher's write."""
        ...

    async def delete_scope(self, org_id: str, scope: Scope) -> list[str]:
        """Erasure: delete every item of ``org_id`` whose scope has each id ``scope`` sets (browse,
        never the context match: the org's shared items are not the subject's); returns their ids."""
        ...


# --- beside the index, kept in Postgres: the salience-order generation of each org (keyset paging)
# and the ids of erased memories (idempotent writes)


class OrderGenerations(Protocol):
    async def salience(self, org_id: str) -> int:
        """The org's salience-order generation: 0 until its stored salience is first rewritten."""
        ...

    async def advance_salience(self, org_id: str) -> int:
        """A job is about to rewrite (or has rewritten) stored salience: salience-ordered pages cut
        before are stale. Returns the new generation."""
        ...


class ErasedMemories(Protocol):
    async def record(self, org_id: str, memory_ids: Sequence[str]) -> None:
        """Erasure: these ids may never be written again."""
        ...

    async def erased(self, org_id: str, memory_ids: Sequence[str]) -> set[str]:
        """Which of ``memory_ids`` were erased."""
        ...


# --- the access log: which memories and episodes were used, for salience and for audit


@dataclass(frozen=True, slots=True)
class AccessRequest:
    """Who records uses of memories or episodes and why: the same for each one a call names."""

    reason: str
    session_id: str
    principal: str
    request_id: str

    def entry(self, memory_id: str, user_id: str, accessed_at: datetime, kind: str = "memory") -> Access:
        """The access log's entry for one use of ``memory_id`` (an episode's id with ``kind="episode"``)."""
        return Access(
            memory_id, user_id, self.session_id, self.reason, self.principal, self.request_id, accessed_at, kind
        )


@dataclass(frozen=True, slots=True)
class AccessTarget:
    """What recording a use of an item needs of it: its id, its scope (the access log's user, the
    erasure fence) and its type (its salience)."""

    id: str
    scope: Scope
    memory_type: MemoryType

    @classmethod
    def of(cls, item: MemoryItem) -> AccessTarget:
        return cls(item.id, item.scope, item.memory_type)


@dataclass(frozen=True, slots=True)
class AccessRefresh:
    """An item's access fields as the flusher writes them."""

    target: AccessTarget
    access_count: int
    last_accessed_at: datetime
    current_salience: float


@dataclass(frozen=True, slots=True)
class Access:
    memory_id: str  # the memory item's id, or the episode's (``kind``)
    user_id: str
    session_id: str
    reason: str
    principal: str
    request_id: str
    accessed_at: datetime
    kind: str = "memory"  # or "episode": RecordEpisodeAccess logs episodes' uses here too


class AccessLog(Protocol):
    async def record(self, org_id: str, accesses: Sequence[Access]) -> list[str]:
        """Writes the accesses; returns the memory ids newly recorded (a replayed request id records nothing)."""
        ...

    async def count(self, org_id: str, memory_id: str) -> int: ...

    async def forget(self, org_id: str, *, memory_ids: Sequence[str] = (), user_id: str = "") -> int:
        """Erasure: deletes the accesses of these memories or of this user; returns how many."""
        ...


class SubjectFence(Protocol):
    """Erasure's fence (usecases/subject_fence.py): while an erasure of a subject runs, no record of
    a scope it covers is written."""

    async def fence(self, org_id: str, erasure_id: str, subject: Scope) -> None:
        """Fence ``subject`` for the erasure, once writes of its scopes under way are done (idempotent)."""
        ...

    async def lift(self, org_id: str, erasure_id: str) -> None:
        """Remove the erasure's fence (idempotent)."""
        ...

    def writing(self, org_id: str, scopes: Sequence[Scope]) -> AbstractAsyncContextManager[None]:
        """Held around a write of records of ``scopes``: Conflict (SUBJECT_ERASING) on entry when a
        fence covers any of them; a fence asked for meanwhile waits until the block ends."""
        ...
