"""Client channels from one service to another.

Every call leaving a service carries the caller's tenant and principal (from the current
``RequestContext``), the trace context (OpenTelemetry's aio client interceptors) and a
deadline (the caller's, else a default). Transparent retries on UNAVAILABLE are enabled
through gRPC's service config, and only for methods that are safe to repeat: reads
(Get/List/Query/Search/Recall/Export/Prime/Gather) — a write is never retried behind the caller's back.

Calls are balanced per call, not per connection: the service config picks ``round_robin``, which
keeps a connection to every address the target's name resolves to (gRPC's default resolver is DNS;
a headless Kubernetes Service answers with every ready pod) and rotates calls over them. Servers age
connections out (``LORE_GRPC_MAX_CONNECTION_AGE_SECONDS``), and each reconnect re-resolves the
name, so replicas the autoscaler adds get their share. With ``tls`` the channel presents this
process's certificate (lore_runtime/tls.py); with ``token`` every call carries the service token
(lore_runtime/service_auth.py): the credential without which the callee ignores the tenant metadata.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from contextlib import AsyncExitStack
from typing import Any

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from lore.assembler.v1 import assembler_service_pb2
from lore.memory.v1 import (
    context_source_service_pb2,
    episode_service_pb2,
    memory_service_pb2,
    working_memory_service_pb2,
)
from lore.observations.v1 import engagement_service_pb2, observation_service_pb2
from opentelemetry.instrumentation.grpc import aio_client_interceptors
from opentelemetry.sdk.trace import TracerProvider

from lore_runtime import request_context
from lore_runtime.server import MAX_MESSAGE_BYTES
from lore_runtime.service_auth import ServiceCredentialSettings, ServiceTokens, token_interceptors
from lore_runtime.tls import MutualTls, open_channel

IDEMPOTENT_PREFIXES = ("Get", "List", "Query", "Search", "Recall", "Export", "Prime", "Gather")
DEFAULT_TIMEOUT_SECONDS = 5.0
LOAD_BALANCING = [{"round_robin": {}}]


def is_idempotent(method_name: str) -> bool:
    return method_name.startswith(IDEMPOTENT_PREFIXES)


def retry_service_config(services: Iterable[ServiceDescriptor], *, max_attempts: int = 3) -> dict[str, Any]:
    names = [
        {"service": service.full_name, "method": method.name}
        for service in services
        for method in service.methods
        if is_idempotent(method.name)
    ]
    config: dict[str, Any] = {"methodConfig": []}
    if names:
        config["methodConfig"].append(
            {
                "name": names,
                "retryPolicy": {
                    "maxAttempts": max_attempts,
                    "initialBackoff": "0.05s",
                    "maxBackoff": "1s",
                    "backoffMultiplier": 2,
                    "retryableStatusCodes": ["UNAVAILABLE"],
                },
            }
        )
    return config


class _CallerInterceptor(
    grpc.aio.UnaryUnaryClientInterceptor,
    grpc.aio.UnaryStreamClientInterceptor,
    grpc.aio.StreamUnaryClientInterceptor,
    grpc.aio.StreamStreamClientInterceptor,
):
    """Adds tenant metadata and a default deadline to every outgoing call."""

    def __init__(self, default_timeout: float) -> None:
        self._default_timeout = default_timeout

    def _details(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        metadata = grpc.aio.Metadata(*(details.metadata or ()))
        caller = request_context.current_or_none()
        if caller is not None:
            for key, value in caller.metadata():
                if key not in metadata:
                    metadata.add(key, value)
        timeout = details.timeout if details.timeout is not None else self._default_timeout
        return grpc.aio.ClientCallDetails(
            method=details.method,
            timeout=timeout,
            metadata=metadata,
            credentials=details.credentials,
            wait_for_ready=details.wait_for_ready,
        )

    async def intercept_unary_unary(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        return await continuation(self._details(client_call_details), request)

    async def intercept_unary_stream(self, continuation, client_call_details, request):  # type: ignore[no-untyped-def]
        return await continuation(self._details(client_call_details), request)

    async def intercept_stream_unary(self, continuation, client_call_details, request_iterator):  # type: ignore[no-untyped-def]
        return await continuation(self._details(client_call_details), request_iterator)

    async def intercept_stream_stream(self, continuation, client_call_details, request_iterator):  # type: ignore[no-untyped-def]
        return await continuation(self._details(client_call_details), request_iterator)


def create_channel(
    target: str,
    *,
    services: Sequence[ServiceDescriptor] = (),
    default_timeout: float = DEFAULT_TIMEOUT_SECONDS,
    tracer_provider: TracerProvider | None = None,
    interceptors: Sequence[grpc.aio.ClientInterceptor] = (),
    tls: MutualTls | None = None,
    token: ServiceTokens | None = None,
    options: Sequence[tuple[str, Any]] = (),
) -> grpc.aio.Channel:
    """A channel to another Lore service, mutual TLS when ``tls`` (the settings' ``mutual_tls``),
    sending ``token`` (the settings' ``service_tokens``) on every call; ``interceptors`` run inside the
    tracing and tenant-metadata ones; ``options`` are more channel arguments (e.g.
    ``grpc.dns_min_time_between_resolutions_ms``)."""
    service_config = {**retry_service_config(services), "loadBalancingConfig": LOAD_BALANCING}
    channel_options = [
        ("grpc.enable_retries", 1),
        ("grpc.service_config", json.dumps(service_config)),
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        *options,
    ]
    chain = [
        *aio_client_interceptors(tracer_provider=tracer_provider),
        _CallerInterceptor(default_timeout),
        *token_interceptors(token),
        *interceptors,
    ]
    return open_channel(target, tls, options=channel_options, interceptors=chain)


# Each service's gRPC APIs, as ``*_pb2`` modules: a channel to the service retries the reads of all of them.
SERVICE_PROTOS: dict[str, tuple[Any, ...]] = {
    "memory": (memory_service_pb2, working_memory_service_pb2, episode_service_pb2, context_source_service_pb2),
    "observations": (observation_service_pb2, engagement_service_pb2),
    "assembler": (assembler_service_pb2,),
}


def open_service_channel(
    stack: AsyncExitStack,
    service: str,
    target: str,
    settings: ServiceCredentialSettings,
    tracer_provider: TracerProvider | None = None,
) -> grpc.aio.Channel:
    """A server's channel to another Lore ``service`` (a key of ``SERVICE_PROTOS``) at ``target``:
    ``create_channel`` with the server's TLS and service token, closed when ``stack`` unwinds."""
    channel = create_channel(
        target,
        services=[api for proto in SERVICE_PROTOS[service] for api in proto.DESCRIPTOR.services_by_name.values()],
        tracer_provider=tracer_provider,
        tls=settings.mutual_tls,
        token=settings.service_tokens,
    )
    stack.push_async_callback(channel.close)
    return channel
