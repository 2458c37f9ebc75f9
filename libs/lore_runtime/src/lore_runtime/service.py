"""The one entry point shape every gRPC service shares.

A service's ``__main__`` calls ``run(...)`` with its name, its settings model, its
``bootstrap.build`` and its ``server.create_server``. This function owns the process
lifecycle: configuration errors exit with status 2 and a list of what is wrong; logging
and tracing are set up before anything connects; the Prometheus page is served on
``LORE_<SVC>_METRICS_ADDR`` when set, with the event loop's lag measured from the start
(``lore_runtime.loop_lag``); everything ``build`` opened is closed after the
server drained.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from typing import Any, TypeVar

from opentelemetry.sdk.trace import TracerProvider

from lore_runtime.logs import configure_logging
from lore_runtime.metrics import serve_metrics
from lore_runtime.redaction import Redactor
from lore_runtime.server import GrpcServer, serve
from lore_runtime.settings import ServerSettings, SettingsError, load_settings
from lore_runtime.telemetry import setup_telemetry

log = logging.getLogger(__name__)
S = TypeVar("S", bound=ServerSettings)
C = TypeVar("C")


def run(
    service_name: str,
    settings_model: type[S],
    build: Callable[..., Awaitable[C]],
    create_server: Callable[[C, str], GrpcServer],
    address_of: Callable[[S], str],
) -> None:
    try:
        settings = load_settings(settings_model, os.environ)
    except SettingsError as error:
        print(f"lore-{service_name}: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    configure_logging(service_name, settings.log_level, redactor=Redactor(settings.redact))
    provider = setup_telemetry(service_name)
    asyncio.run(_serve(settings, provider, build, create_server, address_of))


async def _serve(
    settings: Any,
    provider: TracerProvider,
    build: Callable[..., Awaitable[Any]],
    create_server: Callable[[Any, str], GrpcServer],
    address_of: Callable[[Any], str],
) -> None:
    async with AsyncExitStack() as stack:
        container = await build(settings, stack, tracer_provider=provider)
        server = create_server(container, address_of(settings))
        server.metrics.loop_lag.start()
        stack.push_async_callback(server.metrics.loop_lag.stop)
        if settings.metrics_addr:
            endpoint = serve_metrics(settings.metrics_addr, server.metrics.registry)
            stack.callback(endpoint.close)
            log.info("metrics served", extra={"metrics_port": endpoint.port})
        await serve(
            server,
            drain_seconds=settings.drain_seconds,
            stop_grace_seconds=settings.stop_grace_seconds,
            dependency_check_seconds=settings.dependency_check_seconds,
        )
    provider.shutdown()
