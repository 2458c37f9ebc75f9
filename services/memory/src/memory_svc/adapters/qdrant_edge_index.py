"""The MemoryIndex port over qdrant-edge: Qdrant's engine in-process, one shard on disk.

Layout below ``path``::

    path/lore_index.json   embedding model + dimension (+ payload version) of the vectors
    path/shard/            the EdgeShard (edge_config.json, wal/, segments/)

The metadata lives in a JSON file beside the shard rather than in a sentinel point: it
can be read (and checked) before the shard is opened, it never has to be filtered out of
counts, scrolls or facets, and a sentinel would need a vector. It is written atomically
before the shard is created, so a crash leaves at worst metadata without a shard (which
is simply created on the next start), never a shard of unknown vectors.

The engine is synchronous, so every call runs in a worker thread (``asyncio.to_thread``).
qdrant-edge 0.9.0 shards are safe to share between threads (queries, upserts and
``optimize()`` from several threads at once were tried: no errors, consistent counts), so
calls are not serialised; a small gate only keeps ``close()`` from releasing the shard
under a running call and keeps ``optimize()`` single-flight. Only one process may open a
shard (its WAL is locked): a second one gets FailedPrecondition.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Sequence
from typing import Any

import numpy as np
import qdrant_edge as qe

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
from memory_svc.adapters.qdrant_edge_store import EdgeShardStore
from memory_svc.domain.lexical import SparseVector
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Scope, ScopeMatch
from memory_svc.usecases.catalog_ports import MemoryCursor, MemoryOrder
from memory_svc.usecases.ports import DEFAULT_FILTER, SearchFilter

UPSERT_BATCH = 1024


def _condition(condition: AnyCondition) -> qe.FieldCondition:
    if isinstance(condition, DatetimeRange):
        return qe.FieldCondition(
            condition.key, range=qe.RangeDateTime(gte=condition.gte, lt=condition.lt, lte=condition.lte)
        )
    if isinstance(condition, FloatRange):
        return qe.FieldCondition(
            condition.key, range=qe.RangeFloat(gte=condition.gte, lt=condition.lt, lte=condition.lte)
        )
    if len(condition.values) == 1:
        return qe.FieldCondition(condition.key, match=qe.MatchValue(condition.values[0]))
    return qe.FieldCondition(condition.key, match=qe.MatchAny(list(condition.values)))


def _filter(conditions: Sequence[AnyCondition], *extra: Any) -> qe.Filter:
    return qe.Filter(must=[*(_condition(condition) for condition in conditions), *extra])


class QdrantEdgeMemoryIndex(EdgeShardStore):
    """``QdrantEdgeMemoryIndex(path, embedding_model=..., dimension=...)`` opens (or creates) the
    shard synchronously — meant for start-up; ``await QdrantEdgeMemoryIndex.open(...)`` does the
    same in a worker thread. Call ``optimize()`` from a background task and ``close()`` at shutdown.
    """

    label = "memory index"

    def __init__(
        self, path: str | os.PathLike[str], *, embedding_model: str, dimension: int, accept_stored: bool = False
    ) -> None:
        config = qe.EdgeConfig(
            vectors={DENSE_VECTOR: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)},
            sparse_vectors={SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        )
        super().__init__(
            path,
            embedding_model=embedding_model,
            dimension=dimension,
            config=config,
            payload_indexes=PAYLOAD_INDEXES,
            accept_stored=accept_stored,
        )

    @classmethod
    async def open(
        cls, path: str | os.PathLike[str], *, embedding_model: str, dimension: int, accept_stored: bool = False
    ) -> QdrantEdgeMemoryIndex:
        return await asyncio.to_thread(
            lambda: cls(path, embedding_model=embedding_model, dimension=dimension, accept_stored=accept_stored)
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
        # Payloads are converted into Points in the worker thread: the bindings take ~10 us per
        # payload key, which would otherwise block the event loop for ~0.2 ms per item.
        await self._run(self._upsert_sync, list(items), rows, lexical)

    def _upsert_sync(
        self, items: list[MemoryItem], rows: list[list[float]], lexical: list[SparseVector | None]
    ) -> None:
        by_org: dict[str, list[qe.Point]] = {}
        for item, row, terms in zip(items, rows, lexical, strict=True):
            vector: dict[str, Any] = {DENSE_VECTOR: row}
            if terms is not None:
                vector[SPARSE_VECTOR] = qe.SparseVector(list(terms.indices), list(terms.values))
            by_org.setdefault(item.org_id, []).append(qe.Point(point_id(item.id), vector, to_payload(item)))
        for org_id, points in by_org.items():
            # An existing point is only overwritten if it belongs to the same org: an id
            # collision can never move an item across tenants.
            guard = _filter([org_condition(org_id)])
            for start in range(0, len(points), UPSERT_BATCH):
                self._shard.update(
                    qe.UpdateOperation.upsert_points(points[start : start + UPSERT_BATCH], condition=guard)
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
        return await self._query(qe.Query.Nearest(query_row(vector, self.dimension), using=DENSE_VECTOR), conditions, k)

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
        sparse = qe.SparseVector(list(query.indices), list(query.values))
        hits = await self._query(qe.Query.Nearest(sparse, using=SPARSE_VECTOR), conditions, k)
        return [(key, score) for key, score in hits if score > 0]

    async def _query(self, query: qe.Query, conditions: Sequence[AnyCondition], k: int) -> list[tuple[str, float]]:
        request = qe.QueryRequest(
            limit=k, query=query, filter=_filter(conditions), with_payload=False, with_vector=False
        )
        hits = await self._run(self._shard.query, request)
        # Point ids are the items' canonical UUID strings (memory_payload.point_id).
        return [(str(hit.id), float(hit.score)) for hit in hits]

    async def get(self, org_id: str, ids: Sequence[str]) -> list[MemoryItem]:
        condition = org_condition(org_id)
        wanted = {key for key in map(maybe_point_id, ids) if key is not None}
        if not wanted:
            return []
        request = qe.ScrollRequest(
            limit=len(wanted),
            filter=_filter([condition], qe.HasIdCondition(wanted)),
            with_payload=True,
            with_vector=False,
        )
        records, _ = await self._run(self._shard.scroll, request)
        return order_like(ids, [from_payload(record.payload or {}) for record in records])

    async def vectors(self, org_id: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        wanted = {key for key in map(maybe_point_id, ids) if key is not None}
        if not wanted:
            return {}
        request = qe.ScrollRequest(
            limit=len(wanted),
            filter=_filter([org_condition(org_id)], qe.HasIdCondition(wanted)),
            with_payload=["id"],
            with_vector=[DENSE_VECTOR],
        )
        records, _ = await self._run(self._shard.scroll, request)
        return {
            str((record.payload or {})["id"]): np.asarray((record.vector or {})[DENSE_VECTOR], dtype=np.float32)
            for record in records
        }

    async def count(self, org_id: str) -> int:
        request = qe.CountRequest(exact=True, filter=_filter([org_condition(org_id)]))
        return int(await self._run(self._shard.count, request))

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
            request = qe.ScrollRequest(
                limit=count,
                filter=_filter([*listing, *extra]),
                order_by=qe.OrderBy(SORT_FIELDS[order], direction=qe.Direction.Desc),
                with_payload=True,
                with_vector=False,
            )
            records, _ = await self._run(self._shard.scroll, request)
            return [from_payload(record.payload or {}) for record in records]

        async def tied(value: Any, start: str | None, count: int) -> list[MemoryItem]:
            request = qe.ScrollRequest(
                offset=start, limit=count, filter=_filter([*listing, value]), with_payload=True, with_vector=False
            )
            records, _ = await self._run(self._shard.scroll, request)
            return [from_payload(record.payload or {}) for record in records]

        return await keyset_page(below, tied, MemoryOrder(order), limit, after)

    async def iterate(self, org_id: str, scope: Scope, batch_size: int) -> AsyncIterator[list[MemoryItem]]:
        matching = _filter(catalog_conditions(org_id, scope, (), ()))
        offset = None
        while True:
            request = qe.ScrollRequest(
                offset=offset, limit=batch_size, filter=matching, with_payload=True, with_vector=False
            )
            records, offset = await self._run(self._shard.scroll, request)
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
            request = qe.ScrollRequest(
                offset=offset, limit=batch_size, filter=matching, with_payload=True, with_vector=[DENSE_VECTOR]
            )
            records, offset = await self._run(self._shard.scroll, request)
            if records:
                vectors = np.asarray([(record.vector or {})[DENSE_VECTOR] for record in records], dtype=np.float32)
                yield [from_payload(record.payload or {}) for record in records], vectors
            if offset is None:
                return

    async def org_ids(self) -> list[str]:
        request = qe.FacetRequest(key="org_id", limit=MAX_ORGS, exact=True)
        response = await self._run(self._shard.facet, request)
        return sorted(str(hit.value) for hit in response.hits)

    async def replace_payloads(
        self, org_id: str, items: Sequence[MemoryItem], fields: Sequence[str] | None = None
    ) -> None:
        await self._run(self._replace_payloads_sync, org_id, list(items), fields)

    def _replace_payloads_sync(self, org_id: str, items: list[MemoryItem], fields: Sequence[str] | None) -> None:
        for item in items:
            if item.org_id != org_id:
                raise ValueError("an item of another org cannot be rewritten")
            payload = to_payload(item)
            if fields is not None:
                # Partial writes by id skip the org filter: ids are UUIDv5 of the org (domain/ids.py)
                # and the caller read these items through an org-filtered get.
                partial = {key: payload[key] for key in fields}
                self._shard.update(qe.UpdateOperation.set_payload([point_id(item.id)], partial))
                continue
            guard = _filter([org_condition(org_id)], qe.HasIdCondition({point_id(item.id)}))
            self._shard.update(qe.UpdateOperation.set_payload_by_filter(guard, payload))

    async def delete_scope(self, org_id: str, scope: Scope) -> list[str]:
        return await self._run(self._delete_matching_sync, _filter(catalog_conditions(org_id, scope, (), ())))

    # ------------------------------------------------------------------ maintenance
