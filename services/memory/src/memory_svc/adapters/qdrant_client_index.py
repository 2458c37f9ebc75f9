"""The MemoryIndex port over a Qdrant server, through ``qdrant_client.AsyncQdrantClient``: the
queries of ``qdrant_memory_index.py`` on the qdrant-client engine (``qdrant_client_common.py``).

Same payload, filters and payload indexes as the qdrant-edge adapter (memory_payload.py).
The embedding model and dimension are stored in the collection's own ``metadata`` (Qdrant
collection metadata, supported by qdrant-client 1.20 and its local mode), written when
the collection is created and checked on every open.

qdrant-client's local mode (``AsyncQdrantClient(location=":memory:")``) is used by the
tests for API compatibility; it ignores payload indexes and warns when asked for one, so
they are only created against a real server.
"""

from __future__ import annotations

from qdrant_client import AsyncQdrantClient

from memory_svc.adapters.qdrant_client_common import ClientCollectionStore
from memory_svc.adapters.qdrant_memory_index import QdrantMemoryIndex

DEFAULT_COLLECTION = "memory_items"


class QdrantClientMemoryIndex(QdrantMemoryIndex, ClientCollectionStore):
    """``await QdrantClientMemoryIndex.open(client, embedding_model=..., dimension=...)`` (or
    ``connect(url, api_key, ...)``) creates the collection if it is missing and checks its
    metadata. ``close()`` closes the client only if the index owns it.
    """

    default_collection = DEFAULT_COLLECTION

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
