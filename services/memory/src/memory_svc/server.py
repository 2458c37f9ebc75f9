from datetime import timedelta

from lore.memory.v1 import (
    context_source_service_pb2,
    context_source_service_pb2_grpc,
    episode_service_pb2,
    episode_service_pb2_grpc,
    memory_service_pb2,
    memory_service_pb2_grpc,
    working_memory_service_pb2,
    working_memory_service_pb2_grpc,
)
from lore_runtime.container_server import create_container_server
from lore_runtime.server import GrpcServer, Registration

from memory_svc.api.context_source_servicer import ContextSourceServicer
from memory_svc.api.episode_servicer import EpisodeServicer
from memory_svc.api.memory_servicer import MemoryServicer
from memory_svc.api.working_memory_servicer import WorkingMemoryServicer
from memory_svc.bootstrap import Container


def create_server(container: Container, address: str) -> GrpcServer:
    settings = container.settings
    working_memory = WorkingMemoryServicer(
        container.working_memory,
        container.leases,
        container.clock,
        max_turns=settings.working_memory_turns,
        ttl=timedelta(seconds=settings.working_memory_ttl_seconds),
    )
    memories = MemoryServicer(
        container.index,
        container.catalog,
        container.embedder,
        container.clock,
        container.access_log,
        episodes=container.episodes,
        working_memory=container.working_memory,
        access_behind=container.access_behind,
        consolidation_threshold=settings.consolidation_threshold,
        vector_stores=container.vector_stores,
        vector_state=container.vector_state,
        generations=container.generations,
        erased=container.erased,
        fence=container.fence,
        page_tokens=container.page_tokens,
        purges=container.purges,
        half_lives=settings.half_lives,
        episode_half_life_days=settings.episode_half_life_days,
    )
    episodes = EpisodeServicer(
        container.episodes,
        container.embedder,
        container.clock,
        container.page_tokens,
        access_log=container.access_log,
        half_life_days=settings.episode_half_life_days,
    )
    return create_container_server(
        address,
        [
            Registration(
                working_memory,
                working_memory_service_pb2_grpc.add_WorkingMemoryServiceServicer_to_server,
                working_memory_service_pb2.DESCRIPTOR.services_by_name["WorkingMemoryService"],
            ),
            Registration(
                memories,
                memory_service_pb2_grpc.add_MemoryServiceServicer_to_server,
                memory_service_pb2.DESCRIPTOR.services_by_name["MemoryService"],
            ),
            Registration(
                episodes,
                episode_service_pb2_grpc.add_EpisodeServiceServicer_to_server,
                episode_service_pb2.DESCRIPTOR.services_by_name["EpisodeService"],
            ),
            # A context's reads and writes in one call each, answered by the three servicers above.
            Registration(
                ContextSourceServicer(memories, episodes, working_memory, container.embedder),
                context_source_service_pb2_grpc.add_ContextSourceServiceServicer_to_server,
                context_source_service_pb2.DESCRIPTOR.services_by_name["ContextSourceService"],
            ),
        ],
        container,
    )
