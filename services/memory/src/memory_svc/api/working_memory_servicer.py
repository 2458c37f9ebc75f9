"""gRPC transport of WorkingMemoryService: requests in, use cases called, responses out.

The tenant always comes from ``request_context.current()``, never from the request.
"""

from __future__ import annotations

from datetime import timedelta

from lore.memory.v1 import working_memory_service_pb2 as pb
from lore.memory.v1 import working_memory_service_pb2_grpc
from lore_runtime import request_context
from lore_runtime.clock import Clock

from memory_svc.api import working_memory_convert as convert
from memory_svc.domain import working_memory as wm
from memory_svc.usecases import working_memory as usecases
from memory_svc.usecases.working_memory_ports import SessionLeases, WorkingMemoryStore


class WorkingMemoryServicer(working_memory_service_pb2_grpc.WorkingMemoryServiceServicer):
    """Working memory per session in Redis, and the session leases that serialise turns."""

    def __init__(
        self,
        store: WorkingMemoryStore,
        leases: SessionLeases,
        clock: Clock,
        *,
        max_turns: int = wm.DEFAULT_MAX_TURNS,
        ttl: timedelta = wm.DEFAULT_TTL,
    ) -> None:
        if not 1 <= max_turns <= wm.MAX_TURNS_LIMIT:
            raise ValueError(f"max_turns must be between 1 and {wm.MAX_TURNS_LIMIT}")
        if not wm.MIN_TTL <= ttl <= wm.MAX_TTL:
            raise ValueError(f"ttl must be between {wm.MIN_TTL} and {wm.MAX_TTL}")
        self._store = store
        self._leases = leases
        self._clock = clock
        self._max_turns = max_turns
        self._ttl = ttl

    async def GetWorkingMemory(self, request: pb.GetWorkingMemoryRequest, context) -> pb.GetWorkingMemoryResponse:
        org_id = request_context.current().org_id
        memory = await usecases.get_working_memory(
            org_id, request.session_id, store=self._store, read_mask=list(request.read_mask.paths)
        )
        return pb.GetWorkingMemoryResponse(working_memory=convert.working_memory_to_pb(memory))

    async def AppendTurn(self, request: pb.AppendTurnRequest, context) -> pb.AppendTurnResponse:
        org_id = request_context.current().org_id
        if request.HasField("acquire_lease"):
            wanted = request.acquire_lease
            lease, memory = await usecases.acquire_lease_and_append_turn(
                org_id,
                request.session_id,
                convert.turn_from_pb(request.turn),
                usecases.LeaseToAcquire(wanted.holder, wanted.ttl_ms, wanted.wait_ms),
                leases=self._leases,
                clock=self._clock,
                max_turns=self._max_turns,
                ttl=self._ttl,
                fencing_token=request.fencing_token if request.HasField("fencing_token") else None,
                read_mask=list(request.read_mask.paths),
            )
            return pb.AppendTurnResponse(
                working_memory=convert.working_memory_to_pb(memory), lease=convert.lease_to_pb(lease)
            )
        memory = await usecases.append_turn(
            org_id,
            request.session_id,
            convert.turn_from_pb(request.turn),
            store=self._store,
            clock=self._clock,
            max_turns=self._max_turns,
            ttl=self._ttl,
            fencing_token=request.fencing_token if request.HasField("fencing_token") else None,
            read_mask=list(request.read_mask.paths),
        )
        return pb.AppendTurnResponse(working_memory=convert.working_memory_to_pb(memory))

    async def UpdateWorkingMemory(
        self, request: pb.UpdateWorkingMemoryRequest, context
    ) -> pb.UpdateWorkingMemoryResponse:
        org_id = request_context.current().org_id
        memory = await usecases.update_working_memory(
            org_id,
            request.session_id,
            convert.working_memory_from_pb(request.working_memory, request.session_id),
            list(request.update_mask.paths),
            store=self._store,
            clock=self._clock,
            ttl=self._ttl,
            fencing_token=request.fencing_token if request.HasField("fencing_token") else None,
        )
        return pb.UpdateWorkingMemoryResponse(working_memory=convert.working_memory_to_pb(memory))

    async def ClearWorkingMemory(self, request: pb.ClearWorkingMemoryRequest, context) -> pb.ClearWorkingMemoryResponse:
        org_id = request_context.current().org_id
        await usecases.clear_working_memory(org_id, request.session_id, store=self._store)
        return pb.ClearWorkingMemoryResponse()

    async def AcquireSessionLease(
        self, request: pb.AcquireSessionLeaseRequest, context
    ) -> pb.AcquireSessionLeaseResponse:
        org_id = request_context.current().org_id
        lease = await usecases.acquire_session_lease(
            org_id, request.session_id, request.holder, request.ttl_ms, request.wait_ms, leases=self._leases
        )
        return pb.AcquireSessionLeaseResponse(lease=convert.lease_to_pb(lease))

    async def ReleaseSessionLease(
        self, request: pb.ReleaseSessionLeaseRequest, context
    ) -> pb.ReleaseSessionLeaseResponse:
        org_id = request_context.current().org_id
        released = await usecases.release_session_lease(
            org_id, request.session_id, request.holder, request.fencing_token, leases=self._leases
        )
        return pb.ReleaseSessionLeaseResponse(released=released)
