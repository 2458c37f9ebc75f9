"""The embedded engine optimised, and compacted for a purge, off the service's process
(adapters/edge_maintenance.py), on the real qdrant-edge: calls are answered while a child works on a
copy, no write is lost across the swap, a compaction leaves no deleted point in the shard's files,
and a failure or a crash at any step leaves a consistent store."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import signal
import uuid
from pathlib import Path

import pytest
import qdrant_edge as qe
from memory_svc.adapters import edge_maintenance, qdrant_edge_store
from memory_svc.adapters.edge_maintenance import ChildFailed, Step, optimize_in_child
from memory_svc.adapters.edge_shard_swap import (
    COMPACTING,
    OPTIMIZATION,
    OPTIMIZATION_MARKER,
    OPTIMIZING,
    write_json_durably,
)
from memory_svc.adapters.memory_payload import DENSE_VECTOR, SPARSE_VECTOR
from memory_svc.adapters.qdrant_edge_index import QdrantEdgeMemoryIndex
from memory_svc.domain.model import MemoryItem, Scope

from tests.integration.memory.conftest import DIMENSION, MODEL
from tests.integration.memory.test_memory_index_contract import make_item, new_org, random_units

STEPS = ("snapshot", "optimizing", "optimized", "catching-up", "swap")


def low_thresholds() -> qe.EdgeConfig:
    """The shard's own config with an indexing threshold small enough that a few hundred points
    give the optimiser work (HNSW is built), so the copy is swapped in."""
    return qe.EdgeConfig(
        vectors={DENSE_VECTOR: qe.EdgeVectorParams(size=DIMENSION, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=1),
    )


async def open_store(path: Path) -> QdrantEdgeMemoryIndex:
    return await QdrantEdgeMemoryIndex.open(path, embedding_model=MODEL, dimension=DIMENSION, config=low_thresholds())


async def reopen(store: QdrantEdgeMemoryIndex) -> QdrantEdgeMemoryIndex:
    await store.close()
    return await QdrantEdgeMemoryIndex.open(store.path, embedding_model=MODEL, dimension=DIMENSION)


async def write(store: QdrantEdgeMemoryIndex, org: str, first: int, count: int) -> list[MemoryItem]:
    items = [make_item(org, f"memory {n}") for n in range(first, first + count)]
    await store.upsert(items, random_units(count, seed=first + 1))
    return items


def indexed(store: QdrantEdgeMemoryIndex) -> int:
    return store._shard.info().indexed_vectors_count


def leftovers(store: QdrantEdgeMemoryIndex) -> list[str]:
    names = (OPTIMIZING, COMPACTING, "shard.previous", OPTIMIZATION_MARKER)
    return sorted(name for name in names if (store.path / name).exists())


def files_holding(root: Path, marker: str) -> list[str]:
    """Every file under ``root`` whose bytes contain ``marker`` (what ``grep -rl`` prints)."""
    needle = marker.encode()
    return sorted(
        str(Path(directory, name).relative_to(root))
        for directory, _, names in os.walk(root)
        for name in names
        if needle in Path(directory, name).read_bytes()
    )


async def erased_beside(store: QdrantEdgeMemoryIndex, org: str, marker: str) -> None:
    """Ten memories carrying ``marker``, written and deleted: their bytes stay in the shard's files."""
    gone = [make_item(org, f"my passport is {marker} ({n})", scope=Scope(user_id="leaving")) for n in range(10)]
    await store.upsert(gone, random_units(10, seed=77))
    await store.delete_scope(org, Scope(user_id="leaving"))
    await store.flush()
    assert files_holding(store.path, marker), "a deletion alone leaves the bytes"


async def test_calls_are_answered_while_the_child_optimises(tmp_path: Path) -> None:
    org = new_org()
    store = await open_store(tmp_path)
    try:
        items = await write(store, org, 0, 200)
        vectors = random_units(200, seed=1)
        answered: list[str] = []

        async def observe(step: Step) -> None:
            if step.name == "optimizing":
                assert step.child_pid is not None
                os.kill(step.child_pid, 0)  # the child is there: maintenance has started, not ended
                [(hit, _)] = await store.search(org, Scope(), vectors[7], k=1)
                answered.append(hit)
                await write(store, org, 200, 5)

        run = await optimize_in_child(store, niceness=0, observe=observe)

        assert answered == [items[7].id]
        assert run is not None and run.optimized
        assert indexed(store) > 0  # the optimised copy is the live shard now
        assert await store.count(org) == 205
    finally:
        await store.close()


