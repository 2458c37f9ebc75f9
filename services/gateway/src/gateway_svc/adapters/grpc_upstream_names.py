"""Which service a failed call went to, so a 503 can name it instead of quoting the transport.

gRPC's UNAVAILABLE carries transport text ("ipv4:127.0.0.1:15051: Failed to connect …") or a
service's own message about its store, with addresses in both. The error handler answers with
the service's name only (``api/http/errors.py``, ``_rpc_error``) and logs the rest; this interceptor, one per
channel, tags the failure with the channel's service. Streaming calls are not tagged: their
failures surface while the route iterates, and are answered without a name.
"""

from __future__ import annotations

from typing import Any

import grpc

from gateway_svc.domain.upstream_calls import name_service


class UpstreamNameInterceptor(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, service: str) -> None:
        self._service = service

    async def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        call = await continuation(client_call_details, request)
        try:
            await call
        except grpc.aio.AioRpcError as error:
            name_service(error, self._service)
            raise
        return call
