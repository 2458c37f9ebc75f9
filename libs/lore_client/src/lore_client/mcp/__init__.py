"""Lore's tools as an MCP server (``pip install "lore-client[mcp]"``): ``create_server`` on any
client, ``serve_stdio`` / ``python -m lore_client.mcp`` over stdio. The gateway serves the same
server over streamable HTTP at ``/mcp``. The core client never imports this package."""

from lore_client.mcp.server import INSTRUCTIONS, create_server
from lore_client.mcp.stdio import serve_stdio

__all__ = ["INSTRUCTIONS", "create_server", "serve_stdio"]
