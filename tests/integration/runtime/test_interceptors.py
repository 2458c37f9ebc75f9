"""The runtime's interceptors and channels, exercised through a real server and stubs."""

import asyncio

import asyncpg
import grpc
import pytest
import redis
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_runtime import errors, request_context
from lore_runtime.channels import create_channel
from lore_runtime.request_context import RequestContext
from lore_runtime.server import Registration, create_grpc_server

from tests.grpc_harness import SERVICE_TOKENS, invoke, server_settings, service_channel

MEMORY_SERVICE = memory_service_pb2.DESCRIPTOR.services_by_name["MemoryService"]
GET_MEMORY = MEMORY_SERVICE.methods_by_name["GetMemory"]


class ProbeServicer(memory_service_pb2_grpc.MemoryServiceServicer):
    """Answers GetMemory according to the caller's org, to exercise each error path."""

    async def GetMemory(self, request, context):
        caller = request_context.current()
        if caller.org_id == "org-invalid":
            raise errors.InvalidArgument("id", "must be a UUID")
        if caller.org_id == "org-crash":
            raise RuntimeError("a secret detail that must not leak")
        if caller.org_id == "org-down":
            raise errors.DependencyUnavailable("Qdrant is not reachable")
        if caller.org_id == "org-nul":
            # What asyncpg raises when a text value holds U+0000, wherever it reaches Postgres.
            raise asyncpg.exceptions.CharacterNotInRepertoireError("invalid byte sequence for encoding UTF8: 0x00")
        if caller.org_id == "org-postgres-lost":
            # What asyncpg raises when Postgres dies under a query, in an adapter that did not translate it.
            raise asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation")
        if caller.org_id == "org-redis-lost":
            raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        if caller.org_id == "org-slow":
            await asyncio.sleep(2)  # fault injection: a handler slower than its caller's deadline
        raise errors.NotFound(f"seen as {caller.org_id}/{caller.principal}/{caller.request_id}", reason="PROBE")


@pytest.fixture(scope="module")
async def probe_server():
    server = create_grpc_server(
        "127.0.0.1:0",
        [Registration(ProbeServicer(), memory_service_pb2_grpc.add_MemoryServiceServicer_to_server, MEMORY_SERVICE)],
        settings=server_settings(),
    )
    await server.start()
    yield server
    await server.stop(grace=None)


@pytest.fixture
async def channel(probe_server):
    async with service_channel(f"127.0.0.1:{probe_server.port}") as channel:
        yield channel


def _details(error):
    status = rpc_status.from_call(error)
    info, bad_request = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
    status.details[0].Unpack(info)
    if len(status.details) > 1:
        status.details[1].Unpack(bad_request)
    return info, bad_request


async def _fail(channel, org, principal="tester", request_id=""):
    metadata = [("x-lore-org-id", org), ("x-lore-principal", principal)]
    if request_id:
        metadata.append(("x-request-id", request_id))
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await invoke(channel, GET_MEMORY, metadata=metadata)
    return raised.value


async def test_request_context_reaches_the_servicer(channel):
    error = await _fail(channel, "org-a", "key:1", "req-9")
    assert error.code() is grpc.StatusCode.NOT_FOUND
    assert error.details() == "seen as org-a/key:1/req-9"
    info, _ = _details(error)
    assert info.reason == "PROBE"


async def test_invalid_argument_names_the_field(channel):
    error = await _fail(channel, "org-invalid")
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    info, bad_request = _details(error)
    assert info.metadata["field"] == "id"
    assert bad_request.field_violations[0].field == "id"


async def test_unexpected_errors_are_internal_and_leak_nothing(channel):
    error = await _fail(channel, "org-crash")
    assert error.code() is grpc.StatusCode.INTERNAL
    assert error.details() == "internal error"
    assert "secret" not in str(error.trailing_metadata())


async def test_text_postgres_cannot_store_is_the_callers_invalid_argument(channel):
    error = await _fail(channel, "org-nul")
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "U+0000" in error.details() and _details(error)[0].metadata["field"] == "request"


async def test_store_outage_is_unavailable(channel):
    error = await _fail(channel, "org-down")
    assert error.code() is grpc.StatusCode.UNAVAILABLE
    assert _details(error)[0].reason == "DEPENDENCY_UNAVAILABLE"


@pytest.mark.parametrize(
    ("org", "reason"), [("org-postgres-lost", "POSTGRES_UNAVAILABLE"), ("org-redis-lost", "REDIS_UNAVAILABLE")]
)
async def test_a_driver_error_saying_a_store_is_down_is_unavailable_naming_the_store(channel, org, reason):
    error = await _fail(channel, org)
    assert error.code() is grpc.StatusCode.UNAVAILABLE
    info, _ = _details(error)
    assert (info.reason, info.metadata["store"]) == (reason, reason.removesuffix("_UNAVAILABLE").lower())


async def test_pending_rpcs_name_their_capability(channel):
    recall = MEMORY_SERVICE.methods_by_name["Recall"]
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await invoke(channel, recall, metadata=[("x-lore-org-id", "org-a"), ("x-lore-principal", "p")])
    assert raised.value.code() is grpc.StatusCode.UNIMPLEMENTED
    assert raised.value.details() == "MemoryService.Recall is not available yet: it arrives with a later release"


async def test_lore_channels_forward_the_callers_tenant(probe_server):
    channel = create_channel(f"127.0.0.1:{probe_server.port}", services=[MEMORY_SERVICE], token=SERVICE_TOKENS)
    try:
        stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
        with request_context.bound(RequestContext("org-b", "svc:assembler", "req-1")):
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await stub.GetMemory(memory_service_pb2.GetMemoryRequest())
        assert raised.value.details() == "seen as org-b/svc:assembler/req-1"
    finally:
        await channel.close()


async def test_lore_channels_apply_a_default_deadline(probe_server):
    channel = create_channel(
        f"127.0.0.1:{probe_server.port}", services=[MEMORY_SERVICE], default_timeout=0.3, token=SERVICE_TOKENS
    )
    try:
        stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
        with request_context.bound(RequestContext("org-slow", "svc")):
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await stub.GetMemory(memory_service_pb2.GetMemoryRequest())
        assert raised.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    finally:
        await channel.close()
