"""The memory-management RPCs of MemoryService, mixed into ``MemoryServicer``.

Kept apart from Remember/Recall so each file stays small; the servicer provides the
collaborators (``_index``, ``_catalog``, ``_embedder``, ``_clock``, ``_access_log``, and for
erasure ``_episodes`` and ``_working_memory``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from lore.memory.v1 import memory_service_pb2 as pb
from lore_runtime import errors, request_context

from memory_svc.api import convert, import_convert, manage_convert
from memory_svc.usecases import manage_memories
from memory_svc.usecases.consolidate import run_consolidation
from memory_svc.usecases.decay import run_decay
from memory_svc.usecases.episode_salience import decay_episodes
from memory_svc.usecases.export import export_memories
from memory_svc.usecases.org_transfer import import_memories
from memory_svc.usecases.record_access import record_access
from memory_svc.usecases.reindex import reindex


class MemoryManagementRpcs:
    _index: Any
    _catalog: Any
    _embedder: Any
    _clock: Any
    _access_log: Any
    _episodes: Any
    _working_memory: Any
    _generations: Any
    _erased: Any
    _page_tokens: Any
    _consolidation_threshold: float
    _half_lives: Any
    _episode_half_life_days: float
    _vector_stores: Any
    _vector_state: Any

    async def GetMemory(self, request: pb.GetMemoryRequest, context: Any) -> pb.GetMemoryResponse:
        caller = request_context.current()
        item = await manage_memories.get_memory(
            caller.org_id, manage_convert.id_from_pb(request.id, "id"), index=self._index
        )
        return pb.GetMemoryResponse(memory=convert.memory_to_pb(item))

    async def ListMemories(self, request: pb.ListMemoriesRequest, context: Any) -> pb.ListMemoriesResponse:
        caller = request_context.current()
        page = await manage_memories.list_memories(
            caller.org_id,
            convert.scope_from_pb(request.scope, "scope"),
            convert.memory_types_from_pb(request.memory_types, "memory_types"),
            manage_convert.statuses_from_pb(request.statuses, "statuses"),
            manage_convert.order_from_pb(request.order_by),
            request.page_size,
            request.page_token,
            catalog=self._catalog,
            generations=self._generations,
            tokens=self._page_tokens,
            scope_match=convert.scope_match_from_pb(request.scope_match, "scope_match"),
        )
        return pb.ListMemoriesResponse(
            memories=[convert.memory_to_pb(item) for item in page.items], next_page_token=page.next_page_token
        )

    async def UpdateMemory(self, request: pb.UpdateMemoryRequest, context: Any) -> pb.UpdateMemoryResponse:
        caller = request_context.current()
        memory_id = manage_convert.id_from_pb(request.memory.id, "memory.id")
        changes, mask = manage_convert.update_from_pb(request)
        item = await manage_memories.update_memory(
            caller.org_id,
            memory_id,
            changes,
            mask,
            index=self._index,
            catalog=self._catalog,
            embedder=self._embedder,
            clock=self._clock,
        )
        return pb.UpdateMemoryResponse(memory=convert.memory_to_pb(item))

    async def ForgetMemory(self, request: pb.ForgetMemoryRequest, context: Any) -> pb.ForgetMemoryResponse:
        caller = request_context.current()
        await manage_memories.forget_memory(
            caller.org_id, manage_convert.id_from_pb(request.id, "id"), index=self._index, catalog=self._catalog
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
        threshold = manage_convert.threshold_from_pb(request, self._consolidation_threshold)
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
            yield pb.ExportMemoriesResponse(memories=[convert.memory_to_pb(item) for item in batch])

    async def ImportMemories(self, request: pb.ImportMemoriesRequest, context: Any) -> pb.ImportMemoriesResponse:
        # An operator restore into the caller's org (the gateway's admin scope would guard a route to it).
        caller = request_context.current()
        items = import_convert.memories_from_pb(request, caller.org_id)
        report = await import_memories(caller.org_id, items, index=self._index, embedder=self._embedder)
        return pb.ImportMemoriesResponse(imported=report.imported, skipped=report.skipped)

    async def RecordAccess(self, request: pb.RecordAccessRequest, context: Any) -> pb.RecordAccessResponse:
        caller = request_context.current()
        access = convert.access_from_pb(request, caller)
        recorded = await record_access(
            caller.org_id,
            manage_memories.validate_ids(list(request.memory_ids), "memory_ids"),
            access,
            index=self._index,
            catalog=self._catalog,
            access_log=self._access_log,
            clock=self._clock,
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
