"""After an erasure and a purge, the erased text is gone from the files on disk:
the embedded Qdrant shards (segments and write-ahead log) and Redis's append-only file are grepped
for a marker that only the erased content carried.

The memory service here runs on files of its own: its own data directory for qdrant-edge and its
own embedded Valkey (append-only file on, as ``lore up`` runs it), never a shared Redis. The shards
are compacted in a child process (the default) or, with ``LORE_QDRANT_OPTIMIZE_IN_CHILD=false``, in
the service's process.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import memory_svc.bootstrap
import memory_svc.config
import memory_svc.server
import pytest
from google.protobuf import timestamp_pb2
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import (
    episode_service_pb2,
    episode_service_pb2_grpc,
    memory_service_pb2,
    memory_service_pb2_grpc,
    working_memory_service_pb2,
    working_memory_service_pb2_grpc,
)
from lore_devstack import EmbeddedRedis
from redis.asyncio import Redis

from tests.fakes import HashingEmbedder
from tests.grpc_harness import RunningService, start_service
from tests.polling import eventually

GONE, KEPT = scope_pb2.Scope(user_id="u-gone"), scope_pb2.Scope(user_id="u-kept")
FACT = memory_service_pb2.MEMORY_TYPE_FACT


@dataclass
class OwnFiles:
    service: RunningService
    qdrant: Path
    redis: Path
    redis_url: str

    @property
    def memories(self) -> memory_service_pb2_grpc.MemoryServiceStub:
        return memory_service_pb2_grpc.MemoryServiceStub(self.service.channel)

    @property
    def episodes(self) -> episode_service_pb2_grpc.EpisodeServiceStub:
        return episode_service_pb2_grpc.EpisodeServiceStub(self.service.channel)

    @property
    def working(self) -> working_memory_service_pb2_grpc.WorkingMemoryServiceStub:
        return working_memory_service_pb2_grpc.WorkingMemoryServiceStub(self.service.channel)


@pytest.fixture
async def own(migrated_pg, tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[OwnFiles]:
    redis = EmbeddedRedis(tmp_path / "redis")
    url = redis.start()
    try:
        async with AsyncExitStack() as stack:
            service = await start_service(
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
                    "LORE_ERASURE_PURGE_DELAY_SECONDS": "0.2",
                    "LORE_QDRANT_OPTIMIZE_IN_CHILD": getattr(request, "param", "true"),
                },
                overrides=memory_svc.bootstrap.MemoryOverrides(embedder=HashingEmbedder(384)),
            )
            yield OwnFiles(service, tmp_path / "data" / "qdrant", tmp_path / "redis", url)
    finally:
        redis.stop()


def tenant(org: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org), ("x-lore-principal", "privacy-officer"))


def files_holding(root: Path, marker: str) -> list[str]:
    """Every file under ``root`` whose bytes contain ``marker`` (what ``grep -rl`` prints)."""
    needle, found = marker.encode(), []
    for directory, _, names in os.walk(root):
        for name in names:
            path = Path(directory, name)
            if needle in path.read_bytes():
                found.append(str(path.relative_to(root)))
    return sorted(found)


def stamp(moment: datetime) -> timestamp_pb2.Timestamp:
    value = timestamp_pb2.Timestamp()
    value.FromDatetime(moment)
    return value


async def said_everywhere(own: OwnFiles, org: str, marker: str, session_id: str) -> None:
    """The erased user's words in each store: a memory, an episode, a session's working memory;
    and someone else's memory beside them."""
    memories = [
        memory_service_pb2.MemoryInput(content=f"My passport number is {marker}.", scope=GONE, memory_type=FACT),
        memory_service_pb2.MemoryInput(content="The team prefers morning stand-ups.", scope=KEPT, memory_type=FACT),
    ]
    await own.memories.Remember(memory_service_pb2.RememberRequest(memories=memories), metadata=tenant(org))
    ended = datetime.now(UTC)
    episode = episode_service_pb2.Episode(
        conversation_id=f"conv-{uuid.uuid4().hex[:8]}",
        scope=GONE,
        summary=f"Renewed the passport {marker} in Lisbon.",
        started_at=stamp(ended - timedelta(minutes=5)),
        ended_at=stamp(ended),
    )
    await own.episodes.CreateEpisode(episode_service_pb2.CreateEpisodeRequest(episode=episode), metadata=tenant(org))
    turn = turn_pb2.Turn(id=str(uuid.uuid4()), role=turn_pb2.TURN_ROLE_USER, content=f"It is {marker}.")
    await own.working.AppendTurn(
        working_memory_service_pb2.AppendTurnRequest(session_id=session_id, turn=turn), metadata=tenant(org)
    )


