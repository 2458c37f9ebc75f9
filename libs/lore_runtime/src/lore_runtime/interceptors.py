"""Server interceptors every Lore gRPC server installs, in this order (outermost first):

1. OpenTelemetry's aio server interceptor (spans, trace context from metadata);
2. ``lore_runtime.metrics.MetricsInterceptor``: counts and times every call by its final status;
3. ``lore_runtime.service_auth.ServiceCredentialInterceptor``: refuses callers without the service
   credential (client certificate or ``LORE_SERVICE_TOKEN``), whatever metadata they send;
4. ``RequestContextInterceptor``: reads the tenant and principal from metadata into
   ``request_context`` and refuses calls without them;
5. ``ErrorInterceptor``: holds every request message to ``text_rules`` (``request_text``), then
   replaces the secrets in its text by placeholders (``message_redaction``, ``LORE_REDACT``), turns
   domain errors into ``google.rpc.Status`` (with ErrorInfo) and anything unexpected into a
   logged, generic INTERNAL.

Health checking and reflection are infrastructure, not tenant calls: the guarding interceptors
pass them through untouched.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import asyncpg
import grpc
from opentelemetry import trace

from lore_runtime import errors, grpc_errors, request_context, request_text
from lore_runtime.message_redaction import redact_message
from lore_runtime.redaction import Redactor
from lore_runtime.stores import (
    POSTGRES_DRIVER_UNAVAILABLE,
    REDIS_DRIVER_UNAVAILABLE,
    postgres_unavailable,
    redis_unavailable,
)

log = logging.getLogger(__name__)

UNSTORABLE_TEXT = (
    asyncpg.exceptions.CharacterNotInRepertoireError,
    asyncpg.exceptions.UntranslatableCharacterError,
)

EXEMPT_PREFIXES = (
    "/grpc.health.v1.Health/",
    "/grpc.reflection.v1alpha.ServerReflection/",
    "/grpc.reflection.v1.ServerReflection/",
)

Guard = Callable[[grpc.aio.ServicerContext, str], AbstractAsyncContextManager[None]]
Check = Callable[[Any], None]


def _no_check(request: Any) -> None:
    return None


def is_exempt(method: str) -> bool:
    return method.startswith(EXEMPT_PREFIXES)


def _guarded(handler: grpc.RpcMethodHandler, guard: Guard, method: str, check: Check) -> grpc.RpcMethodHandler:
    """The same handler with every call run inside ``guard``, a single request message passed to
    ``check`` first (inside the guard: what it raises is the guard's to answer)."""

    def unary_response(behavior: Callable[..., Awaitable[Any]], checked: Check) -> Callable[..., Awaitable[Any]]:
        async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
            async with guard(context, method):
                checked(request)
                return await behavior(request, context)

        return call

    def streaming_response(
        behavior: Callable[..., AsyncIterator[Any]], checked: Check
    ) -> Callable[..., AsyncIterator[Any]]:
        async def call(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            async with guard(context, method):
                checked(request)
                async for response in behavior(request, context):
                    yield response

        return call

    kwargs = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    if handler.unary_unary:
        return grpc.unary_unary_rpc_method_handler(unary_response(handler.unary_unary, check), **kwargs)
    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(streaming_response(handler.unary_stream, check), **kwargs)
    # A stream of requests is an iterator, not a message: ``check`` is for single requests.
    if handler.stream_unary:
        return grpc.stream_unary_rpc_method_handler(unary_response(handler.stream_unary, _no_check), **kwargs)
    return grpc.stream_stream_rpc_method_handler(streaming_response(handler.stream_stream, _no_check), **kwargs)


class GuardingInterceptor(grpc.aio.ServerInterceptor):
    """Runs every non-exempt call inside the guard the subclass gives, its request passed to ``check``."""

    def __init__(self, guard: Guard, check: Check = _no_check) -> None:
        self._guard = guard
        self._check = check

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or is_exempt(method):
            return handler
        return _guarded(handler, self._guard, method, self._check)


async def abort_with(context: grpc.aio.ServicerContext, status: grpc.Status) -> None:
    await context.abort(status.code, status.details, status.trailing_metadata)


@asynccontextmanager
async def _bind_caller(context: grpc.aio.ServicerContext, method: str) -> AsyncIterator[None]:
    try:
        caller = request_context.from_metadata(context.invocation_metadata())
    except errors.Unauthenticated as error:
        await abort_with(context, grpc_errors.to_status(error))
        return
    span = trace.get_current_span()
    span.set_attribute("lore.org_id", caller.org_id)
    if caller.request_id:
        span.set_attribute("lore.request_id", caller.request_id)
    with request_context.bound(caller):
        yield


@asynccontextmanager
async def _translate_errors(context: grpc.aio.ServicerContext, method: str) -> AsyncIterator[None]:
    try:
        yield
    except errors.LoreError as error:
        if isinstance(error, errors.DependencyUnavailable):
            log.warning("dependency unavailable in %s: %s", method, error.message)
        await abort_with(context, grpc_errors.to_status(error))
    except (grpc.aio.AbortError, grpc.aio.UsageError):
        raise
    # A store down that no adapter translated is still the store's outage (UNAVAILABLE, a 503 with
    # Retry-After at the gateway), never an INTERNAL.
    except POSTGRES_DRIVER_UNAVAILABLE as error:
        await _store_down(context, method, postgres_unavailable(error))
    except REDIS_DRIVER_UNAVAILABLE as error:
        await _store_down(context, method, redis_unavailable(error))
    except UNSTORABLE_TEXT:
        # Text Postgres cannot hold (U+0000 above all) that no validator caught: the caller's input,
        # so INVALID_ARGUMENT rather than INTERNAL, wherever it reached the database.
        error = errors.InvalidArgument("request", "text must not contain U+0000 (NUL) or characters the store refuses")
        await abort_with(context, grpc_errors.to_status(error))
    except Exception:
        # The caller gets a generic message; the log line (with the trace id) has the detail.
        log.exception("unexpected failure in %s", method)
        await abort_with(context, grpc_errors.internal_status())


async def _store_down(context: grpc.aio.ServicerContext, method: str, error: errors.DependencyUnavailable) -> None:
    log.warning("dependency unavailable in %s (a driver error no adapter translated): %s", method, error.message)
    await abort_with(context, grpc_errors.to_status(error))


class RequestContextInterceptor(GuardingInterceptor):
    def __init__(self) -> None:
        super().__init__(_bind_caller)


class ErrorInterceptor(GuardingInterceptor):
    """Domain errors as statuses; every request held to ``text_rules`` first (``request_text``), then
    its secrets replaced (``message_redaction``) before the servicer, or anything it logs, sees it."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        redactor = redactor or Redactor()

        def check_and_redact(request: Any) -> None:
            request_text.check_message(request)
            redact_message(request, redactor)

        super().__init__(_translate_errors, check_and_redact)
