"""One collection copied into a new one with new vectors (the Rebuild port), for both back ends:
they differ only in their stores and in where the progress is kept (``ProgressStore``). Also how
both open a live store whose vectors are another model's (``open_live``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from lore_runtime.errors import FailedPrecondition

from memory_svc.domain.lexical import SparseVector
from memory_svc.usecases.guarded_stores import VectorState
from memory_svc.usecases.maintenance_ports import CollectionKind, RebuildProgress

# A store's vectors are another model's, or of no model it recorded: `lore reindex` rebuilds it.
STALE_REASONS = ("EMBEDDING_MODEL_MISMATCH", "EMBEDDING_MODEL_UNKNOWN")


async def open_live(store_class: Any, location: Any, state: VectorState, **model: Any) -> Any:
    """The store at ``location`` (a client, or a shard's path); if its vectors are another model's,
    opened as it is (reads only) and recorded in ``state``."""
    try:
        return await store_class.open(location, **model)
    except FailedPrecondition as error:
        if error.reason not in STALE_REASONS:
            raise
        state.stale.append(error)
        return await store_class.open(location, accept_stored=True, **model)


class ProgressStore(Protocol):
    async def load(self) -> RebuildProgress: ...

    async def save(self, progress: RebuildProgress) -> None: ...


def progress_as_dict(progress: RebuildProgress) -> dict[str, Any]:
    return {"cursor": progress.cursor, "done": progress.done, "complete": progress.complete}


def progress_from_dict(data: Any) -> RebuildProgress:
    if not isinstance(data, dict):
        return RebuildProgress()
    cursor = data.get("cursor")
    return RebuildProgress(
        None if cursor is None else str(cursor), int(data.get("done") or 0), bool(data.get("complete"))
    )


class CollectionRebuild:
    """``source``: the live store (``read_page``, ``count_all``); ``target``: the new store, opened
    with the configured model (``upsert``, ``flush``)."""

    def __init__(self, kind: CollectionKind, source: Any, target: Any, progress: ProgressStore) -> None:
        self.kind = kind
        self.source = source
        self.target = target
        self._progress = progress

    async def total(self) -> int:
        return await self.source.count_all()

    async def progress(self) -> RebuildProgress:
        return await self._progress.load()

    async def read(self, cursor: str | None, limit: int) -> tuple[list[Any], str | None]:
        return await self.source.read_page(cursor, limit)

    async def write(self, records: Sequence[Any], vectors: np.ndarray, sparse: Sequence[SparseVector] | None) -> None:
        if self.kind == "items":
            await self.target.upsert(records, vectors, sparse)
            return
        for episode, vector in zip(records, vectors, strict=True):
            await self.target.upsert(episode, vector)

    async def checkpoint(self, progress: RebuildProgress) -> None:
        await self.target.flush()
        await self._progress.save(progress)
