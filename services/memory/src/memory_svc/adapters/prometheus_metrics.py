"""The memory service's own Prometheus metrics, on the service's registry (``lore_runtime.metrics``):
points per Qdrant collection, counted when scraped (cached a few seconds). Decay and consolidation
runs are counted by the scheduled job's wrapper (``ScheduledRunMetrics``)."""

from __future__ import annotations

from typing import Any

from lore_runtime.metrics import GaugeFamily, SampledGauges, Samples

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
