"""An OpenAI Agents SDK agent with Lore's memory tools (``lore_client.integrations.openai_agents``).

    ./lore up                                        # in another terminal
    pip install "./libs/lore_client[openai-agents]"
    LORE_API_KEY=$(cat .lore/dev-api-key) python examples/openai_agents_tools.py

``LORE_URL`` names another gateway (default ``http://127.0.0.1:8080``). With ``OPENAI_API_KEY``
set, the agent runs on OpenAI's model and decides itself when to remember and search; without
it, the example calls two tools the way the SDK calls them (``on_invoke_tool`` with a
``ToolContext``), so it runs offline. Either way the tools act for the user fixed here, never
for one the model names.
"""

from __future__ import annotations

import asyncio
import json
import os

from agents import Agent, Runner
from agents.tool_context import ToolContext
from lore_client import LoreClient
from lore_client.integrations.openai_agents import lore_tools

USER, AGENT = "u-ada", "aria"


async def call(tool, arguments: dict) -> dict:
    raw = json.dumps(arguments)
    context = ToolContext(context=None, tool_name=tool.name, tool_call_id=f"call-{tool.name}", tool_arguments=raw)
    return json.loads(await tool.on_invoke_tool(context, raw))


async def main() -> None:
    url = os.environ.get("LORE_URL", "http://127.0.0.1:8080")
    async with LoreClient(url, os.environ["LORE_API_KEY"]) as lore:
        tools = lore_tools(lore, user=USER, agent=AGENT)
        print("tools:", ", ".join(tool.name for tool in tools))
        agent = Agent(
            name="Aria",
            instructions="You are a helpful assistant. Remember what the user tells you about themselves, "
            "and search your memory before answering questions about them.",
            tools=tools,
        )
        if os.environ.get("OPENAI_API_KEY"):
            await Runner.run(agent, "I'm Ada. I'm learning Portuguese before my move to Porto in May.")
            answer = await Runner.run(agent, "Where am I moving, and what am I learning for it?")
            print("agent:", answer.final_output)
            return
        by_name = {tool.name: tool for tool in tools}
        stored = await call(by_name["remember"], {"content": "Ada is learning Portuguese before moving to Porto."})
        print("remember:", stored["remembered"]["content"])
        found = await call(by_name["search_memories"], {"query": "Which language is Ada learning?", "k": 1})
        print("search_memories:", found["results"][0]["content"])


if __name__ == "__main__":
    asyncio.run(main())
