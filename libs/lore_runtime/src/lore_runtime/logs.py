"""Structured JSON logs with the trace id, span id, tenant and request id of the call, the secrets
of every line replaced by placeholders (``LORE_REDACT``, lore_runtime/redaction.py).

Requests are redacted before any servicer reads them (``message_redaction``), but a log line can
hold what no request carried through that door: a URL's query string in an access log, a driver's
error quoting a value, a traceback. So the formatter redacts each line's message, its string
fields and its traceback too, the percent-encoded form of a URL included.
"""

from __future__ import annotations

import logging
import sys
from typing import Any
from urllib.parse import unquote_plus

from opentelemetry import trace
from pythonjsonlogger.json import JsonFormatter

from lore_runtime import request_context
from lore_runtime.redaction import Redactor

# Attributes every LogRecord has: the rest are a call's ``extra`` fields.
_RECORD_ATTRIBUTES = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


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


class RedactingJsonFormatter(JsonFormatter):
    """``JsonFormatter`` whose lines hold no secret of the kinds its ``Redactor`` names."""

    def __init__(self, *args: Any, redactor: Redactor | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._redactor = redactor or Redactor()

    def redact(self, text: str) -> str:
        redacted = self._redactor(text)
        if "%" in text or "+" in text:  # a URL's query string: what it says once decoded
            decoded = unquote_plus(text)
            if decoded != text and self._redactor(decoded) != decoded:
                return self._redactor(decoded)
        return redacted

    def format(self, record: logging.LogRecord) -> str:
        if not self._redactor.enabled:
            return super().format(record)
        # A copy: other handlers of the record (pytest's capture) see it as it was logged.
        copy = logging.makeLogRecord(record.__dict__)
        if isinstance(record.msg, dict):  # a structured message: its string values
            copy.msg = {key: self.redact(v) if isinstance(v, str) else v for key, v in record.msg.items()}
        else:
            copy.msg = self.redact(record.getMessage())
            copy.args = None
        if record.exc_text:
            copy.exc_text = self.redact(record.exc_text)
        for name, value in record.__dict__.items():
            if name not in _RECORD_ATTRIBUTES and isinstance(value, str):
                setattr(copy, name, self.redact(value))
        return super().format(copy)

    def formatException(self, ei: Any) -> str:
        return self.redact(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:
        return self.redact(super().formatStack(stack_info))


def configure_logging(
    service: str, level: str = "INFO", stream: object = None, redactor: Redactor | None = None
) -> None:
    """Route the root logger to one JSON line per record on stderr (or ``stream``), each line's
    secrets replaced as ``redactor`` says (every kind when not given)."""
    handler = logging.StreamHandler(stream or sys.stderr)  # type: ignore[arg-type]
    handler.addFilter(_CallContextFilter(service))
    handler.setFormatter(
        RedactingJsonFormatter(
            "{asctime}{levelname}{name}{message}{service}{trace_id}{span_id}{org_id}{request_id}",
            style="{",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            redactor=redactor,
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
