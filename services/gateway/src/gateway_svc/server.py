"""The gateway's FastAPI application: routes, lifespan, request ids, error bodies."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from fastapi import FastAPI
from opentelemetry.sdk.trace import TracerProvider

from gateway_svc import bootstrap
from gateway_svc.api.auth.auth import credentials_needed
from gateway_svc.api.auth.auth_failures import AuthFailureMiddleware
from gateway_svc.api.http import errors, idempotency, metrics
from gateway_svc.api.http.body_timeout import BodyTimeoutMiddleware
from gateway_svc.api.http.head_requests import HeadMiddleware
from gateway_svc.api.http.request_ids import RequestIdMiddleware
from gateway_svc.api.http.routes import (
    admin,
    context,
    credentials,
    engagement,
    health,
    memories,
    observations,
    sessions,
    subjects,
)
from gateway_svc.api.http.server_timing import ServerTimingMiddleware
from gateway_svc.api.mcp import mcp_endpoint
from gateway_svc.api.openapi.document import with_error_responses, with_path_examples, with_security
from gateway_svc.api.openapi.operation_ids import operation_id
from gateway_svc.api.openapi.rules import with_enforced_rules
from gateway_svc.api.openapi.schemas import with_named_schemas
from gateway_svc.api.ui import browser
from gateway_svc.config import Settings


def create_app(
    settings: Settings,
    overrides: bootstrap.GatewayOverrides | None = None,
    *,
    tracer_provider: TracerProvider | None = None,
) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            app.state.container = await bootstrap.build(settings, stack, overrides, tracer_provider=tracer_provider)
            await stack.enter_async_context(mcp.running())
            yield

    app = FastAPI(
        title="Lore",
        version="1.0.0",
        summary="Memory for conversational agents: working memory, long-term memory, observations, context.",
        lifespan=lifespan,
        generate_unique_id_function=operation_id,  # memories.remember, not remember_v1_memories_post
    )

    idempotency.install(app)  # before request_id, which then wraps it: its answers carry the request id
    # Outside idempotency (which resolves credentials too), inside request_id (its 429s carry the id).
    app.add_middleware(AuthFailureMiddleware)
    # Outside whatever reads a body, inside request_id (its 408s carry the id).
    app.add_middleware(
        BodyTimeoutMiddleware, seconds=settings.body_timeout_seconds, max_body_bytes=settings.max_body_bytes
    )

    app.add_middleware(RequestIdMiddleware)

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
    app.include_router(credentials.router)  # GET /v1/whoami
    browser.install(app)  # the memory browser at /ui (docs/browser.md)
    mcp = mcp_endpoint.install(app)  # /mcp: the tools as MCP, each call one of the routes above
    # Added last, so outermost: its "gateway" share counts every other middleware's time too.
    app.add_middleware(ServerTimingMiddleware)
    # Outermost of all: a HEAD is the GET it mirrors to everything inside, its body dropped here.
    app.add_middleware(HeadMiddleware)

    generate_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = with_named_schemas(with_path_examples(with_error_responses(generate_openapi())))
            app.openapi_schema = with_security(with_enforced_rules(document), credentials_needed(app))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
