"""Every gRPC server redacts the text of each request before its servicer reads it, as ``LORE_REDACT``
says: every kind by default, the kinds named, none with ``none``."""

import pytest
from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_runtime.server import Registration, create_grpc_server

from tests.grpc_harness import TENANT, server_settings, service_channel

MEMORY_SERVICE = memory_service_pb2.DESCRIPTOR.services_by_name["MemoryService"]
SAID = "card 4242 4242 4242 4242, pw: hunter2"
OPAQUE = "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9Ed8Cb7Aa6"


class EchoServicer(memory_service_pb2_grpc.MemoryServiceServicer):
    """Answers Remember with what its servicer was handed."""

    async def Remember(self, request, context):
        return memory_service_pb2.RememberResponse(
            memories=[
                memory_service_pb2.Memory(id=item.idempotency_key, content=item.content, scope=item.scope)
                for item in request.memories
            ]
        )


@pytest.mark.parametrize(
    ("redact", "handed"),
    [
        (None, "card [card ending 4242], pw: [password]"),
        ("password", "card 4242 4242 4242 4242, pw: [password]"),
        ("none", SAID),
    ],
)
async def test_the_servicer_is_handed_the_request_redacted_as_lore_redact_says(redact, handed):
    environ = {} if redact is None else {"LORE_REDACT": redact}
    server = create_grpc_server(
        "127.0.0.1:0",
        [Registration(EchoServicer(), memory_service_pb2_grpc.add_MemoryServiceServicer_to_server, MEMORY_SERVICE)],
        settings=server_settings(**environ),
    )
    await server.start()
    try:
        async with service_channel(f"127.0.0.1:{server.port}") as channel:
            stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
            item = memory_service_pb2.MemoryInput(
                content=SAID, idempotency_key=OPAQUE, scope=scope_pb2.Scope(user_id=OPAQUE)
            )
            answer = await stub.Remember(memory_service_pb2.RememberRequest(memories=[item]), metadata=TENANT)
    finally:
        await server.stop(grace=None)
    [echoed] = answer.memories
    assert echoed.content == handed
    assert echoed.id == OPAQUE and echoed.scope.user_id == OPAQUE
