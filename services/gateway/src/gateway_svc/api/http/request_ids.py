"""Request ids: every answer says which request it was, so logs correlate across systems."""

from __future__ import annotations

import re
import uuid

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from gateway_svc.api.http.http_middleware import HttpMiddleware

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


class RequestIdMiddleware(HttpMiddleware):
    """Every answer carries ``X-Request-Id``: the client's, when well formed (so logs correlate
    across systems), else a new one; routes and error bodies read it from the request state."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        offered = Headers(scope=scope).get("x-request-id", "")
        request_id = offered if _REQUEST_ID.fullmatch(offered) else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)["X-Request-Id"] = request_id
            await send(message)

        await self.app(scope, receive, send_with_id)
