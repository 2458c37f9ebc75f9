"""The MemoryIndex port over Qdrant, for both engines: every query is built here from the
neutral requests of ``qdrant_engine.py``; the engine's base class only makes the calls
(``QdrantClientMemoryIndex`` in ``qdrant_client_index.py``, ``QdrantEdgeMemoryIndex`` in
``qdrant_edge_index.py``).

Payload, conditions and payload indexes: ``memory_payload.py``; listing order: ``memory_keyset.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

import numpy as np

from memory_svc.adapters.memory_keyset import SORT_FIELDS, keyset_page
from memory_svc.adapters.memory_payload import (
    DENSE_VECTOR,
    MAX_ORGS,
    PAYLOAD_INDEXES,
    SAID_FIELDS,
    SESSION_KEY,
    SPARSE_VECTOR,
    TARGET_FIELDS,
    access_payload,
    catalog_conditions,
    dense_rows,
    from_payload,
    maybe_point_id,
    order_like,
    org_condition,
    point_id,
    query_row,
    said_from_payload,
    search_conditions,
    sparse_rows,
    target_from_payload,
    to_payload,
)
from memory_svc.adapters.qdrant_engine import (
    Condition,
    Groups,
    Nearest,
    NewPoint,
    PayloadWrite,
    QdrantEngine,
    Scroll,
    Vector,
    Where,
    where,
)
from memory_svc.domain.conversation import Said
from memory_svc.domain.lexical import SparseVector
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Scope, ScopeMatch
from memory_svc.usecases.memory_ports import (
    DEFAULT_FILTER,
    AccessRefresh,
    AccessTarget,
    MemoryCursor,
    MemoryOrder,
    SearchFilter,
)


class QdrantMemoryIndex(QdrantEngine):
    """The port; a concrete class adds an engine (``ClientCollectionStore`` or ``EdgeShardStore``)."""

    label = "memory index"
    payload_index_list = PAYLOAD_INDEXES
    sparse = True
    record = staticmethod(from_payload)
    dimension: int

    # ------------------------------------------------------------------ the port

    async def upsert(
        self, items: Sequence[MemoryItem], vectors: np.ndarray, sparse: Sequence[SparseVector] | None = None
    ) -> None:
        if not len(items):
            return
        rows = dense_rows(items, vectors, self.dimension)
        lexical = sparse_rows(items, sparse)

        def groups() -> Groups:
            by_org: dict[str, list[NewPoint]] = {}
            for item, row, terms in zip(items, rows, lexical, strict=True):
                named: dict[str, Vector] = {DENSE_VECTOR: row}
                if terms is not None:
                    named[SPARSE_VECTOR] = terms
                by_org.setdefault(item.org_id, []).append(NewPoint(point_id(item.id), named, to_payload(item)))
            # An existing point is only overwritten if it belongs to the same org.
            return [(where([org_condition(org_id)]), points) for org_id, points in by_org.items()]

        await self._upsert(groups, what="upsert")

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
        matching = where(search_conditions(org_id, scope, memory_types, filters, scope_match))
        if k <= 0:
            return []
        return await self._search(DENSE_VECTOR, query_row(vector, self.dimension), matching, k)

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
        matching = where(search_conditions(org_id, scope, memory_types, filters, scope_match))
        if k <= 0 or not query:
            return []
        hits = await self._search(SPARSE_VECTOR, query, matching, k)
        return [(key, score) for key, score in hits if score > 0]

    async def _search(self, using: str, query: Vector, matching: Where, k: int) -> list[tuple[str, float]]:
        hits = await self._nearest(Nearest("search", using, query, matching, k))
        # Point ids are the items' canonical UUID strings (memory_payload.point_id).
        return [(hit.id, hit.score) for hit in hits]

    async def access_counts(self, org_id: str, ids: Sequence[str]) -> dict[str, int]:
        matching = _among(org_id, ids)
        if matching is None:
            return {}
        page, _ = await self._scroll(
            Scroll("read access counts", matching, len(matching.ids or ()), payload=("id", "access_count"))
        )
        return {str(point.payload["id"]): int(point.payload.get("access_count") or 0) for point in page}

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
        if limit <= 0 or not session_id or (memory_types and MemoryType.MESSAGE not in memory_types):
            return []
        matching = where(
            [
                *search_conditions(org_id, scope, memory_types, filters, scope_match),
                Condition("memory_type", (str(MemoryType.MESSAGE),)),
                Condition(SESSION_KEY, (session_id,)),
            ]
        )
        page, _ = await self._scroll(Scroll("read a session", matching, limit, payload=SAID_FIELDS))
        return [place for point in page if (place := said_from_payload(point.payload)) is not None]

    async def get(self, org_id: str, ids: Sequence[str]) -> list[MemoryItem]:
        matching = _among(org_id, ids)
        if matching is None:
            return []
        page, _ = await self._scroll(Scroll("get", matching, len(matching.ids or ())))
        return order_like(ids, [from_payload(point.payload) for point in page])

    async def access_targets(self, org_id: str, ids: Sequence[str]) -> list[AccessTarget]:
        matching = _among(org_id, ids)
        if matching is None:
            return []
        page, _ = await self._scroll(
            Scroll("read access targets", matching, len(matching.ids or ()), payload=TARGET_FIELDS)
        )
        found = {point_id(target.id): target for target in (target_from_payload(point.payload) for point in page)}
        return [found[key] for key in map(maybe_point_id, ids) if key is not None and key in found]

    async def vectors(self, org_id: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        matching = _among(org_id, ids)
        if matching is None:
            return {}
        wanted = len(matching.ids or ())
        page, _ = await self._scroll(Scroll("read vectors", matching, wanted, payload=("id",), vector=DENSE_VECTOR))
        return {str(point.payload["id"]): np.asarray(point.vector, dtype=np.float32) for point in page}

    async def count(self, org_id: str) -> int:
        return await self._count(where([org_condition(org_id)]))

    # ------------------------------------------------------------------ the catalog

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
        listing = catalog_conditions(org_id, scope, memory_types, statuses, scope_match)

        async def below(extra: list[Any], count: int) -> list[MemoryItem]:
            page, _ = await self._scroll(
                Scroll("list", where([*listing, *extra]), count, descending=SORT_FIELDS[order])
            )
            return [from_payload(point.payload) for point in page]

        async def tied(value: Any, start: str | None, count: int) -> list[MemoryItem]:
            page, _ = await self._scroll(Scroll("list", where([*listing, value]), count, start))
            return [from_payload(point.payload) for point in page]

        return await keyset_page(below, tied, MemoryOrder(order), limit, after)

    async def iterate(self, org_id: str, scope: Scope, batch_size: int) -> AsyncIterator[list[MemoryItem]]:
        matching = where(catalog_conditions(org_id, scope, (), ()))
        offset = None
        while True:
            page, offset = await self._scroll(Scroll("iterate", matching, batch_size, offset))
            if page:
                yield [from_payload(point.payload) for point in page]
            if offset is None:
                return

    async def iterate_vectors(
        self,
        org_id: str,
        scope: Scope,
        memory_types: Sequence[MemoryType],
        statuses: Sequence[MemoryStatus],
        batch_size: int,
    ) -> AsyncIterator[tuple[list[MemoryItem], np.ndarray]]:
        matching = where(catalog_conditions(org_id, scope, memory_types, statuses))
        offset = None
        while True:
            page, offset = await self._scroll(
                Scroll("iterate vectors", matching, batch_size, offset, vector=DENSE_VECTOR)
            )
            if page:
                rows = np.asarray([point.vector for point in page], dtype=np.float32)
                yield [from_payload(point.payload) for point in page], rows
            if offset is None:
                return

    async def org_ids(self) -> list[str]:
        return sorted(await self._facet("org_id", MAX_ORGS, what="list organisations"))

    async def replace_payloads(
        self, org_id: str, items: Sequence[MemoryItem], fields: Sequence[str] | None = None
    ) -> None:
        def writes() -> Iterator[PayloadWrite]:
            for item in items:
                if item.org_id != org_id:
                    raise ValueError("an item of another org cannot be rewritten")
                payload = to_payload(item)
                if fields is not None:
                    payload = {key: payload[key] for key in fields}
                # A partial write (recording access) follows an org-filtered get of these items.
                yield PayloadWrite(org_id, point_id(item.id), payload, by_id=fields is not None)

        await self._set_payloads(writes, what="replace payloads")

    async def write_access(self, org_id: str, refreshed: Sequence[AccessRefresh]) -> None:
        def writes() -> Iterator[PayloadWrite]:
            for refresh in refreshed:
                # By id within the org: the targets were read by an org-filtered read of these items.
                yield PayloadWrite(org_id, point_id(refresh.target.id), access_payload(refresh), by_id=True)

        await self._set_payloads(writes, what="record access")

    async def delete_scope(self, org_id: str, scope: Scope) -> list[str]:
        return await self._delete_matching(where(catalog_conditions(org_id, scope, (), ())))


def _among(org_id: str, ids: Sequence[str]) -> Where | None:
    """The org's points with one of ``ids`` (None: no id is a UUID, so none can exist)."""
    condition = org_condition(org_id)
    wanted = sorted({key for key in map(maybe_point_id, ids) if key is not None})
    return where([condition], wanted) if wanted else None
