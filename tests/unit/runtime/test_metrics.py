"""lore_runtime.metrics: the call interceptor on a real server, scheduled-run counting, gauges sampled
on the event loop when scraped over HTTP, and the metrics address setting."""

import asyncio

import grpc
import httpx
import memory_svc.config
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_runtime import errors
from lore_runtime.metrics import (
    GRPC_LATENCY,
    GRPC_REQUESTS,
    GaugeFamily,
    SampledGauges,
    ScheduledRunMetrics,
    ServiceMetrics,
    parse_address,
    serve_metrics,
    split_method,
)
from lore_runtime.request_context import current
from lore_runtime.server import Registration, create_grpc_server
from lore_runtime.settings import SettingsError, load_settings
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from tests.grpc_harness import SERVICE_TOKEN_ENV, server_settings, service_channel

MEMORY_SERVICE = memory_service_pb2.DESCRIPTOR.services_by_name["MemoryService"]
SERVICE = MEMORY_SERVICE.full_name


class ProbeServicer(memory_service_pb2_grpc.MemoryServiceServicer):
    async def GetMemory(self, request, context):
        org = current().org_id
        if org == "org-missing":
            raise errors.NotFound("no such memory")
        if org == "org-crash":
            raise RuntimeError("unexpected")
        return memory_service_pb2.GetMemoryResponse()

    async def Reindex(self, request, context):
        for _ in range(2):
            await asyncio.sleep(0.01)  # a stream whose messages come apart, as a real one's do
            yield memory_service_pb2.ReindexResponse()


@pytest.fixture
async def probe():
    metrics = ServiceMetrics()
    server = create_grpc_server(
        "127.0.0.1:0",
        [Registration(ProbeServicer(), memory_service_pb2_grpc.add_MemoryServiceServicer_to_server, MEMORY_SERVICE)],
        metrics=metrics,
        settings=server_settings(),
    )
    await server.start()
    async with service_channel(f"127.0.0.1:{server.port}") as channel:
        yield server, channel
    await server.stop(grace=None)


def _tenant(org: str):
    return (("x-lore-org-id", org), ("x-lore-principal", "tester"))


def _count(registry, method: str, code: str) -> float:
    labels = {"grpc_service": SERVICE, "grpc_method": method, "grpc_code": code}
    return registry.get_sample_value(GRPC_REQUESTS, labels) or 0.0


async def test_every_call_is_counted_by_method_and_final_code_and_timed(probe):
    server, channel = probe
    stub = memory_service_pb2_grpc.MemoryServiceStub(channel)
    await stub.GetMemory(memory_service_pb2.GetMemoryRequest(), metadata=_tenant("org-ok"))
    await stub.GetMemory(memory_service_pb2.GetMemoryRequest(), metadata=_tenant("org-ok"))
    for org, code in (("org-missing", grpc.StatusCode.NOT_FOUND), ("org-crash", grpc.StatusCode.INTERNAL)):
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await stub.GetMemory(memory_service_pb2.GetMemoryRequest(), metadata=_tenant(org))
        assert raised.value.code() is code
    with pytest.raises(grpc.aio.AioRpcError) as raised:  # no tenant: refused inside the metrics interceptor
        await stub.GetMemory(memory_service_pb2.GetMemoryRequest())
    assert raised.value.code() is grpc.StatusCode.UNAUTHENTICATED
    streamed = [reply async for reply in stub.Reindex(memory_service_pb2.ReindexRequest(), metadata=_tenant("org-ok"))]
    assert len(streamed) == 2
    await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())

    registry = server.metrics.registry
    assert _count(registry, "GetMemory", "OK") == 2
    assert _count(registry, "GetMemory", "NOT_FOUND") == 1
    assert _count(registry, "GetMemory", "INTERNAL") == 1
    assert _count(registry, "GetMemory", "UNAUTHENTICATED") == 1
    assert _count(registry, "Reindex", "OK") == 1
    latency = {"grpc_service": SERVICE, "grpc_method": "GetMemory"}
    assert registry.get_sample_value(f"{GRPC_LATENCY}_count", latency) == 5
    # The stream is timed until its last message (two 10 ms pauses).
    stream = {"grpc_service": SERVICE, "grpc_method": "Reindex"}
    assert registry.get_sample_value(f"{GRPC_LATENCY}_sum", stream) >= 0.02
    assert registry.get_sample_value(f"{GRPC_LATENCY}_bucket", {**stream, "le": "0.001"}) == 0
    # Probes are not calls: the health service never appears.
    page = server.metrics.page().decode()
    assert "grpc.health" not in page
    assert "process_cpu_seconds_total" in page


