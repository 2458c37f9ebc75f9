"""Times stored in the old form are repaired at the memory service's start-up.

Before the timestamp rule, Remember took ``validAt: 0001-01-01T00:00:00Z`` and stored it as
``1-01-01T00:00:00.000000Z`` (``strftime("%Y")`` does not pad); from then on every read of that
memory (GetMemory, ListMemories, the org's export, decay, consolidation) failed, across restarts.
Here such records are planted straight into the embedded Qdrant store, exactly as the bug left them;
a restart of the service repairs them, and every read answers again.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import grpc
import memory_svc.bootstrap
import memory_svc.config
import memory_svc.server
import pytest
from google.protobuf import timestamp_pb2
from lore.common.v1 import scope_pb2
from lore.memory.v1 import episode_service_pb2, episode_service_pb2_grpc, memory_service_pb2, memory_service_pb2_grpc
from lore_devstack import EmbeddedRedis
from memory_svc.adapters.qdrant_engine import PayloadWrite

from tests.fakes import HashingEmbedder
from tests.grpc_harness import RunningService, start_service

FACT = memory_service_pb2.MEMORY_TYPE_FACT
OLD_YEAR_ONE = "1-01-01T00:00:00.000000Z"  # what strftime("%Y-%m-%dT%H:%M:%S.%fZ") wrote for year 1
OLD_NAIVE = "2023-05-08T13:56:00"  # no offset
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)


def stamp(moment: datetime) -> timestamp_pb2.Timestamp:
    value = timestamp_pb2.Timestamp()
    value.FromDatetime(moment)
    return value


@pytest.fixture
async def memory_service(migrated_pg, tmp_path: Path) -> AsyncIterator[Callable[[], AbstractAsyncContextManager]]:
    """A factory: the memory service started on the same data directory each time it is entered."""
    redis = EmbeddedRedis(tmp_path / "redis")
    url = redis.start()

    @asynccontextmanager
    async def started() -> AsyncIterator[RunningService]:
        async with AsyncExitStack() as stack:
            yield await start_service(
                stack,
                "memory",
                memory_svc.bootstrap,
                memory_svc.server,
                memory_svc.config.Settings,
                {
                    "LORE_DATABASE_URL": migrated_pg.app_dsn,
                    "LORE_REDIS_URL": url,
                    "LORE_DATA_DIR": str(tmp_path / "data"),
                    "LORE_MAINTENANCE_INTERVAL_SECONDS": "0",
                },
                overrides=memory_svc.bootstrap.MemoryOverrides(embedder=HashingEmbedder(384)),
            )

    try:
        yield started
    finally:
        redis.stop()


def tenant(org: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org), ("x-lore-principal", "tester"))


async def plant(service: RunningService, store: str, org: str, point: str, payload: dict[str, str]) -> None:
    """Overwrite stored fields of a point directly in the engine, as the old release wrote them."""
    engine = getattr(service.container.vector_stores, store).store
    await engine._set_payloads(lambda: [PayloadWrite(org, point, payload)], what="plant")


async def test_a_memory_stored_with_an_unpadded_year_reads_again_after_the_start_up_repair(memory_service):
    org = f"org-{uuid.uuid4().hex[:12]}"
    scope = scope_pb2.Scope(user_id="u-old")
    async with memory_service() as service:
        memories = memory_service_pb2_grpc.MemoryServiceStub(service.channel)
        episodes = episode_service_pb2_grpc.EpisodeServiceStub(service.channel)
        written = await memories.Remember(
            memory_service_pb2.RememberRequest(
                memories=[
                    memory_service_pb2.MemoryInput(content="Old fact.", memory_type=FACT, scope=scope),
                    memory_service_pb2.MemoryInput(content="Naive fact.", memory_type=FACT, scope=scope),
                ]
            ),
            metadata=tenant(org),
        )
        old, naive = (memory.id for memory in written.memories)
        episode = await episodes.CreateEpisode(
            episode_service_pb2.CreateEpisodeRequest(
                episode=episode_service_pb2.Episode(
                    conversation_id="conv-old",
                    scope=scope,
                    summary="Planned a move.",
                    started_at=stamp(datetime(2023, 5, 8, 13, tzinfo=UTC)),
                    ended_at=stamp(datetime(2023, 5, 8, 14, tzinfo=UTC)),
                )
            ),
            metadata=tenant(org),
        )
        await plant(service, "items", org, old, {"valid_at": OLD_YEAR_ONE, "created_at": OLD_YEAR_ONE})
        await plant(service, "items", org, naive, {"valid_at": OLD_NAIVE})
        await plant(service, "episodes", org, episode.episode.id, {"started_at": OLD_YEAR_ONE})

    async with memory_service() as service:  # the start-up repair runs here
        memories = memory_service_pb2_grpc.MemoryServiceStub(service.channel)
        episodes = episode_service_pb2_grpc.EpisodeServiceStub(service.channel)
        got = await memories.GetMemory(memory_service_pb2.GetMemoryRequest(id=old), metadata=tenant(org))
        assert got.memory.valid_at.ToDatetime(tzinfo=UTC) == EARLIEST
        assert got.memory.created_at.ToDatetime(tzinfo=UTC) == EARLIEST
        got_naive = await memories.GetMemory(memory_service_pb2.GetMemoryRequest(id=naive), metadata=tenant(org))
        assert got_naive.memory.valid_at.ToDatetime(tzinfo=UTC) == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)

        listed = await memories.ListMemories(
            memory_service_pb2.ListMemoriesRequest(scope=scope, page_size=10), metadata=tenant(org)
        )
        assert sorted(memory.id for memory in listed.memories) == sorted([old, naive])
        recalled = await memories.Recall(
            memory_service_pb2.RecallRequest(
                query="fact", scope=scope, k=10, valid_after=stamp(EARLIEST), valid_before=stamp(datetime(1901, 1, 1))
            ),
            metadata=tenant(org),
        )
        assert [hit.memory.id for hit in recalled.results] == [old]  # the datetime index ranges over it
        exported = [
            memory.id
            async for page in memories.ExportMemories(memory_service_pb2.ExportMemoriesRequest(), metadata=tenant(org))
            for memory in page.memories
        ]
        assert sorted(exported) == sorted([old, naive])
        decayed = await memories.RunDecay(memory_service_pb2.RunDecayRequest(), metadata=tenant(org))
        assert decayed is not None

        got_episode = await episodes.GetEpisode(
            episode_service_pb2.GetEpisodeRequest(id=episode.episode.id), metadata=tenant(org)
        )
        assert got_episode.episode.started_at.ToDatetime(tzinfo=UTC) == EARLIEST
        listed_episodes = await episodes.ListEpisodes(
            episode_service_pb2.ListEpisodesRequest(scope=scope, page_size=10), metadata=tenant(org)
        )
        assert [item.id for item in listed_episodes.episodes] == [episode.episode.id]

        page, _ = await service.container.vector_stores.items.store._scroll(_everything_of(org))
        stored = {str(point.payload["id"]): point.payload for point in page}
        assert stored[old]["valid_at"] == stored[old]["created_at"] == "1900-01-01T00:00:00.000000Z"
        assert stored[naive]["valid_at"] == "2023-05-08T13:56:00.000000Z"


async def test_the_repair_writes_nothing_when_every_time_is_in_the_stored_form(memory_service):
    from memory_svc.adapters.timestamp_repair import repair_stored_timestamps

    org = f"org-{uuid.uuid4().hex[:12]}"
    async with memory_service() as service:
        memories = memory_service_pb2_grpc.MemoryServiceStub(service.channel)
        await memories.Remember(
            memory_service_pb2.RememberRequest(
                memories=[
                    memory_service_pb2.MemoryInput(
                        content="Dated at the bound.",
                        memory_type=FACT,
                        scope=scope_pb2.Scope(user_id="u"),
                        valid_at=stamp(datetime(2999, 12, 31, 23, 59, 59, tzinfo=UTC)),
                    )
                ]
            ),
            metadata=tenant(org),
        )
        stores = service.container.vector_stores
        repaired = await repair_stored_timestamps(stores.items.store, stores.episodes.store)
        assert [(done.store, done.points) for done in repaired] == [("memory items", 0), ("episodes", 0)]


async def test_grpc_refuses_a_time_outside_the_calendar_on_remember_create_episode_and_import(memory_service):
    org = f"org-{uuid.uuid4().hex[:12]}"
    scope = scope_pb2.Scope(user_id="u")
    year_one = timestamp_pb2.Timestamp(seconds=-62_135_596_800)
    async with memory_service() as service:
        memories = memory_service_pb2_grpc.MemoryServiceStub(service.channel)
        episodes = episode_service_pb2_grpc.EpisodeServiceStub(service.channel)
        calls = {
            "memories[0].valid_at": memories.Remember(
                memory_service_pb2.RememberRequest(
                    memories=[
                        memory_service_pb2.MemoryInput(content="x", memory_type=FACT, scope=scope, valid_at=year_one)
                    ]
                ),
                metadata=tenant(org),
            ),
            "episode.started_at": episodes.CreateEpisode(
                episode_service_pb2.CreateEpisodeRequest(
                    episode=episode_service_pb2.Episode(
                        conversation_id="c",
                        scope=scope,
                        summary="s",
                        started_at=year_one,
                        ended_at=stamp(datetime(2023, 5, 8, tzinfo=UTC)),
                    )
                ),
                metadata=tenant(org),
            ),
            "ended_after": episodes.ListEpisodes(
                episode_service_pb2.ListEpisodesRequest(scope=scope, ended_after=year_one), metadata=tenant(org)
            ),
        }
        for field, call in calls.items():
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await call
            assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert raised.value.details() == (
                f"invalid {field}: must be between 1900-01-01T00:00:00Z and 2999-12-31T23:59:59Z"
            )


def _everything_of(org: str):
    from memory_svc.adapters.memory_payload import org_condition
    from memory_svc.adapters.qdrant_engine import Scroll, where

    return Scroll("test read", where([org_condition(org)]), 100)
