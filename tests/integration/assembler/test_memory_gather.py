"""The assembler reads the memory service in one call and writes what a context kept in one:
counted on the wire, on the running services. A memory service that does not know the gathered
calls (an older replica during a rolling upgrade) is asked one RPC per source, with the same
answers."""

from __future__ import annotations

import uuid
from collections import Counter
from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta

import assembler_svc.bootstrap
import assembler_svc.config
import assembler_svc.server
import grpc
from assembler_svc.adapters.grpc_sources import GrpcMemorySources
from assembler_svc.domain.gathered import Scope
from assembler_svc.domain.memory_reads import (
    ContextUse,
    EpisodeSearchRead,
    EpisodesRead,
    ListRead,
    MemoryReads,
    RecallRead,
)
from lore.assembler.v1 import assembler_service_pb2 as pb
from lore.assembler.v1 import assembler_service_pb2_grpc
from lore.common.v1 import scope_pb2
from lore.memory.v1 import (
    episode_service_pb2,
    episode_service_pb2_grpc,
    memory_service_pb2,
    memory_service_pb2_grpc,
    working_memory_service_pb2,
    working_memory_service_pb2_grpc,
)
from lore_runtime import request_context
from lore_runtime.channels import create_channel
from lore_runtime.proto_time import to_timestamp
from lore_runtime.server import Registration, create_grpc_server

from tests.grpc_harness import SERVICE_TOKENS, server_settings, start_service

USER = scope_pb2.Scope(user_id="u-gather", agent_id="aria")
T = 5.0
FINGERPRINT = "fp;persona=;mood=;sections="


