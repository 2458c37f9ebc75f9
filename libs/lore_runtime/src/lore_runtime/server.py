"""Build and run a Lore gRPC server: interceptors, health, reflection, graceful drain.

``create_grpc_server`` wires a ``grpc.aio`` server with the OpenTelemetry, metrics, service-credential,
request-context and error interceptors, the library's health servicer (NOT_SERVING until the service's
dependencies answer) and reflection. ``serve`` runs it until SIGTERM/SIGINT, then reports
NOT_SERVING, waits the drain period so load balancers stop routing, and stops with a grace.
Its ``settings`` name the service credential callers must hold (lore_runtime/service_auth.py): the
client certificate when it listens with mutual TLS (``LORE_TLS_*``), else ``LORE_SERVICE_TOKEN``. It ages
connections out (so clients re-resolve and spread onto new replicas), and serves the health
service alone on a plaintext ``health_addr`` for probes that cannot speak TLS (kubelet's).
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from opentelemetry.instrumentation.grpc import aio_server_interceptor
from opentelemetry.sdk.trace import TracerProvider

from lore_runtime.interceptors import ErrorInterceptor, RequestContextInterceptor
from lore_runtime.metrics import ServiceMetrics
from lore_runtime.pending import fill_pending
from lore_runtime.redaction import Redactor
from lore_runtime.service_auth import ServiceCredentialInterceptor
from lore_runtime.settings import ServerSettings
from lore_runtime.tls import add_port

log = logging.getLogger(__name__)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING

# Bounded message sizes: a client cannot make a server buffer more than this.
MAX_MESSAGE_BYTES = 8 * 1024 * 1024

DependencyCheck = Callable[[], Awaitable[None]]
# A dependency that has not answered a health check within this is not ready (a stalled store answers never).
CHECK_TIMEOUT_SECONDS = 2.0


@dataclass(frozen=True)
class Registration:
    """One gRPC service on a server: its servicer, its generated ``add_*_to_server``, its descriptor.

    ``pending`` names the capability still to come for RPCs the servicer does not implement.
    """

    servicer: Any
    add_to_server: Callable[[Any, grpc.aio.Server], None]
    descriptor: ServiceDescriptor
    pending: str = "a later release"


@dataclass
class GrpcServer:
    server: grpc.aio.Server
    health: health.aio.HealthServicer
    port: int
    service_names: tuple[str, ...]
    descriptors: Mapping[str, ServiceDescriptor] = field(default_factory=dict)
    servicers: Mapping[str, Any] = field(default_factory=dict)
    checks: Mapping[str, DependencyCheck] = field(default_factory=dict)
    metrics: ServiceMetrics = field(default_factory=ServiceMetrics)
    # The plaintext health-only listener (``health_addr``), sharing ``health``.
    probes: grpc.aio.Server | None = None
    probe_port: int | None = None
    _monitor: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.server.start()
        if self.probes is not None:
            await self.probes.start()

    async def set_serving(self, serving: bool) -> None:
        status = SERVING if serving else NOT_SERVING
        for name in ("", *self.service_names):
            await self.health.set(name, status)

    async def check_dependencies(self) -> list[str]:
        """Names of the dependencies that do not answer right now: all asked at once, each given
        ``CHECK_TIMEOUT_SECONDS``, so a stalled store is reported within a check period plus that."""

        async def fails(name: str, check: DependencyCheck) -> bool:
            try:
                await asyncio.wait_for(check(), timeout=CHECK_TIMEOUT_SECONDS)
            except Exception as error:  # any failure means "not ready"
                log.warning("dependency %s not ready: %s", name, repr(error))
                return True
            return False

        names = list(self.checks)
        results = await asyncio.gather(*(fails(name, self.checks[name]) for name in names))
        return [name for name, failed in zip(names, results, strict=True) if failed]

    def watch_dependencies(self, interval: float) -> None:
        """Flip health to NOT_SERVING while a dependency fails, back when it answers."""

        async def monitor() -> None:
            while True:
                await self.set_serving(not await self.check_dependencies())
                await asyncio.sleep(interval)

        self._monitor = asyncio.create_task(monitor(), name="dependency-monitor")

    async def stop(self, *, drain: float = 0.0, grace: float | None = None) -> None:
        if self._monitor is not None:
            self._monitor.cancel()
            await asyncio.gather(self._monitor, return_exceptions=True)
        await self.health.enter_graceful_shutdown()
        if drain:
            await asyncio.sleep(drain)
        await self.server.stop(grace)
        if self.probes is not None:
            await self.probes.stop(None)


def create_grpc_server(
    address: str,
    registrations: Sequence[Registration],
    *,
    tracer_provider: TracerProvider | None = None,
    checks: Mapping[str, DependencyCheck] | None = None,
    metrics: ServiceMetrics | None = None,
    settings: ServerSettings | None = None,
) -> GrpcServer:
    """``metrics``: the service's registry when its bootstrap registered domain metrics on it;
    ``settings``: the service's (service credential, TLS, connection age, health listener): required,
    since a server without a credential to check would trust any caller's org metadata."""
    if settings is None:
        raise ValueError("create_grpc_server needs settings: the service credential its callers must present")
    metrics = metrics or ServiceMetrics()
    server = grpc.aio.server(
        interceptors=[
            aio_server_interceptor(tracer_provider=tracer_provider),
            metrics.interceptor(),
            # Before the tenant is read: org metadata counts only from a caller holding the credential.
            ServiceCredentialInterceptor(settings.service_tokens, mutual_tls=settings.mutual_tls is not None),
            RequestContextInterceptor(),
            ErrorInterceptor(Redactor(settings.redact)),
        ],
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            *connection_age_options(settings),
        ],
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = []
    for registration in registrations:
        fill_pending(registration.servicer, registration.descriptor, registration.pending)
        registration.add_to_server(registration.servicer, server)
        names.append(registration.descriptor.full_name)
    by_name = {registration.descriptor.full_name: registration for registration in registrations}
    reflection.enable_server_reflection(
        (*names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
        server,
    )
    port = add_port(server, address, settings.mutual_tls)
    if port == 0:
        raise RuntimeError(f"could not bind gRPC server to {address}")
    probes, probe_port = _probe_listener(settings.health_addr, health_servicer)
    return GrpcServer(
        server=server,
        health=health_servicer,
        port=port,
        service_names=tuple(names),
        descriptors={name: r.descriptor for name, r in by_name.items()},
        servicers={name: r.servicer for name, r in by_name.items()},
        checks=dict(checks or {}),
        metrics=metrics,
        probes=probes,
        probe_port=probe_port,
    )


def connection_age_options(settings: ServerSettings | None) -> list[tuple[str, int]]:
    """GOAWAY after ``grpc_max_connection_age_seconds``: the client reconnects, re-resolving DNS."""
    if settings is None or not settings.grpc_max_connection_age_seconds:
        return []
    options = [("grpc.max_connection_age_ms", int(settings.grpc_max_connection_age_seconds * 1000))]
    if settings.grpc_max_connection_age_grace_seconds is not None:
        options.append(("grpc.max_connection_age_grace_ms", int(settings.grpc_max_connection_age_grace_seconds * 1000)))
    return options


def _probe_listener(
    address: str | None, health_servicer: health.aio.HealthServicer
) -> tuple[grpc.aio.Server | None, int | None]:
    """Only grpc.health.v1, plaintext: it tells whether the server serves, nothing else (no reflection)."""
    if not address:
        return None, None
    probes = grpc.aio.server()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, probes)
    port = probes.add_insecure_port(address)
    if port == 0:
        raise RuntimeError(f"could not bind the health listener to {address}")
    return probes, port


async def serve(
    grpc_server: GrpcServer,
    *,
    drain_seconds: float,
    stop_grace_seconds: float,
    dependency_check_seconds: float,
    stop: asyncio.Event | None = None,
) -> None:
    """Run until SIGTERM/SIGINT (or ``stop`` is set), then drain and stop."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    # The "" service starts SERVING in the library; nothing is ready until checked.
    await grpc_server.set_serving(False)
    await grpc_server.start()
    grpc_server.watch_dependencies(dependency_check_seconds)
    log.info(
        "gRPC server listening",
        extra={
            "port": grpc_server.port,
            "health_port": grpc_server.probe_port,
            "services": list(grpc_server.service_names),
        },
    )
    await stop.wait()
    log.info("stopping: draining for %.1fs", drain_seconds)
    await grpc_server.stop(drain=drain_seconds, grace=stop_grace_seconds)
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.remove_signal_handler(signum)
