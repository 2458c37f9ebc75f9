"""The Forgetting port on the memory and observations services.

A forgotten memory is archived with UpdateMemory (status ARCHIVED, and its metadata gains
``forgotten_by``: the forgetting turn's id or ``request:<id>``, ``forgotten_session`` and
``forgotten_at``), so the browser shows what forgot it. A forgotten belief is invalidated with
ContradictObservation: contradicting evidence of the largest weight (10), source the forgetting
turn (``message``), repeated (each with its own request id) until contradiction outweighs support.
"""

from __future__ import annotations

import grpc
from google.protobuf import field_mask_pb2
from lore.memory.v1 import memory_service_pb2 as mpb
from lore.memory.v1 import memory_service_pb2_grpc, working_memory_service_pb2_grpc
from lore.memory.v1 import working_memory_service_pb2 as wpb
from lore.observations.v1 import observation_service_pb2 as opb
from lore.observations.v1 import observation_service_pb2_grpc
from lore_runtime.errors import FailedPrecondition
from lore_runtime.proto_time import to_timestamp

from agent_svc.adapters.grpc_calls import rpc, rpc_unless_gone
from agent_svc.adapters.grpc_memories import scope_to_pb
from agent_svc.domain.transcript import Scope
from agent_svc.usecases.forget_ports import FoundBelief, FoundMemory, Reason

TIMEOUT_S = 15.0
# Every status a reader may still meet a memory in; archived and consolidated ones are out of reach.
SEARCHED_STATUSES = (
    mpb.MEMORY_STATUS_ACTIVE,
    mpb.MEMORY_STATUS_WARM,
    mpb.MEMORY_STATUS_SUPERSEDED,
    mpb.MEMORY_STATUS_COMPLETED,
)
CURRENT_BELIEFS = (opb.OBSERVATION_STATUS_ACTIVE, opb.OBSERVATION_STATUS_STALE)
MAX_METADATA = 32  # the memory service's limit: a memory with no room left keeps its own first
MAX_CONTRADICTIONS = 8  # weight 10 each: more than any conversation's support
REASON_KEYS = ("forgotten_by", "forgotten_session", "forgotten_at")


def _kind(memory_type: int) -> str:
    return mpb.MemoryType.Name(memory_type).removeprefix("MEMORY_TYPE_").lower()


