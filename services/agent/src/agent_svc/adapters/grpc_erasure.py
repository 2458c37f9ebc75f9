"""The SubjectEraser port on the memory service (FenceSubject, ListMemories, ForgetSubject: items,
episodes, the access log and the sessions' working memory; PurgeErased, LiftSubjectFence) and the
observations service (FenceSubject, EraseSubject, LiftSubjectFence). Every
call has a deadline; an unreachable service raises DependencyUnavailable, which fails the erase
job so the queue retries it with backoff."""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore.observations.v1 import observation_service_pb2, observation_service_pb2_grpc

from agent_svc.adapters.grpc_calls import rpc
from agent_svc.adapters.grpc_memories import scope_to_pb
from agent_svc.domain.transcript import Scope
from agent_svc.usecases.erasure_ports import ErasedObservations

TIMEOUT_S = 60.0
PAGE = 500  # ListMemories' largest page
SUBJECT_TYPES = {
    "entity": observation_service_pb2.SUBJECT_TYPE_ENTITY,
    "agent": observation_service_pb2.SUBJECT_TYPE_AGENT,
}


class GrpcSubjectEraser:
    def __init__(self, memory: grpc.aio.Channel, observations: grpc.aio.Channel) -> None:
        self._memories = memory_service_pb2_grpc.MemoryServiceStub(memory)
        self._observations = observation_service_pb2_grpc.ObservationServiceStub(observations)

    async def fence(self, subject: Scope, erasure_id: str) -> None:
        await rpc(
            self._memories.FenceSubject(
                memory_service_pb2.FenceSubjectRequest(subject=scope_to_pb(subject), erasure_id=erasure_id),
                timeout=TIMEOUT_S,
            )
        )
        await rpc(
            self._observations.FenceSubject(
                observation_service_pb2.FenceSubjectRequest(subject=scope_to_pb(subject), erasure_id=erasure_id),
                timeout=TIMEOUT_S,
            )
        )

    async def lift_fence(self, erasure_id: str) -> None:
        await rpc(
            self._memories.LiftSubjectFence(
                memory_service_pb2.LiftSubjectFenceRequest(erasure_id=erasure_id), timeout=TIMEOUT_S
            )
        )
        await rpc(
            self._observations.LiftSubjectFence(
                observation_service_pb2.LiftSubjectFenceRequest(erasure_id=erasure_id), timeout=TIMEOUT_S
            )
        )

    async def memory_ids(self, subject: Scope) -> list[str]:
        ids: list[str] = []
        token = ""
        while True:
            page = await rpc(
                self._memories.ListMemories(
                    memory_service_pb2.ListMemoriesRequest(
                        scope=scope_to_pb(subject), page_size=PAGE, page_token=token
                    ),
                    timeout=TIMEOUT_S,
                )
            )
            ids += [memory.id for memory in page.memories]
            if not (token := page.next_page_token):
                return ids

    async def forget_memories(self, subject: Scope, session_ids: Sequence[str], request_id: str) -> dict[str, int]:
        response = await rpc(
            self._memories.ForgetSubject(
                memory_service_pb2.ForgetSubjectRequest(
                    subject=scope_to_pb(subject), session_ids=list(session_ids), request_id=request_id
                ),
                timeout=TIMEOUT_S,
            )
        )
        return {
            "memories": response.memories_deleted,
            "episodes": response.episodes_deleted,
            "access_records": response.access_records_deleted,
            "working_memories": response.working_memories_cleared,
        }

    async def erase_observations(
        self, subject_type: str, subject_id: str, source_ids: Sequence[str], request_id: str, *, user_id: str = ""
    ) -> ErasedObservations:
        response = await rpc(
            self._observations.EraseSubject(
                observation_service_pb2.EraseSubjectRequest(
                    subject_type=SUBJECT_TYPES[subject_type],
                    subject_id=subject_id,
                    source_ids=list(source_ids),
                    request_id=request_id,
                    user_id=user_id,
                ),
                timeout=TIMEOUT_S,
            )
        )
        return ErasedObservations(
            {
                "observations": response.observations_erased,
                "evidence": response.evidence_erased,
                "observations_recomputed": len(response.recomputed_observation_ids),
                "hypotheses": response.hypotheses_erased,
                "hypothesis_evidence": response.hypothesis_evidence_erased,
                "findings": response.findings_erased,
                "unknowns": response.unknowns_erased,
            },
            tuple(response.shared_erased_observation_ids),
        )

    async def request_purge(self) -> None:
        await rpc(self._memories.PurgeErased(memory_service_pb2.PurgeErasedRequest(deferred=True), timeout=TIMEOUT_S))