class CountingInterceptor(grpc.aio.UnaryUnaryClientInterceptor):
    """Counts the unary calls a channel makes, by method name."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    async def intercept_unary_unary(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        method = client_call_details.method
        self.calls[(method.decode() if isinstance(method, bytes) else method).rsplit("/", 1)[-1]] += 1
        return await continuation(client_call_details, request)


async def seed(channel: grpc.aio.Channel, metadata) -> None:
    memories = memory_service_pb2_grpc.MemoryServiceStub(channel)
    episodes = episode_service_pb2_grpc.EpisodeServiceStub(channel)
    for content in ("The user is training for a half marathon in May", "The user prefers running at dawn"):
        item = memory_service_pb2.MemoryInput(
            content=content, memory_type=memory_service_pb2.MEMORY_TYPE_FACT, scope=USER, importance=0.8
        )
        await memories.Remember(memory_service_pb2.RememberRequest(memories=[item]), metadata=metadata)
    ended = datetime.now(UTC) - timedelta(hours=3)
    episode = episode_service_pb2.Episode(
        conversation_id=f"conv-{uuid.uuid4().hex[:8]}",
        scope=USER,
        summary="Talked through the half marathon training plan.",
        started_at=to_timestamp(ended - timedelta(minutes=20)),
        ended_at=to_timestamp(ended),
        importance=0.9,
        open_threads=[episode_service_pb2.OpenThread(topic="new shoes", status=episode_service_pb2.THREAD_STATUS_OPEN)],
    )
    await episodes.CreateEpisode(episode_service_pb2.CreateEpisodeRequest(episode=episode), metadata=metadata)


async def test_a_context_and_a_prime_each_make_two_memory_service_calls(services) -> None:
    metadata = (("x-lore-org-id", f"org-{uuid.uuid4().hex[:12]}"), ("x-lore-principal", "test"))
    await seed(services["memory"].channel, metadata)
    counter = CountingInterceptor()
    async with AsyncExitStack() as stack:
        counted = create_channel(services["memory"].address, token=SERVICE_TOKENS, interceptors=[counter])
        stack.push_async_callback(counted.close)
        assembler = await start_service(
            stack,
            "assembler",
            assembler_svc.bootstrap,
            assembler_svc.server,
            assembler_svc.config.Settings,
            {
                "LORE_MEMORY_ADDR": services["memory"].address,
                "LORE_OBSERVATIONS_ADDR": services["observations"].address,
            },
            overrides=assembler_svc.bootstrap.AssemblerOverrides(memory_sources=GrpcMemorySources(counted)),
        )
        stub = assembler_service_pb2_grpc.AssemblerServiceStub(assembler.channel)

        context = await stub.AssembleContext(
            pb.AssembleContextRequest(message="How is the marathon training going?", scope=USER, session_id="s-count"),
            metadata=metadata,
            timeout=10,
        )
        after_context, counter.calls = counter.calls, Counter()
        primed = await stub.Prime(
            pb.PrimeRequest(scope=USER, initial_message="Any news on the half marathon?"), metadata=metadata, timeout=10
        )
        after_prime, counter.calls = counter.calls, Counter()
        profile = await stub.GetUserProfile(
            pb.GetUserProfileRequest(user_id=USER.user_id, agent_id=USER.agent_id), metadata=metadata, timeout=10
        )
        after_profile = counter.calls

    assert "half marathon" in context.context.text and "half marathon" in primed.formatted_context
    assert "half marathon" in profile.profile.text
    assert after_context == {"GatherContext": 1, "RecordContextUse": 1}
    assert after_prime == {"GatherContext": 1, "RecordContextUse": 1}
    assert after_profile == {"GatherContext": 1}


def every_part(scope: Scope, query: str) -> MemoryReads:
    return MemoryReads(
        working_memory="s-old",
        recall=RecallRead(query, scope, 10, "s-old", with_vectors=False),
        recent_episodes=EpisodesRead(scope, 5, 0.0),
        episode_search=EpisodeSearchRead(query, scope, 5),
        open_threads=ListRead(scope, 5),
        salient_facts=ListRead(scope, 10),
        user_facts=ListRead(scope, 10),
    )


async def test_a_memory_service_without_the_gathered_calls_is_read_one_call_per_source(services) -> None:
    """An older replica: the three services of before, no ContextSourceService."""
    org_id = f"org-{uuid.uuid4().hex[:12]}"
    await seed(services["memory"].channel, (("x-lore-org-id", org_id), ("x-lore-principal", "test")))
    servicers = services["memory"].server.servicers
    older = create_grpc_server(
        "127.0.0.1:0",
        [
            Registration(
                servicers[name], add, module.DESCRIPTOR.services_by_name[name.rsplit(".", 1)[-1]], pending="never"
            )
            for name, add, module in (
                (
                    "lore.memory.v1.MemoryService",
                    memory_service_pb2_grpc.add_MemoryServiceServicer_to_server,
                    memory_service_pb2,
                ),
                (
                    "lore.memory.v1.EpisodeService",
                    episode_service_pb2_grpc.add_EpisodeServiceServicer_to_server,
                    episode_service_pb2,
                ),
                (
                    "lore.memory.v1.WorkingMemoryService",
                    working_memory_service_pb2_grpc.add_WorkingMemoryServiceServicer_to_server,
                    working_memory_service_pb2,
                ),
            )
        ],
        settings=server_settings(),
    )
    await older.start()
    counter = CountingInterceptor()
    old_channel = create_channel(f"127.0.0.1:{older.port}", token=SERVICE_TOKENS, interceptors=[counter])
    new_channel = create_channel(services["memory"].address, token=SERVICE_TOKENS)
    scope = Scope(user_id=USER.user_id, agent_id=USER.agent_id)
    try:
        with request_context.bound(request_context.RequestContext(org_id=org_id, principal="test")):
            old = await GrpcMemorySources(old_channel).gather(every_part(scope, "marathon training"), timeout=T)
            new = await GrpcMemorySources(new_channel).gather(every_part(scope, "marathon training"), timeout=T)
            kept = tuple(m.id for m in old.recall.memories)
            await GrpcMemorySources(old_channel).record_use(
                ContextUse(
                    "s-old", "assembled_context", kept, (old.recent_episodes[0].id,), "fp;persona=;mood=;sections="
                ),
                timeout=T,
            )
            state = await GrpcMemorySources(new_channel).working_memory("s-old", timeout=T)
    finally:
        await old_channel.close()
        await new_channel.close()
        await older.stop(grace=None)

    assert old.failures == {} and len(kept) == 2
    assert [m.id for m in old.recall.memories] == [m.id for m in new.recall.memories]
    assert old.recall.query_vector == new.recall.query_vector
    for name in ("recent_episodes", "episode_search", "salient_facts", "user_facts"):
        assert [item.id for item in getattr(old, name)] == [item.id for item in getattr(new, name)], name
    assert old.open_threads == new.open_threads and old.working_memory == new.working_memory
    assert state.fingerprint == FINGERPRINT
    assert counter.calls["GatherContext"] == 1 and counter.calls["RecordContextUse"] == 1, "asked once, each"
    assert counter.calls["Recall"] == 1 and counter.calls["SearchEpisodes"] == 1 and counter.calls["ListMemories"] == 2
    assert counter.calls["RecordAccess"] == 1 and counter.calls["UpdateWorkingMemory"] == 1
