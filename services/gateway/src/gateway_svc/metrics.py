"""The gateway's Prometheus metrics (prometheus_client, served at ``/metrics`` as text).

Counted per route *template* (``/v1/sessions/{session_id}``, never the concrete path: ids would
make a series per session) and per outcome; no tenant appears in a label, so the page carries
no tenant data and needs no credential, like ``/healthz``. Each app has its own registry, so
several apps in one process (tests) do not collide.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

UNMATCHED = "<unmatched>"


class GatewayMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "lore_gateway_requests_total",
            "Requests answered, by route and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "lore_gateway_request_seconds",
            "Time to answer a request, by route",
            ["method", "route"],
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=self.registry,
        )
        self.rate_limited = Counter(
            "lore_gateway_rate_limited_total",
            "Requests refused by a rate limit, by scope",
            ["scope"],
            registry=self.registry,
        )

    def page(self) -> Response:
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)


def install(app: FastAPI) -> GatewayMetrics:
    metrics = GatewayMetrics()
    app.state.metrics = metrics

    @app.middleware("http")
    async def measure(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        began = time.perf_counter()
        response = await call_next(request)
        route = getattr(request.scope.get("route"), "path", UNMATCHED)
        metrics.requests.labels(request.method, route, str(response.status_code)).inc()
        metrics.latency.labels(request.method, route).observe(time.perf_counter() - began)
        return response

    @app.get("/metrics", tags=["health"], summary="Prometheus metrics of the gateway (text format)")
    async def page() -> Response:
        return metrics.page()

    return metrics
