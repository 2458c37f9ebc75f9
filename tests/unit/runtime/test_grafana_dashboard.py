"""deploy/grafana/lore-dashboard.json cannot rot: every metric a panel (or a variable) queries is one
the code registers, on the registries the services and the gateway really build."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from agent_svc.adapters import prometheus_metrics as agent_metrics
from gateway_svc.api.http.metrics import GatewayMetrics
from lore_runtime.metrics import ScheduledRunMetrics, ServiceMetrics
from memory_svc.adapters.prometheus_metrics import collection_sizes
from prometheus_client import CollectorRegistry

DASHBOARD = Path(__file__).resolve().parents[3] / "deploy" / "grafana" / "lore-dashboard.json"

# PromQL's functions, aggregations and keywords: every other identifier of an expression is a metric.
PROMQL_WORDS = {
    "sum", "max", "min", "avg", "count", "topk", "bottomk", "by", "without", "on", "ignoring", "group_left",
    "group_right", "and", "or", "unless", "rate", "irate", "increase", "histogram_quantile", "time", "label_values",
    "offset", "bool", "abs", "clamp_min", "clamp_max", "delta", "deriv", "absent", "vector", "scalar",
}  # fmt: skip
SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum"), "summary": ("_count", "_sum")}


def _names(registry: CollectorRegistry) -> set[str]:
    names = set()
    for family in registry.collect():
        names.add(family.name)
        names.update(family.name + suffix for suffix in SUFFIXES.get(family.type, ()))
    return names


async def registered_metric_names() -> set[str]:
    """What the services register: the call metrics and process collectors of every gRPC server, the
    scheduled-run counters, the agent's and the memory service's own, and the gateway's."""
    service = ServiceMetrics()
    ScheduledRunMetrics(service.registry)
    agent_metrics.register(service.registry, pool=None)  # the pool is only queried when scraped
    service.registry.register(collection_sizes(stores=None))
    return _names(service.registry) | _names(GatewayMetrics().registry)


def metric_names_in(expression: str) -> set[str]:
    expression = re.sub(r'"(?:[^"\\]|\\.)*"', "", expression)  # label values
    expression = re.sub(r"\{[^}]*\}", "", expression)  # label matchers
    expression = re.sub(r"\[[^\]]*\]", "", expression)  # ranges ($__rate_interval, 1h)
    expression = re.sub(r"\b(by|without|on|ignoring)\s*\([^)]*\)", "", expression)  # grouping labels
    expression = re.sub(r"label_values\(([^,)]+),[^)]*\)", r"\1", expression)  # a variable's label
    identifiers = set(re.findall(r"(?<![\w.$])[A-Za-z_:][\w:]*", expression))
    return identifiers - PROMQL_WORDS


def _expressions(dashboard: dict) -> list[tuple[str, str]]:
    found = []
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            found.append((panel["title"], target["expr"]))
    for variable in dashboard["templating"]["list"]:
        query = variable.get("query")
        if isinstance(query, dict):
            found.append((f"variable {variable['name']}", query["query"]))
    return found


@pytest.fixture(scope="module")
def dashboard() -> dict:
    return json.loads(DASHBOARD.read_text())


async def test_every_metric_the_dashboard_queries_is_registered_by_the_code(dashboard):
    registered = await registered_metric_names()
    expressions = _expressions(dashboard)
    assert len(expressions) >= 20
    unknown = {(title, name) for title, expression in expressions for name in metric_names_in(expression) - registered}
    assert unknown == set()


async def test_the_dashboard_covers_what_operators_watch(dashboard):
    used = {name for _, expression in _expressions(dashboard) for name in metric_names_in(expression)}
    assert {
        "lore_grpc_server_requests_total",
        "lore_grpc_server_handling_seconds_bucket",
        "lore_gateway_requests_total",
        "lore_gateway_request_seconds_bucket",
        "lore_agent_jobs",
        "lore_agent_jobs_oldest_queued_seconds",
        "lore_memory_items",
        "lore_scheduled_runs_total",
        "lore_scheduled_last_success_timestamp_seconds",
    } <= used
    quantiles = {
        q for _, e in _expressions(dashboard) for q in re.findall(r"histogram_quantile\((0\.\d+)", e) if "grpc" in e
    }
    assert quantiles == {"0.5", "0.95", "0.99"}


def test_the_dashboard_is_well_formed_for_import(dashboard):
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    assert dashboard["uid"] and dashboard["schemaVersion"] >= 36
    for panel in dashboard["panels"]:
        assert {"h", "w", "x", "y"} <= set(panel["gridPos"])
        assert panel["gridPos"]["x"] + panel["gridPos"]["w"] <= 24
        if panel["type"] != "row":
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
            assert panel["targets"], panel["title"]


def test_the_expression_parser_finds_metrics_and_only_metrics():
    expression = (
        "histogram_quantile(0.95, sum by (le, grpc_method) (rate(lore_grpc_server_handling_seconds_bucket"
        '{grpc_service=~"lore.memory.v1.MemoryService", grpc_code!="OK"}[$__rate_interval]))) '
        "/ on (grpc_method) time() - max(lore_scheduled_last_success_timestamp_seconds)"
    )
    assert metric_names_in(expression) == {
        "lore_grpc_server_handling_seconds_bucket",
        "lore_scheduled_last_success_timestamp_seconds",
    }
    assert metric_names_in("label_values(lore_grpc_server_requests_total, grpc_service)") == {
        "lore_grpc_server_requests_total"
    }
