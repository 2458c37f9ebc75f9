"""One error body for every failure: ``{"error": {code, status, message, details, requestId}}``.

``code`` is the HTTP status and ``status`` the gRPC status name (STYLE.md's table).
Upstream gRPC failures keep their meaning (code, message, ErrorInfo); anything
unexpected is a generic 500 whose detail goes to the log with the trace id.

The unexpected ones are answered by ``UnexpectedErrorMiddleware`` rather than an exception handler
for ``Exception``: Starlette runs that handler in its outermost middleware and then re-raises, and
uvicorn closes a connection whose application raised, so the client's next request on the same
keep-alive connection was reset. After any answer, 4xx or 5xx, the connection stays usable.
"""

from __future__ import annotations

import logging
from typing import Any

import grpc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import iter_route_contexts
from google.protobuf import json_format
from grpc_status import rpc_status
from lore_runtime import errors, grpc_errors
from lore_runtime.errors import ERROR_DOMAIN
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import Message, Receive, Scope, Send

from gateway_svc.api.http.http_middleware import HttpMiddleware
from gateway_svc.api.json.json_paths import json_named
from gateway_svc.domain.upstream_calls import service_of

log = logging.getLogger(__name__)

# When a service gave no hint: short (a restarting service is back in seconds), and clients back off past it.
UNAVAILABLE_RETRY_AFTER_SECONDS = 2
_ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"

HTTP_STATUS = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}
_CODE_BY_HTTP = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.NOT_FOUND,
    405: grpc.StatusCode.UNIMPLEMENTED,
    413: grpc.StatusCode.INVALID_ARGUMENT,
    429: grpc.StatusCode.RESOURCE_EXHAUSTED,
}


def error_response(
    request: Request,
    code: grpc.StatusCode,
    message: str,
    details: list[dict[str, Any]] | None = None,
    *,
    http_status: int | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    http_status = http_status or HTTP_STATUS.get(code, 500)
    body = {
        "error": {
            "code": http_status,
            "status": code.name,
            "message": message,
            "details": details or [],
            "requestId": getattr(request.state, "request_id", ""),
        }
    }
    if http_status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": "Bearer"}
    return JSONResponse(body, status_code=http_status, headers=headers)


def _details_of(status: grpc.Status | grpc.aio.AioRpcError) -> list[dict[str, Any]]:
    trailing = status.trailing_metadata
    for key, value in (trailing() if callable(trailing) else trailing) or ():
        if key == "grpc-status-details-bin":
            from google.rpc import status_pb2

            proto = status_pb2.Status.FromString(value)
            return [json_format.MessageToDict(detail) for detail in proto.details]
    return []


async def _lore_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, errors.LoreError)
    status = grpc_errors.to_status(error)
    # A rate limit or an outage says when to come back (RFC 9110 Retry-After, in seconds).
    retry_after = error.metadata.get("retry_after_seconds") if isinstance(error, errors.QuotaExceeded) else None
    message = error.message
    if isinstance(error, errors.DependencyUnavailable):
        # The gateway's own store: its reason (POSTGRES_UNAVAILABLE, …) says which; the driver's text,
        # addresses included, goes to the log only.
        log.warning("gateway dependency unavailable: %s", error.message)
        message = "the gateway is unavailable; retry later"
        retry_after = error.metadata.get("retry_after_seconds", str(UNAVAILABLE_RETRY_AFTER_SECONDS))
    headers = {"Retry-After": retry_after} if retry_after else None
    return error_response(request, status.code, message, _details_of(status), headers=headers)


