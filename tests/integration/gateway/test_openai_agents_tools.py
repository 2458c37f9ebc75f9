"""``lore_tools`` (OpenAI Agents SDK function tools from ``lore_client.tools``) against the in-process
gateway on real stores, run the way the SDK runs them: by ``Runner.run`` with a scripted model (no
network, no model), and by ``FunctionTool.on_invoke_tool`` with a ``ToolContext``. Whose memory is
the binding's; bad arguments and Lore's refusals reach the model as results; the sync client works;
and the runnable example runs."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from pathlib import Path

import httpx
import pytest
from agents import Agent, FunctionTool, RunConfig, Runner
from agents.items import ModelResponse, ToolCallOutputItem
from agents.models.interface import Model
from agents.tool_context import ToolContext
from agents.usage import Usage
from lore_client import LoreClient, SyncLoreClient, tools
from lore_client.integrations.openai_agents import lore_tools
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from tests.integration.gateway.conftest import _create_key
from tests.integration.gateway.test_lore_client import served_gateway  # noqa: F401 - a fixture

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
async def lore(gateway, migrated_pg, org_id):
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    async with LoreClient("http://gateway", key, transport=httpx.ASGITransport(app=gateway)) as client:
        yield client


def _user() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


async def invoke(tool: FunctionTool, arguments: dict | str) -> dict:
    """What the SDK does with a model's function call: ``on_invoke_tool`` with its context and the raw
    JSON arguments; the tool's output string is what the model reads next."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    context = ToolContext(
        context=None, tool_name=tool.name, tool_call_id=f"call-{uuid.uuid4().hex[:8]}", tool_arguments=raw
    )
    return json.loads(await tool.on_invoke_tool(context, raw))


class ScriptedModel(Model):
    """A model that makes the function calls it is given, one per turn, then answers "done"."""

    def __init__(self, calls: list[tuple[str, dict]]) -> None:
        self.calls = list(calls)
        self.seen_tools: list[str] = []

    async def get_response(self, system_instructions, input, model_settings, tools, *args, **kwargs):
        self.seen_tools = [tool.name for tool in tools]
        if self.calls:
            name, arguments = self.calls.pop(0)
            call_id = f"call-{uuid.uuid4().hex[:8]}"
            item = ResponseFunctionToolCall(
                type="function_call", name=name, arguments=json.dumps(arguments), call_id=call_id, id=f"fc-{call_id}"
            )
        else:
            text = ResponseOutputText(type="output_text", text="done", annotations=[])
            item = ResponseOutputMessage(
                id="msg-1", type="message", role="assistant", status="completed", content=[text]
            )
        return ModelResponse(output=[item], usage=Usage(), response_id=None)

    def stream_response(self, *args, **kwargs):
        raise AssertionError("these runs do not stream")


def test_the_tools_are_the_catalogues():
    built = lore_tools(LoreClient("http://unused"), user="u-1", agent="aria")
    assert [t.name for t in built] == [t.name for t in tools.TOOLS]
    for function_tool, tool in zip(built, tools.TOOLS, strict=True):
        assert function_tool.description == tool.description
        assert function_tool.params_json_schema == tool.parameters and not function_tool.strict_json_schema
    chosen = lore_tools(SyncLoreClient("http://unused"), user="u-1", agent="aria", names=["search_memories"])
    assert [t.name for t in chosen] == ["search_memories"]
    with pytest.raises(ValueError, match=r"names: unknown tools \['recall_everything'\]"):
        lore_tools(LoreClient("http://unused"), user="u-1", agent="aria", names=["recall_everything"])
    with pytest.raises(ValueError, match=r"ToolBinding\.user_id is required"):
        lore_tools(LoreClient("http://unused"), user=" ", agent="aria")


