"""The gateway's Prometheus metrics (prometheus_client, served at ``/metrics`` as text).

Counted per route *template* (``/v1/sessions/{session_id}``, never the concrete path: ids would
make a series per session) and per outcome; no tenant appears in a label, so the page carries
no tenant data and needs no credential, like ``/healthz``. Each app has its own registry, so
several apps in one process (tests) do not collide.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from fastapi import FastAPI, Response
from fastapi.responses import PlainTextResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway_svc.api.http.forwarding import declared_route
from gateway_svc.api.http.http_middleware import HttpMiddleware

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

    def count_unenforced_limits(self, app: FastAPI) -> None:
        """Export the rate limiter's count of requests it let through uncounted (Redis down), read
        from the app's container when the page is scraped."""
        self.registry.register(_UnenforcedRateLimits(app))

    def page(self) -> Response:
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)


class _UnenforcedRateLimits(Collector):
    """``lore_gateway_rate_limits_unenforced_total{scope}``: requests the rate limiter let through
    without counting them because Redis could not be asked (fail open, docs/gateway.md)."""

    def __init__(self, app: FastAPI) -> None:
        self._app = app

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(
            "lore_gateway_rate_limits_unenforced",
            "Requests let through without their rate limit counted (Redis unavailable), by scope",
            labels=["scope"],
        )
        container = getattr(self._app.state, "container", None)  # none before the lifespan starts
        counts = container.rate_limiter.unenforced if container is not None else {}
        for scope, count in sorted(counts.items()):
            family.add_metric([scope], count)
        yield family


_EXAMPLE = """# HELP lore_gateway_requests_total Requests answered, by route and status
# TYPE lore_gateway_requests_total counter
lore_gateway_requests_total{method="POST",route="/v1/memories:search",status="200"} 1042.0
"""


class MetricsMiddleware(HttpMiddleware):
    """Counts and times every HTTP request. The route template is known once the router has
    matched, on the same scope."""

    def __init__(self, app: ASGIApp, metrics: GatewayMetrics) -> None:
        super().__init__(app)
        self.metrics = metrics

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        began = time.perf_counter()
        status = 500  # an exception escaping the app is answered 500 by the server error middleware

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            route = getattr(scope.get("route"), "path", UNMATCHED)
            self.metrics.requests.labels(scope["method"], route, str(status)).inc()
            self.metrics.latency.labels(scope["method"], route).observe(time.perf_counter() - began)


def install(app: FastAPI) -> GatewayMetrics:
    metrics = GatewayMetrics()
    metrics.count_unenforced_limits(app)
    app.state.metrics = metrics

    app.add_middleware(MetricsMiddleware, metrics=metrics)

    @declared_route(
        app.router,
        "health.metrics",
        response_class=PlainTextResponse,  # documents text/plain; the page sets Prometheus' exact type
        responses={200: {"content": {"text/plain": {"example": _EXAMPLE}}}},
    )
    async def page() -> Response:
        return metrics.page()

    return metrics
