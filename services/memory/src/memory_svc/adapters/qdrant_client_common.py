"""The qdrant-client engine: the collection's set-up and metadata check, payload index schemas,
local-mode detection, the translation of Qdrant failures into ``DependencyUnavailable`` and of
the engine-neutral requests (``qdrant_engine.py``) into qdrant-client calls."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, Self

from lore_runtime.errors import DependencyUnavailable
from qdrant_client import AsyncQdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from memory_svc.adapters import qdrant_engine as neutral
from memory_svc.adapters.memory_payload import DENSE_VECTOR, SPARSE_VECTOR, IndexMetadata, check_metadata
from memory_svc.domain.lexical import SparseVector

UPSERT_BATCH = 256


def _condition(condition: neutral.AnyCondition) -> models.FieldCondition:
    if isinstance(condition, neutral.DatetimeRange):
        return models.FieldCondition(
            key=condition.key, range=models.DatetimeRange(gte=condition.gte, lt=condition.lt, lte=condition.lte)
        )
    if isinstance(condition, neutral.FloatRange):
        return models.FieldCondition(
            key=condition.key, range=models.Range(gte=condition.gte, lt=condition.lt, lte=condition.lte)
        )
    if len(condition.values) == 1:
        return models.FieldCondition(key=condition.key, match=models.MatchValue(value=condition.values[0]))
    return models.FieldCondition(key=condition.key, match=models.MatchAny(any=list(condition.values)))


def _filter(matching: neutral.Where) -> models.Filter:
    must: list[Any] = [_condition(condition) for condition in matching.conditions]
    if matching.ids is not None:
        must.append(models.HasIdCondition(has_id=list(matching.ids)))
    return models.Filter(must=must)


def _vector(row: neutral.Vector) -> list[float] | models.SparseVector:
    if isinstance(row, SparseVector):
        return models.SparseVector(indices=list(row.indices), values=list(row.values))
    return row


def _stored(record: models.Record, vector: str | None) -> neutral.Stored:
    row = None
    if vector is not None:  # a dict of named vectors, or the bare row when only one was asked for
        row = list(record.vector[vector] if isinstance(record.vector, dict) else record.vector)
    return neutral.Stored(record.id, record.payload or {}, row)


def payload_schema(index: neutral.PayloadIndex) -> models.PayloadSchemaType | models.KeywordIndexParams:
    if index.kind == "tenant":
        return models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True)
    return {
        "keyword": models.PayloadSchemaType.KEYWORD,
        "datetime": models.PayloadSchemaType.DATETIME,
        "float": models.PayloadSchemaType.FLOAT,
        "integer": models.PayloadSchemaType.INTEGER,
    }[index.kind]


def is_local(client: AsyncQdrantClient) -> bool:
    """True for qdrant-client's in-process emulation (``:memory:`` or ``path=``)."""
    try:
        from qdrant_client.local.async_qdrant_local import AsyncQdrantLocal
    except ImportError:  # pragma: no cover - layout of a future qdrant-client
        return False
    return isinstance(getattr(client, "_client", None), AsyncQdrantLocal)


@contextlib.asynccontextmanager
async def translated(what: str) -> AsyncIterator[None]:
    """Qdrant being down or failing is DependencyUnavailable, reason QDRANT_UNAVAILABLE (a 503 with
    Retry-After at the gateway); a 4xx stays a bug and is raised as is."""
    try:
        yield
    except ResponseHandlingException as error:
        raise DependencyUnavailable(
            f"qdrant unreachable during {what}: {error}", reason=QDRANT_UNAVAILABLE, metadata=_QDRANT
        ) from error
    except UnexpectedResponse as error:
        if error.status_code is not None and (error.status_code >= 500 or error.status_code == 429):
            raise DependencyUnavailable(
                f"qdrant failed during {what}: {error.status_code}", reason=QDRANT_UNAVAILABLE, metadata=_QDRANT
            ) from error
        raise


QDRANT_UNAVAILABLE = "QDRANT_UNAVAILABLE"
_QDRANT = {"store": "qdrant", "dependency": "qdrant"}


