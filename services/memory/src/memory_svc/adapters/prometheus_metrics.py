"""The memory service's own Prometheus metrics, on the service's registry (``lore_runtime.metrics``):
points per Qdrant collection, counted when scraped (cached a few seconds), and the uses of memories
written behind the answers (offered, written, dropped by reason, pending), and the embedded
engine's maintenance (an optimisation or a purge's compaction running or due, and the step of the
running optimisation). Decay and consolidation runs are counted by the scheduled job's wrapper
(``ScheduledRunMetrics``)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterable
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


MAINTENANCE_RUNNING = "lore_memory_maintenance_running"
MAINTENANCE_PENDING = "lore_memory_maintenance_pending"
OPTIMISATION_STEP = "lore_memory_optimisation_step"
SHARD_WRITES = "lore_memory_shard_writes"
SHARD_WRITES_OPTIMISED = "lore_memory_shard_writes_optimised"
# edge_maintenance.Step's names, and "in-process" for LORE_QDRANT_OPTIMIZE_IN_CHILD=false.
OPTIMISATION_STEPS = ("snapshot", "optimizing", "optimized", "catching-up", "swap", "done", "in-process")


class MaintenanceState:
    """What the embedded engine's maintenance is doing, as the bootstrap sees it: the background
    optimisation's step (``edge_maintenance.Step``, through ``observe``) while a run lasts, and
    whether a purge's compaction runs (``compacting``: wraps the stores a ``PurgeSchedule`` gets)."""

    def __init__(self) -> None:
        self.optimisations = 0
        self.step: str | None = None
        self.compactions = 0

    async def observe(self, step: Any) -> None:
        self.step = step.name

    @contextlib.asynccontextmanager
    async def optimising(self, step: str | None = None) -> AsyncIterator[None]:
        """One optimisation of the shards runs inside; ``step`` until ``observe`` is told another."""
        self.optimisations += 1
        self.step = step
        try:
            yield
        finally:
            self.optimisations -= 1
            self.step = None

    def compacting(self, files: Any) -> Any:
        """``files`` (a ``StoreFiles``) whose ``compact()`` is counted as running while it runs."""
        return _CountedCompaction(files, self)


class _CountedCompaction:
    def __init__(self, files: Any, state: MaintenanceState) -> None:
        self._files = files
        self._state = state

    async def compact(self) -> list[Any]:
        self._state.compactions += 1
        try:
            return await self._files.compact()
        finally:
            self._state.compactions -= 1


class _MaintenanceCollector(Collector):
    def __init__(self, state: MaintenanceState, stores: Any, purge_pending: Callable[[], bool]) -> None:
        self._state = state
        self._stores = stores
        self._purge_pending = purge_pending

    def collect(self) -> Iterable[Metric]:
        live = {"memory_items": self._stores.items.store, "episodes": self._stores.episodes.store}
        applied = GaugeMetricFamily(
            SHARD_WRITES, "Write operations applied to each embedded shard since it was opened", labels=["collection"]
        )
        optimised = GaugeMetricFamily(
            SHARD_WRITES_OPTIMISED,
            "Of those, the writes the last finished background optimisation covered",
            labels=["collection"],
        )
        behind = False
        for collection, store in live.items():
            writes, maintained = int(getattr(store, "writes", 0)), int(getattr(store, "maintained_writes", 0))
            applied.add_metric([collection], writes)
            optimised.add_metric([collection], max(0, maintained))
            behind = behind or maintained != writes
        running = GaugeMetricFamily(
            MAINTENANCE_RUNNING, "1 while a background optimisation or a purge's compaction runs", labels=["kind"]
        )
        running.add_metric(["optimisation"], float(self._state.optimisations > 0))
        running.add_metric(["compaction"], float(self._state.compactions > 0))
        pending = GaugeMetricFamily(
            MAINTENANCE_PENDING,
            "1 while a shard has writes no optimisation has covered yet (optimisation), or a purge is due (compaction)",
            labels=["kind"],
        )
        pending.add_metric(["optimisation"], float(behind))
        pending.add_metric(["compaction"], float(self._purge_pending()))
        step = GaugeMetricFamily(
            OPTIMISATION_STEP, "1 for the step the running background optimisation is at", labels=["step"]
        )
        for name in OPTIMISATION_STEPS:
            step.add_metric([name], float(self._state.step == name))
        return [running, pending, step, applied, optimised]


def maintenance_metrics(state: MaintenanceState, stores: Any, purge_pending: Callable[[], bool]) -> Collector:
    """The embedded stores' maintenance, read when scraped (no store query: counters the stores keep).
    ``stores``: ``EdgeVectorStores``, read at each scrape since a reindex or a purge swaps the live ones."""
    return _MaintenanceCollector(state, stores, purge_pending)
