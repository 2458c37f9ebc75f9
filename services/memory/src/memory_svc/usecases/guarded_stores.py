"""The live items and episodes stores as the use cases see them: they refuse vector work while the
stored vectors belong to another embedding model, refuse writes while a reindex copies the
collections, and switch to the rebuilt stores when a reindex swaps them in.

Reads by id or payload (get, list, export) always go through: the data stays readable while the
vectors cannot be used. A swap pauses new calls for its short window and re-runs a call the old,
closing store refused (``STORE_CLOSED``), so requests in flight only see the switch as a delay;
a streamed iteration (ExportMemories) crossing a swap fails and can simply be retried.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any

import numpy as np
from lore_runtime.errors import FailedPrecondition

from memory_svc.domain.episode import Episode
from memory_svc.domain.lexical import SparseVector
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Scope, ScopeMatch
from memory_svc.usecases.catalog_ports import MemoryCursor, MemoryOrder
from memory_svc.usecases.episode_ports import EpisodeCursor, EpisodePage, ThreadCursor, ThreadPage
from memory_svc.usecases.ports import DEFAULT_FILTER, SearchFilter


class VectorState:
    """Whether the stored vectors can be used with the configured embedder, and whether a reindex runs."""

    def __init__(self) -> None:
        # One error per collection whose vectors were made by another model (check_metadata's).
        self.stale: list[FailedPrecondition] = []
        self.running = False

    def require_vectors(self) -> None:
        if self.stale:
            first = self.stale[0]
            raise FailedPrecondition(
                f"{first}; until then only reads by id or listing work",
                reason="EMBEDDING_MODEL_MISMATCH",
                metadata=dict(first.metadata),
            )

    def require_writable(self) -> None:
        if self.running:
            raise FailedPrecondition(
                "a reindex is copying the memory store; writes are refused until it finishes (reads work)",
                reason="REINDEX_RUNNING",
            )


class _Switchable:
    """The current store behind a guard, replaceable by a swap."""

    def __init__(self, store: Any, state: VectorState) -> None:
        self.store = store
        self.state = state
        self._open = asyncio.Event()
        self._open.set()

    @contextlib.asynccontextmanager
    async def paused(self) -> AsyncIterator[None]:
        """New calls wait until the block ends (the swap window)."""
        self._open.clear()
        try:
            yield
        finally:
            self._open.set()

    async def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        while True:
            await self._open.wait()
            store = self.store
            try:
                return await getattr(store, method)(*args, **kwargs)
            except FailedPrecondition as error:
                # Closed by a swap under this call: run it again on the new store.
                if error.reason != "STORE_CLOSED" or (store is self.store and self._open.is_set()):
                    raise

    async def _vectors(self) -> None:
        await self._open.wait()
        self.state.require_vectors()


class GuardedMemoryIndex(_Switchable):
    """The MemoryIndex and MemoryCatalog ports over the live items store."""

    async def upsert(
        self, items: Sequence[MemoryItem], vectors: np.ndarray, sparse: Sequence[SparseVector] | None = None
    ) -> None:
        self.state.require_vectors()
        self.state.require_writable()
        await self._call("upsert", items, vectors, sparse)

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
        self.state.require_vectors()
        return await self._call(
            "search", org_id, scope, vector, k, memory_types, filters=filters, scope_match=scope_match
        )

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
        self.state.require_vectors()
        return await self._call(
            "search_lexical", org_id, scope, query, k, memory_types, filters=filters, scope_match=scope_match
        )

    async def get(self, org_id: str, ids: Sequence[str]) -> list[MemoryItem]:
        return await self._call("get", org_id, ids)

    async def vectors(self, org_id: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        # Vectors of another model would be compared with this model's: refuse, like a search.
        self.state.require_vectors()
        return await self._call("vectors", org_id, ids)

    async def count(self, org_id: str) -> int:
        return await self._call("count", org_id)

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
        return await self._call(
            "page", org_id, scope, memory_types, statuses, order, limit, after, scope_match=scope_match
        )

    async def iterate(self, org_id: str, scope: Scope, batch_size: int) -> AsyncIterator[list[MemoryItem]]:
        await self._open.wait()
        async for batch in self.store.iterate(org_id, scope, batch_size):
            yield batch

    async def iterate_vectors(
        self,
        org_id: str,
        scope: Scope,
        memory_types: Sequence[MemoryType],
        statuses: Sequence[MemoryStatus],
        batch_size: int,
    ) -> AsyncIterator[tuple[list[MemoryItem], np.ndarray]]:
        await self._vectors()
        async for batch in self.store.iterate_vectors(org_id, scope, memory_types, statuses, batch_size):
            yield batch

    async def org_ids(self) -> list[str]:
        return await self._call("org_ids")

    async def replace_payloads(
        self, org_id: str, items: Sequence[MemoryItem], fields: Sequence[str] | None = None
    ) -> None:
        self.state.require_writable()
        await self._call("replace_payloads", org_id, items, fields)

    async def delete_scope(self, org_id: str, scope: Scope) -> list[str]:
        self.state.require_writable()
        return await self._call("delete_scope", org_id, scope)


class GuardedEpisodeIndex(_Switchable):
    """The EpisodeIndex port over the live episodes store."""

    async def upsert(self, episode: Episode, vector: np.ndarray) -> None:
        self.state.require_vectors()
        self.state.require_writable()
        await self._call("upsert", episode, vector)

    async def get(self, org_id: str, episode_id: str) -> Episode | None:
        return await self._call("get", org_id, episode_id)

    async def list(
        self,
        org_id: str,
        scope: Scope,
        page_size: int,
        cursor: EpisodeCursor | None = None,
        *,
        ended_after: datetime | None = None,
        min_salience: float | None = None,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> EpisodePage:
        return await self._call(
            "list",
            org_id,
            scope,
            page_size,
            cursor,
            ended_after=ended_after,
            min_salience=min_salience,
            scope_match=scope_match,
        )

    async def search(
        self,
        org_id: str,
        scope: Scope,
        vector: np.ndarray,
        k: int,
        *,
        min_salience: float | None = None,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> list[tuple[Episode, float]]:
        self.state.require_vectors()
        return await self._call("search", org_id, scope, vector, k, min_salience=min_salience, scope_match=scope_match)

    async def get_many(self, org_id: str, episode_ids: Sequence[str]) -> list[Episode]:
        return await self._call("get_many", org_id, episode_ids)

    async def update_salience(self, org_id: str, episodes: Sequence[Episode]) -> None:
        self.state.require_writable()
        await self._call("update_salience", org_id, episodes)

    async def list_open_threads(
        self,
        org_id: str,
        scope: Scope,
        page_size: int,
        cursor: ThreadCursor | None = None,
        *,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> ThreadPage:
        return await self._call("list_open_threads", org_id, scope, page_size, cursor, scope_match=scope_match)

    async def delete_scope(self, org_id: str, scope: Scope) -> list[str]:
        self.state.require_writable()
        return await self._call("delete_scope", org_id, scope)
