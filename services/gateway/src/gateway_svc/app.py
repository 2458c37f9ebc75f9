"""The gateway's FastAPI application: routes, lifespan, request ids, error bodies."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request, Response

from gateway_svc import bootstrap, errors, idempotency, metrics
from gateway_svc.config import Settings
from gateway_svc.routes import admin, context, engagement, health, memories, observations, sessions, subjects

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def create_app(settings: Settings, **overrides: Any) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            app.state.container = await bootstrap.build(settings, stack, **overrides)
            yield

    app = FastAPI(
        title="Lore",
        version="1.0.0",
        summary="Memory for conversational agents: working memory, long-term memory, observations, context.",
        lifespan=lifespan,
    )

    idempotency.install(app)  # before request_id, which then wraps it: its answers carry the request id

    @app.middleware("http")
    async def request_id(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        # Accept a well-formed client request id (so logs correlate across systems), else mint one.
        offered = request.headers.get("x-request-id", "")
        request.state.request_id = offered if _REQUEST_ID.match(offered) else uuid.uuid4().hex
        response = await call_next(request)
        response.headers["X-Request-Id"] = request.state.request_id
        return response

    errors.install(app)
    metrics.install(app)
    app.include_router(health.router)
    app.include_router(memories.router)
    app.include_router(observations.router)
    app.include_router(engagement.router)
    app.include_router(context.router)
    app.include_router(sessions.router)
    app.include_router(subjects.router)
    app.include_router(admin.router)
    return app
