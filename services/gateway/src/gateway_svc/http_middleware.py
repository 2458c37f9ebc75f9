"""The shape the gateway's own middleware shares: plain ASGI, HTTP only.

Plain ASGI because Starlette's ``BaseHTTPMiddleware`` costs a task and two streams per request;
other scopes (the lifespan) pass through untouched, and ``handle`` serves an HTTP request."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


class HttpMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError
