"""The MCP server of Lore's tools, on the official SDK's low-level ``Server``.

The low-level server rather than ``MCPServer``: ``MCPServer`` derives each tool's input schema from
a Python signature and answers a failing tool with an error result whatever failed; here the
schemas are the catalogue's (``lore_client.tools``, the same ones OpenAI and Anthropic get) and the
failures are told apart as the protocol asks — a ``LoreApiError`` (Lore refused or failed) is a
result with ``isError`` and the REST message, while an unknown tool or arguments the schema refuses
is a JSON-RPC error (``-32602``, naming the argument). Anything else is the SDK's generic internal
error: no traceback reaches the client.

Whose memory, and through which client, comes from ``connect`` (called once per tool call with the
request's context): a fixed client and binding for ``lore mcp`` over stdio, the caller's own
credential and its pinned user for ``/mcp`` on the gateway. Never from the arguments.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from lore_client.client import LoreClient
from lore_client.tools import TOOLS, ToolBinding, ToolCallError, execute, prepare

Connect = Callable[[ServerRequestContext[Any, Any]], AbstractAsyncContextManager[tuple[LoreClient, ToolBinding]]]

INSTRUCTIONS = (
    "Lore is this user's long-term memory. At the start of a conversation call prime; before answering"
    " a question that may depend on the past call get_context (or search_memories); after replying call"
    " record_turn with the user's message and your reply. Use remember for a fact worth keeping now,"
    " observe for a belief you formed, forget_memory when the user asks you to forget something."
)

# What each tool does to the user's memory, for hosts that ask before a change (MCP tool annotations).
_READ_ONLY = {"search_memories", "get_context", "prime", "get_user_profile", "search_beliefs"}
_DESTRUCTIVE = {"forget_memory"}


def _listed() -> list[types.Tool]:
    return [
        types.Tool(
            name=tool.name,
            description=tool.description,
            input_schema=tool.parameters,
            annotations=types.ToolAnnotations(
                read_only_hint=tool.name in _READ_ONLY,
                destructive_hint=tool.name in _DESTRUCTIVE,
                open_world_hint=False,
            ),
        )
        for tool in TOOLS
    ]


def create_server(connect: Connect, *, name: str = "lore", version: str = "1.0.0") -> Server[Any]:
    """An MCP server whose tools are Lore's, each executed on the client ``connect`` yields."""
    listed = _listed()

    async def list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            tool, arguments = prepare(params.name, params.arguments or {})
        except ToolCallError as error:
            raise MCPError(types.INVALID_PARAMS, str(error)) from None
        async with connect(ctx) as (client, binding):
            outcome = await execute(client, binding, tool, arguments)
        # An error result's text is the REST message itself: what the model should read.
        text = (
            outcome.result["error"]["message"] if outcome.is_error else json.dumps(outcome.result, ensure_ascii=False)
        )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=outcome.result,
            is_error=outcome.is_error,
        )

    return Server(
        name,
        version=version,
        title="Lore",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