def test_a_method_path_splits_into_service_and_method():
    assert split_method("/lore.memory.v1.MemoryService/Recall") == ("lore.memory.v1.MemoryService", "Recall")


async def test_scheduled_runs_are_counted_with_their_totals_and_failures_reraised():
    registry = CollectorRegistry()
    runs = ScheduledRunMetrics(registry)

    async def maintain():
        return {"orgs": 2, "salience_updated": 7, "consolidated": 0, "note": "text is not a total", "flag": True}

    async def broken():
        raise RuntimeError("store down")

    assert await runs.counted("memory_maintenance", maintain)() == await maintain()
    with pytest.raises(RuntimeError):
        await runs.counted("memory_maintenance", broken)()

    def value(name, **labels):
        return registry.get_sample_value(name, {"scheduled_job": "memory_maintenance", **labels})

    assert value("lore_scheduled_runs_total", outcome="ok") == 1
    assert value("lore_scheduled_runs_total", outcome="failed") == 1
    assert value("lore_scheduled_items_total", item="salience_updated") == 7
    assert value("lore_scheduled_items_total", item="orgs") == 2
    assert value("lore_scheduled_items_total", item="note") is None
    assert value("lore_scheduled_items_total", item="flag") is None
    assert value("lore_scheduled_last_success_timestamp_seconds") > 1.7e9


async def _scrape(port: int) -> dict[str, dict[tuple, float]]:
    async with httpx.AsyncClient() as client:
        response = await client.get(f"http://127.0.0.1:{port}/metrics", timeout=10)
    assert response.status_code == 200
    return {
        family.name: {tuple(sorted(sample.labels.items())): sample.value for sample in family.samples}
        for family in text_string_to_metric_families(response.text)
    }


async def test_sampled_gauges_run_on_the_loop_when_scraped_cached_and_kept_on_failure():
    calls = []
    failing = False

    async def sample():
        calls.append(asyncio.get_running_loop())
        if failing:
            raise ConnectionError("the store went away")
        return {"lore_test_depth": [(("reflect",), 3.0), (("episode",), 0.0)]}

    registry = CollectorRegistry()
    clock = [100.0]  # seconds: what max_age is measured on
    gauges = SampledGauges(
        [GaugeFamily("lore_test_depth", "Jobs waiting", ("kind",))], sample, max_age=0.2, clock=lambda: clock[0]
    )
    registry.register(gauges)
    # On the loop's own thread a blocking sample would deadlock: the declared family, no values.
    assert [family.samples for family in registry.collect() if family.name == "lore_test_depth"] == [[]]
    endpoint = serve_metrics("127.0.0.1:0", registry)
    try:
        scraped = await _scrape(endpoint.port)
        assert scraped["lore_test_depth"] == {(("kind", "reflect"),): 3.0, (("kind", "episode"),): 0.0}
        assert calls == [asyncio.get_running_loop()]
        await _scrape(endpoint.port)
        assert len(calls) == 1  # within max_age: served from the cache
        failing = True
        clock[0] += 0.25  # past max_age
        scraped = await _scrape(endpoint.port)
        assert len(calls) == 2
        assert scraped["lore_test_depth"][(("kind", "reflect"),)] == 3.0  # the last good values
    finally:
        endpoint.close()


def test_metrics_addresses_parse_and_an_empty_setting_serves_nothing():
    assert parse_address("0.0.0.0:9090") == ("0.0.0.0", 9090)
    assert parse_address("[::]:9090") == ("::", 9090)
    assert parse_address(":0") == ("0.0.0.0", 0)
    base = {"LORE_DATABASE_URL": "postgresql://x/y", "LORE_REDIS_URL": "redis://x", **SERVICE_TOKEN_ENV}
    assert load_settings(memory_svc.config.Settings, base).metrics_addr is None
    assert load_settings(memory_svc.config.Settings, {**base, "LORE_MEMORY_METRICS_ADDR": ""}).metrics_addr is None
    chosen = load_settings(memory_svc.config.Settings, {**base, "LORE_MEMORY_METRICS_ADDR": "127.0.0.1:0"})
    assert chosen.metrics_addr == "127.0.0.1:0"
    with pytest.raises(SettingsError) as raised:
        load_settings(memory_svc.config.Settings, {**base, "LORE_MEMORY_METRICS_ADDR": "9090"})
    assert "LORE_MEMORY_METRICS_ADDR" in str(raised.value)
