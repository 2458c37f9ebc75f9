"""What the maintenance use cases need from the stores.

Reindexing, from a Qdrant back end (embedded shards or a server): a rebuild of each collection
beside the live one, and a crash-safe swap that puts the rebuilt ones live. A purge: each store
rewrites its files so that deleted (erased) data is gone from them too, not only from every query
(docs/operations.md, "Erasure and purge")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

from memory_svc.domain.lexical import SparseVector

CollectionKind = Literal["items", "episodes"]


@dataclass(frozen=True, slots=True)
class RebuildProgress:
    """Where a rebuild stands: the live collection's next point id to copy (None: from the start,
    or nothing left when ``complete``) and how many points are already in the new collection."""

    cursor: str | None = None
    done: int = 0
    complete: bool = False


class Rebuild(Protocol):
    """A new copy of one collection, with vectors of the configured model, built beside the live one."""

    kind: CollectionKind

    async def total(self) -> int:
        """Points in the live collection, every organisation."""
        ...

    async def progress(self) -> RebuildProgress:
        """What an earlier, interrupted run already copied (a fresh rebuild starts at zero)."""
        ...

    async def read(self, cursor: str | None, limit: int) -> tuple[list[Any], str | None]:
        """Up to ``limit`` records (MemoryItem or Episode) of the live collection in point-id order from
        ``cursor``, and the cursor of the next page (None after the last)."""
        ...

    async def write(self, records: Sequence[Any], vectors: np.ndarray, sparse: Sequence[SparseVector] | None) -> None:
        """Upsert ``records`` into the new collection with the same ids and payloads and new vectors."""
        ...

    async def checkpoint(self, progress: RebuildProgress) -> None:
        """Make the writes so far durable, then record ``progress`` so a crash resumes after them."""
        ...


class VectorStores(Protocol):
    """The items and episodes collections of one back end, as reindexing sees them."""

    async def rebuilds(self) -> tuple[Rebuild, Rebuild]:
        """The items and episodes rebuilds, resuming those an interrupted run left for the same model."""
        ...

    async def swap(self) -> None:
        """Put both rebuilt collections live, crash-safely, and switch the live stores to them in-process."""
        ...


# --- purge: stores whose files hold deleted data until they rewrite them


@dataclass(frozen=True, slots=True)
class PurgedStore:
    """One store's part of a purge: ``outcome`` is "compacted", "scheduled" or "skipped" (``detail``
    says why); ``kept`` the points a compacted Qdrant shard kept."""

    store: str
    outcome: str
    kept: int = 0
    detail: str = ""


class StoreFiles(Protocol):
    """A store whose files hold deleted data until it rewrites them."""

    async def compact(self) -> list[PurgedStore]:
        """Rewrite the files without the deleted data; an expected reason not to is a "skipped"
        answer, anything else raises."""
        ...


class PendingPurge(Protocol):
    """Whether a deferred purge is due; kept where it survives a restart when the service can."""

    def is_set(self) -> bool: ...

    def set(self) -> None: ...

    def clear(self) -> None: ...
