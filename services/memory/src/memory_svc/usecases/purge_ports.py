"""What a purge needs from the stores: each rewrites its files so that deleted (erased) data is gone
from them too, not only from every query (docs/operations.md, "Erasure and purge")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


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
