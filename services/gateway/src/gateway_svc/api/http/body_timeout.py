"""A request's body must arrive within ``LORE_BODY_TIMEOUT_SECONDS`` of its headers, else 408 and
the connection is closed: a client trickling its body in cannot hold a connection (and the route
waiting on it) for as long as it likes.

The clock starts when the server hands the request over (its headers are in). Whoever reads the
body — a route, the Idempotency-Key middleware — reads it through this deadline; a route that
answers without reading it (a 401, a route whose message is its path) has the rest read and dropped
before its answer goes out, under the same deadline, so the connection is ready for the next
request. Past the deadline, whatever the route was doing is dropped and the answer is 408
``DEADLINE_EXCEEDED``, reason ``BODY_TIMEOUT``, with ``Connection: close``. A body larger than
``LORE_MAX_BODY_BYTES`` is not read to its end: the route's answer (400 ``BODY_TOO_LARGE``) closes
the connection instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio
import grpc
from fastapi import Request
from lore_runtime.errors import ERROR_DOMAIN
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway_svc.api.http.errors import error_response
from gateway_svc.api.http.http_middleware import HttpMiddleware

REASON = "BODY_TIMEOUT"


class _BodyTimedOut(Exception):
    """Raised into whoever waits on the body once the deadline has passed."""


@dataclass
class _Progress:
    done: bool  # the whole body has arrived (or there is none)
    declared: int | None = None  # Content-Length, when given
    received: int = 0
    timed_out: bool = False
    answered: bool = False  # a response has started


class BodyTimeoutMiddleware(HttpMiddleware):
    def __init__(self, app: ASGIApp, *, seconds: float, max_body_bytes: int) -> None:
        super().__init__(app)
        self.seconds = seconds
        self.max_body_bytes = max_body_bytes

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        length = headers.get("content-length", "")
        progress = _Progress(done=not _has_body(headers), declared=int(length) if length.isdigit() else None)
        deadline = anyio.current_time() + self.seconds

        async def receive_in_time() -> Message:
            if progress.done:
                return await receive()
            with anyio.move_on_after(deadline - anyio.current_time()):
                message = await receive()
                if message["type"] != "http.request" or not message.get("more_body", False):
                    progress.done = True
                progress.received += len(message.get("body", b""))
                return message
            progress.timed_out = True
            raise _BodyTimedOut

        async def send_after_body(message: Message) -> None:
            if progress.timed_out:
                return  # the answer is the 408
            if message["type"] == "http.response.start" and not progress.answered:
                if not await self._drain(progress, receive_in_time):
                    MutableHeaders(scope=message)["Connection"] = "close"
                if progress.timed_out:
                    return
                progress.answered = True
            await send(message)

        try:
            await self.app(scope, receive_in_time, send_after_body)
        except Exception:
            if not progress.timed_out:
                raise
        if progress.timed_out and not progress.answered:
            await _request_timeout(scope, receive, send, self.seconds)

    async def _drain(self, progress: _Progress, receive: Receive) -> bool:
        """Read and drop what is left of the body; False when it is not read to its end (too large,
        or the client left), so the connection must close after the answer. Raises nothing: past
        the deadline, ``progress.timed_out`` says so."""
        try:
            if progress.declared is not None and progress.declared > self.max_body_bytes:
                return not progress.done
            while not progress.done:
                if progress.received > self.max_body_bytes:
                    return False
                message = await receive()
                if message["type"] != "http.request":
                    return False
        except _BodyTimedOut:
            return False
        return True


def _has_body(headers: Headers) -> bool:
    length = headers.get("content-length")
    return "transfer-encoding" in headers or (length is not None and length.strip() not in ("", "0"))


async def _request_timeout(scope: Scope, receive: Receive, send: Send, seconds: float) -> None:
    info = {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": REASON,
        "domain": ERROR_DOMAIN,
        "metadata": {"timeout_seconds": f"{seconds:g}"},
    }
    response = error_response(
        Request(scope),
        grpc.StatusCode.DEADLINE_EXCEEDED,
        f"the request body did not arrive within {seconds:g} s of its headers",
        [info],
        http_status=408,
        headers={"Connection": "close"},
    )
    await response(scope, receive, send)
