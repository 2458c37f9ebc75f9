"""gRPC transport of the memory service: requests in, use cases called, responses out.

RPCs not defined here answer UNIMPLEMENTED with the capability still to come
(``lore_runtime.pending``); the tenant always comes from ``request_context.current()``.
"""

from __future__ import annotations

from collections.abc import Mapping

from lore.memory.v1 import (
    memory_service_pb2,
    memory_service_pb2_grpc,
)
from lore_embeddings import Embedder
from lore_runtime import request_context
from lore_runtime.clock import Clock
from lore_runtime.page_tokens import PageTokens

from memory_svc.api import convert
from memory_svc.api.manage_servicer import MemoryManagementRpcs
from memory_svc.api.purge_servicer import PurgeRpcs
from memory_svc.domain.consolidation import DEFAULT_THRESHOLD
from memory_svc.domain.model import MemoryType
from memory_svc.domain.ranking import RankingWeights
from memory_svc.domain.salience import DEFAULT_HALF_LIFE_DAYS, recency
from memory_svc.usecases.episode_ports import EpisodeIndex
from memory_svc.usecases.guarded_stores import VectorState
from memory_svc.usecases.maintenance_ports import VectorStores
from memory_svc.usecases.memory_ports import (
    AccessLog,
    AccessRequest,
    ErasedMemories,
    MemoryCatalog,
    MemoryIndex,
    OrderGenerations,
)
from memory_svc.usecases.purge import PurgeSchedule
from memory_svc.usecases.recall import recall_with_query_vector
from memory_svc.usecases.record_access import record_items_access
from memory_svc.usecases.remember import remember
from memory_svc.usecases.working_memory_ports import WorkingMemoryStore


class MemoryServicer(MemoryManagementRpcs, PurgeRpcs, memory_service_pb2_grpc.MemoryServiceServicer):
    """Long-term memory items in Qdrant; the access log in Postgres; ForgetSubject also reaches the
    episodes and working memory."""

    def __init__(
        self,
        index: MemoryIndex,
        catalog: MemoryCatalog,
        embedder: Embedder,
        clock: Clock,
        access_log: AccessLog,
        *,
        episodes: EpisodeIndex,
        working_memory: WorkingMemoryStore,
        consolidation_threshold: float = DEFAULT_THRESHOLD,
        vector_stores: VectorStores | None = None,
        vector_state: VectorState | None = None,
        generations: OrderGenerations,
        erased: ErasedMemories,
        page_tokens: PageTokens,
        purges: PurgeSchedule | None = None,
        half_lives: Mapping[MemoryType, float] | None = None,
        episode_half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
    ) -> None:
        self._index = index
        self._catalog = catalog
        self._embedder = embedder
        self._clock = clock
        self._access_log = access_log
        # Erasure (ForgetSubject) also deletes the subject's episodes and clears named sessions.
        self._episodes = episodes
        self._working_memory = working_memory
        self._consolidation_threshold = consolidation_threshold
        self._vector_stores = vector_stores
        self._vector_state = vector_state or VectorState()
        # Keyset page tokens and the salience generation they carry; erased ids Remember refuses.
        self._generations = generations
        self._erased = erased
        self._page_tokens = page_tokens
        self._purges = purges
        # Per-type salience half-lives (LORE_HALF_LIFE_DAYS); recall, decay and consolidation use them.
        self._half_lives = dict(half_lives or {})
        self._weights = RankingWeights(half_lives=self._half_lives)
        # RunDecay refreshes the episodes' stored salience too, with their own half-life.
        self._episode_half_life_days = episode_half_life_days

    async def Remember(
        self, request: memory_service_pb2.RememberRequest, context
    ) -> memory_service_pb2.RememberResponse:
        caller = request_context.current()
        drafts = convert.drafts_from_pb(request)
        items = await remember(
            caller.org_id,
            drafts,
            request.request_id,
            index=self._index,
            embedder=self._embedder,
            clock=self._clock,
            erased=self._erased,
        )
        return memory_service_pb2.RememberResponse(memories=[convert.memory_to_pb(item) for item in items])

    async def Recall(self, request: memory_service_pb2.RecallRequest, context) -> memory_service_pb2.RecallResponse:
        caller = request_context.current()
        hits, query_vector = await recall_with_query_vector(
            caller.org_id,
            request.query,
            convert.scope_from_pb(request.scope, "scope"),
            request.k,
            convert.memory_types_from_pb(request.memory_types, "memory_types"),
            index=self._index,
            embedder=self._embedder,
            clock=self._clock,
            scope_match=convert.scope_match_from_pb(request.scope_match, "scope_match"),
            weights=self._weights,
            **convert.recall_filters_from_pb(request),
        )
        if hits and (not request.HasField("record_access") or request.record_access):
            await record_items_access(
                caller.org_id,
                [hit.item for hit in hits],
                AccessRequest("recall", request.session_id[:256], caller.principal, caller.request_id),
                catalog=self._catalog,
                access_log=self._access_log,
                clock=self._clock,
            )
        now = self._clock.now()
        ids = [hit.item.id for hit in hits]
        stored = await self._index.vectors(caller.org_id, ids) if request.include_embeddings and hits else {}
        response = memory_service_pb2.RecallResponse(
            results=[
                convert.recall_result_to_pb(hit, recency(hit.item.valid_at, now), stored.get(hit.item.id))
                for hit in hits
            ],
            embedding_model=self._embedder.model_name,
        )
        if request.include_query_embedding:
            response.query_embedding.extend(query_vector.tolist())
        return response
