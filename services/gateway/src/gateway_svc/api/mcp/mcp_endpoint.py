"""``/mcp``: Lore's MCP server (``lore_client.mcp``) over streamable HTTP, behind the REST API's
credentials, scopes and rate limits — because every tool call *is* a REST call.

Each tool runs on a ``LoreClient`` whose transport is this gateway in-process
(``httpx.ASGITransport``), sending the caller's own ``Authorization`` header (and its request id):
the call passes the same authentication, scope checks, user pin, rate limits and idempotency as
from outside, and a refusal comes back as the tool's error result with the REST message. Nothing of
the REST surface is re-implemented here, so nothing can drift from it.

``/mcp`` itself refuses a request without a valid credential (401, before any MCP session) and
decides **whose memory** the tools act on, once per request, never from a tool argument:

- the user: the credential's pinned user (a JWT's user claim). A ``Lore-User`` header naming
  another user is refused (403 ``USER_PINNED``). An org-wide credential must name the user in
  ``Lore-User``, which the integrator writes into the host's ``mcpServers`` configuration;
- the agent: ``Lore-Agent`` (required); ``Lore-Team`` and ``Lore-Session`` optionally.

Stateless (``stateless=True``, JSON answers): no MCP session is kept between requests, so any
gateway replica answers any request, behind any load balancer, and a session id can never be
replayed with another credential. Lore's tools need nothing a session carries (no server-to-client
requests, no subscriptions).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI, Request
from lore_client import LoreClient
from lore_client.mcp import create_server
from lore_client.tools import ToolBinding
from lore_runtime import errors
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import Receive, Scope, Send

from gateway_svc.api.auth.auth import authenticated
from gateway_svc.api.http.calls import read_json
from gateway_svc.api.json.json_limits import check_depth
from gateway_svc.domain.credentials import MAX_USER_ID_LENGTH, Caller

PATH = "/mcp"
USER_HEADER, AGENT_HEADER, TEAM_HEADER, SESSION_HEADER = "Lore-User", "Lore-Agent", "Lore-Team", "Lore-Session"
_BINDING = "lore.mcp.binding"  # the ASGI scope key the binding travels under, to the tool calls
_ID = re.compile(rf"^[^\s\x00-\x1f\x7f]{{1,{MAX_USER_ID_LENGTH}}}$")


def _header(request: Request, name: str, *, required: bool, why: str = "") -> str:
    value = request.headers.get(name, "").strip()
    if not value:
        if required:
            raise errors.InvalidArgument(name, f"the {name} header is required: {why}", metadata={"header": name})
        return ""
    if not _ID.fullmatch(value):
        raise errors.InvalidArgument(
            name, f"1 to {MAX_USER_ID_LENGTH} characters, no spaces or control characters", metadata={"header": name}
        )
    return value


def binding_of(request: Request, caller: Caller) -> ToolBinding:
    """Whose memory ``caller``'s tools act on; raises the REST API's 400/403 otherwise."""
    named = _header(request, USER_HEADER, required=not caller.user_id, why="whose memory the tools act on")
    if caller.user_id and named and named != caller.user_id:
        raise errors.PermissionDenied(
            f"{USER_HEADER}: this credential acts only for its own user",
            reason="USER_PINNED",
            metadata={"header": USER_HEADER},
        )
    return ToolBinding(
        user_id=caller.user_id or named,
        agent_id=_header(request, AGENT_HEADER, required=True, why="the agent the tools act as"),
        team_id=_header(request, TEAM_HEADER, required=False),
        session_id=_header(request, SESSION_HEADER, required=False),
    )


class McpEndpoint:
    """The ASGI app at ``/mcp``; ``running()`` belongs in the gateway's lifespan."""

    def __init__(self, gateway: FastAPI) -> None:
        self.gateway = gateway
        self.manager = StreamableHTTPSessionManager(create_server(self._connect), json_response=True, stateless=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Raised before anything is sent: the gateway's error handler answers in its one error body.
        request = Request(scope, receive)
        caller = await authenticated(request)  # 401 before a byte of the body is read
        # The REST routes' limits, before the SDK parses the body: its size while it is read, then
        # its nesting (a deep body would exhaust the JSON parser's stack).
        body = await read_json(request)
        check_depth(body.decode("utf-8", errors="replace"), request.app.state.container.settings.max_json_depth)
        scope[_BINDING] = binding_of(request, caller)
        await self.manager.handle_request(scope, _replaying(body, receive), send)

    @asynccontextmanager
    async def _connect(self, ctx: Any) -> AsyncIterator[tuple[LoreClient, ToolBinding]]:
        request: Request = ctx.request
        headers = {"Authorization": request.headers["authorization"]}
        if request_id := request.scope.get("state", {}).get("request_id"):
            headers["X-Request-Id"] = request_id  # the tool's REST call logs under the MCP request's id
        # No retries: a 429 is the model's to see (its host may retry), not a held request.
        async with LoreClient(
            "http://gateway.internal", transport=httpx.ASGITransport(app=self.gateway), headers=headers, max_retries=0
        ) as client:
            yield client, request.scope[_BINDING]

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The SDK's session manager needs a task group for as long as the app serves. It is held
        by a task of its own: a task group must be left by the task that entered it, and whoever
        drives the lifespan (a server, a test fixture) may start and stop it from different tasks."""
        started, stop = asyncio.Event(), asyncio.Event()

        async def hold() -> None:
            async with self.manager.run():
                started.set()
                await stop.wait()

        holder = asyncio.create_task(hold(), name="mcp-session-manager")
        ready = asyncio.create_task(started.wait())
        await asyncio.wait({holder, ready}, return_when=asyncio.FIRST_COMPLETED)
        if not started.is_set():
            ready.cancel()
            await holder  # raises what stopped it
        try:
            yield
        finally:
            stop.set()
            await holder


def _replaying(body: bytes, receive: Receive) -> Receive:
    """``receive`` for the SDK: the body already read, then the client's own messages (its disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> dict[str, Any]:
        return pending.pop() if pending else await receive()

    return replay


def install(app: FastAPI) -> McpEndpoint:
    """Serve ``/mcp``, left out of the OpenAPI document. POST only: a stateless server has no
    stream to GET and no session to DELETE (both answer 405, as the spec lets a server do)."""
    endpoint = McpEndpoint(app)
    app.add_route(PATH, endpoint, methods=["POST"], include_in_schema=False)
    return endpoint
