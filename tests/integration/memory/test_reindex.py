"""A model change end to end on both Qdrant back ends: the service starts on stale vectors, refuses
vector work but serves reads, and `Reindex` re-embeds every org's items and episodes, resumably."""

from __future__ import annotations

import json
import uuid
from contextlib import AsyncExitStack
from datetime import UTC, datetime
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from lore.common.v1 import scope_pb2
from lore.memory.v1 import episode_service_pb2, memory_service_pb2
from lore_runtime.errors import FailedPrecondition
from memory_svc.adapters import edge_shard_swap
from memory_svc.adapters.qdrant_client_stores import SWAP_KEY, aliased_collection
from memory_svc.domain.model import Scope
from memory_svc.usecases.reindex import reindex

from tests.fakes import HashingEmbedder
from tests.integration.memory.reindex_harness import BACKENDS, Backend, NewModelEmbedder, seed, start, tenant

OLD, NEW = HashingEmbedder(), NewModelEmbedder()


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path: Path):
    store = Backend(request.param, tmp_path)
    yield store
    await store.aclose()


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:10]}"


def reason_of(error: grpc.aio.AioRpcError) -> str:
    info = error_details_pb2.ErrorInfo()
    rpc_status.from_call(error).details[0].Unpack(info)
    return info.reason


async def refused(call) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call
    return raised.value


async def seeded(backend: Backend, orgs: list[str], items: int = 5, episodes: int = 2) -> dict[str, list[str]]:
    """Data written with the old model, then the stores closed (a restart follows)."""
    stores = await backend.open(OLD)
    async with AsyncExitStack() as stack:
        service = await start(stack, stores, OLD)
        ids = {org: await seed(service, org, items, episodes) for org in orgs}
    await stores.close()
    return ids


def episode(summary: str) -> episode_service_pb2.Episode:
    sent = episode_service_pb2.Episode(conversation_id="c-new", scope=scope_pb2.Scope(user_id="u"), summary=summary)
    sent.started_at.FromDatetime(datetime(2026, 3, 1, tzinfo=UTC))
    sent.ended_at.FromDatetime(datetime(2026, 3, 1, 1, tzinfo=UTC))
    return sent


def recall(org: str, query: str) -> memory_service_pb2.RecallRequest:
    return memory_service_pb2.RecallRequest(query=query, scope=scope_pb2.Scope(user_id="u"), k=3, record_access=False)


async def test_a_model_change_refuses_vector_rpcs_serves_reads_and_reindex_re_embeds_every_org(backend) -> None:
    orgs = [new_org(), new_org(), new_org()]
    ids = await seeded(backend, orgs)
    stores = await backend.open(NEW)
    assert stores.state.stale, "the start-up check found the old model"
    async with AsyncExitStack() as stack:
        service = await start(stack, stores, NEW)
        org = orgs[0]

        fact = memory_service_pb2.MemoryInput(content="x", memory_type=memory_service_pb2.MEMORY_TYPE_FACT)
        for call in (
            service.memories.Recall(recall(org, "kettle"), metadata=tenant(org)),
            service.memories.Remember(memory_service_pb2.RememberRequest(memories=[fact]), metadata=tenant(org)),
            service.episodes.CreateEpisode(
                episode_service_pb2.CreateEpisodeRequest(episode=episode("later"), request_id="r"), metadata=tenant(org)
            ),
        ):
            error = await refused(call)
            assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert reason_of(error) == "EMBEDDING_MODEL_MISMATCH"
            assert "lore reindex" in error.details()
        got = await service.memories.GetMemory(
            memory_service_pb2.GetMemoryRequest(id=ids[org][0]), metadata=tenant(org)
        )
        assert got.memory.content.startswith(org)
        listed = await service.memories.ListMemories(memory_service_pb2.ListMemoriesRequest(), metadata=tenant(org))
        assert len(listed.memories) == 5
        episodes = await service.episodes.ListEpisodes(episode_service_pb2.ListEpisodesRequest(), metadata=tenant(org))
        assert len(episodes.episodes) == 2

        steps = [
            step async for step in service.memories.Reindex(memory_service_pb2.ReindexRequest(), metadata=tenant("ops"))
        ]

        phases = [step.phase for step in steps]
        assert phases[-1] == "done" and phases.index("episodes") > phases.index("items")
        assert sorted(phases, key=["items", "episodes", "swap", "done"].index) == phases
        for phase in ("items", "episodes"):
            counts = [step.done for step in steps if step.phase == phase]
            assert counts == sorted(counts) and counts[-1] == (15 if phase == "items" else 6)
        assert (steps[-1].done, steps[-1].model, steps[-1].dimension) == (21, NEW.model_name, NEW.dimension)
        assert not stores.state.stale

        for org in orgs:
            found = await service.memories.Recall(recall(org, "green kettle cupboard 1"), metadata=tenant(org))
            assert found.results[0].memory.id == ids[org][1]
            assert {result.memory.content.split()[0] for result in found.results} == {org}
        created = await service.episodes.CreateEpisode(
            episode_service_pb2.CreateEpisodeRequest(episode=episode("after the reindex"), request_id="r-new"),
            metadata=tenant(orgs[0]),
        )
        assert created.episode.id
    await stores.close()

    reopened = await backend.open(NEW)  # the swap is durable: the next start finds the new model
    try:
        assert not reopened.state.stale
        assert await reopened.items.count(orgs[1]) == 5
    finally:
        await reopened.close()
    if backend.kind == "qdrant_edge":
        assert sorted(path.name for path in backend.root.iterdir()) == ["episodes", "lore_index.json", "shard"]
        assert json.loads((backend.root / "lore_index.json").read_text())["lore_embedding_model"] == NEW.model_name


