"""Translation between domain errors and gRPC's rich status (``google.rpc.Status``).

Server side: ``to_status`` builds the status an interceptor aborts with: the gRPC code
from STYLE.md's table, the message, an ``ErrorInfo`` (reason, domain, metadata) and, for
bad input, a ``BadRequest`` naming the field. Client side: ``from_rpc_error`` reads it
back so one service can re-raise another's error with its meaning intact.
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from lore_runtime import errors

_CODE_BY_ERROR: tuple[tuple[type[errors.LoreError], grpc.StatusCode], ...] = (
    (errors.NotFound, grpc.StatusCode.NOT_FOUND),
    (errors.AlreadyExists, grpc.StatusCode.ALREADY_EXISTS),
    (errors.InvalidArgument, grpc.StatusCode.INVALID_ARGUMENT),
    (errors.FailedPrecondition, grpc.StatusCode.FAILED_PRECONDITION),
    (errors.Conflict, grpc.StatusCode.ABORTED),
    (errors.PermissionDenied, grpc.StatusCode.PERMISSION_DENIED),
    (errors.Unauthenticated, grpc.StatusCode.UNAUTHENTICATED),
    (errors.DependencyUnavailable, grpc.StatusCode.UNAVAILABLE),
    (errors.Unimplemented, grpc.StatusCode.UNIMPLEMENTED),
    (errors.DeadlineExceeded, grpc.StatusCode.DEADLINE_EXCEEDED),
    (errors.QuotaExceeded, grpc.StatusCode.RESOURCE_EXHAUSTED),
)

_ERROR_BY_CODE: dict[grpc.StatusCode, type[errors.LoreError]] = {code: cls for cls, code in _CODE_BY_ERROR}


def grpc_code_for(error: errors.LoreError) -> grpc.StatusCode:
    for cls, code in _CODE_BY_ERROR:
        if isinstance(error, cls):
            return code
    return grpc.StatusCode.INTERNAL


def to_status(error: errors.LoreError) -> grpc.Status:
    """The rich status to abort a call with (code, message, details in trailers)."""
    code = grpc_code_for(error)
    details: list[any_pb2.Any] = []
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=errors.ERROR_DOMAIN, metadata=error.metadata)
    details.append(_pack(info))
    if isinstance(error, errors.InvalidArgument):
        bad_request = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field=error.field, description=error.description)
            ]
        )
        details.append(_pack(bad_request))
    status = status_pb2.Status(code=code.value[0], message=error.message, details=details)
    return rpc_status.to_status(status)


def internal_status(message: str = "internal error") -> grpc.Status:
    status = status_pb2.Status(code=code_pb2.INTERNAL, message=message)
    return rpc_status.to_status(status)


def _pack(message: object) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def error_info_of(error: grpc.aio.AioRpcError | grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The ``ErrorInfo`` detail of a failed call, if the server sent one."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def error_for_code(code: int, message: str, reason: str = "") -> errors.LoreError:
    """The domain error of a status reported inside an answer (a part of a batched call) by its
    numeric ``google.rpc.Code``, as ``from_rpc_error`` reads a failed call's."""
    status = next((known for known in grpc.StatusCode if known.value[0] == code), grpc.StatusCode.UNKNOWN)
    message = message or status.name
    reason = reason or status.name
    if status in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
        return errors.DependencyUnavailable(message, reason=reason)
    cls = _ERROR_BY_CODE.get(status, errors.LoreError)
    if cls is errors.InvalidArgument:  # names no field here: the message says which
        cls = errors.LoreError
    return cls(message, reason=reason)


def from_rpc_error(error: grpc.aio.AioRpcError) -> errors.LoreError:
    """Re-raise a downstream failure as the domain error it stands for."""
    code = error.code()
    message = error.details() or code.name
    info = error_info_of(error)
    reason = info.reason if info is not None else code.name
    metadata = dict(info.metadata) if info is not None else {}
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
        return errors.DependencyUnavailable(message, reason=reason, metadata=metadata)
    if code is grpc.StatusCode.INVALID_ARGUMENT and "field" in metadata:
        field = metadata.pop("field")
        description = message.removeprefix(f"invalid {field}: ")
        return errors.InvalidArgument(field, description, reason=reason, metadata=metadata)
    cls = _ERROR_BY_CODE.get(code, errors.LoreError)
    return cls(message, reason=reason, metadata=metadata)
