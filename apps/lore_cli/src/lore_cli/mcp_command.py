"""``lore mcp --user U --agent A``: Lore's tools as an MCP server over stdio, for an MCP host
(Claude Desktop, an IDE, an agent framework) to start as a subprocess.

It is ``lore_client.mcp`` reaching the gateway like the other client commands: ``--url``, else
``http://LORE_GATEWAY_ADDR`` (the local stack's gateway by default); ``LORE_API_KEY``, else the
local stack's development key. Whose memory is fixed here, on the command line the integrator
writes into the host's configuration: the tools take no user, agent or team.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping

from lore_client.mcp import serve_stdio
from lore_client.mcp.stdio import add_arguments, binding_of

from lore_cli.health import gateway_url
from lore_cli.turns_import import ImportFileError, api_key


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("mcp", help="Lore's tools as an MCP server over stdio, for one user and agent")
    add_arguments(parser)


async def run(environ: Mapping[str, str], args: argparse.Namespace) -> int:
    try:
        key = api_key(environ)
        binding = binding_of(args)
    except (ImportFileError, ValueError) as error:
        print(f"lore mcp: {error}", file=sys.stderr)  # stdout is the protocol's
        return 2
    await serve_stdio(args.url or gateway_url(environ), key, binding)
    return 0
