"""Domain errors shared by every service, free of gRPC so that domain code can raise them.

Each error carries a ``reason`` (UPPER_SNAKE, stable, machine-readable) and string
metadata. The server's error interceptor turns them into ``google.rpc.Status`` with an
``ErrorInfo`` detail (see ``lore_runtime.grpc_errors``); the gateway turns that into the
HTTP error body. Servicers never set status codes by hand.
"""

from __future__ import annotations

from collections.abc import Mapping

ERROR_DOMAIN = "lore.dev"


class LoreError(Exception):
    """Base of every error a Lore service reports to its caller on purpose."""

    default_reason = "INTERNAL"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.metadata: dict[str, str] = dict(metadata or {})


class NotFound(LoreError):
    default_reason = "NOT_FOUND"


class AlreadyExists(LoreError):
    default_reason = "ALREADY_EXISTS"


def id_of_another_org(kind: str, record_id: str, count: int = 1) -> AlreadyExists:
    """An imported record whose id another org holds: refused, never moved across tenants (ids are
    global keys in every store). ``count``: how many of the batch were refused."""
    return AlreadyExists(
        f"{kind} {record_id} belongs to another organisation: import a copy under new ids "
        "(`lore org import` derives them when the file's org is not the target org)",
        reason="ID_OF_ANOTHER_ORG",
        metadata={"id": record_id, "count": str(count)},
    )


class InvalidArgument(LoreError):
    """A request field is malformed. ``field`` names it in proto (snake_case) path form."""

    default_reason = "INVALID_ARGUMENT"

    def __init__(
        self,
        field: str,
        description: str,
        *,
        reason: str | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            f"invalid {field}: {description}",
            reason=reason,
            metadata={"field": field, **(metadata or {})},
        )
        self.field = field
        self.description = description


class FailedPrecondition(LoreError):
    default_reason = "FAILED_PRECONDITION"


class Conflict(LoreError):
    default_reason = "CONFLICT"


class PermissionDenied(LoreError):
    default_reason = "PERMISSION_DENIED"


class Unauthenticated(LoreError):
    default_reason = "UNAUTHENTICATED"


class DependencyUnavailable(LoreError):
    default_reason = "DEPENDENCY_UNAVAILABLE"


class Unimplemented(LoreError):
    """A capability that an open issue still owns; the message says which."""

    default_reason = "CAPABILITY_PENDING"


class DeadlineExceeded(LoreError):
    default_reason = "DEADLINE_EXCEEDED"


class QuotaExceeded(LoreError):
    default_reason = "QUOTA_EXCEEDED"
