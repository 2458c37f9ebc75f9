"""A service's gRPC server from its bootstrap container: every container carries the same four
runtime parts (tracer provider, dependency checks, metrics, settings), so they are handed to
``create_grpc_server`` in one place rather than spelled out in each service's ``server.py``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from opentelemetry.sdk.trace import TracerProvider

from lore_runtime.metrics import ServiceMetrics
from lore_runtime.server import DependencyCheck, GrpcServer, Registration, create_grpc_server
from lore_runtime.settings import ServerSettings


class ServerParts(Protocol):
    """What a service's container holds for its server (read-only, as frozen dataclasses give it)."""

    @property
    def tracer_provider(self) -> TracerProvider | None: ...

    @property
    def checks(self) -> Mapping[str, DependencyCheck]: ...

    @property
    def metrics(self) -> ServiceMetrics: ...

    @property
    def settings(self) -> ServerSettings: ...


def create_container_server(address: str, registrations: Sequence[Registration], parts: ServerParts) -> GrpcServer:
    return create_grpc_server(
        address,
        registrations,
        tracer_provider=parts.tracer_provider,
        checks=parts.checks,
        metrics=parts.metrics,
        settings=parts.settings,
    )
