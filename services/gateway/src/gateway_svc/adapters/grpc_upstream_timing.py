"""Each call's wall time on the gateway's channels, added to its request's ``Server-Timing``
(``api/http/server_timing.py``)."""

from __future__ import annotations

import time
from typing import Any

import grpc

from gateway_svc.domain.upstream_calls import UPSTREAM_SECONDS


class UpstreamTimingInterceptor(grpc.aio.UnaryUnaryClientInterceptor, grpc.aio.UnaryStreamClientInterceptor):
    """Adds each call's wall time, until its last message or status, to the current request's total."""

    async def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        return await self._timed(continuation, client_call_details, request)

    async def intercept_unary_stream(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        return await self._timed(continuation, client_call_details, request)

    @staticmethod
    async def _timed(continuation: Any, client_call_details: Any, request: Any) -> Any:
        cell = UPSTREAM_SECONDS.get()
        began = time.perf_counter()
        call = await continuation(client_call_details, request)
        if cell is not None:
            call.add_done_callback(lambda _call: cell.__setitem__(0, cell[0] + time.perf_counter() - began))
        return call
