"""A purge's compaction of the embedded stores (EdgeVectorStores.compact), on the real qdrant-edge:
in a child process by default (calls are answered meanwhile), in the service's process with
``in_child`` false; both report what each shard kept and leave no erased byte in the live
directories; neither runs while a reindex does, nor beside an optimisation."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from memory_svc.adapters.edge_maintenance import Step
from memory_svc.adapters.qdrant_edge_stores import EdgeVectorStores
from memory_svc.domain.model import Scope
from memory_svc.usecases.maintenance_ports import PurgedStore

from tests.integration.memory.conftest import DIMENSION, MODEL
from tests.integration.memory.test_edge_maintenance import files_holding, write
from tests.integration.memory.test_episode_index_contract import make_episode, vector
from tests.integration.memory.test_memory_index_contract import make_item, new_org, random_units

LEAVING = Scope(user_id="leaving")


@pytest.fixture(params=[True, False], ids=["in-child", "in-process"])
async def stores(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[EdgeVectorStores]:
    opened = await EdgeVectorStores.open(
        tmp_path / "qdrant", embedding_model=MODEL, dimension=DIMENSION, in_child=request.param, niceness=0
    )
    try:
        yield opened
    finally:
        await opened.close()


async def erase_someone(stores: EdgeVectorStores, org: str, marker: str) -> None:
    """A memory and an episode carrying ``marker``, written then deleted, beside others that stay."""
    items = stores.items.store
    await items.upsert([make_item(org, f"my passport is {marker}", scope=LEAVING)], random_units(1, seed=5))
    await stores.episodes.store.upsert(make_episode(org, summary="We planned the trip to Lisbon."), vector(1))
    await stores.episodes.store.upsert(make_episode(org, summary=f"Renewed {marker}.", scope=LEAVING), vector(2))
    await items.delete_scope(org, LEAVING)
    await stores.episodes.store.delete_scope(org, LEAVING)
    for store in stores.shards():
        await store.flush()
    assert files_holding(stores.root, marker), "a deletion alone leaves the bytes"


async def test_a_purge_reports_what_each_shard_kept_and_no_file_holds_the_erased_text(
    stores: EdgeVectorStores,
) -> None:
    org, marker = new_org(), f"zq{uuid.uuid4().hex}"
    kept = await write(stores.items.store, org, 0, 40)
    await erase_someone(stores, org, marker)
    steps: list[str] = []
    answered: list[str] = []

    async def observe(step: Step) -> None:
        steps.append(step.name)
        if step.name == "optimizing" and step.child_pid is not None:  # the child rewrites a copy
            [(hit, _)] = await stores.items.store.search(org, Scope(), random_units(40, seed=1)[3], k=1)
            answered.append(hit)

    purged = await stores.compact(observe=observe)

    assert purged == [
        PurgedStore("qdrant.items", "compacted", kept=40),
        PurgedStore("qdrant.episodes", "compacted", kept=1),
    ]
    assert files_holding(stores.root, marker) == []
    if stores.in_child:
        assert steps.count("swap") == 2  # one store at a time
        assert answered == [kept[3].id, kept[3].id]
    else:
        assert steps == []
    assert await stores.items.store.count(org) == 40
    await write(stores.items.store, org, 100, 2)  # the live stores take writes after it
    assert await stores.items.store.count(org) == 42


async def test_no_purge_while_a_reindex_runs(stores: EdgeVectorStores) -> None:
    org, marker = new_org(), f"zq{uuid.uuid4().hex}"
    await write(stores.items.store, org, 0, 5)
    await erase_someone(stores, org, marker)
    stores.state.running = True  # what usecases/reindex.py sets while it copies

    purged = await stores.compact()

    assert [(part.store, part.outcome) for part in purged] == [
        ("qdrant.items", "skipped"),
        ("qdrant.episodes", "skipped"),
    ]
    assert "reindex" in purged[0].detail
    assert files_holding(stores.root, marker), "nothing was rewritten"


async def test_a_purge_asked_during_an_optimisation_starts_after_it(tmp_path: Path) -> None:
    stores = await EdgeVectorStores.open(tmp_path / "qdrant", embedding_model=MODEL, dimension=DIMENSION, niceness=0)
    org, marker = new_org(), f"zq{uuid.uuid4().hex}"
    events: list[tuple[str, str]] = []
    purge: list[asyncio.Task[list[PurgedStore]]] = []

    async def purging(step: Step) -> None:
        events.append(("purge", step.name))

    async def optimising(step: Step) -> None:
        events.append(("optimisation", step.name))
        if step.name == "optimizing" and not purge:
            purge.append(asyncio.create_task(stores.compact(observe=purging)))
            for _ in range(20):  # the purge gets every chance to start: it must wait
                await asyncio.sleep(0)

    try:
        await write(stores.items.store, org, 0, 30)
        await erase_someone(stores, org, marker)
        runs = await stores.optimize(niceness=0, observe=optimising)
        purged = await purge[0]
    finally:
        await stores.close()

    assert [type(run).__name__ for run in runs] == ["OptimizeRun", "OptimizeRun"]
    assert [part.outcome for part in purged] == ["compacted", "compacted"]
    first_purge_step = events.index(("purge", "snapshot"))
    assert all(kind == "optimisation" for kind, _ in events[:first_purge_step])
    assert all(kind == "purge" for kind, _ in events[first_purge_step:])
    assert files_holding(tmp_path / "qdrant", marker) == []