async def test_an_interrupted_reindex_resumes_where_it_stopped_without_duplicates(backend) -> None:
    orgs = [new_org(), new_org()]
    ids = await seeded(backend, orgs, items=7, episodes=3)
    stores = await backend.open(NEW)
    steps = reindex(stores=stores, state=stores.state, embedder=NEW, force=False, page_size=3)
    first = [await anext(steps) for _ in range(3)]  # the start and two pages of items, then the process dies
    await steps.aclose()
    assert [step.done for step in first] == [0, 3, 6]
    await stores.close()

    stores = await backend.open(NEW)
    embedded = NEW.calls.copy()
    resumed = [
        step async for step in reindex(stores=stores, state=stores.state, embedder=NEW, force=False, page_size=3)
    ]
    try:
        items = [step for step in resumed if step.phase == "items"]
        assert items[0].done == 6 and items[-1].done == 14  # 14 items: resumed after the recorded pages
        assert NEW.calls[len(embedded) :] == [3, 3, 2, 3, 3]  # the rest of the items, then the episodes
        assert resumed[-1].phase == "done" and resumed[-1].done == 14 + 6
        for org in orgs:
            assert await stores.items.count(org) == 7
            everything = await stores.items.get(org, ids[org])
            assert [item.id for item in everything] == ids[org]
            listed = await stores.episodes.list(org, Scope(), 10)
            assert len(listed.episodes) == 3
    finally:
        await stores.close()


async def test_one_reindex_at_a_time_and_a_forced_one_refuses_writes_while_it_runs(backend) -> None:
    org = new_org()
    await seeded(backend, [org])
    stores = await backend.open(OLD)
    try:
        assert not stores.state.stale
        nothing = [step async for step in reindex(stores=stores, state=stores.state, embedder=OLD, force=False)]
        assert [(step.phase, step.done) for step in nothing] == [("done", 0)]

        running = reindex(stores=stores, state=stores.state, embedder=OLD, force=True, page_size=2)
        await anext(running)
        with pytest.raises(FailedPrecondition) as second:
            await anext(reindex(stores=stores, state=stores.state, embedder=OLD, force=True))
        assert second.value.reason == "REINDEX_RUNNING"
        with pytest.raises(FailedPrecondition) as write:
            await stores.items.replace_payloads(org, [])
        assert write.value.reason == "REINDEX_RUNNING"
        assert await stores.items.count(org) == 5  # reads go on

        rest = [step async for step in running]
        assert rest[-1].phase == "done" and rest[-1].done == 5 + 2
        hits = await stores.items.search(org, Scope(), (await OLD.embed(["blue kettle"]))[0], k=5)
        assert len(hits) == 5
        await stores.items.replace_payloads(org, [])  # writable again
    finally:
        await stores.close()


async def test_a_crash_in_the_middle_of_a_swap_is_completed_at_the_next_start(backend) -> None:
    org = new_org()
    await seeded(backend, [org])
    stores = await backend.open(NEW)
    steps = reindex(stores=stores, state=stores.state, embedder=NEW, force=False)
    async for step in steps:
        if step.phase == "swap":
            break  # both rebuilds are complete; now crash half-way through the swap
    await steps.aclose()
    await stores.close()
    if backend.kind == "qdrant_edge":
        root = backend.root
        edge_shard_swap.write_json_durably(root / edge_shard_swap.MARKER, {})
        for source, target in edge_shard_swap.MOVES[:3]:
            (root / target).parent.mkdir(parents=True, exist_ok=True)
            (root / source).rename(root / target)
    else:
        client = backend.client
        for name in ("memory_items", "episodes"):  # marked, old collection deleted, then the crash: no alias
            names = [collection.name for collection in (await client.get_collections()).collections]
            target = next(candidate for candidate in names if candidate.startswith(f"{name}__"))
            assert await aliased_collection(client, name) is None
            await client.update_collection(target, metadata={SWAP_KEY: True})
            await client.delete_collection(name)

    stores = await backend.open(NEW)
    try:
        assert not stores.state.stale
        assert await stores.items.count(org) == 5
        hits = await stores.items.search(org, Scope(), (await NEW.embed(["red kettle"]))[0], k=5)
        assert len(hits) == 5  # the items now hold the new model's vectors
    finally:
        await stores.close()
