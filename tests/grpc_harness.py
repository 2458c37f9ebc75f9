"""Start Lore gRPC servers in-process on port 0 and call them through real stubs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import grpc
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message_factory import GetMessageClass
from lore_runtime.server import GrpcServer
from lore_runtime.service_auth import ServiceTokens, token_interceptors
from lore_runtime.settings import ServerSettings, load_settings

TENANT = (("x-lore-org-id", "org-test"), ("x-lore-principal", "test"))
# The service credential every in-process server of the tests accepts, and every test channel sends.
SERVICE_TOKEN = "test-service-token-0123456789abcdef0123456789"
SERVICE_TOKEN_ENV = {"LORE_SERVICE_TOKEN": SERVICE_TOKEN}
SERVICE_TOKENS = ServiceTokens(SERVICE_TOKEN)


def service_channel(address: str) -> grpc.aio.Channel:
    """A plaintext channel to a test server that sends the tests' service token on every call."""
    return grpc.aio.insecure_channel(address, interceptors=token_interceptors(SERVICE_TOKENS))


def server_settings(**environ: str) -> ServerSettings:
    """Settings for ``create_grpc_server`` in tests: the tests' service token, plus ``environ``."""
    return load_settings(ServerSettings, {**SERVICE_TOKEN_ENV, **environ})


@dataclass
class RunningService:
    name: str
    server: GrpcServer
    container: Any
    channel: grpc.aio.Channel

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"


async def start_service(
    stack: AsyncExitStack,
    name: str,
    bootstrap: ModuleType,
    server_module: ModuleType,
    settings_model: type,
    environ: Mapping[str, str],
    address: str = "127.0.0.1:0",
    overrides: Any = None,
) -> RunningService:
    """Build and start the service on ``address`` (a free port by default), accepting the tests' service
    token unless ``environ`` sets another (an empty ``LORE_SERVICE_TOKEN``: none). ``overrides``: the
    service's own ``bootstrap.<Service>Overrides``, or None."""
    settings = load_settings(settings_model, {**SERVICE_TOKEN_ENV, **environ})
    container = await bootstrap.build(settings, stack, overrides)
    server = server_module.create_server(container, address)
    await server.start()
    stack.push_async_callback(server.stop, grace=None)
    await server.set_serving(not await server.check_dependencies())
    channel = service_channel(f"127.0.0.1:{server.port}")
    stack.push_async_callback(channel.close)
    return RunningService(name=name, server=server, container=container, channel=channel)


def method_callable(channel: grpc.aio.Channel, method: MethodDescriptor) -> Callable[..., Any]:
    """A stub for any method of any service, built from its descriptor."""
    request_class = GetMessageClass(method.input_type)
    response_class = GetMessageClass(method.output_type)
    path = f"/{method.containing_service.full_name}/{method.name}"
    kinds = {
        (False, False): channel.unary_unary,
        (False, True): channel.unary_stream,
        (True, False): channel.stream_unary,
        (True, True): channel.stream_stream,
    }
    factory = kinds[(method.client_streaming, method.server_streaming)]
    call = factory(
        path, request_serializer=request_class.SerializeToString, response_deserializer=response_class.FromString
    )
    return call


async def invoke(channel: grpc.aio.Channel, method: MethodDescriptor, metadata: Any = TENANT) -> Any:
    """Call ``method`` with an empty request; returns the response(s) or raises AioRpcError."""
    request = GetMessageClass(method.input_type)()
    call = method_callable(channel, method)
    if method.client_streaming:

        async def requests():
            yield request

        result = call(requests(), metadata=metadata, timeout=5)
    else:
        result = call(request, metadata=metadata, timeout=5)
    if method.server_streaming:
        return [item async for item in result]
    return await result
