"""The shape the gateway's own middleware shares: plain ASGI, HTTP only.

Plain ASGI because Starlette's ``BaseHTTPMiddleware`` costs a task and two streams per request;
other scopes (the lifespan) pass through untouched, and ``handle`` serves an HTTP request."""

from __future__ import annotations

from abc import ABC, abstractmethod

from starlette.types import ASGIApp, Receive, Scope, Send


class HttpMiddleware(ABC):
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    @abstractmethod
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one HTTP request: each middleware's own work, calling ``self.app`` in turn."""