async def _rpc_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, grpc.aio.AioRpcError)
    code = error.code()
    # A service refusing the gateway itself (UNAUTHENTICATED: its service token, or its tenant metadata)
    # is the deployment's fault, never the client's: a 500, its cause in the log, not a 401 to the client.
    if code in (
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.DATA_LOSS,
        grpc.StatusCode.UNAUTHENTICATED,
    ):
        log.error("upstream failure: %s %s", code.name, error.details())
        return error_response(request, grpc.StatusCode.INTERNAL, "internal error")
    if code is grpc.StatusCode.UNAVAILABLE:
        return _unavailable(request, error)
    details = []
    status = rpc_status.from_call(error)
    if status is not None:
        details = [json_format.MessageToDict(detail) for detail in status.details]
    message, details = json_named(error.details() or code.name, details)
    return error_response(request, code, message, details)


def _unavailable(request: Request, error: grpc.aio.AioRpcError) -> JSONResponse:
    """503 naming the service (and, in ErrorInfo, the reason it gave), never an address or the
    transport's text: those go to the log. ``Retry-After`` is the service's own hint, if it gave one."""
    service = service_of(error)
    log.warning("upstream unavailable (%s service): %s", service or "unnamed", error.details())
    infos = [detail for detail in _details_of(error) if detail.get("@type", "").endswith("/google.rpc.ErrorInfo")]
    info = infos[0] if infos else {"@type": _ERROR_INFO, "reason": "SERVICE_UNAVAILABLE", "domain": ERROR_DOMAIN}
    info["metadata"] = {**info.get("metadata", {}), **({"service": service} if service else {})}
    retry_after = str(info["metadata"].get("retry_after_seconds") or UNAVAILABLE_RETRY_AFTER_SECONDS)
    named = f"the {service} service" if service else "a Lore service"
    return error_response(
        request,
        grpc.StatusCode.UNAVAILABLE,
        f"{named} is unavailable; retry later",
        [info],
        headers={"Retry-After": retry_after},
    )


async def _validation_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    first = error.errors()[0] if error.errors() else {}
    field = ".".join(str(part) for part in first.get("loc", ())[1:]) or "request"
    return await _lore_error(request, errors.InvalidArgument(field, str(first.get("msg", "invalid"))))


async def _http_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, StarletteHTTPException)
    code = _CODE_BY_HTTP.get(error.status_code, grpc.StatusCode.UNKNOWN)
    headers = dict(error.headers or {})
    if error.status_code == 405:
        headers["Allow"] = allowed_methods(request)
    return error_response(request, code, str(error.detail), http_status=error.status_code, headers=headers or None)


def allowed_methods(request: Request) -> str:
    """The ``Allow`` of a 405 (RFC 9110): every method some route of the request's path accepts. The
    router's own exception names only the first route whose path matched, and a path's methods are
    often split over several routes (GET and POST on a collection), which FastAPI keeps in the
    branches of the routers the app includes."""
    methods: set[str] = set()
    for route in iter_route_contexts(request.app.routes):
        route_methods = getattr(route, "methods", None)
        if route_methods and route.matches(request.scope)[0] is not Match.NONE:
            methods |= route_methods
    # Every path that serves GET serves HEAD too (head_requests.py).
    return ", ".join(sorted(methods | ({"HEAD"} if "GET" in methods else set())))


class UnexpectedErrorMiddleware(HttpMiddleware):
    """Anything the routes and the middleware inside this one raised unexpectedly: logged, and
    answered as the generic 500 (with the request id), the exception kept from the server so the
    connection stays open. An exception after the answer began cannot be answered: it is re-raised,
    and the server closes the connection, the only honest end of a half-sent answer."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception:
            if started:
                raise
            request = Request(scope)
            log.exception("unexpected failure serving %s %s", request.method, request.url.path)
            # The request-id middleware is inside this one: its header is set here.
            request_id = scope.get("state", {}).get("request_id")
            headers = {"X-Request-Id": request_id} if request_id else None
            await error_response(request, grpc.StatusCode.INTERNAL, "internal error", headers=headers)(
                scope, receive, send
            )


def install(app: FastAPI) -> None:
    app.add_exception_handler(errors.LoreError, _lore_error)
    app.add_exception_handler(grpc.aio.AioRpcError, _rpc_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_middleware(UnexpectedErrorMiddleware)
