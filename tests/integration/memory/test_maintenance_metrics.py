"""The embedded engine's maintenance on the memory service's metrics page (adapters/prometheus_metrics.py,
wired by the bootstrap): on real qdrant-edge shards, an optimisation is pending after writes, running
(at its step) while a child optimises, and neither once the run covered them; a purge's compaction
is due once asked for and running while it runs, at its step (wired by the bootstrap)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_svc.adapters.prometheus_metrics import (
    MAINTENANCE_PENDING,
    MAINTENANCE_RUNNING,
    OPTIMISATION_STEP,
    SHARD_WRITES,
    SHARD_WRITES_OPTIMISED,
    MaintenanceState,
    maintenance_metrics,
)
from memory_svc.adapters.qdrant_edge_stores import EdgeVectorStores
from memory_svc.bootstrap import ObservedCompaction
from memory_svc.usecases.maintenance_ports import PurgedStore
from memory_svc.usecases.purge import PurgeSchedule
from prometheus_client import CollectorRegistry

from tests.integration.memory.conftest import DIMENSION, MODEL
from tests.integration.memory.test_memory_index_contract import make_item, new_org, random_units


def value(registry: CollectorRegistry, name: str, **labels: str) -> float:
    found = registry.get_sample_value(name, labels)
    assert found is not None, f"{name}{labels} is not on the page"
    return found


async def test_an_optimisation_is_pending_after_writes_running_while_it_runs_and_neither_after(
    tmp_path: Path,
) -> None:
    stores = await EdgeVectorStores.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    state = MaintenanceState()
    registry = CollectorRegistry()
    registry.register(maintenance_metrics(state, stores, lambda: False))
    try:
        org = new_org()
        items = [make_item(org, f"the user mentioned lantern number {n}") for n in range(40)]
        await stores.items.store.upsert(items, random_units(40, seed=3))
        assert value(registry, MAINTENANCE_PENDING, kind="optimisation") == 1
        assert value(registry, MAINTENANCE_RUNNING, kind="optimisation") == 0
        written = value(registry, SHARD_WRITES, collection="memory_items")
        assert written >= 1
        assert value(registry, SHARD_WRITES_OPTIMISED, collection="memory_items") == 0

        seen: dict[str, tuple[float, float]] = {}

        async def observe(step) -> None:
            await state.observe(step)
            seen[step.name] = (
                value(registry, MAINTENANCE_RUNNING, kind="optimisation"),
                value(registry, OPTIMISATION_STEP, step=step.name),
            )

        async with state.optimising():
            await stores.optimize(niceness=0, observe=observe)

        assert seen["optimizing"] == (1, 1)  # running, at that step, while the child works
        assert value(registry, MAINTENANCE_RUNNING, kind="optimisation") == 0
        assert value(registry, MAINTENANCE_PENDING, kind="optimisation") == 0
        assert value(registry, SHARD_WRITES_OPTIMISED, collection="memory_items") == written
        assert value(registry, OPTIMISATION_STEP, step="optimizing") == 0
    finally:
        await stores.close()


class WatchedFiles:
    """Store files whose compaction reads the page while it runs."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self.running_during: float | None = None

    async def compact(self) -> list[PurgedStore]:
        self.running_during = value(self.registry, MAINTENANCE_RUNNING, kind="compaction")
        return [PurgedStore("watched", "compacted")]


async def test_a_purge_is_pending_once_asked_and_its_compaction_running_while_it_runs(tmp_path: Path) -> None:
    stores = await EdgeVectorStores.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    state = MaintenanceState()
    registry = CollectorRegistry()
    watched = WatchedFiles(registry)
    purges = PurgeSchedule([state.compacting(watched)], delay=3600)
    registry.register(maintenance_metrics(state, stores, lambda: purges.pending))
    try:
        assert value(registry, MAINTENANCE_PENDING, kind="compaction") == 0
        purges.request()
        assert value(registry, MAINTENANCE_PENDING, kind="compaction") == 1

        await purges.run_now()

        assert watched.running_during == 1
        assert value(registry, MAINTENANCE_RUNNING, kind="compaction") == 0
        assert value(registry, MAINTENANCE_PENDING, kind="compaction") == 0
    finally:
        await stores.close()


async def test_a_purges_compaction_is_at_its_step_on_the_page_while_it_runs_and_at_none_after(
    tmp_path: Path,
) -> None:
    registry = CollectorRegistry()

    class Watched(MaintenanceState):
        """The page read at each step the compaction reports."""

        def __init__(self) -> None:
            super().__init__()
            self.shown: list[tuple[str, float]] = []

        async def observe(self, step: Any) -> None:
            await super().observe(step)
            self.shown.append((step.name, value(registry, OPTIMISATION_STEP, step=step.name)))

    stores = await EdgeVectorStores.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION, niceness=0)
    state = Watched()
    registry.register(maintenance_metrics(state, stores, lambda: False))
    try:
        org = new_org()
        await stores.items.store.upsert([make_item(org, "kept")], random_units(1, seed=4))
        purges = PurgeSchedule([state.compacting(ObservedCompaction(stores, state))], delay=3600)
        purges.request()

        await purges.run_now()

        names = [name for name, _ in state.shown]
        assert names.count("snapshot") == 2 and names.count("swap") == 2  # both shards, one at a time
        assert all(shown == 1 for _, shown in state.shown)
        assert state.step is None
        assert all(value(registry, OPTIMISATION_STEP, step=name) == 0 for name in set(names))
    finally:
        await stores.close()
