"""``Server-Timing`` on every answer: how long the gateway waited on the services and how long it
spent itself, so a client (or a browser's network panel) can tell the gateway's share from theirs.

    Server-Timing: upstream;dur=21.4;desc="gRPC", gateway;dur=2.9

``upstream`` is the wall time of the request's gRPC calls (summed when there are several), measured
by a client interceptor on the gateway's channels; ``gateway`` is the rest of the time from the
request's arrival to its answer's first byte.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from typing import Any

import grpc
from starlette.datastructures import MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from gateway_svc.http_middleware import HttpMiddleware

# The request's upstream time in seconds, one cell per request (a list so the interceptor can add to it).
_UPSTREAM: ContextVar[list[float] | None] = ContextVar("lore_gateway_upstream", default=None)


class UpstreamTimingInterceptor(grpc.aio.UnaryUnaryClientInterceptor, grpc.aio.UnaryStreamClientInterceptor):
    """Adds each call's wall time, until its last message or status, to the current request's total."""

    async def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        return await self._timed(continuation, client_call_details, request)

    async def intercept_unary_stream(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        return await self._timed(continuation, client_call_details, request)

    @staticmethod
    async def _timed(continuation: Any, client_call_details: Any, request: Any) -> Any:
        cell = _UPSTREAM.get()
        began = time.perf_counter()
        call = await continuation(client_call_details, request)
        if cell is not None:
            call.add_done_callback(lambda _call: cell.__setitem__(0, cell[0] + time.perf_counter() - began))
        return call


class ServerTimingMiddleware(HttpMiddleware):
    """Adds the ``Server-Timing`` header to the answer's start."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        began = time.perf_counter()
        cell = [0.0]
        token = _UPSTREAM.set(cell)

        async def send_with_timing(message: Message) -> None:
            if message["type"] == "http.response.start":
                total, upstream = time.perf_counter() - began, cell[0]
                value = f'upstream;dur={upstream * 1000:.1f};desc="gRPC", gateway;dur={(total - upstream) * 1000:.1f}'
                MutableHeaders(scope=message).append("Server-Timing", value)
            await send(message)

        try:
            await self.app(scope, receive, send_with_timing)
        finally:
            _UPSTREAM.reset(token)