async def forget(own: OwnFiles, org: str, session_id: str) -> None:
    request = memory_service_pb2.ForgetSubjectRequest(subject=GONE, session_ids=[session_id], request_id="erase-1")
    forgotten = await own.memories.ForgetSubject(request, metadata=tenant(org))
    assert (forgotten.memories_deleted, forgotten.episodes_deleted, forgotten.working_memories_cleared) == (1, 1, 1)


async def aof_settled(own: OwnFiles) -> bool:
    """Redis has written what it was sent to its append-only file, and no rewrite is under way: it writes
    a command's AOF entry before its next event loop turn, so one more round trip stands behind it."""
    client = Redis.from_url(own.redis_url)
    try:
        info = await client.info("persistence")
    finally:
        await client.aclose()
    return not any(
        info.get(field, 0) for field in ("aof_rewrite_in_progress", "aof_rewrite_scheduled", "aof_pending_bio_fsync")
    )


async def on_disk(own: OwnFiles, marker: str) -> dict[str, list[str]]:
    await eventually(lambda: aof_settled(own), what="Redis's append-only file settled")
    return {"qdrant": files_holding(own.qdrant, marker), "redis": files_holding(own.redis, marker)}


@pytest.mark.parametrize("own", ["true", "false"], ids=["in-child", "in-process"], indirect=True)
async def test_after_an_erasure_and_a_purge_no_file_of_qdrant_or_redis_holds_the_erased_text(own: OwnFiles) -> None:
    org, session_id, marker = f"org-{uuid.uuid4().hex[:10]}", str(uuid.uuid4()), f"zq{uuid.uuid4().hex}"
    await said_everywhere(own, org, marker, session_id)
    written = await on_disk(own, marker)
    assert written["qdrant"] and written["redis"], f"the marker must reach both stores' files first: {written}"

    await forget(own, org, session_id)
    listed = await own.memories.ListMemories(memory_service_pb2.ListMemoriesRequest(), metadata=tenant(org))
    assert [memory.content for memory in listed.memories] == ["The team prefers morning stand-ups."]
    state = await own.working.GetWorkingMemory(
        working_memory_service_pb2.GetWorkingMemoryRequest(session_id=session_id), metadata=tenant(org)
    )
    assert not state.working_memory.recent_turns
    deleted_only = await on_disk(own, marker)
    assert deleted_only["qdrant"] and deleted_only["redis"], "a deletion alone leaves the bytes (the issue)"

    purged = await own.memories.PurgeErased(memory_service_pb2.PurgeErasedRequest(), metadata=tenant("system"))

    assert {part.store: part.outcome for part in purged.stores} == {
        "qdrant.items": "compacted",
        "qdrant.episodes": "compacted",
        "redis": "compacted",
    }
    assert await on_disk(own, marker) == {"qdrant": [], "redis": []}
    # Everything else is still there and still found.
    recalled = await own.memories.Recall(
        memory_service_pb2.RecallRequest(query="morning stand-ups", scope=KEPT), metadata=tenant(org)
    )
    assert [result.memory.content for result in recalled.results] == ["The team prefers morning stand-ups."]
    await own.memories.Remember(
        memory_service_pb2.RememberRequest(
            memories=[memory_service_pb2.MemoryInput(content="Lunch is at noon.", scope=KEPT, memory_type=FACT)]
        ),
        metadata=tenant(org),
    )


async def test_the_erase_jobs_deferred_request_purges_soon_after(own: OwnFiles) -> None:
    org, session_id, marker = f"org-{uuid.uuid4().hex[:10]}", str(uuid.uuid4()), f"zq{uuid.uuid4().hex}"
    await said_everywhere(own, org, marker, session_id)
    await forget(own, org, session_id)

    asked = await own.memories.PurgeErased(memory_service_pb2.PurgeErasedRequest(deferred=True), metadata=tenant(org))

    assert [(part.store, part.outcome) for part in asked.stores] == [("all", "scheduled")]
    pending = own.qdrant / memory_svc.bootstrap.PURGE_PENDING_FILE
    # A child process per shard: seconds on a busy machine.
    await eventually(lambda: not pending.exists(), timeout=60, what="the deferred purge ran")
    assert not pending.exists(), "the deferred purge ran"
    assert await on_disk(own, marker) == {"qdrant": [], "redis": []}
