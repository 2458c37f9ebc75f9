"""A memory service on real Qdrant engines whose embedding model can change between starts:
qdrant-edge in a directory, or qdrant-client's local mode (standing in for a server)."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lore.common.v1 import scope_pb2
from lore.memory.v1 import episode_service_pb2, episode_service_pb2_grpc, memory_service_pb2, memory_service_pb2_grpc
from lore_runtime.clock import SystemClock
from lore_runtime.page_tokens import PageTokens
from lore_runtime.server import Registration, create_grpc_server
from memory_svc.adapters.qdrant_client_stores import ClientVectorStores
from memory_svc.adapters.qdrant_edge_stores import EdgeVectorStores
from memory_svc.api.episode_servicer import EpisodeServicer
from memory_svc.api.memory_servicer import MemoryServicer
from memory_svc.usecases.access_behind import AccessWriteBehind
from qdrant_client import AsyncQdrantClient

from tests.fakes import HashingEmbedder, InMemoryErasedMemories, InMemoryOrderGenerations, InMemorySubjectFence
from tests.fakes_working_memory import InMemoryWorkingMemoryStore
from tests.grpc_harness import server_settings, service_channel

BACKENDS = ("qdrant_edge", "qdrant_client_local")


class NewModelEmbedder(HashingEmbedder):
    """The same hashing embedder under another name and dimension: a model change."""

    model_name = "test/hashing-v2"

    def __init__(self) -> None:
        super().__init__(dimension=48)


class Backend:
    """Opens the stores again and again on the same data, as service restarts do."""

    def __init__(self, kind: str, tmp_path: Path) -> None:
        self.kind = kind
        self.root = tmp_path / "qdrant"
        self.client = AsyncQdrantClient(location=":memory:") if kind == "qdrant_client_local" else None

    async def open(self, embedder: Any) -> EdgeVectorStores | ClientVectorStores:
        model = {"embedding_model": embedder.model_name, "dimension": embedder.dimension}
        if self.client is not None:
            return await ClientVectorStores.open(self.client, **model)
        return await EdgeVectorStores.open(self.root, **model)

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.close()


@dataclass
class Service:
    stores: Any
    memories: memory_service_pb2_grpc.MemoryServiceStub
    episodes: episode_service_pb2_grpc.EpisodeServiceStub
    address: str


async def start(stack: AsyncExitStack, stores: Any, embedder: Any) -> Service:
    """MemoryService and EpisodeService on port 0 over ``stores`` (no access log: Recall passes recordAccess false)."""
    clock = SystemClock()
    memory = MemoryServicer(
        stores.items,
        stores.items,
        embedder,
        clock,
        None,
        episodes=stores.episodes,
        working_memory=InMemoryWorkingMemoryStore(),
        access_behind=AccessWriteBehind(stores.items, stores.items, None, clock),  # never flushed: no access log
        vector_stores=stores,
        vector_state=stores.state,
        generations=InMemoryOrderGenerations(),
        erased=InMemoryErasedMemories(),
        fence=InMemorySubjectFence(),
        page_tokens=PageTokens(),
    )
    server = create_grpc_server(
        "127.0.0.1:0",
        [
            Registration(
                memory,
                memory_service_pb2_grpc.add_MemoryServiceServicer_to_server,
                memory_service_pb2.DESCRIPTOR.services_by_name["MemoryService"],
            ),
            Registration(
                EpisodeServicer(stores.episodes, embedder, clock, PageTokens()),
                episode_service_pb2_grpc.add_EpisodeServiceServicer_to_server,
                episode_service_pb2.DESCRIPTOR.services_by_name["EpisodeService"],
            ),
        ],
        settings=server_settings(),
    )
    await server.start()
    stack.push_async_callback(server.stop, grace=None)
    channel = service_channel(f"127.0.0.1:{server.port}")
    stack.push_async_callback(channel.close)
    return Service(
        stores,
        memory_service_pb2_grpc.MemoryServiceStub(channel),
        episode_service_pb2_grpc.EpisodeServiceStub(channel),
        f"127.0.0.1:{server.port}",
    )


def tenant(org: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org), ("x-lore-principal", "t"))


async def seed(service: Service, org: str, items: int, episodes: int) -> list[str]:
    """``items`` memories and ``episodes`` episodes for ``org``; returns the memory ids."""
    memories = [
        memory_service_pb2.MemoryInput(
            content=f"{org} fact {n}: the {['red', 'green', 'blue'][n % 3]} kettle is in cupboard {n}",
            memory_type=memory_service_pb2.MEMORY_TYPE_FACT,
            scope=scope_pb2.Scope(user_id="u"),
            idempotency_key=f"k-{n}",
        )
        for n in range(items)
    ]
    written = await service.memories.Remember(
        memory_service_pb2.RememberRequest(memories=memories), metadata=tenant(org)
    )
    for n in range(episodes):
        ended = datetime(2026, 1, 1 + n, tzinfo=UTC)
        episode = episode_service_pb2.Episode(
            conversation_id=f"c-{n}", scope=scope_pb2.Scope(user_id="u"), summary=f"{org} talked about trip {n}"
        )
        episode.started_at.FromDatetime(ended)
        episode.ended_at.FromDatetime(ended)
        await service.episodes.CreateEpisode(
            episode_service_pb2.CreateEpisodeRequest(episode=episode, request_id=f"r-{n}"), metadata=tenant(org)
        )
    return [memory.id for memory in written.memories]
