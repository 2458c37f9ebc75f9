"""Lore's tools as OpenAI Agents SDK ``FunctionTool``s, built from the one catalogue
(``lore_client.tools``): the same names, descriptions, JSON schemas and executors the MCP server
and the OpenAI/Anthropic definitions use.

    from agents import Agent, Runner
    from lore_client import LoreClient
    from lore_client.integrations.openai_agents import lore_tools

    lore = LoreClient(url, key)
    agent = Agent(name="Aria", instructions="...", tools=lore_tools(lore, user="u-noor", agent="aria"))
    await Runner.run(agent, "I moved to Porto last month.")

**Whose memory** is fixed when the tools are built (``user``, ``agent``, ``team``, ``session_id``:
a ``ToolBinding``); no tool takes a user, so a prompt-injected model cannot reach another user's
memory by naming them.

**Errors reach the model as results**, as the SDK expects of a tool: arguments the schema refuses
(the SDK does not check a non-strict schema) and a refusal from Lore become ``{"error": {...}}``
naming the argument or carrying the gateway's message, for the model to correct; nothing raises
out of the run. The schemas are not strict (optional arguments stay optional), so
``strict_json_schema`` is off.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any

try:
    from agents import FunctionTool
    from agents.tool_context import ToolContext
except ImportError as error:  # pragma: no cover - exercised in a subprocess without the extra
    raise ImportError(
        'lore_client.integrations.openai_agents needs the OpenAI Agents SDK: pip install "lore-client[openai-agents]"',
        name=error.name,
    ) from error

from lore_client import tools as catalogue
from lore_client.client import LoreClient
from lore_client.sync_client import SyncLoreClient
from lore_client.tools import Tool, ToolBinding, ToolCallError, ToolOutcome


def lore_tools(
    client: LoreClient | SyncLoreClient,
    *,
    user: str,
    agent: str,
    team: str = "",
    session_id: str = "",
    names: Sequence[str] | None = None,
) -> list[FunctionTool]:
    """The catalogue's tools (``names`` of them, every one by default) acting for ``user`` with
    ``agent`` on ``client``; a ``SyncLoreClient``'s calls run in a worker thread, so the SDK's
    event loop never blocks."""
    binding = ToolBinding(user_id=user, agent_id=agent, team_id=team, session_id=session_id)
    chosen = list(names) if names is not None else list(catalogue.TOOLS_BY_NAME)
    unknown = [name for name in chosen if name not in catalogue.TOOLS_BY_NAME]
    if unknown:
        raise ValueError(f"names: unknown tools {unknown} (known: {', '.join(catalogue.TOOLS_BY_NAME)})")
    if isinstance(client, SyncLoreClient):
        run = _on_thread(client, binding)
    elif isinstance(client, LoreClient):
        run = _on_loop(client, binding)
    else:
        raise TypeError(f"lore_tools takes a LoreClient or a SyncLoreClient, not {type(client).__name__}")
    return [_function_tool(catalogue.TOOLS_BY_NAME[name], run) for name in chosen]


Execute = Callable[[Tool, dict[str, Any]], Any]


def _on_loop(client: LoreClient, binding: ToolBinding) -> Execute:
    async def run(tool: Tool, arguments: dict[str, Any]) -> ToolOutcome:
        return await catalogue.execute(client, binding, tool, arguments)

    return run


def _on_thread(client: SyncLoreClient, binding: ToolBinding) -> Execute:
    async def run(tool: Tool, arguments: dict[str, Any]) -> ToolOutcome:
        return await asyncio.to_thread(catalogue.execute_sync, client, binding, tool, arguments)

    return run


def _function_tool(tool: Tool, run: Execute) -> FunctionTool:
    async def invoke(context: ToolContext[Any], raw_arguments: str) -> str:
        try:
            _, arguments = catalogue.prepare(tool.name, raw_arguments)
        except ToolCallError as error:
            return _json({"error": {"message": str(error), "code": "INVALID_ARGUMENT", "status": 400}})
        outcome = await run(tool, arguments)
        return _json(outcome.result)

    return FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=json.loads(json.dumps(tool.parameters)),  # the catalogue's own stays untouched
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


def _json(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False)
