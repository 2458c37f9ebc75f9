"""gRPC transport of the MemoryService: requests in, use cases called, responses out. The tenant
always comes from ``request_context.current()``, never from the request.

Every RPC of memory_service.proto is served here: Remember and Recall; the management RPCs
(RecordAccess, GetMemory, ListMemories, UpdateMemory, ForgetMemory, ForgetSubject); erasure's fence
(FenceSubject, LiftSubjectFence); the jobs
(RunDecay, RunConsolidation); ``lore org`` transfer (ExportMemories, ImportMemories); and the
operator jobs across every org (Reindex, PurgeErased), which answer UNIMPLEMENTED when the
service was built without the stores they work on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from lore.memory.v1 import memory_service_pb2 as pb
from lore.memory.v1 import memory_service_pb2_grpc
from lore_embeddings import Embedder
from lore_runtime import errors, request_context
from lore_runtime.clock import Clock
from lore_runtime.page_tokens import PageTokens

from memory_svc.api import import_convert
from memory_svc.api import memory_convert as convert
from memory_svc.domain.consolidation import DEFAULT_THRESHOLD
from memory_svc.domain.model import MemoryType
from memory_svc.domain.ranking import RankingWeights
from memory_svc.domain.salience import DEFAULT_HALF_LIFE_DAYS, recency
from memory_svc.usecases import manage_memories
from memory_svc.usecases.access_behind import AccessWriteBehind
from memory_svc.usecases.consolidate import run_consolidation
from memory_svc.usecases.decay import run_decay
from memory_svc.usecases.episode_ports import EpisodeIndex
from memory_svc.usecases.episode_salience import decay_episodes
from memory_svc.usecases.export import export_memories
from memory_svc.usecases.guarded_stores import VectorState
from memory_svc.usecases.maintenance_ports import VectorStores
from memory_svc.usecases.memory_ports import (
    AccessLog,
    AccessRequest,
    ErasedMemories,
    MemoryCatalog,
    MemoryIndex,
    OrderGenerations,
    SubjectFence,
)
from memory_svc.usecases.org_transfer import import_memories
from memory_svc.usecases.purge import PurgeSchedule
from memory_svc.usecases.recall import answer_recall
from memory_svc.usecases.record_access import record_access
from memory_svc.usecases.reindex import reindex
from memory_svc.usecases.remember import remember
from memory_svc.usecases.restate import Restatements
from memory_svc.usecases.subject_fence import FencedWrites, fence_subject, lift_subject_fence
from memory_svc.usecases.working_memory_ports import WorkingMemoryStore


class MemoryServicer(memory_service_pb2_grpc.MemoryServiceServicer):
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
        access_behind: AccessWriteBehind,
        consolidation_threshold: float = DEFAULT_THRESHOLD,
        vector_stores: VectorStores | None = None,
        vector_state: VectorState | None = None,
        generations: OrderGenerations,
        erased: ErasedMemories,
        fence: SubjectFence,
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
        # Uses of memories are written behind the answers (usecases/access_behind.py).
        self._behind = access_behind
        # Erasure (ForgetSubject) also deletes the subject's episodes and clears named sessions.
        self._episodes = episodes
        self._working_memory = working_memory
        self._consolidation_threshold = consolidation_threshold
        self._vector_stores = vector_stores
        self._vector_state = vector_state or VectorState()
        # Keyset page tokens and the salience generation they carry; erased ids Remember refuses.
        self._generations = generations
        self._erased = erased
        # Erasure's fence: the callers' writes (Remember, UpdateMemory, ImportMemories) go through it.
        self._fence = fence
        self._written = FencedWrites(index, fence)
        self._rewritten = FencedWrites(catalog, fence)
        # What reflection learns again reinforces the memory already kept (usecases/restate.py).
        self._restatements = Restatements(self._index, self._rewritten, access_behind)
        self._page_tokens = page_tokens
        self._purges = purges
        # Per-type salience half-lives (LORE_HALF_LIFE_DAYS); recall, decay and consolidation use them.
        self._half_lives = dict(half_lives or {})
        self._weights = RankingWeights(half_lives=self._half_lives)
        # RunDecay refreshes the episodes' stored salience too, with their own half-life.
        self._episode_half_life_days = episode_half_life_days

    async def Remember(self, request: pb.RememberRequest, context: Any) -> pb.RememberResponse:
        caller = request_context.current()
        drafts = convert.drafts_from_pb(request)
        items = await remember(
            caller.org_id,
            drafts,
            request.request_id,
            index=self._written,
            embedder=self._embedder,
            clock=self._clock,
            erased=self._erased,
            restatements=self._restatements,
            principal=caller.principal,
        )
        return pb.RememberResponse(memories=[convert.memory_to_pb(item, self._half_lives) for item in items])

    async def Recall(self, request: pb.RecallRequest, context: Any) -> pb.RecallResponse:
        caller = request_context.current()
        recorded = not request.HasField("record_access") or request.record_access
        answer = await answer_recall(
            caller.org_id,
            request.query,
            convert.scope_from_pb(request.scope, "scope"),
            request.k,
            convert.memory_types_from_pb(request.memory_types, "memory_types"),
            index=self._index,
            embedder=self._embedder,
            clock=self._clock,
            behind=self._behind,
            use=AccessRequest("recall", request.session_id[:256], caller.principal, caller.request_id)
            if recorded
            else None,
            include_embeddings=request.include_embeddings,
            scope_match=convert.scope_match_from_pb(request.scope_match, "scope_match"),
            weights=self._weights,
            **convert.recall_filters_from_pb(request),
        )
        now = self._clock.now()
        response = pb.RecallResponse(
            results=[
                convert.recall_result_to_pb(
                    hit, recency(hit.item.valid_at, now), answer.vectors.get(hit.item.id), self._half_lives
                )
                for hit in answer.hits
            ],
            embedding_model=self._embedder.model_name,
        )
        if request.include_query_embedding:
            response.query_embedding.extend(answer.query_vector.tolist())
        return response

    async def GetMemory(self, request: pb.GetMemoryRequest, context: Any) -> pb.GetMemoryResponse:
        caller = request_context.current()
        item = await manage_memories.get_memory(caller.org_id, convert.id_from_pb(request.id, "id"), index=self._index)
        return pb.GetMemoryResponse(memory=convert.memory_to_pb(item, self._half_lives))

    async def ListMemories(self, request: pb.ListMemoriesRequest, context: Any) -> pb.ListMemoriesResponse:
        caller = request_context.current()
        page = await manage_memories.list_memories(
            caller.org_id,
            convert.scope_from_pb(request.scope, "scope"),
            convert.memory_types_from_pb(request.memory_types, "memory_types"),
            convert.statuses_from_pb(request.statuses, "statuses"),
            convert.order_from_pb(request.order_by),
            request.page_size,
            request.page_token,
            catalog=self._catalog,
            generations=self._generations,
            tokens=self._page_tokens,
            scope_match=convert.scope_match_from_pb(request.scope_match, "scope_match"),
        )
        return pb.ListMemoriesResponse(
            memories=[convert.memory_to_pb(item, self._half_lives) for item in page.items],
            next_page_token=page.next_page_token,
        )

    async def UpdateMemory(self, request: pb.UpdateMemoryRequest, context: Any) -> pb.UpdateMemoryResponse:
        caller = request_context.current()
        memory_id = convert.id_from_pb(request.memory.id, "memory.id")
        changes, mask = convert.update_from_pb(request)
        item = await manage_memories.update_memory(
            caller.org_id,
            memory_id,
            changes,
            mask,
            index=self._written,
            catalog=self._rewritten,
            embedder=self._embedder,
            clock=self._clock,
        )
        return pb.UpdateMemoryResponse(memory=convert.memory_to_pb(item, self._half_lives))

    async def ForgetMemory(self, request: pb.ForgetMemoryRequest, context: Any) -> pb.ForgetMemoryResponse:
        caller = request_context.current()
        await manage_memories.forget_memory(
            caller.org_id,
            convert.id_from_pb(request.id, "id"),
            index=self._index,
            catalog=self._catalog,
            clock=self._clock,
        )
        return pb.ForgetMemoryResponse()

    async def ForgetSubject(self, request: pb.ForgetSubjectRequest, context: Any) -> pb.ForgetSubjectResponse:
        caller = request_context.current()
        erased = await manage_memories.forget_subject(
            caller.org_id,
            convert.scope_from_pb(request.subject, "subject"),
            list(request.session_ids),
            catalog=self._catalog,
            access_log=self._access_log,
            episodes=self._episodes,
            working_memory=self._working_memory,
            erased=self._erased,
        )
        return pb.ForgetSubjectResponse(
            memories_deleted=erased.memories_deleted,
            episodes_deleted=erased.episodes_deleted,
            access_records_deleted=erased.access_records_deleted,
            working_memories_cleared=erased.working_memories_cleared,
        )

    async def RunDecay(self, request: pb.RunDecayRequest, context: Any) -> pb.RunDecayResponse:
        caller = request_context.current()
        report = await run_decay(
            caller.org_id,
            catalog=self._catalog,
            clock=self._clock,
            generations=self._generations,
            half_lives=self._half_lives,
        )
        # The episodes' stored salience is refreshed in the same run; `updated` still counts memories
        # (its documented meaning), the episodes' count is on the span.
        await decay_episodes(
            caller.org_id, index=self._episodes, clock=self._clock, half_life_days=self._episode_half_life_days
        )
        response = pb.RunDecayResponse(updated=report.updated)
        response.computed_at.FromDatetime(report.computed_at)
        return response

    async def RunConsolidation(self, request: pb.RunConsolidationRequest, context: Any) -> pb.RunConsolidationResponse:
        caller = request_context.current()
        threshold = convert.threshold_from_pb(request, self._consolidation_threshold)
        report = await run_consolidation(
            caller.org_id,
            scope=convert.scope_from_pb(request.scope, "scope") if request.HasField("scope") else None,
            memory_types=convert.memory_types_from_pb(request.memory_types, "memory_types"),
            threshold=threshold,
            dry_run=request.dry_run,
            catalog=self._catalog,
            clock=self._clock,
            half_lives=self._half_lives,
        )
        return pb.RunConsolidationResponse(
            examined=report.examined, groups=report.groups, consolidated=report.consolidated, dry_run=report.dry_run
        )

    async def ExportMemories(self, request: pb.ExportMemoriesRequest, context: Any) -> AsyncIterator[Any]:
        caller = request_context.current()
        scope = convert.scope_from_pb(request.scope, "scope")
        async for batch in export_memories(caller.org_id, scope, request.page_size, catalog=self._catalog):
            yield pb.ExportMemoriesResponse(memories=[convert.memory_to_pb(item, self._half_lives) for item in batch])

    async def ImportMemories(self, request: pb.ImportMemoriesRequest, context: Any) -> pb.ImportMemoriesResponse:
        # An operator restore into the caller's org (the gateway's admin scope would guard a route to it).
        caller = request_context.current()
        items = import_convert.memories_from_pb(request, caller.org_id)
        report = await import_memories(caller.org_id, items, index=self._written, embedder=self._embedder)
        return pb.ImportMemoriesResponse(imported=report.imported, skipped=report.skipped)

    async def RecordAccess(self, request: pb.RecordAccessRequest, context: Any) -> pb.RecordAccessResponse:
        caller = request_context.current()
        access = convert.access_from_pb(request, caller)
        recorded = await record_access(
            caller.org_id,
            manage_memories.validate_ids(list(request.memory_ids), "memory_ids"),
            access,
            index=self._index,
            access_log=self._access_log,
            behind=self._behind,
        )
        return pb.RecordAccessResponse(recorded=recorded)

    async def Reindex(self, request: pb.ReindexRequest, context: Any) -> AsyncIterator[Any]:
        # An operator job across every org: callers hold the service credential (lore_runtime/service_auth.py),
        # and the gateway's route needs the operator scope, which an org's admin lacks.
        if self._vector_stores is None:
            raise errors.Unimplemented("this memory service was built without Qdrant stores to reindex")
        steps = reindex(
            stores=self._vector_stores, state=self._vector_state, embedder=self._embedder, force=request.force
        )
        async for step in steps:
            yield pb.ReindexResponse(
                phase=step.phase, done=step.done, total=step.total, model=step.model, dimension=step.dimension
            )

    async def PurgeErased(self, request: pb.PurgeErasedRequest, context: Any) -> pb.PurgeErasedResponse:
        # An operator job across every org (`lore erasure purge`) or the erase job's deferred request.
        if self._purges is None:
            raise errors.Unimplemented("this memory service was built without stores to purge")
        done = self._purges.request() if request.deferred else await self._purges.run_now()
        return pb.PurgeErasedResponse(
            stores=[
                pb.PurgedStore(store=part.store, outcome=part.outcome, kept=part.kept, detail=part.detail)
                for part in done
            ]
        )

    async def FenceSubject(self, request: pb.FenceSubjectRequest, context: Any) -> pb.FenceSubjectResponse:
        caller = request_context.current()
        subject = convert.scope_from_pb(request.subject, "subject")
        await fence_subject(caller.org_id, subject, request.erasure_id, fence=self._fence)
        return pb.FenceSubjectResponse()

    async def LiftSubjectFence(self, request: pb.LiftSubjectFenceRequest, context: Any) -> pb.LiftSubjectFenceResponse:
        caller = request_context.current()
        await lift_subject_fence(caller.org_id, request.erasure_id, fence=self._fence)
        return pb.LiftSubjectFenceResponse()
