"""What the Qdrant port adapters ask of an engine, in values neither driver owns.

The two engines — qdrant-client (a server, or its local mode) and qdrant-edge (in-process) —
offer the same operations under different classes, argument conventions and sync/async shapes.
The port adapters (``qdrant_memory_index.py``, ``qdrant_episode_index.py``) describe each
request with the values below and call ``QdrantEngine``'s methods; each engine's base class
(``qdrant_client_common.py``, ``qdrant_edge_store.py``) translates them into its own calls, so
both engines filter, page and write identically by construction.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from memory_svc.domain.lexical import SparseVector

# --------------------------------------------------------------------------- filters


@dataclass(frozen=True, slots=True)
class Condition:
    """``key`` must equal one of ``values`` (one value: MatchValue, several: MatchAny)."""

    key: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DatetimeRange:
    """``key`` (an RFC 3339 payload timestamp) within the given bounds; unset bounds are open."""

    key: str
    gte: str | None = None
    lt: str | None = None
    lte: str | None = None


@dataclass(frozen=True, slots=True)
class FloatRange:
    """``key`` (a number) within the given bounds; unset bounds are open."""

    key: str
    gte: float | None = None
    lt: float | None = None
    lte: float | None = None


AnyCondition = Condition | DatetimeRange | FloatRange


@dataclass(frozen=True, slots=True)
class Where:
    """The points meeting every condition and, when ``ids`` is given, having one of those ids."""

    conditions: tuple[AnyCondition, ...]
    ids: tuple[str, ...] | None = None


def where(conditions: Iterable[AnyCondition], ids: Iterable[str] | None = None) -> Where:
    return Where(tuple(conditions), None if ids is None else tuple(ids))


def org_point(org_id: str, point: str) -> Where:
    """The point ``point`` if it belongs to ``org_id``."""
    return where([Condition("org_id", (org_id,))], [point])


# --------------------------------------------------------------------------- requests

# ``what`` names the operation in the DependencyUnavailable an engine raises when Qdrant is down.


@dataclass(frozen=True, slots=True)
class Scroll:
    """Up to ``limit`` points ``matching`` (None: every point), in point-id order from ``offset``
    (inclusive) or ordered by the payload field ``descending``; with the ``payload`` fields
    (True: all) and, when named, one dense ``vector``."""

    what: str
    matching: Where | None
    limit: int
    offset: str | None = None
    descending: str | None = None
    payload: bool | tuple[str, ...] = True
    vector: str | None = None


Vector = list[float] | SparseVector


@dataclass(frozen=True, slots=True)
class Nearest:
    """The ``limit`` points ``matching`` nearest ``query`` in the named vector ``using``."""

    what: str
    using: str
    query: Vector
    matching: Where
    limit: int
    payload: bool = False


@dataclass(frozen=True, slots=True)
class NewPoint:
    id: str
    vectors: Mapping[str, Vector]
    payload: dict[str, Any]


# Points to write, each group under its guard.
Groups = Sequence[tuple[Where, Sequence[NewPoint]]]


@dataclass(frozen=True, slots=True)
class PayloadWrite:
    """Set the keys of ``payload`` on point ``point`` if it belongs to ``org_id``.

    ``by_id``: the caller read this id through an org-filtered get (ids are UUIDv5 of the org,
    domain/ids.py), so an engine where a filtered write is costly may write by id alone.
    """

    org_id: str
    point: str
    payload: dict[str, Any]
    by_id: bool = False


# --------------------------------------------------------------------------- answers

# Named tuples: a search builds one per hit, and a frozen dataclass costs ~1 us more each.


class Stored(NamedTuple):
    """A point read back: the payload fields asked for and, when asked for, one dense vector."""

    id: object  # as the engine gives it (a UUID, its string, or an int): str() it where needed
    payload: dict[str, Any]
    vector: list[float] | None = None


class Hit(NamedTuple):
    id: str
    score: float
    payload: dict[str, Any]


# --------------------------------------------------------------------------- the store

IndexKind = Literal["tenant", "keyword", "datetime", "float", "integer"]


@dataclass(frozen=True, slots=True)
class PayloadIndex:
    field: str
    kind: IndexKind


SCROLL_PAGE = 1_000


class QdrantEngine(ABC):
    """The calls the port adapters are written against, and what a store declares: how errors
    name it (``label``), its payload indexes, whether it keeps a BM25 vector beside the dense one
    (``sparse``) and the domain record of a payload (``record``)."""

    label = "index"
    payload_index_list: Sequence[PayloadIndex] = ()
    sparse = False
    record: Callable[[Mapping[str, Any]], Any]

    @abstractmethod
    async def _scroll(self, request: Scroll) -> tuple[list[Stored], str | None]:
        """The points and the id the next page starts at (None: no more)."""

    @abstractmethod
    async def _nearest(self, request: Nearest) -> list[Hit]: ...

    @abstractmethod
    async def _count(self, matching: Where | None) -> int: ...

    @abstractmethod
    async def _facet(self, key: str, limit: int, *, what: str) -> list[str]:
        """The values ``key`` holds across the whole store (exact)."""

    @abstractmethod
    async def _upsert(self, groups: Callable[[], Groups], *, what: str) -> None:
        """Write each group's points; an existing point is only overwritten if it meets its group's
        guard (its org: an id collision can never move a point across tenants). ``groups`` builds
        them where the engine writes (qdrant-edge: in its worker thread, off the event loop)."""

    @abstractmethod
    async def _set_payloads(self, writes: Callable[[], Iterable[PayloadWrite]], *, what: str) -> None:
        """Apply the writes ``writes()`` yields, in order, generated where the engine writes (as
        ``_upsert``'s points): one that raises stops those after it."""

    @abstractmethod
    async def _delete(self, matching: Where, *, what: str) -> None: ...

    # ------------------------------------------------------------------ shared on top

    async def _delete_matching(self, matching: Where) -> list[str]:
        """Erasure (``delete_scope``): delete every point ``matching`` selects (the caller puts the
        org condition in it); returns their ids (the ``id`` payload field)."""
        ids: list[str] = []
        offset = None
        while True:
            page, offset = await self._scroll(Scroll("delete scope", matching, SCROLL_PAGE, offset, payload=("id",)))
            ids += [str(point.payload.get("id") or point.id) for point in page]
            if offset is None:
                break
        if ids:
            await self._delete(matching, what="delete scope")
        return ids

    async def count_all(self) -> int:
        """Points of every organisation (reindexing is an operator job across the whole store)."""
        return await self._count(None)

    async def read_page(self, cursor: str | None, limit: int) -> tuple[list[Any], str | None]:
        """Records of every org in point-id order from ``cursor`` (reindexing), and the next cursor."""
        page, after = await self._scroll(Scroll("reindex read", None, limit, cursor))
        return [self.record(point.payload) for point in page], after
