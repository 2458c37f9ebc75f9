"""The five services as real child processes (``python -m <svc>_svc``, as ``lore up`` starts them),
exporting their spans over OTLP/gRPC to a receiver this test process runs, each serving its
Prometheus page on a port of its own.

Processes, not the in-process harness: each has its own tracer provider and ``service.name``, the
store drivers are instrumented once per process as in production, and the trace context has to
cross real process boundaries. A database of its own (``fresh_migrated_database``): the children's
job worker and scheduled jobs must not meet the in-process services' data.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import httpx
import pytest_asyncio
from gateway_svc.adapters.postgres_key_admin import ensure_development_key
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lore_devstack import free_port
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from tests.backends import fresh_migrated_database
from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.polling import eventually

SERVICES = ("memory", "observations", "assembler", "agent")
API_KEY = "observability-test-key-0123456789"
READY_SECONDS = 180.0


@dataclass(frozen=True)
class ReceivedSpan:
    service: str  # the resource's service.name
    scope: str  # the instrumentation scope (e.g. opentelemetry.instrumentation.asyncpg)
    name: str
    trace_id: str
    span_id: str
    parent_id: str  # "" for a root
    kind: int
    links: tuple[tuple[str, str], ...]  # (trace id, span id)
    attributes: dict[str, object] = field(hash=False)


def _value(any_value) -> object:
    return getattr(any_value, any_value.WhichOneof("value")) if any_value.WhichOneof("value") else None


class SpanSink(trace_service_pb2_grpc.TraceServiceServicer):
    """An OTLP/gRPC trace receiver that keeps every span it is sent."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []

    async def Export(self, request, context):
        for resource_spans in request.resource_spans:
            resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    self.spans.append(
                        ReceivedSpan(
                            service=str(resource.get("service.name", "")),
                            scope=scope_spans.scope.name,
                            name=span.name,
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_id=span.parent_span_id.hex(),
                            kind=span.kind,
                            links=tuple((link.trace_id.hex(), link.span_id.hex()) for link in span.links),
                            attributes={a.key: _value(a.value) for a in span.attributes},
                        )
                    )
        return trace_service_pb2.ExportTraceServiceResponse()

    def trace(self, trace_id: str) -> list[ReceivedSpan]:
        return [span for span in self.spans if span.trace_id == trace_id]


@dataclass
class Stack:
    url: str
    api_key: str
    metrics: dict[str, str]  # service -> http://host:port/metrics
    sink: SpanSink
    logs: Path

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.url, headers={"Authorization": f"Bearer {self.api_key}"}, timeout=60)

    def log_tails(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-2000:]}" for p in sorted(self.logs.glob("*")))


async def _serving(address: str) -> bool:
    async with grpc.aio.insecure_channel(address) as channel:
        with contextlib.suppress(grpc.aio.AioRpcError):
            answer = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1)
            return answer.status == health_pb2.HealthCheckResponse.SERVING
    return False


async def _gateway_ready(url: str) -> bool:
    """The gateway's own readiness answer: a 200 from whatever else holds the port is not it."""
    async with httpx.AsyncClient() as client:
        with contextlib.suppress(httpx.HTTPError, ValueError):
            answer = await client.get(f"{url}/readyz", timeout=2)
            return answer.status_code == 200 and answer.json().get("dependencies") == {"postgres": "SERVING"}
    return False


async def _wait(ready, process: asyncio.subprocess.Process, log: Path, what: str) -> None:
    async def alive_and_ready() -> bool:
        assert process.returncode is None, f"{what} exited"
        return await ready()

    try:
        await eventually(alive_and_ready, READY_SECONDS, f"{what} ready", interval=0.1)
    except AssertionError as error:
        raise AssertionError(f"{error}:\n{log.read_text(errors='replace')[-4000:]}") from None


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def observed_stack(pg_superuser_dsn, redis_url, tmp_path_factory) -> AsyncIterator[Stack]:
    sink = SpanSink()
    receiver = grpc.aio.server()
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(sink, receiver)
    receiver_port = receiver.add_insecure_port("127.0.0.1:0")
    await receiver.start()
    data_dir = tmp_path_factory.mktemp("observed-stack")
    logs = data_dir / "logs"
    logs.mkdir()
    processes: list[asyncio.subprocess.Process] = []
    try:
        async with fresh_migrated_database(pg_superuser_dsn, "lore_observability") as database:
            await ensure_development_key(database.owner_dsn, API_KEY)
            addresses = {name: f"127.0.0.1:{free_port()}" for name in (*SERVICES, "gateway")}
            metrics = {name: f"127.0.0.1:{free_port()}" for name in SERVICES}
            env = {key: value for key, value in os.environ.items() if not key.startswith(("LORE_", "OTEL_"))}
            env.update(
                {f"LORE_{name.upper()}_ADDR": address for name, address in addresses.items()},
                **{f"LORE_{name.upper()}_METRICS_ADDR": address for name, address in metrics.items()},
                LORE_DATABASE_URL=database.app_dsn,
                LORE_REDIS_URL=redis_url,
                LORE_DATA_DIR=str(data_dir),
                LORE_LOG_LEVEL="WARNING",
                **SERVICE_TOKEN_ENV,
                # The scheduled maintenance and revalidation run (and are counted) every few seconds.
                LORE_MAINTENANCE_INTERVAL_SECONDS="3",
                LORE_REVALIDATION_INTERVAL_SECONDS="3",
                LORE_IDLE_SCAN_SECONDS="0",
                LORE_DIGEST_INTERVAL_SECONDS="0",
                OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{receiver_port}",
                # Spans leave within a fifth of a second, not the SDK's default five.
                OTEL_BSP_SCHEDULE_DELAY="200",
            )
            for name in (*SERVICES, "gateway"):
                log = logs / f"{name}.log"
                with log.open("ab") as sink_file:
                    process = await asyncio.create_subprocess_exec(
                        sys.executable, "-m", f"{name}_svc", env=env, stdout=sink_file, stderr=sink_file
                    )
                processes.append(process)
                if name == "gateway":
                    url = f"http://{addresses['gateway']}"
                    await _wait(lambda url=url: _gateway_ready(url), process, log, name)
                else:
                    await _wait(lambda a=addresses[name]: _serving(a), process, log, name)
            yield Stack(
                url=f"http://{addresses['gateway']}",
                api_key=API_KEY,
                metrics={name: f"http://{address}/metrics" for name, address in metrics.items()},
                sink=sink,
                logs=logs,
            )
            for process in reversed(processes):  # the gateway first, as lore up stops them
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(process.wait(), timeout=30)
    finally:
        for process in processes:
            if process.returncode is None:
                process.kill()
                await process.wait()
        await receiver.stop(grace=None)