@pytest.mark.parametrize("tail", [0, 10_000])
async def test_no_write_is_lost_across_the_swap(tmp_path: Path, tail: int) -> None:
    org = new_org()
    store = await open_store(tmp_path)
    kept = await write(store, org, 0, 100)
    forgotten = [make_item(org, f"leaving {n}", scope=Scope(user_id="leaving")) for n in range(10)]
    await store.upsert(forgotten, random_units(10, seed=77))
    important = dataclasses.replace(kept[20], importance=0.9)
    renamed = dataclasses.replace(kept[21], metadata={"renamed": "yes"})
    written: list[MemoryItem] = []

    async def keep_writing() -> None:  # beside the run, one write after another
        for n in range(1000, 1060, 3):
            written.extend(await write(store, org, n, 3))

    async def observe(step: Step) -> None:
        if step.name == "optimizing":  # journaled while the child optimises
            written.extend(await write(store, org, 2000, 5))
        if step.name == "catching-up":
            await store.delete_scope(org, Scope(user_id="leaving"))
            await store.replace_payloads(org, [important], ["importance"])  # by id
            await store.replace_payloads(org, [renamed])  # under the org's filter
            written.extend(await write(store, org, 3000, 5))

    run, _ = await asyncio.gather(optimize_in_child(store, tail=tail, niceness=0, observe=observe), keep_writing())
    try:
        assert run is not None and run.optimized
        assert run.journaled > 0
        store = await reopen(store)
        expected = {item.id for item in kept + written}
        assert await store.count(org) == len(expected)
        assert {item.id for item in await store.get(org, sorted(expected))} == expected
        assert await store.get(org, [item.id for item in forgotten]) == []
        assert await store.get(org, [important.id, renamed.id]) == [important, renamed]
        assert leftovers(store) == []
    finally:
        await store.close()


@pytest.mark.parametrize("tail", [0, 10_000])
async def test_a_compaction_leaves_no_deleted_point_in_the_files_and_loses_no_write(tmp_path: Path, tail: int) -> None:
    org, marker = new_org(), f"zq{uuid.uuid4().hex}"
    store = await open_store(tmp_path)
    kept = await write(store, org, 0, 100)
    await erased_beside(store, org, marker)
    answered: list[str] = []

    async def observe(step: Step) -> None:
        if step.name == "optimizing":  # the child rewrites the copy: calls are answered, writes journaled
            [(hit, _)] = await store.search(org, Scope(), random_units(100, seed=1)[7], k=1)
            answered.append(hit)
            kept.extend(await write(store, org, 2000, 5))
        if step.name == "catching-up":
            kept.extend(await write(store, org, 3000, 5))

    run = await optimize_in_child(store, compact=True, tail=tail, niceness=0, observe=observe)
    try:
        assert answered == [kept[7].id]
        assert run is not None and run.optimized
        assert (run.kept, run.journaled) == (110, 2)  # two upserts of five, replayed on the fresh shard
        assert files_holding(tmp_path, marker) == []
        assert leftovers(store) == []
        store = await reopen(store)
        assert await store.count(org) == len(kept)
        assert {item.id for item in await store.get(org, [item.id for item in kept])} == {item.id for item in kept}
        assert (await store.search(org, Scope(), random_units(100, seed=1)[7], k=1))[0][0] == kept[7].id
        assert files_holding(tmp_path, marker) == []
    finally:
        await store.close()


@pytest.mark.parametrize("compact", [False, True], ids=["optimise", "compact"])
@pytest.mark.parametrize("step", STEPS)
async def test_a_failure_at_any_step_leaves_the_live_shard_whole(tmp_path: Path, step: str, compact: bool) -> None:
    org = new_org()
    store = await open_store(tmp_path)
    items = await write(store, org, 0, 120)

    async def observe(at: Step) -> None:
        if at.name == "catching-up":
            items.extend(await write(store, org, 500, 4))
        if at.name == step:
            raise RuntimeError(f"failed at {step}")

    try:
        with pytest.raises(RuntimeError, match=f"failed at {step}"):
            await optimize_in_child(store, compact=compact, tail=0, niceness=0, observe=observe)
        assert leftovers(store) == []
        items.extend(await write(store, org, 900, 2))  # the store still takes writes
        store = await reopen(store)
        assert await store.count(org) == len(items)
    finally:
        await store.close()


@pytest.mark.parametrize("compact", [False, True], ids=["optimise", "compact"])
@pytest.mark.parametrize("step", ["optimizing", "catching-up"])
async def test_a_killed_child_leaves_the_live_shard_whole(tmp_path: Path, step: str, compact: bool) -> None:
    org = new_org()
    store = await open_store(tmp_path)
    items = await write(store, org, 0, 120)

    async def observe(at: Step) -> None:
        if at.name == step:
            items.extend(await write(store, org, 500, 4))
            assert at.child_pid is not None
            os.kill(at.child_pid, signal.SIGKILL)

    try:
        with pytest.raises(ChildFailed):
            await optimize_in_child(store, compact=compact, tail=0, niceness=0, observe=observe)
        assert leftovers(store) == []
        store = await reopen(store)
        assert await store.count(org) == len(items)
    finally:
        await store.close()


