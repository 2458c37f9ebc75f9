"""The MemoryIndex port over qdrant-edge: Qdrant's engine in-process, one shard on disk; the
queries of ``qdrant_memory_index.py`` on the qdrant-edge engine (``qdrant_edge_store.py``).

Layout below ``path``::

    path/lore_index.json   embedding model + dimension (+ payload version) of the vectors
    path/shard/            the EdgeShard (edge_config.json, wal/, segments/)

The metadata lives in a JSON file beside the shard rather than in a sentinel point: it
can be read (and checked) before the shard is opened, it never has to be filtered out of
counts, scrolls or facets, and a sentinel would need a vector. It is written atomically
before the shard is created, so a crash leaves at worst metadata without a shard (which
is simply created on the next start), never a shard of unknown vectors.

The engine is synchronous and keeps the interpreter lock for the whole of every call: the
Recall path's reads (searches, reads by id) run on the event loop (``_run``), every other call
in a worker thread (``asyncio.to_thread``). qdrant-edge 0.9.0 shards are safe to share between
threads (queries, upserts and ``optimize()`` from several threads at once were tried: no errors,
consistent counts), so calls are not serialised; a small gate only keeps ``close()`` from releasing the shard
under a running call and keeps ``optimize()`` single-flight. Only one process may open a
shard (its WAL is locked): a second one gets FailedPrecondition.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from memory_svc.adapters.qdrant_edge_store import EdgeShardStore
from memory_svc.adapters.qdrant_memory_index import QdrantMemoryIndex

T = TypeVar("T")

# The engine methods a Recall calls, answered on the event loop (see ``_run``).
INLINE_READS = frozenset({"query", "scroll"})


class QdrantEdgeMemoryIndex(QdrantMemoryIndex, EdgeShardStore):
    """``QdrantEdgeMemoryIndex(path, embedding_model=..., dimension=...)`` opens (or creates) the
    shard synchronously — meant for start-up; ``await QdrantEdgeMemoryIndex.open(...)`` does the
    same in a worker thread. Call ``optimize()`` from a background task and ``close()`` at shutdown.
    """

    async def _run(self, fn: Callable[..., T], *args: Any, write: bool = False) -> T:
        """A read the Recall path makes (a search, a read of a few points by id) runs on the event
        loop instead of a worker thread: qdrant-edge keeps the interpreter lock for the whole call, so
        a worker thread lets nothing else run meanwhile and its hop (submit, wake-up, the result's
        callback) is work under the lock on every call. Writes, counts, facets and maintenance keep
        their thread. The gate never waits here: a swap runs only while ``_calls_open`` is clear (it
        is cleared and set again on this loop), and a closed store refuses at once."""
        if write or fn != self._engine or args[0] not in INLINE_READS:
            return await super()._run(fn, *args, write=write)
        await self._calls_open.wait()
        return self._call(fn, *args)
