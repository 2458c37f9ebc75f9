"""Structured JSON logs with the trace id, span id, tenant and request id of the call."""

from __future__ import annotations

import logging
import sys

from opentelemetry import trace
from pythonjsonlogger.json import JsonFormatter

from lore_runtime import request_context


class _CallContextFilter(logging.Filter):
    def __init__(self, service: str) -> None:
        super().__init__()
        self._service = service

    def filter(self, record: logging.LogRecord) -> bool:
        span_context = trace.get_current_span().get_span_context()
        record.service = self._service
        record.trace_id = format(span_context.trace_id, "032x") if span_context.is_valid else ""
        record.span_id = format(span_context.span_id, "016x") if span_context.is_valid else ""
        caller = request_context.current_or_none()
        record.org_id = caller.org_id if caller else ""
        record.request_id = caller.request_id if caller else ""
        return True


def configure_logging(service: str, level: str = "INFO", stream: object = None) -> None:
    """Route the root logger to one JSON line per record on stderr (or ``stream``)."""
    handler = logging.StreamHandler(stream or sys.stderr)  # type: ignore[arg-type]
    handler.addFilter(_CallContextFilter(service))
    handler.setFormatter(
        JsonFormatter(
            "{asctime}{levelname}{name}{message}{service}{trace_id}{span_id}{org_id}{request_id}",
            style="{",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
