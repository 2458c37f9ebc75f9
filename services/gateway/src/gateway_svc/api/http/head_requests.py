"""``HEAD`` on every path that serves ``GET`` (RFC 9110 §9.3.2): the ``GET`` answer's status and
headers, ``Content-Length`` included, without its body.

FastAPI's routes serve only the methods they declare, and adding ``HEAD`` to each would document
it as an operation of its own (a second operation id per ``GET`` in generated clients). So the
request is served as the ``GET`` it mirrors, through every check a ``GET`` passes (credential,
scopes, rate limit), and the body is dropped on the way out. A path without ``GET`` answers ``HEAD``
as it answers ``GET``: 405, with ``Allow`` (``errors.allowed_methods`` lists ``HEAD`` beside ``GET``).
The OpenAPI document lists ``GET`` only; ``HEAD`` is implied by it.
"""

from __future__ import annotations

from starlette.types import Message, Receive, Scope, Send

from gateway_svc.api.http.http_middleware import HttpMiddleware


class HeadMiddleware(HttpMiddleware):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the GET's body, part by part: none of it is sent
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        # A copy: the server keeps its own scope, whose method still says HEAD.
        await self.app(dict(scope, method="GET"), receive, without_body)
