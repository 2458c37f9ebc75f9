"""The memory service's own Prometheus metrics, on the service's registry (``lore_runtime.metrics``):
points per Qdrant collection, counted when scraped (cached a few seconds), and the uses of memories
written behind the answers (offered, written, dropped by reason, pending). Decay and consolidation
runs are counted by the scheduled job's wrapper (``ScheduledRunMetrics``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lore_runtime.metrics import GaugeFamily, SampledGauges, Samples
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from memory_svc.usecases.access_behind import AccessBehindStats

ITEMS = "lore_memory_items"


def collection_sizes(stores: Any, *, max_age: float = 10.0) -> SampledGauges:
    """``stores``: ``EdgeVectorStores`` or ``ClientVectorStores``; read at each sample, since a
    reindex swaps the live stores."""

    async def sample() -> Samples:
        live = {"memory_items": stores.items.store, "episodes": stores.episodes.store}
        return {ITEMS: [((collection,), await store.count_all()) for collection, store in live.items()]}

    return SampledGauges(
        [GaugeFamily(ITEMS, "Points in each vector collection, every org together", ("collection",))],
        sample,
        max_age=max_age,
    )


ACCESS_USES = "lore_memory_access_uses"
ACCESS_DROPPED = "lore_memory_access_uses_dropped"
ACCESS_PENDING = "lore_memory_access_uses_pending"


class _AccessBehindCollector(Collector):
    """The write-behind flusher's counts (``usecases/access_behind.py``), read when scraped."""

    def __init__(self, stats: AccessBehindStats) -> None:
        self._stats = stats

    def collect(self) -> Iterable[Metric]:
        uses = CounterMetricFamily(
            ACCESS_USES,
            "Uses of memories handed to the write-behind flusher, and counter refreshes written",
            labels=["stage"],
        )
        uses.add_metric(["offered"], self._stats.offered)
        uses.add_metric(["written"], self._stats.written)
        dropped = CounterMetricFamily(
            ACCESS_DROPPED, "Uses never written (at most once): buffer full, or their flush failed", labels=["reason"]
        )
        dropped.add_metric(["buffer_full"], self._stats.dropped_full)
        dropped.add_metric(["flush_failed"], self._stats.dropped_failed)
        pending = GaugeMetricFamily(ACCESS_PENDING, "Uses waiting for the next flush")
        pending.add_metric([], self._stats.pending)
        return [uses, dropped, pending]


def access_behind_metrics(stats: AccessBehindStats) -> Collector:
    return _AccessBehindCollector(stats)
