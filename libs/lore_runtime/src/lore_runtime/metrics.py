"""Prometheus metrics of a Lore gRPC service: per-call counts and latency, scheduled-job runs, and
gauges sampled from the stores at scrape time; served as text on ``LORE_<SVC>_METRICS_ADDR``.

Every server gets ``ServiceMetrics`` (``create_grpc_server``): its own registry (several services in
one test process do not collide), the call interceptor and the process collectors. Labels carry the
gRPC service, method and status code — never a tenant, an id or a text: the page holds no tenant
data and its series stay bounded.

The page is served by prometheus_client's own HTTP server, in a daemon thread: well kept, no extra
dependency, and a scrape is answered even while the event loop is busy. Gauges that need a store
(``SampledGauges``) run their query on the service's event loop from that thread, at most once per
``max_age``, and keep the last values when the loop does not answer in time — a scrape never waits
on a slow store for long, and a burst of scrapes costs one query.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from lore_runtime.interceptors import GuardingInterceptor
from lore_runtime.loop_lag import EventLoopLag

log = logging.getLogger(__name__)

CONTENT_TYPE = CONTENT_TYPE_LATEST
# From 1 ms (a cached read) to 10 s (a reflection with a language model, a long export page).
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

GRPC_REQUESTS = "lore_grpc_server_requests_total"
GRPC_LATENCY = "lore_grpc_server_handling_seconds"


def split_method(full_method: str) -> tuple[str, str]:
    """``/lore.memory.v1.MemoryService/Recall`` -> (``lore.memory.v1.MemoryService``, ``Recall``)."""
    service, _, method = full_method.lstrip("/").rpartition("/")
    return service, method


def _status_of(context: grpc.aio.ServicerContext, default: grpc.StatusCode) -> str:
    code = context.code()
    if code is None:
        return default.name
    if isinstance(code, grpc.StatusCode):
        return code.name
    # grpc.aio keeps the code set by abort()/set_code() as given: a StatusCode or its int value.
    return next((status.name for status in grpc.StatusCode if status.value[0] == code), default.name)


class MetricsInterceptor(GuardingInterceptor):
    """Counts every call by service, method and final status code, and times it (streams: until the
    last message). Health checks and reflection are not counted: probes would drown the calls."""

    def __init__(self, requests: Counter, latency: Histogram) -> None:
        self._requests = requests
        self._latency = latency
        super().__init__(self._measured)

    @contextlib.asynccontextmanager
    async def _measured(self, context: grpc.aio.ServicerContext, method: str) -> AsyncIterator[None]:
        service, name = split_method(method)
        began = time.perf_counter()
        status = grpc.StatusCode.UNKNOWN.name
        try:
            yield
            status = _status_of(context, grpc.StatusCode.OK)
        except grpc.aio.AbortError:
            status = _status_of(context, grpc.StatusCode.UNKNOWN)
            raise
        except (asyncio.CancelledError, GeneratorExit):  # the caller went away (a stream closed early)
            status = grpc.StatusCode.CANCELLED.name
            raise
        finally:
            self._requests.labels(service, name, status).inc()
            self._latency.labels(service, name).observe(time.perf_counter() - began)


class ServiceMetrics:
    """One service instance's registry, with the gRPC call metrics, the process collectors and the
    event loop's lag (``loop_lag``: measured once started, which ``lore_runtime.service`` does)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            GRPC_REQUESTS,
            "gRPC calls answered, by service, method and status code",
            ["grpc_service", "grpc_method", "grpc_code"],
            registry=self.registry,
        )
        self.latency = Histogram(
            GRPC_LATENCY,
            "Time to answer a gRPC call (a stream: until its last message), by service and method",
            ["grpc_service", "grpc_method"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self.loop_lag = EventLoopLag(self.registry)

    def interceptor(self) -> MetricsInterceptor:
        return MetricsInterceptor(self.requests, self.latency)

    def page(self) -> bytes:
        return generate_latest(self.registry)


class ScheduledRunMetrics:
    """Runs of a service's scheduled jobs (``lore_runtime.scheduled``): how many and how they ended,
    the totals each run reports (its summary's numbers, by key) and when one last succeeded.

    The label is ``scheduled_job``, not ``job``: Prometheus gives every scraped series a ``job``."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.runs = Counter(
            "lore_scheduled_runs_total",
            "Runs of a scheduled job on this replica, by outcome (ok, failed)",
            ["scheduled_job", "outcome"],
            registry=registry,
        )
        self.items = Counter(
            "lore_scheduled_items_total",
            "What the runs of a scheduled job touched, by the key of its summary",
            ["scheduled_job", "item"],
            registry=registry,
        )
        self.last_success = Gauge(
            "lore_scheduled_last_success_timestamp_seconds",
            "When a run of the scheduled job last finished without error on this replica (Unix time)",
            ["scheduled_job"],
            registry=registry,
        )

    def record(self, job: str, summary: Mapping[str, Any] | None, *, failed: bool = False) -> None:
        self.runs.labels(job, "failed" if failed else "ok").inc()
        if failed:
            return
        for key, value in (summary or {}).items():
            if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
                self.items.labels(job, key).inc(value)
        self.last_success.labels(job).set_to_current_time()

    def counted(
        self, job: str, run: Callable[[], Awaitable[Mapping[str, Any]]]
    ) -> Callable[[], Awaitable[Mapping[str, Any]]]:
        """``run`` recording each of its runs; failures are re-raised for the scheduler to record."""

        async def counted_run() -> Mapping[str, Any]:
            try:
                summary = await run()
            except Exception:
                self.record(job, None, failed=True)
                raise
            self.record(job, summary)
            return summary

        return counted_run


@dataclass(frozen=True, slots=True)
class GaugeFamily:
    name: str
    documentation: str
    labels: tuple[str, ...] = ()


# What a sample returns: for each family name, (label values, value) pairs.
Samples = Mapping[str, Iterable[tuple[Sequence[str], float]]]


class SampledGauges(Collector):
    """Gauges computed by ``sample`` (a coroutine: a store query) on the service's event loop when
    scraped, at most once per ``max_age`` seconds. A sample that fails or takes longer than
    ``timeout`` leaves the previous values in place (and is logged); before any sample succeeds the
    families are exposed without values. Create it on the event loop it must use. ``clock`` (seconds,
    monotonic) is what ``max_age`` is measured on: tests pass one they advance."""

    def __init__(
        self,
        families: Sequence[GaugeFamily],
        sample: Callable[[], Awaitable[Samples]],
        *,
        max_age: float = 10.0,
        timeout: float = 2.0,
        loop: asyncio.AbstractEventLoop | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._families = tuple(families)
        self._clock = clock
        self._sample = sample
        self._max_age = max_age
        self._timeout = timeout
        self._loop = loop or asyncio.get_running_loop()
        self._lock = threading.Lock()
        self._values: dict[str, list[tuple[tuple[str, ...], float]]] = {}
        self._sampled_at: float | None = None

    def describe(self) -> Iterable[Metric]:
        return [GaugeMetricFamily(f.name, f.documentation, labels=f.labels) for f in self._families]

    def collect(self) -> Iterable[Metric]:
        values = self._current()
        families = []
        for family in self._families:
            gauge = GaugeMetricFamily(family.name, family.documentation, labels=family.labels)
            for labels, value in values.get(family.name, []):
                gauge.add_metric(list(labels), value)
            families.append(gauge)
        return families

    def _current(self) -> dict[str, list[tuple[tuple[str, ...], float]]]:
        with self._lock:
            if self._sampled_at is not None and self._clock() - self._sampled_at < self._max_age:
                return self._values
            if self._loop.is_closed() or not self._loop.is_running() or _on_loop_thread(self._loop):
                return self._values  # a blocking wait here would deadlock: serve what is known
            future = asyncio.run_coroutine_threadsafe(_awaited(self._sample), self._loop)
            try:
                sampled = future.result(self._timeout)
            except Exception as error:  # a slow or failing store: keep the last values, say why once per scrape
                future.cancel()
                log.warning("metrics sample failed (%s); serving the previous values", error or type(error).__name__)
                return self._values
            self._values = {name: [(tuple(labels), float(v)) for labels, v in pairs] for name, pairs in sampled.items()}
            self._sampled_at = self._clock()
            return self._values


async def _awaited(sample: Callable[[], Awaitable[Samples]]) -> Samples:
    return await sample()


def _on_loop_thread(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


@dataclass
class MetricsEndpoint:
    """The running ``/metrics`` HTTP server (any path answers the page, as prometheus_client does)."""

    server: Any
    thread: threading.Thread

    @property
    def port(self) -> int:
        return int(self.server.server_port)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def parse_address(address: str) -> tuple[str, int]:
    """``host:port`` (``[::]:9090`` for IPv6) -> (host, port); port 0 picks a free one."""
    host, separator, port = address.rpartition(":")
    if not separator or not port.isdigit():
        raise ValueError(f"not a host:port address: {address!r}")
    return host.strip("[]") or "0.0.0.0", int(port)


def serve_metrics(address: str, registry: CollectorRegistry) -> MetricsEndpoint:
    host, port = parse_address(address)
    server, thread = start_http_server(port, addr=host, registry=registry)
    return MetricsEndpoint(server, thread)
