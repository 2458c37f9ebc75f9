"""What a request's calls to the services leave behind for its answer: written by the interceptors
on the gateway's channels (``adapters/grpc_upstream_*.py``), read by the api.

- Which service a failed call went to, so a 503 can name it (``api/http/errors.py``).
- How long the request waited on the services, for its ``Server-Timing`` (``api/http/server_timing.py``).

Request-scoped state, not a use case: it lives in domain/ (plain context variables, no I/O) because
the adapters that write it and the api that reads it may both import domain, and neither the other.
"""

from __future__ import annotations

from contextvars import ContextVar

SERVICE_ATTRIBUTE = "lore_service"

# The request's upstream time in seconds, one cell per request (a list so the interceptor can add to it).
UPSTREAM_SECONDS: ContextVar[list[float] | None] = ContextVar("lore_gateway_upstream", default=None)


def name_service(error: Exception, service: str) -> None:
    """Tag a failed call's error with the service it went to."""
    setattr(error, SERVICE_ATTRIBUTE, service)


def service_of(error: Exception) -> str | None:
    return getattr(error, SERVICE_ATTRIBUTE, None)