async def test_a_crash_inside_the_swap_is_completed_when_the_store_opens(tmp_path: Path) -> None:
    """The service died after the marker and the first rename: the complete copy goes live."""
    org = new_org()
    store = await open_store(tmp_path)
    items = await write(store, org, 0, 50)
    await store.close()
    shutil.copytree(tmp_path / "shard", tmp_path / OPTIMIZING)  # a complete copy, as the child leaves it
    write_json_durably(tmp_path / OPTIMIZATION_MARKER, {"moves": OPTIMIZATION.moves})
    os.rename(tmp_path / "shard", tmp_path / "shard.previous")

    store = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    try:
        assert await store.count(org) == len(items)
        assert leftovers(store) == []
    finally:
        await store.close()


@pytest.mark.parametrize("left", [(OPTIMIZING, COMPACTING), (COMPACTING,)], ids=["mid-rewrite", "rewritten"])
async def test_a_crash_inside_the_childs_rewrite_leaves_copies_that_are_deleted(
    tmp_path: Path, left: tuple[str, ...]
) -> None:
    """The service died while the child rewrote the copy (before any marker): the live shard is
    whole and the copy and the half-built fresh shard go when the store opens."""
    org = new_org()
    store = await open_store(tmp_path)
    items = await write(store, org, 0, 50)
    await store.close()
    for name in left:
        shutil.copytree(tmp_path / "shard", tmp_path / name)
    shutil.rmtree(tmp_path / COMPACTING / "segments")  # the fresh shard, half built

    store = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    try:
        assert await store.count(org) == len(items)
        assert leftovers(store) == []
    finally:
        await store.close()


async def test_a_failed_rename_keeps_the_old_shard_live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    org = new_org()
    store = await open_store(tmp_path)
    items = await write(store, org, 0, 120)

    def refuse(store_dir: Path, optimized: Path) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(qdrant_edge_store, "swap_optimized", refuse)
    try:
        with pytest.raises(OSError, match="disk full"):
            await optimize_in_child(store, niceness=0)
        assert await store.count(org) == len(items)
        assert leftovers(store) == []
    finally:
        await store.close()


async def test_nothing_written_since_the_last_run_is_nothing_to_do_but_a_compaction_runs(tmp_path: Path) -> None:
    org, marker = new_org(), f"zq{uuid.uuid4().hex}"
    store = await open_store(tmp_path)
    try:
        await write(store, org, 0, 120)
        assert (await optimize_in_child(store, niceness=0)) is not None
        assert (await optimize_in_child(store, niceness=0)) is None
        await erased_beside(store, org, marker)
        assert (await optimize_in_child(store, niceness=0)) is not None
        assert (await optimize_in_child(store, niceness=0)) is None
        run = await optimize_in_child(store, compact=True, niceness=0)
        assert run is not None and run.kept == 120
        assert files_holding(tmp_path, marker) == []
    finally:
        await store.close()


async def test_payload_writes_alone_are_nothing_to_optimise_and_no_copy_is_made(tmp_path: Path) -> None:
    org = new_org()
    store = await open_store(tmp_path)
    steps: list[str] = []

    async def observe(step: Step) -> None:
        steps.append(step.name)

    try:
        items = await write(store, org, 0, 120)
        assert (await optimize_in_child(store, niceness=0)) is not None
        await store.replace_payloads(org, [dataclasses.replace(items[3], importance=0.9)], ["importance"])  # by id
        await store.replace_payloads(org, [dataclasses.replace(items[4], metadata={"seen": "twice"})])  # by filter
        assert store.maintained_writes != store.writes

        assert (await optimize_in_child(store, niceness=0, observe=observe)) is None
        assert steps == []  # no snapshot, no child
        assert store.maintained_writes == store.writes  # covered: the page shows nothing due

        await write(store, org, 500, 3)  # new points: the optimisers may have work
        assert (await optimize_in_child(store, niceness=0, observe=observe)) is not None
        assert steps[0] == "snapshot"
        assert await store.get(org, [items[3].id]) == [dataclasses.replace(items[3], importance=0.9)]
    finally:
        await store.close()


async def test_a_failure_while_the_snapshot_copies_leaves_the_live_shard_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    org = new_org()
    store = await open_store(tmp_path)
    items = await write(store, org, 0, 120)

    def half_copied(live: Path, target: Path) -> dict[str, object]:
        shutil.copytree(live / "segments", target / "segments")
        raise OSError("disk full")

    monkeypatch.setattr(edge_maintenance, "precopy", half_copied)
    try:
        with pytest.raises(OSError, match="disk full"):
            await optimize_in_child(store, niceness=0)
        assert leftovers(store) == []
        items.extend(await write(store, org, 900, 2))
        store = await reopen(store)
        assert await store.count(org) == len(items)
    finally:
        await store.close()
