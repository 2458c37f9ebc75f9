"""The Memories port on the memory service's Remember.

Imported turns become ``message`` memories (valid at the turn's time, the turn's metadata,
provenance IMPORT with the session and turn id, key ``turn:<turn id>``); reflection writes a live
turn's message the same way (provenance API) with its findings as typed memories (provenance
REFLECTION with the turn ids, key chosen by reflection). Both
go in batches of the service's limit; the keys make every retry land on the same items.
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from google.protobuf import field_mask_pb2
from lore.common.v1 import provenance_pb2, scope_pb2
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_runtime.proto_time import to_timestamp

from agent_svc.adapters.grpc_calls import rpc, rpc_unless_gone
from agent_svc.domain.transcript import Scope, Turn
from agent_svc.usecases.memory_ports import MemoryWrite

REMEMBER_BATCH = 100  # the memory service's MAX_BATCH
TIMEOUT_S = 30.0
TYPES = {
    "message": memory_service_pb2.MEMORY_TYPE_MESSAGE,
    "fact": memory_service_pb2.MEMORY_TYPE_FACT,
    "preference": memory_service_pb2.MEMORY_TYPE_PREFERENCE,
    "commitment": memory_service_pb2.MEMORY_TYPE_COMMITMENT,
    "opinion": memory_service_pb2.MEMORY_TYPE_OPINION,
    "decision": memory_service_pb2.MEMORY_TYPE_DECISION,
    "tool_interaction": memory_service_pb2.MEMORY_TYPE_TOOL_INTERACTION,
}
# What a later statement can replace: what the user is or prefers. A message stays what was said.
REPLACEABLE = (memory_service_pb2.MEMORY_TYPE_FACT, memory_service_pb2.MEMORY_TYPE_PREFERENCE)
CURRENT = (memory_service_pb2.MEMORY_STATUS_ACTIVE, memory_service_pb2.MEMORY_STATUS_WARM)
# The newest current commitments of a scope looked at when a thread closes (one ListMemories page).
COMMITMENTS_SCANNED = 200
SOURCES = {
    "import": provenance_pb2.PROVENANCE_SOURCE_IMPORT,
    "live": provenance_pb2.PROVENANCE_SOURCE_API,
    "reflection": provenance_pb2.PROVENANCE_SOURCE_REFLECTION,
}


def scope_to_pb(scope: Scope) -> scope_pb2.Scope:
    return scope_pb2.Scope(user_id=scope.user_id, agent_id=scope.agent_id, team_id=scope.team_id)


class GrpcMemories:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._memories = memory_service_pb2_grpc.MemoryServiceStub(channel)

    async def index(self, scope: Scope, session_id: str, turns: Sequence[Turn]) -> None:
        await self.remember(scope, session_id, [MemoryWrite.message(turn) for turn in turns])

    async def remember(self, scope: Scope, session_id: str, items: Sequence[MemoryWrite]) -> list[str]:
        owner = scope_to_pb(scope)
        return await self._remember(
            memory_service_pb2.MemoryInput(
                content=item.content,
                memory_type=TYPES[item.kind],
                scope=owner,
                importance=item.importance,
                metadata=item.metadata,
                valid_at=to_timestamp(item.valid_at),
                idempotency_key=item.key,
                entities=list(item.entities),
                provenance=provenance_pb2.Provenance(
                    session_id=session_id,
                    turn_ids=list(item.turn_ids),
                    source=SOURCES[item.source],
                    speaker=item.speaker,
                ),
            )
            for item in items
        )

    async def _remember(self, inputs) -> list[str]:
        batch, ids = [], []
        for memory in inputs:
            batch.append(memory)
            if len(batch) == REMEMBER_BATCH:
                ids += await self._send(batch)
                batch = []
        if batch:
            ids += await self._send(batch)
        return ids

    async def _send(self, batch: list) -> list[str]:
        response = await rpc(
            self._memories.Remember(memory_service_pb2.RememberRequest(memories=batch), timeout=TIMEOUT_S)
        )
        return [memory.id for memory in response.memories]

    async def supersede(self, memory_ids: Sequence[str]) -> int:
        changed = 0
        for memory_id in dict.fromkeys(memory_ids):
            found = await rpc_unless_gone(
                self._memories.GetMemory(memory_service_pb2.GetMemoryRequest(id=memory_id), timeout=TIMEOUT_S)
            )
            if found is None:
                continue  # erased or archived away since: nothing left to replace
            if found.memory.memory_type in REPLACEABLE and found.memory.status in CURRENT:
                changed += await self._set_status(memory_id, memory_service_pb2.MEMORY_STATUS_SUPERSEDED)
        return changed

    async def complete_commitments(self, scope: Scope, contents: Sequence[str]) -> int:
        wanted = set(contents)
        if not wanted:
            return 0
        listed = memory_service_pb2.ListMemoriesRequest(
            scope=scope_to_pb(scope),
            memory_types=[memory_service_pb2.MEMORY_TYPE_COMMITMENT],
            statuses=list(CURRENT),
            page_size=COMMITMENTS_SCANNED,
        )
        found = await rpc(self._memories.ListMemories(listed, timeout=TIMEOUT_S))
        changed = 0
        for memory in found.memories:
            if memory.content in wanted:
                changed += await self._set_status(memory.id, memory_service_pb2.MEMORY_STATUS_COMPLETED)
        return changed

    async def _set_status(self, memory_id: str, status: int) -> bool:
        """Whether the memory now has ``status``; False when it was erased since it was read."""
        request = memory_service_pb2.UpdateMemoryRequest(
            memory=memory_service_pb2.Memory(id=memory_id, status=status),
            update_mask=field_mask_pb2.FieldMask(paths=["status"]),
        )
        return await rpc_unless_gone(self._memories.UpdateMemory(request, timeout=TIMEOUT_S)) is not None
