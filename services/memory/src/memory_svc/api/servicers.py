"""gRPC transport of the memory service: requests in, use cases called, responses out.

RPCs not defined here answer UNIMPLEMENTED with the capability still to come
(``lore_runtime.pending``); the tenant always comes from ``request_context.current()``.
"""

from __future__ import annotations

from lore.memory.v1 import (
    episode_service_pb2_grpc,
    memory_service_pb2,
    memory_service_pb2_grpc,
    working_memory_service_pb2_grpc,
)
from lore_embeddings import Embedder
from lore_runtime import request_context

from memory_svc.api import convert
from memory_svc.usecases.ports import Clock, MemoryIndex
from memory_svc.usecases.recall import recall
from memory_svc.usecases.remember import remember


class WorkingMemoryServicer(working_memory_service_pb2_grpc.WorkingMemoryServiceServicer):
    """Working memory per session in Redis."""


class MemoryServicer(memory_service_pb2_grpc.MemoryServiceServicer):
    """Long-term memory items in Qdrant."""

    def __init__(self, index: MemoryIndex, embedder: Embedder, clock: Clock) -> None:
        self._index = index
        self._embedder = embedder
        self._clock = clock

    async def Remember(
        self, request: memory_service_pb2.RememberRequest, context
    ) -> memory_service_pb2.RememberResponse:
        caller = request_context.current()
        drafts = convert.drafts_from_pb(request)
        items = await remember(
            caller.org_id, drafts, request.request_id, index=self._index, embedder=self._embedder, clock=self._clock
        )
        return memory_service_pb2.RememberResponse(memories=[convert.memory_to_pb(item) for item in items])

    async def Recall(self, request: memory_service_pb2.RecallRequest, context) -> memory_service_pb2.RecallResponse:
        caller = request_context.current()
        hits = await recall(
            caller.org_id,
            request.query,
            convert.scope_from_pb(request.scope, "scope"),
            request.k,
            convert.memory_types_from_pb(request.memory_types, "memory_types"),
            index=self._index,
            embedder=self._embedder,
            clock=self._clock,
            **convert.recall_filters_from_pb(request),
        )
        return memory_service_pb2.RecallResponse(results=[convert.recall_result_to_pb(hit) for hit in hits])


class EpisodeServicer(episode_service_pb2_grpc.EpisodeServiceServicer):
    """Conversation episodes in Qdrant."""
