"""OpenTelemetry set-up: one TracerProvider per process, exported over OTLP when configured.

Spans are always created (so logs carry trace ids and context propagates across hops);
they are exported only when an OTLP endpoint is configured through the SDK's own
``OTEL_EXPORTER_OTLP_*`` variables, or when a test passes its own exporter.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter

_OTLP_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def setup_telemetry(
    service_name: str,
    *,
    exporter: SpanExporter | None = None,
    environ: Mapping[str, str] | None = None,
    set_global: bool = True,
) -> TracerProvider:
    environ = os.environ if environ is None else environ
    provider = TracerProvider(resource=Resource.create({"service.name": f"lore-{service_name}"}))
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    elif any(environ.get(name) for name in _OTLP_VARIABLES):
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    if set_global:
        trace.set_tracer_provider(provider)
    return provider


def current_trace_id() -> str:
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else ""
