"""A real HTTP server for an OpenAI-compatible ``/v1/chat/completions`` handler, in its own thread:
the scripted model of the extractor's tests and the fault proxy in front of the real model."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Protocol, TypeVar

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.polling import eventually_sync


class ChatHandler(Protocol):
    handle: Callable[[Request], Awaitable[Response]]


H = TypeVar("H", bound=ChatHandler)


@contextlib.contextmanager
def serving_chat(make: Callable[[int], H], what: str = "the chat server") -> Iterator[H]:
    """``make(port)``'s handler served on a free port until the block ends; yields once started."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    handler = make(listener.getsockname()[1])
    app = Starlette(routes=[Route("/v1/chat/completions", handler.handle, methods=["POST"])])
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", ws="none", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    eventually_sync(lambda: server.started, 30, f"{what} started", interval=0.01)
    try:
        yield handler
    finally:
        server.should_exit = True
        thread.join(timeout=5)
        listener.close()
