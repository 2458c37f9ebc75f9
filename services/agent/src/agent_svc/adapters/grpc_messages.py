"""The MessageIndex port on the memory service's Remember: turns become ``message`` memories
(valid at the turn's time, the turn's metadata, provenance IMPORT with the session and turn id),
in batches of the service's limit, each with the idempotency key ``turn:<turn id>``."""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from lore.common.v1 import provenance_pb2, scope_pb2
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_runtime.grpc_errors import from_rpc_error
from lore_runtime.proto_time import to_timestamp

from agent_svc.domain.transcript import Scope, Turn

REMEMBER_BATCH = 100  # the memory service's MAX_BATCH


class GrpcMessageIndex:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._memories = memory_service_pb2_grpc.MemoryServiceStub(channel)

    async def index(self, scope: Scope, session_id: str, turns: Sequence[Turn]) -> None:
        owner = scope_pb2.Scope(user_id=scope.user_id, agent_id=scope.agent_id, team_id=scope.team_id)
        for start in range(0, len(turns), REMEMBER_BATCH):
            batch = [
                memory_service_pb2.MemoryInput(
                    content=turn.content,
                    memory_type=memory_service_pb2.MEMORY_TYPE_MESSAGE,
                    scope=owner,
                    metadata=dict(turn.metadata),
                    valid_at=to_timestamp(turn.created_at),
                    idempotency_key=f"turn:{turn.id}",
                    provenance=provenance_pb2.Provenance(
                        session_id=session_id, turn_ids=[turn.id], source=provenance_pb2.PROVENANCE_SOURCE_IMPORT
                    ),
                )
                for turn in turns[start : start + REMEMBER_BATCH]
            ]
            try:
                await self._memories.Remember(memory_service_pb2.RememberRequest(memories=batch))
            except grpc.aio.AioRpcError as error:
                raise from_rpc_error(error) from None
