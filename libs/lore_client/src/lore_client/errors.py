"""One exception for every failure of a call: ``LoreApiError``.

The gateway answers errors as ``{"error": {"code", "status", "message", "details", "requestId"}}``
(``code`` the HTTP status, ``status`` the gRPC status name, ``details`` the ``google.rpc``
details: an ``ErrorInfo`` with the reason and, for bad input, a ``BadRequest`` naming the field).
Transport failures (connection refused, timeouts) are translated here too, with ``status`` 0,
so a caller catches one type and never an httpx exception.
"""

from __future__ import annotations

from typing import Any

import httpx

# What a body-less answer (a proxy's 502, say) means, as the gateway's STYLE.md table reads backwards.
_CODE_BY_HTTP = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    501: "UNIMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


class LoreApiError(Exception):
    """A call failed. ``status``: the HTTP status (0: no answer); ``code``: the gRPC status name
    (``NOT_FOUND``, ``INVALID_ARGUMENT`` …); ``reason``: the ``ErrorInfo`` reason (``RATE_LIMITED``,
    ``IDEMPOTENCY_KEY_REUSED`` …) or ``""``; ``field``: the request field a 400 names, or ``""``;
    ``retry_after``: seconds to wait, from ``Retry-After`` (429, some 409s), else ``None``."""

    def __init__(
        self,
        *,
        status: int,
        code: str,
        message: str,
        reason: str = "",
        field: str = "",
        request_id: str = "",
        retry_after: float | None = None,
        metadata: dict[str, str] | None = None,
        details: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}" + (f" [{reason}]" if reason else ""))
        self.status = status
        self.code = code
        self.message = message
        self.reason = reason
        self.field = field
        self.request_id = request_id
        self.retry_after = retry_after
        self.metadata = metadata or {}
        self.details = details or []

    @classmethod
    def from_response(cls, response: httpx.Response) -> LoreApiError:
        retry_after = _retry_after(response.headers.get("Retry-After"))
        request_id = response.headers.get("X-Request-Id", "")
        try:
            error = response.json().get("error")
        except (ValueError, AttributeError):
            error = None
        if not isinstance(error, dict):
            return cls(
                status=response.status_code,
                code=_CODE_BY_HTTP.get(response.status_code, "UNKNOWN"),
                message=response.text[:500] or response.reason_phrase,
                request_id=request_id,
                retry_after=retry_after,
            )
        details = [detail for detail in error.get("details") or [] if isinstance(detail, dict)]
        reason, metadata, field = "", {}, ""
        for detail in details:
            kind = str(detail.get("@type", ""))
            if kind.endswith("google.rpc.ErrorInfo"):
                reason = str(detail.get("reason", ""))
                metadata = {str(k): str(v) for k, v in (detail.get("metadata") or {}).items()}
            elif kind.endswith("google.rpc.BadRequest"):
                violations = detail.get("fieldViolations") or []
                if violations and not field:
                    field = str(violations[0].get("field", ""))
        return cls(
            status=response.status_code,
            code=str(error.get("status") or _CODE_BY_HTTP.get(response.status_code, "UNKNOWN")),
            message=str(error.get("message", "")),
            reason=reason,
            field=field or metadata.get("field", ""),
            request_id=str(error.get("requestId") or request_id),
            retry_after=retry_after,
            metadata=metadata,
            details=details,
        )

    @classmethod
    def from_transport(cls, error: httpx.TransportError) -> LoreApiError:
        code = "DEADLINE_EXCEEDED" if isinstance(error, httpx.TimeoutException) else "UNAVAILABLE"
        return cls(status=0, code=code, message=f"{type(error).__name__}: {error}" or type(error).__name__)


def _retry_after(value: str | None) -> float | None:
    """``Retry-After`` in seconds (the gateway sends whole seconds; an HTTP date is not used)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
