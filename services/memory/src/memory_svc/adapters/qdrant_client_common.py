"""What both qdrant-client adapters share: the collection's set-up and metadata check, payload
index schemas, local-mode detection and the translation of Qdrant failures into
``DependencyUnavailable``."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any, Self

from lore_runtime.errors import DependencyUnavailable
from qdrant_client import AsyncQdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from memory_svc.adapters.memory_payload import (
    DENSE_VECTOR,
    SCROLL_PAGE,
    SPARSE_VECTOR,
    IndexMetadata,
    PayloadIndex,
    check_metadata,
)


def payload_schema(index: PayloadIndex) -> models.PayloadSchemaType | models.KeywordIndexParams:
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
    """Qdrant being down or failing is DependencyUnavailable; a 4xx stays a bug and is raised as is."""
    try:
        yield
    except ResponseHandlingException as error:
        raise DependencyUnavailable(
            f"qdrant unreachable during {what}: {error}", metadata={"dependency": "qdrant"}
        ) from error
    except UnexpectedResponse as error:
        if error.status_code is not None and (error.status_code >= 500 or error.status_code == 429):
            raise DependencyUnavailable(
                f"qdrant failed during {what}: {error.status_code}", metadata={"dependency": "qdrant"}
            ) from error
        raise


class ClientCollectionStore:
    """Base of the qdrant-client adapters: one collection with a dense vector (and, when
    ``sparse``, the BM25 vector), Lore's model metadata in the collection's metadata, payload
    indexes on a real server (local mode ignores them and warns). Subclasses set
    ``default_collection``, ``payload_index_list`` and ``sparse``.

    ``await Subclass.open(client, embedding_model=..., dimension=...)`` creates the collection
    if it is missing and checks its metadata; ``close()`` closes the client only if the store
    owns it (``owns_client=True``).
    """

    default_collection = ""
    payload_index_list: Sequence[PayloadIndex] = ()
    sparse = False

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

    async def _delete_matching(self, matching: models.Filter) -> list[str]:
        """Erasure (``delete_scope``): delete every point ``matching`` selects (the caller puts the
        org condition in it); returns their ids (the ``id`` payload field)."""
        ids: list[str] = []
        offset = None
        async with translated("delete scope"):
            while True:
                records, offset = await self.client.scroll(
                    self.collection,
                    scroll_filter=matching,
                    limit=SCROLL_PAGE,
                    offset=offset,
                    with_payload=["id"],
                    with_vectors=False,
                )
                ids += [str((record.payload or {}).get("id") or record.id) for record in records]
                if offset is None:
                    break
            if ids:
                await self.client.delete(self.collection, points_selector=models.FilterSelector(filter=matching))
        return ids

    async def count_all(self) -> int:
        """Points of every organisation (reindexing is an operator job across the whole store)."""
        async with translated("count"):
            return int((await self.client.count(self.collection, exact=True)).count)

    async def _payload_page(self, cursor: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
        """Payloads of every org in point-id order from ``cursor``, and the id the next page starts at."""
        async with translated("reindex read"):
            records, after = await self.client.scroll(
                self.collection, limit=limit, offset=cursor, with_payload=True, with_vectors=False
            )
        return [record.payload or {} for record in records], None if after is None else str(after)

    async def flush(self) -> None:
        """Nothing to do: every write waits for the server (``wait=True``)."""

    async def close(self) -> None:
        if self._owns_client:
            await self.client.close()
