"""A per-process LRU of embeddings by exact text: an agent asks or says the same thing again, the
model runs once.

:class:`CachingEmbedder` wraps any :class:`Embedder`. A call of one text (how every search embeds its
query) is looked up by ``(model_name, text)``, and so is each text of a small call (at most
``SMALL_CALL`` texts: what reflection writes for one turn, a message and the facts learnt from it,
which a restated fact or a repeated message makes again): only the texts not held go to the model,
in one call. A larger call (imports, reindex, a batch of episode summaries) goes straight to the
wrapped embedder and neither reads nor fills the cache, so bulk writes do not sweep the queries out.
A service hands one embedder to its reads and its writes: a write costs an entry, never a wrong
vector (a text gets the same vector whatever call it is in). The cache holds at most
``max_entries`` vectors (384 float32 = 1.5 KiB each: 1.5 MiB at the default 1024), least recently
used evicted first; 0 turns it off (:func:`cached_for_queries` then returns the embedder itself).

Cached vectors are read-only and every call gets a fresh writable copy, so no caller can change
what the next one receives. The table is guarded by a lock (several threads or event loops may
share the wrapper) and concurrent calls on one event loop for the same text share one model run.
A failed run is not cached. ``hits`` and ``misses`` count lookups since the start, for metrics.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import AsyncExitStack
from typing import Any

import numpy as np

from lore_embeddings.factory import open_embedder
from lore_embeddings.port import Embedder, check_texts

DEFAULT_CACHE_SIZE = 1024
# Calls of at most this many texts are looked up text by text; larger ones bypass the cache.
SMALL_CALL = 8

_Key = tuple[str, str]


class CachingEmbedder:
    """``inner`` with an LRU of up to ``max_entries`` single-text embeddings (0: no cache)."""

    def __init__(self, inner: Embedder, max_entries: int = DEFAULT_CACHE_SIZE) -> None:
        if max_entries < 0:
            raise ValueError("max_entries must be 0 (no cache) or more")
        self.inner = inner
        self.max_entries = max_entries
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[_Key, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        # One model run per text in flight, per event loop (a task belongs to its loop).
        self._running: dict[tuple[asyncio.AbstractEventLoop, _Key], asyncio.Task[np.ndarray]] = {}

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def __len__(self) -> int:
        return len(self._entries)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        items = check_texts(texts)
        if not items or len(items) > SMALL_CALL or self.max_entries == 0:
            return await self.inner.embed(items)
        if len(items) > 1:
            return await self._embed_small(items)
        key = (self.inner.model_name, items[0])
        if held := self._held([key]):
            return held[key][None, :].copy()
        loop = asyncio.get_running_loop()
        running = self._running.get((loop, key))
        # A miss is a model run: a call joining the run already going for its text counts as a hit.
        with self._lock:
            if running is None:
                self.misses += 1
            else:
                self.hits += 1
        if running is None:
            running = loop.create_task(self._compute(loop, key))
            self._running[(loop, key)] = running
        # Shielded: a caller that gives up does not cancel the run the others wait for.
        return (await asyncio.shield(running))[None, :].copy()

    async def _embed_small(self, items: list[str]) -> np.ndarray:
        """Each text from the cache when held; the others in one call to the model, then kept."""
        keys = [(self.inner.model_name, text) for text in items]
        found = self._held(keys)
        missing = list(dict.fromkeys(key for key in keys if key not in found))
        with self._lock:
            self.misses += len(missing)
        if missing:
            for key, vector in zip(missing, await self.inner.embed([text for _, text in missing]), strict=True):
                found[key] = self._keep(key, vector)
        return np.stack([found[key] for key in keys]).astype(np.float32, copy=True)

    async def _compute(self, loop: asyncio.AbstractEventLoop, key: _Key) -> np.ndarray:
        try:
            (vector,) = await self.inner.embed([key[1]])
            return self._keep(key, vector)
        finally:
            del self._running[(loop, key)]

    def _held(self, keys: Sequence[_Key]) -> dict[_Key, np.ndarray]:
        """The cached vectors of ``keys`` (each made the most recently used), every key found
        counted as a hit (a text asked twice in one call, twice)."""
        found: dict[_Key, np.ndarray] = {}
        with self._lock:
            for key in keys:
                vector = self._entries.get(key)
                if vector is not None:
                    self._entries.move_to_end(key)
                    found[key] = vector
            self.hits += sum(1 for key in keys if key in found)
        return found

    def _keep(self, key: _Key, vector: np.ndarray) -> np.ndarray:
        """``vector`` cached read-only under ``key`` (the least recently used evicted past
        ``max_entries``); returns the cached array."""
        stored = np.array(vector, dtype=np.float32)
        stored.setflags(write=False)
        with self._lock:
            self._entries[key] = stored
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return stored

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    async def aclose(self) -> None:
        self.clear()
        await self.inner.aclose()


def cached_for_queries(embedder: Embedder, max_entries: int) -> Embedder:
    """``embedder`` behind a :class:`CachingEmbedder` of ``max_entries``, or itself when 0."""
    return CachingEmbedder(embedder, max_entries) if max_entries > 0 else embedder


async def open_query_embedder(
    stack: AsyncExitStack, *args: Any, cache_size: int = DEFAULT_CACHE_SIZE, **options: Any
) -> Embedder:
    """:func:`open_embedder` behind an LRU of ``cache_size`` entries (none at 0): the opener of a
    service whose searches embed queries (``settings.open_query_embedder(stack, this)``, which passes
    ``LORE_EMBEDDING_CACHE_SIZE``)."""
    if cache_size < 0:
        raise ValueError("cache_size must be 0 (no cache) or more")
    return cached_for_queries(await open_embedder(stack, *args, **options), cache_size)


class CacheMetrics:
    """A Prometheus collector of a :class:`CachingEmbedder`'s counts, read at scrape time:
    ``lore_embedding_cache_{hits,misses}_total`` and ``lore_embedding_cache_entries``.
    prometheus_client is imported on first scrape (the services have it; this package does not
    depend on it)."""

    def __init__(self, embedder: CachingEmbedder) -> None:
        self._embedder = embedder

    def collect(self) -> Iterator[Any]:  # prometheus_client Metric families, imported lazily
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        cache = self._embedder
        yield CounterMetricFamily(
            "lore_embedding_cache_hits", "Query embeddings answered from the LRU", value=cache.hits
        )
        yield CounterMetricFamily(
            "lore_embedding_cache_misses", "Query embeddings the model had to compute", value=cache.misses
        )
        yield GaugeMetricFamily("lore_embedding_cache_entries", "Vectors held in the LRU", value=len(cache))


def register_cache_metrics(registry: object, embedder: Embedder) -> None:
    """Counts of ``embedder``'s LRU on ``registry`` (a prometheus_client ``CollectorRegistry``);
    nothing when ``embedder`` has no cache."""
    if isinstance(embedder, CachingEmbedder):
        registry.register(CacheMetrics(embedder))  # type: ignore[attr-defined]
