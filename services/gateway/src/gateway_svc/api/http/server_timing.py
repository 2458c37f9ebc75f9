"""``Server-Timing`` on every answer: how long the gateway waited on the services and how long it
spent itself, so a client (or a browser's network panel) can tell the gateway's share from theirs.

    Server-Timing: upstream;dur=21.4;desc="gRPC", gateway;dur=2.9

``upstream`` is the wall time of the request's gRPC calls (summed when there are several), measured
by a client interceptor on the gateway's channels (``adapters/grpc_upstream_timing.py``); ``gateway``
is the rest of the time from the request's arrival to its answer's first byte.
"""

from __future__ import annotations

import time

from starlette.datastructures import MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from gateway_svc.api.http.http_middleware import HttpMiddleware
from gateway_svc.domain.upstream_calls import UPSTREAM_SECONDS


class ServerTimingMiddleware(HttpMiddleware):
    """Adds the ``Server-Timing`` header to the answer's start."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        began = time.perf_counter()
        cell = [0.0]
        token = UPSTREAM_SECONDS.set(cell)

        async def send_with_timing(message: Message) -> None:
            if message["type"] == "http.response.start":
                total, upstream = time.perf_counter() - began, cell[0]
                value = f'upstream;dur={upstream * 1000:.1f};desc="gRPC", gateway;dur={(total - upstream) * 1000:.1f}'
                MutableHeaders(scope=message).append("Server-Timing", value)
            await send(message)

        try:
            await self.app(scope, receive, send_with_timing)
        finally:
            UPSTREAM_SECONDS.reset(token)
