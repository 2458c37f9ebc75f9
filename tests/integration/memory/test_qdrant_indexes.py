"""What only the Qdrant adapters promise: persistence, the embedding-model check, the store lock."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lore_runtime.errors import FailedPrecondition
from memory_svc.adapters.qdrant_client_index import QdrantClientMemoryIndex
from memory_svc.adapters.qdrant_edge_index import QdrantEdgeMemoryIndex
from memory_svc.domain.model import Scope
from qdrant_client import AsyncQdrantClient

from tests.integration.memory.conftest import DIMENSION, MODEL
from tests.integration.memory.test_memory_index_contract import make_item, new_org, random_units


async def test_edge_data_survives_close_and_reopen(tmp_path: Path) -> None:
    org = new_org()
    items = [make_item(org, f"memory {n}", metadata={"n": str(n)}) for n in range(5)]
    vectors = random_units(5, seed=10)
    index = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    await index.upsert(items, vectors)
    await index.close()

    reopened = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    try:
        assert await reopened.count(org) == 5
        assert await reopened.get(org, [item.id for item in items]) == items
        [(hit, _)] = await reopened.search(org, Scope(), vectors[3], k=1)
        assert hit == items[3].id
    finally:
        await reopened.close()


@pytest.mark.parametrize(("model", "dimension"), [(MODEL, DIMENSION * 2), ("other/model", DIMENSION)])
async def test_edge_refuses_a_store_of_another_embedding_model(tmp_path: Path, model: str, dimension: int) -> None:
    index = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    await index.close()

    with pytest.raises(FailedPrecondition, match="lore reindex") as raised:
        await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=model, dimension=dimension)
    assert raised.value.reason == "EMBEDDING_MODEL_MISMATCH"


async def test_edge_refuses_a_store_without_metadata(tmp_path: Path) -> None:
    index = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    await index.close()
    (tmp_path / "lore_index.json").unlink()

    with pytest.raises(FailedPrecondition, match="lore reindex"):
        await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)


async def test_edge_store_opens_once_at_a_time(tmp_path: Path) -> None:
    index = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    try:
        with pytest.raises(FailedPrecondition) as raised:
            await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
        assert raised.value.reason == "STORE_LOCKED"
    finally:
        await index.close()


async def test_edge_creates_the_payload_indexes_with_org_id_as_tenant(tmp_path: Path) -> None:
    import qdrant_edge as qe

    index = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    try:
        schema = index._shard.info().payload_schema
        assert schema["org_id"].data_type == qe.PayloadSchemaType.Keyword
        assert schema["org_id"].params.is_tenant is True
        assert schema["created_at"].data_type == qe.PayloadSchemaType.Datetime
        assert schema["current_salience"].data_type == qe.PayloadSchemaType.Float
        assert {"user_id", "agent_id", "team_id", "memory_type", "status"} <= set(schema)
    finally:
        await index.close()


async def test_edge_optimize_keeps_the_data_searchable(tmp_path: Path) -> None:
    org = new_org()
    items = [make_item(org, f"memory {n}") for n in range(300)]
    vectors = random_units(300, seed=11)
    index = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    try:
        await index.upsert(items, vectors)
        await index.optimize()
        assert await index.count(org) == 300
        [(hit, score)] = await index.search(org, Scope(), vectors[42], k=1)
        assert hit == items[42].id
        assert score == pytest.approx(1.0, abs=1e-5)
    finally:
        await index.close()


async def test_edge_refuses_calls_after_close(tmp_path: Path) -> None:
    index = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    await index.close()
    await index.close()  # idempotent

    with pytest.raises(FailedPrecondition):
        await index.count(new_org())


async def test_upsert_rejects_vectors_of_the_wrong_shape(tmp_path: Path) -> None:
    index = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    try:
        with pytest.raises(ValueError, match="shape"):
            await index.upsert([make_item(new_org())], np.ones((1, DIMENSION + 1), dtype=np.float32))
    finally:
        await index.close()


@pytest.mark.parametrize(("model", "dimension"), [(MODEL, DIMENSION * 2), ("other/model", DIMENSION)])
async def test_client_refuses_a_collection_of_another_embedding_model(model: str, dimension: int) -> None:
    client = AsyncQdrantClient(location=":memory:")
    try:
        await QdrantClientMemoryIndex.open(client, embedding_model=MODEL, dimension=DIMENSION)

        with pytest.raises(FailedPrecondition, match="lore reindex") as raised:
            await QdrantClientMemoryIndex.open(client, embedding_model=model, dimension=dimension)
        assert raised.value.reason == "EMBEDDING_MODEL_MISMATCH"

        reopened = await QdrantClientMemoryIndex.open(client, embedding_model=MODEL, dimension=DIMENSION)
        assert await reopened.count(new_org()) == 0
    finally:
        await client.close()


async def test_client_stores_the_embedding_model_with_the_collection() -> None:
    client = AsyncQdrantClient(location=":memory:")
    try:
        index = await QdrantClientMemoryIndex.open(client, embedding_model=MODEL, dimension=DIMENSION)
        info = await client.get_collection(index.collection)
        assert info.config.metadata["lore_embedding_model"] == MODEL
        assert info.config.metadata["lore_dimension"] == DIMENSION
        assert set(info.config.params.vectors) == {"dense"}
        assert set(info.config.params.sparse_vectors) == {"bm25"}
    finally:
        await client.close()


class _ThreadRecordingEdgeIndex(QdrantEdgeMemoryIndex):
    """Records the thread each engine method runs on."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.threads: dict[str, set[int]] = {}

    def _engine(self, method: str, *args: Any) -> Any:
        self.threads.setdefault(method, set()).add(threading.get_ident())
        return super()._engine(method, *args)


async def test_edge_recall_reads_run_on_the_event_loop_and_the_rest_in_worker_threads(tmp_path: Path) -> None:
    org = new_org()
    items = [make_item(org, f"memory {n}") for n in range(20)]
    vectors = random_units(20, seed=12)
    index = await _ThreadRecordingEdgeIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    try:
        await index.upsert(items, vectors)
        [(hit, _)] = await index.search(org, Scope(), vectors[4], k=1)
        assert await index.get(org, [hit]) == [items[4]]
        assert await index.count(org) == 20
        assert await index.org_ids() == [org]
    finally:
        await index.close()

    loop_thread = threading.get_ident()
    assert index.threads["query"] == {loop_thread}
    assert index.threads["scroll"] == {loop_thread}
    assert loop_thread not in index.threads["count"] | index.threads["facet"]


async def test_edge_search_waits_while_calls_are_held_for_a_swap(tmp_path: Path) -> None:
    org = new_org()
    items = [make_item(org, f"memory {n}") for n in range(5)]
    vectors = random_units(5, seed=13)
    index = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    try:
        await index.upsert(items, vectors)
        index._calls_open.clear()  # what swap_in() does while the directories swap
        search = asyncio.create_task(index.search(org, Scope(), vectors[2], k=1))
        for _ in range(20):
            await asyncio.sleep(0)
        assert not search.done()
        index._calls_open.set()
        assert (await search)[0][0] == items[2].id
    finally:
        await index.close()


async def test_edge_search_after_close_is_refused_without_waiting(tmp_path: Path) -> None:
    org = new_org()
    index = await QdrantEdgeMemoryIndex.open(tmp_path, embedding_model=MODEL, dimension=DIMENSION)
    await index.close()

    with pytest.raises(FailedPrecondition) as raised:
        await index.search(org, Scope(), random_units(1, seed=14)[0], k=1)
    assert raised.value.reason == "STORE_CLOSED"
