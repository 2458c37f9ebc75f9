"""The WorkingMemory port on the memory service's WorkingMemoryService: the session lease, the
recent turns, the last tool result, and what reflection updates (summary, plan, mood)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import grpc
from google.protobuf import field_mask_pb2
from lore.common.v1 import turn_pb2
from lore.memory.v1 import working_memory_service_pb2 as pb
from lore.memory.v1 import working_memory_service_pb2_grpc
from lore_runtime.errors import DependencyUnavailable
from lore_runtime.proto_time import to_timestamp
from lore_runtime.proto_turns import ROLE_TO_PB, tool_to_pb

from agent_svc.adapters.grpc_calls import rpc
from agent_svc.domain.extraction import Plan
from agent_svc.domain.transcript import ToolInteraction, Turn
from agent_svc.usecases.turn_loop_ports import EmotionPoint

log = logging.getLogger(__name__)

LEASE_TTL_MS = 30_000  # longer than a turn ever takes; released as soon as the turn is done
LEASE_WAIT_MS = 5_000  # how long a turn waits for the one before it
TIMEOUT_S = 5.0
APPEND_READ = field_mask_pb2.FieldMask(paths=["turn_count"])


def turn_to_pb(turn: Turn) -> turn_pb2.Turn:
    """The transcript's turn for working memory, keyed by its transcript id: working memory gives
    it an id of its own and keeps it once however often a retry appends it."""
    message = turn_pb2.Turn(
        role=ROLE_TO_PB[turn.role],
        content=turn.content,
        created_at=to_timestamp(turn.created_at),
        idempotency_key=f"turn:{turn.id}",
        tool_interactions=[tool_to_pb(tool) for tool in turn.tool_interactions],
    )
    message.metadata.update(turn.metadata)
    return message


class GrpcWorkingMemory:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._stub = working_memory_service_pb2_grpc.WorkingMemoryServiceStub(channel)
        self._tokens: dict[tuple[str, str], int] = {}

    async def _call(self, method, request, timeout: float = TIMEOUT_S):
        return await rpc(method(request, timeout=timeout))

    async def acquire_lease(self, session_id: str, holder: str) -> int | None:
        try:
            response = await self._call(
                self._stub.AcquireSessionLease,
                pb.AcquireSessionLeaseRequest(
                    session_id=session_id, holder=holder, ttl_ms=LEASE_TTL_MS, wait_ms=LEASE_WAIT_MS
                ),
                timeout=TIMEOUT_S + LEASE_WAIT_MS / 1000,
            )
        except DependencyUnavailable as error:
            log.warning(
                "session %s: no lease (memory service unavailable: %s); the transcript orders turns", session_id, error
            )
            return None
        token = response.lease.fencing_token
        self._tokens[(session_id, holder)] = token
        return token

    async def acquire_lease_and_append(self, session_id: str, holder: str, turn: Turn) -> int | None:
        """One AppendTurn that takes the lease first (``acquire_lease``), where a turn made two calls."""
        request = pb.AppendTurnRequest(
            session_id=session_id,
            turn=turn_to_pb(turn),
            read_mask=APPEND_READ,
            acquire_lease=pb.LeaseToAcquire(holder=holder, ttl_ms=LEASE_TTL_MS, wait_ms=LEASE_WAIT_MS),
        )
        try:
            response = await self._call(self._stub.AppendTurn, request, timeout=TIMEOUT_S + LEASE_WAIT_MS / 1000)
        except DependencyUnavailable as error:
            log.warning(
                "session %s: no lease (memory service unavailable: %s); the transcript orders turns", session_id, error
            )
            return None
        if not response.HasField("lease"):
            # A memory service older than `acquire_lease` appended the turn without taking the lease.
            return await self.acquire_lease(session_id, holder)
        token = response.lease.fencing_token
        self._tokens[(session_id, holder)] = token
        return token

    async def release_lease(self, session_id: str, holder: str) -> None:
        token = self._tokens.pop((session_id, holder), None)
        if token is not None:
            await self._call(
                self._stub.ReleaseSessionLease,
                pb.ReleaseSessionLeaseRequest(session_id=session_id, holder=holder, fencing_token=token),
            )

    async def append_turn(self, session_id: str, turn: Turn, fencing_token: int | None) -> None:
        # The answer is not read: ask for the least of it (the service then reads no turn back).
        request = pb.AppendTurnRequest(session_id=session_id, turn=turn_to_pb(turn), read_mask=APPEND_READ)
        if fencing_token is not None:
            request.fencing_token = fencing_token
        await self._call(self._stub.AppendTurn, request)

    async def set_last_tool_result(self, session_id: str, tool: ToolInteraction) -> None:
        await self._update(session_id, pb.WorkingMemory(last_tool_result=tool_to_pb(tool)), ["last_tool_result"])

    async def reflect(self, session_id: str, summary: str, plan: Plan | None, emotions: Sequence[EmotionPoint]) -> None:
        """Summary and plan are replaced; new mood readings join the trajectory's last five."""
        paths = ["summary"]
        memory = pb.WorkingMemory(summary=summary)
        if plan is not None:
            memory.active_plan.CopyFrom(pb.Plan(goal=plan.goal, progress=plan.progress, next_step=plan.next_step))
            paths.append("active_plan")
        if emotions:
            current = await self._call(
                self._stub.GetWorkingMemory,
                pb.GetWorkingMemoryRequest(
                    session_id=session_id, read_mask=field_mask_pb2.FieldMask(paths=["emotion_trajectory"])
                ),
            )
            seen = {reading.turn_id for reading in current.working_memory.emotion_trajectory}
            readings = list(current.working_memory.emotion_trajectory) + [
                pb.EmotionReading(
                    emotion=point.label,
                    valence=point.valence,
                    intensity=point.intensity,
                    turn_id=point.turn_id,
                    observed_at=to_timestamp(point.observed_at),
                )
                for point in emotions
                if point.turn_id not in seen
            ]
            memory.emotion_trajectory.extend(readings[-5:])
            paths.append("emotion_trajectory")
        await self._update(session_id, memory, paths)

    async def _update(self, session_id: str, memory: pb.WorkingMemory, paths: list[str]) -> None:
        await self._call(
            self._stub.UpdateWorkingMemory,
            pb.UpdateWorkingMemoryRequest(
                session_id=session_id, working_memory=memory, update_mask=field_mask_pb2.FieldMask(paths=paths)
            ),
        )
