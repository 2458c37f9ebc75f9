"""One MCP tool call as a single HTTP request to ``/mcp`` (the 2026-07-28 protocol needs no
handshake: each request carries its envelope), for the cross-tenant and cross-user tables, which
try every route of the gateway one request at a time."""

from __future__ import annotations

from typing import Any

import httpx
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

VERSION = MODERN_PROTOCOL_VERSIONS[-1]


def tool_call(tool: str, arguments: dict[str, Any], *, agent: str, user: str = "", session: str = "") -> dict[str, Any]:
    """``json`` and ``headers`` of a ``tools/call`` request, for ``client.request("POST", "/mcp", **...)``."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool,
        "Lore-Agent": agent,
    }
    headers |= {name: value for name, value in (("Lore-User", user), ("Lore-Session", session)) if value}
    envelope = {"io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientCapabilities": {}}
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": envelope},
    }
    return {"json": body, "headers": headers}


def tool_result(response: httpx.Response) -> dict[str, Any]:
    """The ``CallToolResult`` of a 200 answer (``isError``, ``structuredContent``)."""
    return response.json()["result"]


def found_nothing(response: httpx.Response, *_: Any) -> bool:
    result = tool_result(response)
    return not result.get("isError") and result["structuredContent"]["results"] == []


def not_found(response: httpx.Response, *_: Any) -> bool:
    result = tool_result(response)
    return bool(result.get("isError")) and result["structuredContent"]["error"]["status"] == 404