async def test_a_run_remembers_and_finds_a_memory_through_the_sdks_runner(lore):
    user = _user()
    model = ScriptedModel(
        [
            (
                "remember",
                {"content": "Ada's daughter Mira starts school in Lisbon in September.", "entities": ["Mira"]},
            ),
            ("search_memories", {"query": "When does Mira start school?", "k": 3}),
        ]
    )
    agent = Agent(
        name="Aria", instructions="Remember and recall.", model=model, tools=lore_tools(lore, user=user, agent="aria")
    )

    result = await Runner.run(agent, "Mira starts school soon.", run_config=RunConfig(tracing_disabled=True))

    assert result.final_output == "done" and "remember" in model.seen_tools
    remembered, searched = [
        json.loads(item.output) for item in result.new_items if isinstance(item, ToolCallOutputItem)
    ]
    assert remembered["remembered"]["content"] == "Ada's daughter Mira starts school in Lisbon in September."
    assert searched["results"][0]["id"] == remembered["remembered"]["id"]
    [stored] = (await lore.list_memories({"userId": user, "agentId": "aria"})).items
    assert stored.entities == ("mira",) and stored.scope.user_id == user


async def test_a_users_tools_never_reach_another_users_memory(lore):
    ana, bo = _user(), _user()
    anas = {t.name: t for t in lore_tools(lore, user=ana, agent="aria")}
    bos = {t.name: t for t in lore_tools(lore, user=bo, agent="aria")}
    secret = (await invoke(anas["remember"], {"content": "Ana's locker code is 3141."}))["remembered"]

    found = await invoke(bos["search_memories"], {"query": "What is the locker code?"})
    assert all(hit["id"] != secret["id"] for hit in found["results"])
    refused = await invoke(bos["forget_memory"], {"memory_id": secret["id"]})
    assert refused["error"]["status"] == 404
    assert (await lore.get_memory(secret["id"])).status == "MEMORY_STATUS_ACTIVE"
    # A user argument is no way round: the schema has none, and an unknown argument is refused.
    sneaky = await invoke(bos["search_memories"], {"query": "locker code", "user_id": ana})
    assert sneaky["error"]["code"] == "INVALID_ARGUMENT" and "user_id: unknown argument" in sneaky["error"]["message"]


async def test_bad_arguments_and_lores_refusals_are_results_for_the_model(lore):
    by_name = {t.name: t for t in lore_tools(lore, user=_user(), agent="aria")}

    not_json = await invoke(by_name["remember"], "{not json")
    missing = await invoke(by_name["remember"], {})
    bad_k = await invoke(by_name["search_memories"], {"query": "tea", "k": 500})
    unknown_id = await invoke(by_name["forget_memory"], {"memory_id": str(uuid.uuid4())})

    assert "the arguments are not JSON" in not_json["error"]["message"]
    assert missing["error"]["message"] == "remember: content: required"
    assert bad_k["error"]["message"] == "search_memories: k: must be between 1 and 50"
    assert unknown_id["error"]["status"] == 404 and unknown_id["error"]["code"] == "NOT_FOUND"


async def test_tools_on_the_sync_client_run_off_the_event_loop(served_gateway, migrated_pg, org_id):  # noqa: F811
    url, _ = served_gateway
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    user = _user()
    with SyncLoreClient(url, key) as client:
        by_name = {t.name: t for t in lore_tools(client, user=user, agent="aria")}
        # The gateway serves on this loop: a blocking call made on it would never be answered.
        stored = await invoke(by_name["remember"], {"content": "Ada swims at dawn on Saturdays."})
        found = await invoke(by_name["search_memories"], {"query": "When does Ada swim?", "k": 1})
    assert found["results"][0]["id"] == stored["remembered"]["id"]


async def test_the_example_runs_against_a_stack(served_gateway, migrated_pg, org_id):  # noqa: F811
    url, _ = served_gateway
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    environ = {name: value for name, value in os.environ.items() if name != "OPENAI_API_KEY"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "examples" / "openai_agents_tools.py"),
        env={**environ, "LORE_API_KEY": key, "LORE_URL": url},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, err.decode()
    assert out.decode().splitlines() == [
        "tools: " + ", ".join(t.name for t in tools.TOOLS),
        "remember: Ada is learning Portuguese before moving to Porto.",
        "search_memories: Ada is learning Portuguese before moving to Porto.",
    ]