class ClientCollectionStore(neutral.QdrantEngine):
    """Base of the qdrant-client adapters: one collection with a dense vector (and, when
    ``sparse``, the BM25 vector), Lore's model metadata in the collection's metadata, payload
    indexes on a real server (local mode ignores them and warns). Subclasses set
    ``default_collection`` (and what every engine's store declares, ``QdrantEngine``).

    ``await Subclass.open(client, embedding_model=..., dimension=...)`` creates the collection
    if it is missing and checks its metadata; ``close()`` closes the client only if the store
    owns it (``owns_client=True``).
    """

    default_collection = ""

    def __init__(
        self,
        client: AsyncQdrantClient,
        *,
        embedding_model: str,
        dimension: int,
        collection: str | None = None,
        owns_client: bool = False,
        payload_indexes: bool | None = None,
        accept_stored: bool = False,
    ) -> None:
        if dimension <= 0:
            raise ValueError("dimension must be positive")
        self.client = client
        self.collection = collection or self.default_collection
        self.metadata = IndexMetadata(embedding_model, dimension)
        self.dimension = dimension
        self._owns_client = owns_client
        # Open a collection of another model as it is (reads only, until `lore reindex`).
        self._accept_stored = accept_stored
        self._payload_indexes = (not is_local(client)) if payload_indexes is None else payload_indexes

    @classmethod
    async def open(cls, client: AsyncQdrantClient, **options: Any) -> Self:
        store = cls(client, **options)
        try:
            await store.ensure_collection()
        except BaseException:
            await store.close()
            raise
        return store

    async def ensure_collection(self) -> None:
        async with translated("collection set-up"):
            if not await self.client.collection_exists(self.collection):
                sparse = (
                    {SPARSE_VECTOR: models.SparseVectorParams(modifier=models.Modifier.IDF)} if self.sparse else None
                )
                try:
                    await self.client.create_collection(
                        self.collection,
                        vectors_config={
                            DENSE_VECTOR: models.VectorParams(size=self.dimension, distance=models.Distance.COSINE)
                        },
                        sparse_vectors_config=sparse,
                        metadata=self.metadata.as_dict(),
                    )
                except UnexpectedResponse as error:
                    if error.status_code != 409:  # another replica created it first
                        raise
            info = await self.client.get_collection(self.collection)
            stored = IndexMetadata.from_dict(info.config.metadata)
            vectors = info.config.params.vectors
            dense = vectors.get(DENSE_VECTOR) if isinstance(vectors, dict) else None
            if stored is not None and dense is not None and dense.size != stored.dimension:
                stored = IndexMetadata(stored.embedding_model, dense.size)
            if self._accept_stored:
                self.dimension = dense.size if dense is not None else self.dimension
                self.metadata = stored or IndexMetadata("unknown", self.dimension)
            else:
                check_metadata(f"qdrant collection {self.collection!r}", stored, self.metadata)
            if self._payload_indexes:
                present = set(info.payload_schema or {})
                for index in self.payload_index_list:
                    if index.field not in present:
                        await self.client.create_payload_index(
                            self.collection, index.field, field_schema=payload_schema(index), wait=True
                        )

    # ------------------------------------------------------------------ the engine calls

    async def _scroll(self, request: neutral.Scroll) -> tuple[list[neutral.Stored], str | None]:
        order = request.descending
        async with translated(request.what):
            records, after = await self.client.scroll(
                self.collection,
                scroll_filter=None if request.matching is None else _filter(request.matching),
                limit=request.limit,
                offset=request.offset,
                order_by=None if order is None else models.OrderBy(key=order, direction=models.Direction.DESC),
                with_payload=list(request.payload) if isinstance(request.payload, tuple) else request.payload,
                with_vectors=False if request.vector is None else [request.vector],
            )
        return [_stored(record, request.vector) for record in records], None if after is None else str(after)

    async def _nearest(self, request: neutral.Nearest) -> list[neutral.Hit]:
        async with translated(request.what):
            response = await self.client.query_points(
                self.collection,
                query=_vector(request.query),
                using=request.using,
                query_filter=_filter(request.matching),
                limit=request.limit,
                with_payload=request.payload,
                with_vectors=False,
            )
        return [neutral.Hit(str(point.id), float(point.score), point.payload or {}) for point in response.points]

    async def _count(self, matching: neutral.Where | None) -> int:
        async with translated("count"):
            result = await self.client.count(
                self.collection, count_filter=None if matching is None else _filter(matching), exact=True
            )
        return int(result.count)

    async def _facet(self, key: str, limit: int, *, what: str) -> list[str]:
        async with translated(what):
            response = await self.client.facet(self.collection, key=key, limit=limit, exact=True)
        return [str(hit.value) for hit in response.hits]

    async def _upsert(self, groups: Callable[[], neutral.Groups], *, what: str) -> None:
        async with translated(what):
            for guard, points in groups():
                structs = [
                    models.PointStruct(
                        id=point.id,
                        vector={name: _vector(row) for name, row in point.vectors.items()},
                        payload=point.payload,
                    )
                    for point in points
                ]
                for start in range(0, len(structs), UPSERT_BATCH):
                    await self.client.upsert(
                        self.collection,
                        points=structs[start : start + UPSERT_BATCH],
                        update_filter=_filter(guard),
                        wait=True,
                    )

    async def _set_payloads(self, writes: Callable[[], Iterable[neutral.PayloadWrite]], *, what: str) -> None:
        async with translated(what):
            for write in writes():
                # Under the org filter even when ``by_id`` would allow less: that shortcut was
                # measured on qdrant-edge only.
                guard = _filter(neutral.org_point(write.org_id, write.point))
                await self.client.set_payload(self.collection, payload=write.payload, points=guard)

    async def _delete(self, matching: neutral.Where, *, what: str) -> None:
        async with translated(what):
            await self.client.delete(self.collection, points_selector=models.FilterSelector(filter=_filter(matching)))

    # ------------------------------------------------------------------ lifecycle

    async def flush(self) -> None:
        """Nothing to do: every write waits for the server (``wait=True``)."""

    async def close(self) -> None:
        if self._owns_client:
            await self.client.close()
