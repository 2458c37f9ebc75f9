"""The EpisodeIndex port over a Qdrant server, through ``qdrant_client.AsyncQdrantClient``
(collection ``episodes``): the queries of ``qdrant_episode_index.py`` on the qdrant-client
engine (``qdrant_client_common.py``).

Same payload, filters and paging as the qdrant-edge adapter (``episode_payload.py``). The
embedding model and dimension are stored in the collection's metadata and checked on every
open. qdrant-client's local mode (tests) ignores payload indexes and warns when asked for
one, so they are only created against a real server — where ``order_by`` needs the
``ended_at`` datetime index.
"""

from __future__ import annotations

from memory_svc.adapters.qdrant_client_common import ClientCollectionStore
from memory_svc.adapters.qdrant_episode_index import QdrantEpisodeIndex

DEFAULT_COLLECTION = "episodes"


class QdrantClientEpisodeIndex(QdrantEpisodeIndex, ClientCollectionStore):
    """``await QdrantClientEpisodeIndex.open(client, embedding_model=..., dimension=...)`` creates the
    collection if it is missing and checks its metadata. ``close()`` closes the client only if the
    index owns it (``owns_client=True``); share the memory index's client otherwise."""

    default_collection = DEFAULT_COLLECTION
