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
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from lore_runtime.errors import FailedPrecondition


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


def _guarded(method: str, *, uses_vectors: bool = False, writes: bool = False) -> Callable[..., Awaitable[Any]]:
    """The port method ``method`` of the current store, behind the guards it needs: ``uses_vectors``
    refuses it while the stored vectors are another model's, ``writes`` while a reindex copies.
    Arguments pass through unchanged; the ports (usecases/*ports.py) say what each method does."""

    async def call(self: _Switchable, *args: Any, **kwargs: Any) -> Any:
        if uses_vectors:
            self.state.require_vectors()
        if writes:
            self.state.require_writable()
        return await self._call(method, *args, **kwargs)

    call.__name__ = call.__qualname__ = method
    return call


def _streamed(method: str, *, uses_vectors: bool = False) -> Callable[..., AsyncIterator[Any]]:
    """The streaming port method ``method`` of the store current when it starts, as ``_guarded``."""

    async def stream(self: _Switchable, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        await self._open.wait()
        if uses_vectors:
            self.state.require_vectors()
        async for batch in getattr(self.store, method)(*args, **kwargs):
            yield batch

    stream.__name__ = stream.__qualname__ = method
    return stream


class GuardedMemoryIndex(_Switchable):
    """The MemoryIndex and MemoryCatalog ports over the live items store."""

    upsert = _guarded("upsert", uses_vectors=True, writes=True)
    search = _guarded("search", uses_vectors=True)
    search_lexical = _guarded("search_lexical", uses_vectors=True)
    get = _guarded("get")
    access_counts = _guarded("access_counts")
    access_targets = _guarded("access_targets")
    said_in_session = _guarded("said_in_session")
    # Vectors of another model would be compared with this model's: refuse, like a search.
    vectors = _guarded("vectors", uses_vectors=True)
    count = _guarded("count")
    page = _guarded("page")
    org_ids = _guarded("org_ids")
    replace_payloads = _guarded("replace_payloads", writes=True)
    write_access = _guarded("write_access", writes=True)
    delete_scope = _guarded("delete_scope", writes=True)

    # Streamed: not re-run across a swap (the module's docstring).
    iterate = _streamed("iterate")
    iterate_vectors = _streamed("iterate_vectors", uses_vectors=True)


class GuardedEpisodeIndex(_Switchable):
    """The EpisodeIndex port over the live episodes store."""

    upsert = _guarded("upsert", uses_vectors=True, writes=True)
    get = _guarded("get")
    list = _guarded("list")
    search = _guarded("search", uses_vectors=True)
    get_many = _guarded("get_many")
    update_salience = _guarded("update_salience", writes=True)
    list_open_threads = _guarded("list_open_threads")
    delete = _guarded("delete", writes=True)
    delete_scope = _guarded("delete_scope", writes=True)
