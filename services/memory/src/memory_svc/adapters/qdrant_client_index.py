"""The MemoryIndex port over a Qdrant server, through ``qdrant_client.AsyncQdrantClient``.

Same payload, filters and payload indexes as the qdrant-edge adapter (memory_payload.py).
The embedding model and dimension are stored in the collection's own ``metadata`` (Qdrant
collection metadata, supported by qdrant-client 1.20 and its local mode), written when
the collection is created and checked on every open.

qdrant-client's local mode (``AsyncQdrantClient(location=":memory:")``) is used by the
tests for API compatibility; it ignores payload indexes and warns when asked for one, so
they are only created against a real server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import numpy as np
from qdrant_client import AsyncQdrantClient, models

from memory_svc.adapters.memory_keyset import SORT_FIELDS, keyset_page
from memory_svc.adapters.memory_payload import (
    DENSE_VECTOR,
    MAX_ORGS,
    PAYLOAD_INDEXES,
    SPARSE_VECTOR,
    AnyCondition,
    DatetimeRange,
    FloatRange,
    catalog_conditions,
    dense_rows,
    from_payload,
    maybe_point_id,
    order_like,
    org_condition,
    point_id,
    query_row,
    search_conditions,
    sparse_rows,
    to_payload,
)
from memory_svc.adapters.qdrant_client_common import ClientCollectionStore, translated
from memory_svc.domain.lexical import SparseVector
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Scope, ScopeMatch
from memory_svc.usecases.catalog_ports import MemoryCursor, MemoryOrder
from memory_svc.usecases.ports import DEFAULT_FILTER, SearchFilter

DEFAULT_COLLECTION = "memory_items"
UPSERT_BATCH = 256


def _condition(condition: AnyCondition) -> models.FieldCondition:
    if isinstance(condition, DatetimeRange):
        return models.FieldCondition(
            key=condition.key, range=models.DatetimeRange(gte=condition.gte, lt=condition.lt, lte=condition.lte)
        )
    if isinstance(condition, FloatRange):
        return models.FieldCondition(
            key=condition.key, range=models.Range(gte=condition.gte, lt=condition.lt, lte=condition.lte)
        )
    if len(condition.values) == 1:
        return models.FieldCondition(key=condition.key, match=models.MatchValue(value=condition.values[0]))
    return models.FieldCondition(key=condition.key, match=models.MatchAny(any=list(condition.values)))


def _dense(vector: Any) -> list[float]:
    """The dense row of a record fetched with ``with_vectors=[DENSE_VECTOR]``."""
    return list(vector[DENSE_VECTOR] if isinstance(vector, dict) else vector)


def _filter(conditions: Sequence[AnyCondition], *extra: Any) -> models.Filter:
    return models.Filter(must=[*(_condition(condition) for condition in conditions), *extra])


class QdrantClientMemoryIndex(ClientCollectionStore):
    """``await QdrantClientMemoryIndex.open(client, embedding_model=..., dimension=...)`` (or
    ``connect(url, api_key, ...)``) creates the collection if it is missing and checks its
    metadata. ``close()`` closes the client only if the index owns it.
    """

    default_collection = DEFAULT_COLLECTION
    payload_index_list = PAYLOAD_INDEXES
    sparse = True

    @classmethod
    async def connect(
        cls,
        url: str,
        api_key: str | None = None,
        *,
        embedding_model: str,
        dimension: int,
        collection: str = DEFAULT_COLLECTION,
        timeout: int = 10,
    ) -> QdrantClientMemoryIndex:
        client = AsyncQdrantClient(url=url, api_key=api_key, timeout=timeout)
        return await cls.open(
            client, embedding_model=embedding_model, dimension=dimension, collection=collection, owns_client=True
        )

    async def read_page(self, cursor: str | None, limit: int) -> tuple[list[MemoryItem], str | None]:
        """Items of every org in point-id order from ``cursor`` (reindexing), and the next cursor."""
        payloads, after = await self._payload_page(cursor, limit)
        return [from_payload(payload) for payload in payloads], after

    # ------------------------------------------------------------------ the port

    async def upsert(
        self, items: Sequence[MemoryItem], vectors: np.ndarray, sparse: Sequence[SparseVector] | None = None
    ) -> None:
        if not len(items):
            return
        rows = dense_rows(items, vectors, self.dimension)
        lexical = sparse_rows(items, sparse)
        by_org: dict[str, list[models.PointStruct]] = {}
        for item, row, terms in zip(items, rows, lexical, strict=True):
            vector: dict[str, Any] = {DENSE_VECTOR: row}
            if terms is not None:
                vector[SPARSE_VECTOR] = models.SparseVector(indices=list(terms.indices), values=list(terms.values))
            by_org.setdefault(item.org_id, []).append(
                models.PointStruct(id=point_id(item.id), vector=vector, payload=to_payload(item))
            )
        async with translated("upsert"):
            for org_id, points in by_org.items():
                # An existing point is only overwritten if it belongs to the same org.
                guard = _filter([org_condition(org_id)])
                for start in range(0, len(points), UPSERT_BATCH):
                    await self.client.upsert(
                        self.collection, points=points[start : start + UPSERT_BATCH], update_filter=guard, wait=True
                    )

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
        conditions = search_conditions(org_id, scope, memory_types, filters, scope_match)
        if k <= 0:
            return []
        return await self._query(query_row(vector, self.dimension), DENSE_VECTOR, conditions, k)

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
        conditions = search_conditions(org_id, scope, memory_types, filters, scope_match)
        if k <= 0 or not query:
            return []
        sparse = models.SparseVector(indices=list(query.indices), values=list(query.values))
        hits = await self._query(sparse, SPARSE_VECTOR, conditions, k)
        return [(key, score) for key, score in hits if score > 0]

    async def _query(
        self, query: Any, using: str, conditions: Sequence[AnyCondition], k: int
    ) -> list[tuple[str, float]]:
        async with translated("search"):
            response = await self.client.query_points(
                self.collection,
                query=query,
                using=using,
                query_filter=_filter(conditions),
                limit=k,
                with_payload=False,
                with_vectors=False,
            )
        # Point ids are the items' canonical UUID strings (memory_payload.point_id).
        return [(str(point.id), float(point.score)) for point in response.points]

    async def get(self, org_id: str, ids: Sequence[str]) -> list[MemoryItem]:
        condition = org_condition(org_id)
        wanted = sorted({key for key in map(maybe_point_id, ids) if key is not None})
        if not wanted:
            return []
        async with translated("get"):
            records, _ = await self.client.scroll(
                self.collection,
                scroll_filter=_filter([condition], models.HasIdCondition(has_id=list(wanted))),
                limit=len(wanted),
                with_payload=True,
                with_vectors=False,
            )
        return order_like(ids, [from_payload(record.payload or {}) for record in records])

    async def vectors(self, org_id: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        wanted = sorted({key for key in map(maybe_point_id, ids) if key is not None})
        if not wanted:
            return {}
        async with translated("read vectors"):
            records, _ = await self.client.scroll(
                self.collection,
                scroll_filter=_filter([org_condition(org_id)], models.HasIdCondition(has_id=list(wanted))),
                limit=len(wanted),
                with_payload=["id"],
                with_vectors=[DENSE_VECTOR],
            )
        return {
            str((record.payload or {})["id"]): np.asarray(_dense(record.vector), dtype=np.float32) for record in records
        }

    async def count(self, org_id: str) -> int:
        async with translated("count"):
            result = await self.client.count(self.collection, count_filter=_filter([org_condition(org_id)]), exact=True)
        return int(result.count)

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
            async with translated("list"):
                records, _ = await self.client.scroll(
                    self.collection,
                    scroll_filter=_filter([*listing, *extra]),
                    limit=count,
                    with_payload=True,
                    with_vectors=False,
                    order_by=models.OrderBy(key=SORT_FIELDS[order], direction=models.Direction.DESC),
                )
            return [from_payload(record.payload or {}) for record in records]

        async def tied(value: Any, start: str | None, count: int) -> list[MemoryItem]:
            async with translated("list"):
                records, _ = await self.client.scroll(
                    self.collection,
                    scroll_filter=_filter([*listing, value]),
                    limit=count,
                    offset=start,
                    with_payload=True,
                    with_vectors=False,
                )
            return [from_payload(record.payload or {}) for record in records]

        return await keyset_page(below, tied, MemoryOrder(order), limit, after)

    async def iterate(self, org_id: str, scope: Scope, batch_size: int) -> AsyncIterator[list[MemoryItem]]:
        matching = _filter(catalog_conditions(org_id, scope, (), ()))
        offset = None
        while True:
            async with translated("iterate"):
                records, offset = await self.client.scroll(
                    self.collection,
                    scroll_filter=matching,
                    limit=batch_size,
                    offset=offset,
                    with_payload=True,
                    with_vectors=False,
                )
            if records:
                yield [from_payload(record.payload or {}) for record in records]
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
        matching = _filter(catalog_conditions(org_id, scope, memory_types, statuses))
        offset = None
        while True:
            async with translated("iterate vectors"):
                records, offset = await self.client.scroll(
                    self.collection,
                    scroll_filter=matching,
                    limit=batch_size,
                    offset=offset,
                    with_payload=True,
                    with_vectors=[DENSE_VECTOR],
                )
            if records:
                rows = [_dense(record.vector) for record in records]
                yield [from_payload(record.payload or {}) for record in records], np.asarray(rows, dtype=np.float32)
            if offset is None:
                return

    async def org_ids(self) -> list[str]:
        async with translated("list organisations"):
            response = await self.client.facet(self.collection, key="org_id", limit=MAX_ORGS, exact=True)
        return sorted(str(hit.value) for hit in response.hits)

    async def replace_payloads(
        self, org_id: str, items: Sequence[MemoryItem], fields: Sequence[str] | None = None
    ) -> None:
        async with translated("replace payloads"):
            for item in items:
                if item.org_id != org_id:
                    raise ValueError("an item of another org cannot be rewritten")
                payload = to_payload(item)
                if fields is not None:
                    payload = {key: payload[key] for key in fields}
                guard = _filter([org_condition(org_id)], models.HasIdCondition(has_id=[point_id(item.id)]))
                await self.client.set_payload(self.collection, payload=payload, points=guard)

    async def delete_scope(self, org_id: str, scope: Scope) -> list[str]:
        return await self._delete_matching(_filter(catalog_conditions(org_id, scope, (), ())))
