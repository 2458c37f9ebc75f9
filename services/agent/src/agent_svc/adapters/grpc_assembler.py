"""The ContextAssembler port on the assembler's AssembleContext and Prime. The context and the Prime
travel back to the caller as the assembler built them, as message objects (``Opaque``): nothing is
parsed twice; the use case only reads the context's text (for the language model) and stores its
bytes (serialised once, here)."""

from __future__ import annotations

import grpc
from lore.assembler.v1 import assembler_service_pb2 as pb
from lore.assembler.v1 import assembler_service_pb2_grpc

from agent_svc.adapters.grpc_calls import rpc
from agent_svc.adapters.grpc_memories import scope_to_pb
from agent_svc.domain.transcript import Scope, Session
from agent_svc.domain.turn_loop import Assembled, Opaque

# The assembler bounds each of its sources (800 ms by default) and answers with what it has.
TIMEOUT_S = 3.0


class GrpcContextAssembler:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._stub = assembler_service_pb2_grpc.AssemblerServiceStub(channel)

    async def assemble(self, session: Session, message: str, options: Opaque | None) -> Assembled:
        request = pb.AssembleContextRequest(session_id=session.id, scope=scope_to_pb(session.scope), message=message)
        if options is not None:
            request.options.CopyFrom(options.message)  # the caller's AssembleOptions, as it sent them
        response = await rpc(self._stub.AssembleContext(request, timeout=TIMEOUT_S))
        context = response.context
        # Serialised once, for the kept result; the message itself goes back to the caller.
        return Assembled(text=context.text, payload=context.SerializeToString(), message=Opaque(context))

    async def prime(self, scope: Scope, initial_message: str) -> Opaque:
        request = pb.PrimeRequest(scope=scope_to_pb(scope), initial_message=initial_message)
        return Opaque(await rpc(self._stub.Prime(request, timeout=TIMEOUT_S)))
