"""``python -m lore_client.mcp`` (and ``lore mcp``): Lore's MCP server over stdio, for one user and
one agent fixed on the command line, reaching a gateway with an API key.

    LORE_API_KEY=... python -m lore_client.mcp --user u-noor --agent aria [--url https://lore.example]

The gateway: ``--url``, else ``LORE_URL``, else ``http://$LORE_GATEWAY_ADDR``, else the local
stack's ``http://127.0.0.1:8080``. The key comes from the environment only (a command line shows in
``ps``). stdout carries the protocol; nothing else is printed there.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.stdio import stdio_server

from lore_client.client import LoreClient
from lore_client.mcp.server import create_server
from lore_client.tools import ToolBinding

DEFAULT_URL = "http://127.0.0.1:8080"


def gateway_url(environ: Mapping[str, str]) -> str:
    if environ.get("LORE_URL"):
        return environ["LORE_URL"]
    address = environ.get("LORE_GATEWAY_ADDR", "")
    if not address:
        return DEFAULT_URL
    host, _, port = address.rpartition(":")
    return f"http://{'127.0.0.1' if host in ('', '0.0.0.0', '::') else host}:{port}"


async def serve_stdio(url: str, api_key: str, binding: ToolBinding) -> None:
    """Serve Lore's tools over this process's stdin/stdout until the client closes them."""
    async with LoreClient(url, api_key) as lore:

        @asynccontextmanager
        async def connect(ctx: Any) -> AsyncIterator[tuple[LoreClient, ToolBinding]]:
            yield lore, binding

        server = create_server(connect)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--user", required=True, help="whose memory the tools read and write (a user id)")
    parser.add_argument("--agent", required=True, help="the agent the tools act as (an agent id)")
    parser.add_argument("--team", default="", help="the user's team, when memories are shared within one")
    parser.add_argument("--session", default="", help="the session record_turn writes to (default: the active one)")
    parser.add_argument("--url", default="", help="the gateway's URL (default LORE_URL, LORE_GATEWAY_ADDR or local)")


def binding_of(args: argparse.Namespace) -> ToolBinding:
    return ToolBinding(user_id=args.user, agent_id=args.agent, team_id=args.team, session_id=args.session)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m lore_client.mcp", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    environ = os.environ
    if not environ.get("LORE_API_KEY"):
        parser.exit(2, "LORE_API_KEY is not set: the gateway needs an API key or JWT\n")
    try:
        binding = binding_of(args)
    except ValueError as error:
        parser.exit(2, f"{error}\n")
    asyncio.run(serve_stdio(args.url or gateway_url(environ), environ["LORE_API_KEY"], binding))
