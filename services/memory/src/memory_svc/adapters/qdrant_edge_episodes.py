"""The EpisodeIndex port over qdrant-edge: its own shard, beside the memory items' one; the
queries of ``qdrant_episode_index.py`` on the qdrant-edge engine (``qdrant_edge_store.py``).

Layout below ``path`` (bootstrap passes ``<data_dir>/qdrant/episodes``)::

    path/lore_index.json   embedding model + dimension (+ payload version) of the summary vectors
    path/shard/            the EdgeShard

Same conventions as ``qdrant_edge_index.py``: the metadata file is written before the shard
is created and checked on every open; the synchronous engine runs in worker threads
(``asyncio.to_thread``) behind a gate that keeps ``close()`` from releasing the shard under a
running call; one process per shard (a second one gets FailedPrecondition). Payload,
filters and paging are shared with the qdrant-client adapter (``episode_payload.py``).
"""

from __future__ import annotations

from memory_svc.adapters.qdrant_edge_store import EdgeShardStore
from memory_svc.adapters.qdrant_episode_index import QdrantEpisodeIndex


class QdrantEdgeEpisodeIndex(QdrantEpisodeIndex, EdgeShardStore):
    """``await QdrantEdgeEpisodeIndex.open(path, embedding_model=..., dimension=...)`` (or the
    synchronous constructor, at start-up) opens or creates the shard; ``close()`` at shutdown."""
