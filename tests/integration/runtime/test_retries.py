"""Lore channels retry idempotent calls on UNAVAILABLE, and never retry writes."""

from collections import Counter

import grpc
import pytest
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_runtime import errors, request_context
from lore_runtime.channels import create_channel
from lore_runtime.request_context import RequestContext
from lore_runtime.server import Registration, create_grpc_server

from tests.grpc_harness import SERVICE_TOKENS, server_settings

MEMORY_SERVICE = memory_service_pb2.DESCRIPTOR.services_by_name["MemoryService"]


class FlakyServicer(memory_service_pb2_grpc.MemoryServiceServicer):
    """Fails with UNAVAILABLE the first time each org calls, then answers."""

    def __init__(self) -> None:
        self.calls: Counter[tuple[str, str]] = Counter()

    def _flaky(self, method: str) -> None:
        key = (request_context.current().org_id, method)
        self.calls[key] += 1
        if self.calls[key] == 1:
            raise errors.DependencyUnavailable("the store blinked")

    async def GetMemory(self, request, context):
        self._flaky("GetMemory")
        return memory_service_pb2.GetMemoryResponse(memory=memory_service_pb2.Memory(id=request.id))

    async def Remember(self, request, context):
        self._flaky("Remember")
        return memory_service_pb2.RememberResponse()


@pytest.fixture(scope="module")
async def flaky():
    servicer = FlakyServicer()
    server = create_grpc_server(
        "127.0.0.1:0",
        [Registration(servicer, memory_service_pb2_grpc.add_MemoryServiceServicer_to_server, MEMORY_SERVICE)],
        settings=server_settings(),
    )
    await server.start()
    channel = create_channel(f"127.0.0.1:{server.port}", services=[MEMORY_SERVICE], token=SERVICE_TOKENS)
    yield servicer, memory_service_pb2_grpc.MemoryServiceStub(channel)
    await channel.close()
    await server.stop(grace=None)


async def test_an_idempotent_read_is_retried_transparently(flaky):
    servicer, stub = flaky
    with request_context.bound(RequestContext("org-read", "svc")):
        response = await stub.GetMemory(memory_service_pb2.GetMemoryRequest(id="m-1"))
    assert response.memory.id == "m-1"
    assert servicer.calls[("org-read", "GetMemory")] == 2


async def test_a_write_is_never_retried_by_the_channel(flaky):
    servicer, stub = flaky
    with request_context.bound(RequestContext("org-write", "svc")):
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await stub.Remember(memory_service_pb2.RememberRequest())
    assert raised.value.code() is grpc.StatusCode.UNAVAILABLE
    assert servicer.calls[("org-write", "Remember")] == 1
