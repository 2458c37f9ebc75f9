"""OpenTelemetry set-up: one TracerProvider per process, exported over OTLP when configured.

Spans are always created (so logs carry trace ids and context propagates across hops);
they are recorded and exported only when an OTLP endpoint is configured through the SDK's own
``OTEL_EXPORTER_OTLP_*`` variables (sampled as ``OTEL_TRACES_SAMPLER`` says, every trace by
default), or when a test passes its own exporter.

The process-wide provider also instruments the store drivers (asyncpg, redis): every query is
a child span of the call that made it, with the statement's text but never its parameters (redis
commands are reduced to their name). Background jobs carry the ``traceparent`` of the call that
queued them and start their own trace linked to it (``job_links``): a turn's trace ends when the
turn is answered, and its reflection, seconds later, is found through the link.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from opentelemetry import trace
from opentelemetry.propagators.textmap import DefaultGetter, DefaultSetter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ParentBased
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

log = logging.getLogger(__name__)
_OTLP_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
# With nothing to export to, spans are not recorded: they still get trace ids (for the logs) and
# propagate, but skip attributes, events and processors that would only be thrown away. A sampled
# parent from a caller that does export is still followed (parent-based). (Within the noise of
# bench.gateway_load on 2 cores, A/B against always_on: the saving is small, the waste was real.)
_UNEXPORTED = ParentBased(ALWAYS_OFF)


def setup_telemetry(
    service_name: str,
    *,
    exporter: SpanExporter | None = None,
    environ: Mapping[str, str] | None = None,
    set_global: bool = True,
) -> TracerProvider:
    environ = os.environ if environ is None else environ
    exporting = exporter is not None or any(environ.get(name) for name in _OTLP_VARIABLES)
    provider = TracerProvider(
        resource=Resource.create({"service.name": f"lore-{service_name}"}),
        sampler=None if exporting or environ.get("OTEL_TRACES_SAMPLER") else _UNEXPORTED,
    )
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    elif any(environ.get(name) for name in _OTLP_VARIABLES):
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    if set_global:
        trace.set_tracer_provider(provider)
        instrument_store_drivers(provider)
    return provider


def instrument_store_drivers(provider: TracerProvider) -> None:
    """Spans for every asyncpg query and redis command of the process (instrumentation patches the
    drivers' classes, hence once per process, with the process's provider)."""
    from opentelemetry.instrumentation.asyncpg import AsyncPGInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    for instrumentor in (AsyncPGInstrumentor(), RedisInstrumentor()):
        if not instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.instrument(tracer_provider=provider)
        if not instrumentor.is_instrumented_by_opentelemetry:  # refused: the driver's version is not supported
            log.warning("no store spans from %s: the instrumentation refused the installed driver", instrumentor)


def instrument_http_app(app: Any, provider: TracerProvider) -> None:
    """A server span per request of a FastAPI ``app`` (the root of a REST call's trace, whose context
    the gRPC client interceptors carry on); probes and the metrics page are not traced. FastAPI's
    own telemetry, on whenever a global provider is set, steps aside for this middleware (it
    looks for it in the app's stack), so a request gets one server span, not two."""
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

    FastAPIInstrumentor.instrument_app(
        app,
        tracer_provider=provider,
        excluded_urls="/healthz,/readyz,/metrics",
        exclude_spans=["receive", "send"],  # one span per request, not one per ASGI message
    )


_TRACE_CONTEXT = TraceContextTextMapPropagator()


def current_traceparent() -> str:
    """The W3C ``traceparent`` of the current span ("" outside one): stored with a queued job."""
    carrier: dict[str, str] = {}
    _TRACE_CONTEXT.inject(carrier, setter=DefaultSetter())
    return carrier.get("traceparent", "")


def job_links(traceparent: str) -> list[trace.Link]:
    """A link to the span a ``traceparent`` names (none when it is empty or malformed)."""
    if not traceparent:
        return []
    context = _TRACE_CONTEXT.extract({"traceparent": traceparent}, getter=DefaultGetter())
    span_context = trace.get_current_span(context).get_span_context()
    return [trace.Link(span_context)] if span_context.is_valid else []


def current_trace_id() -> str:
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else ""