class GrpcForgetting:
    def __init__(self, memory: grpc.aio.Channel, observations: grpc.aio.Channel) -> None:
        self._memories = memory_service_pb2_grpc.MemoryServiceStub(memory)
        self._working = working_memory_service_pb2_grpc.WorkingMemoryServiceStub(memory)
        self._beliefs = observation_service_pb2_grpc.ObservationServiceStub(observations)

    async def search_memories(self, scope: Scope, query: str, limit: int) -> list[FoundMemory]:
        request = mpb.RecallRequest(
            query=query[:2_000],
            scope=scope_to_pb(Scope(user_id=scope.user_id)),
            k=limit,
            statuses=list(SEARCHED_STATUSES),
            record_access=False,
        )
        found = await rpc(self._memories.Recall(request, timeout=TIMEOUT_S))
        return [
            FoundMemory(
                id=result.memory.id,
                kind=_kind(result.memory.memory_type),
                text=result.memory.content,
                similarity=result.similarity,
                user_id=result.memory.scope.user_id,
                turn_ids=tuple(result.memory.provenance.turn_ids),
            )
            for result in found.results
        ]

    async def archive(self, memory_id: str, reason: Reason) -> bool:
        current = await rpc_unless_gone(self._memories.GetMemory(mpb.GetMemoryRequest(id=memory_id), timeout=TIMEOUT_S))
        if current is None:
            return False
        if current.memory.status == mpb.MEMORY_STATUS_ARCHIVED:
            return False  # forgotten already (or archived before): nothing changes
        metadata = _noted(dict(current.memory.metadata), reason)
        request = mpb.UpdateMemoryRequest(
            memory=mpb.Memory(id=memory_id, status=mpb.MEMORY_STATUS_ARCHIVED, metadata=metadata),
            update_mask=field_mask_pb2.FieldMask(paths=["status", "metadata"]),
        )
        return await rpc_unless_gone(self._memories.UpdateMemory(request, timeout=TIMEOUT_S)) is not None

    async def rewrite(self, memory_id: str, content: str, reason: Reason) -> bool:
        current = await rpc_unless_gone(self._memories.GetMemory(mpb.GetMemoryRequest(id=memory_id), timeout=TIMEOUT_S))
        if current is None:
            return False
        metadata = _noted(dict(current.memory.metadata), reason)
        request = mpb.UpdateMemoryRequest(
            memory=mpb.Memory(id=memory_id, content=content, metadata=metadata),
            update_mask=field_mask_pb2.FieldMask(paths=["content", "metadata"]),
        )
        return await rpc_unless_gone(self._memories.UpdateMemory(request, timeout=TIMEOUT_S)) is not None

    async def search_beliefs(self, scope: Scope, query: str, limit: int) -> list[FoundBelief]:
        request = opb.SearchObservationsRequest(
            agent_id=scope.agent_id,
            query=query[:2_000],
            statuses=list(CURRENT_BELIEFS),
            k=limit,
            user_id=scope.user_id,
            team_id=scope.team_id,
        )
        found = await rpc(self._beliefs.SearchObservations(request, timeout=TIMEOUT_S))
        beliefs = []
        for result in found.results:
            observation = result.observation
            if observation.scope.user_id != scope.user_id:
                continue  # the org's shared beliefs are never one user's to forget
            evidence = observation.evidence
            if not evidence:
                read = await rpc_unless_gone(
                    self._beliefs.GetObservation(opb.GetObservationRequest(id=observation.id), timeout=TIMEOUT_S)
                )
                evidence = read.observation.evidence if read is not None else []
            beliefs.append(
                FoundBelief(
                    id=observation.id,
                    text=observation.summary,
                    similarity=result.similarity,
                    user_id=observation.scope.user_id,
                    source_ids=frozenset(line.source_id for line in evidence if line.source_id),
                )
            )
        return beliefs

    async def invalidate(self, belief_id: str, reason: Reason, request_id: str) -> bool:
        for attempt in range(MAX_CONTRADICTIONS):
            request = opb.ContradictObservationRequest(
                id=belief_id,
                evidence=opb.EvidenceInput(
                    stance=opb.EVIDENCE_STANCE_CONTRADICT,
                    weight=10.0,
                    source_type=opb.SOURCE_TYPE_MESSAGE,
                    source_id=reason.by,
                    excerpt="The user asked to forget this.",
                    observed_at=to_timestamp(reason.at),
                ),
                request_id=f"{request_id}:{attempt}",
            )
            try:
                answer = await rpc_unless_gone(self._beliefs.ContradictObservation(request, timeout=TIMEOUT_S))
            except FailedPrecondition:
                return False  # no longer current: superseded or invalidated already
            if answer is None:
                return False
            if answer.observation.status == opb.OBSERVATION_STATUS_INVALIDATED:
                return True
        return False

    async def summary(self, session_id: str) -> str:
        mask = field_mask_pb2.FieldMask(paths=["summary"])
        request = wpb.GetWorkingMemoryRequest(session_id=session_id, read_mask=mask)
        found = await rpc_unless_gone(self._working.GetWorkingMemory(request, timeout=TIMEOUT_S))
        return found.working_memory.summary if found is not None else ""

    async def rewrite_summary(self, session_id: str, summary: str) -> None:
        request = wpb.UpdateWorkingMemoryRequest(
            session_id=session_id,
            working_memory=wpb.WorkingMemory(summary=summary),
            update_mask=field_mask_pb2.FieldMask(paths=["summary"]),
        )
        await rpc_unless_gone(self._working.UpdateWorkingMemory(request, timeout=TIMEOUT_S))


def _noted(metadata: dict[str, str], reason: Reason) -> dict[str, str]:
    """``metadata`` with the reason's keys (a memory with no room left keeps its own first)."""
    noted = {"forgotten_by": reason.by, "forgotten_session": reason.session_id, "forgotten_at": _iso(reason)}
    for key, value in noted.items():
        if value and (key in metadata or len(metadata) < MAX_METADATA):
            metadata[key] = value
    return metadata


def _iso(reason: Reason) -> str:
    return reason.at.isoformat().replace("+00:00", "Z")
