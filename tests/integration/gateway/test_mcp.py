"""Lore's MCP server driven by the official SDK's own client against a real stack, over both
transports: ``lore mcp`` over stdio (a subprocess reaching the gateway on a real port) and ``/mcp``
on the gateway (streamable HTTP, with the handshake-era protocol and with the SDK's default).

Checked: a memory remembered is found; every tool works; a domain error is a result with
``isError`` and the REST message; an unknown tool or bad arguments are JSON-RPC errors; ``/mcp``
without a valid credential is 401 with no MCP session; the cross-user suite — user A's server
never sees user B's memories, a JWT pinned to a user cannot reach another user's memory through
``/mcp``, another org's key sees nothing — and tool calls count against the REST scopes and rate
limits, because they are REST calls.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import jwt
import pytest
import uvicorn
from gateway_svc.server import create_app
from lore_client.tools import TOOLS
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.integration.gateway.conftest import _create_key, asgi_client, gateway_settings
from tests.polling import eventually

AGENT = "aria"
LORE = Path(sys.executable).parent / "lore"
SECRET = "mcp-test-secret-of-at-least-32-bytes!!"
AUDIENCE = "lore-mcp"
INVALID_PARAMS = -32602
TRANSPORTS = ("stdio", "http", "http-legacy")

Opener = Callable[..., AbstractAsyncContextManager[Client]]


@pytest.fixture(scope="module")
async def gateway_url(gateway) -> AsyncIterator[str]:
    """The shared gateway on a real port (uvicorn on this event loop, where its gRPC channels live)."""
    listener = socket.create_server(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(gateway, log_level="warning", access_log=False, lifespan="off", ws="none"))
    serving = asyncio.create_task(server.serve(sockets=[listener]))
    await eventually(lambda: server.started or serving.done(), what="the gateway serving", interval=0.01)
    assert not serving.done(), "the gateway did not start serving"
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    server.should_exit = True
    await serving
    listener.close()


@asynccontextmanager
async def over_http(
    url: str, token: str, *, user: str = "", agent: str = AGENT, mode: str = "auto", app: Any = None
) -> AsyncIterator[Client]:
    """The SDK's streamable HTTP client of ``{url}/mcp`` (in-process when ``app`` is given)."""
    headers = {"Authorization": f"Bearer {token}", "Lore-Agent": agent} | ({"Lore-User": user} if user else {})
    transport = httpx2.ASGITransport(app=app) if app is not None else None
    async with httpx2.AsyncClient(headers=headers, timeout=60, transport=transport) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode) as client:
            yield client


@asynccontextmanager
async def over_stdio(url: str, token: str, *, user: str, agent: str = AGENT) -> AsyncIterator[Client]:
    """``lore mcp`` started as a host starts it: a subprocess, its key in the environment."""
    environ = {name: value for name, value in os.environ.items() if not name.startswith("LORE_")}
    params = StdioServerParameters(
        command=str(LORE),
        args=["mcp", "--user", user, "--agent", agent, "--url", url],
        env={**environ, "LORE_API_KEY": token},
    )
    async with Client(params) as client:
        yield client


@pytest.fixture(params=TRANSPORTS)
def open_mcp(request, gateway_url) -> Opener:
    """Opens an MCP client for (key, user) over the transport of the test's parameter."""
    if request.param == "stdio":
        return lambda token, user: over_stdio(gateway_url, token, user=user)
    mode = "legacy" if request.param == "http-legacy" else "auto"
    return lambda token, user: over_http(gateway_url, token, user=user, mode=mode)


@pytest.fixture
async def org_key(migrated_pg) -> tuple[str, str]:
    org = f"org-{uuid.uuid4().hex[:12]}"
    return org, await _create_key(migrated_pg.owner_dsn, org)


def user() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


async def call(client: Client, name: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    return result.structured_content


async def found(client: Client, query: str) -> list[dict[str, Any]]:
    return (await call(client, "search_memories", query=query, k=20))["results"]


# -- the tools ---------------------------------------------------------------------------------


async def test_a_remembered_memory_is_found(open_mcp, org_key):
    _, key = org_key
    async with open_mcp(key, user()) as lore:
        remembered = await call(lore, "remember", content="Noor's sister Lena moved to Porto in March 2024.")
        hits = await found(lore, "Which city did Lena move to?")
    assert hits[0]["id"] == remembered["remembered"]["id"]
    assert hits[0]["content"] == "Noor's sister Lena moved to Porto in March 2024." and hits[0]["type"] == "fact"


async def test_every_tool_over_http(gateway, gateway_url, org_key):
    _, key = org_key
    someone = user()
    async with over_http(gateway_url, key, user=someone) as lore:
        listed = await lore.list_tools()
        assert {tool.name: tool.input_schema for tool in listed.tools} == {t.name: t.parameters for t in TOOLS}

        kept = await call(lore, "remember", content="Ines keeps bees on the roof of her flat.", memory_type="fact")
        fact = kept["remembered"]
        profile = await call(lore, "get_user_profile")
        assert [line["sourceId"] for line in profile["lines"]] == [fact["id"]] and "bees" in profile["profile"]
        context = await call(lore, "get_context", message="What do you know about my hobbies, like the bees?")
        assert "bees" in context["context"]
        primed = await call(lore, "prime", initial_message="Hi, it's Ines again.")
        assert "bees" in primed["context"]

        first = await call(lore, "record_turn", user_message="The hive swarmed today.", assistant_reply="Oh no!")
        second = await call(lore, "record_turn", user_message="We caught it.", assistant_reply="Well done.")
        assert first["sessionId"] == second["sessionId"], "one conversation: the active session is reused"
        assert [first["userTurn"]["sequence"], first["assistantTurn"]["sequence"]] == [1, 2]
        assert [second["userTurn"]["role"], second["assistantTurn"]["role"]] == ["user", "assistant"]

        observed = await call(
            lore,
            "observe",
            kind="relationship_fact",
            subject_id="ines",
            slot="hobby",
            summary="Ines is a beekeeper.",
            evidence="Ines keeps bees on the roof of her flat.",
        )
        assert observed["outcome"] == "created" and observed["belief"]["summary"] == "Ines is a beekeeper."
        beliefs = await call(lore, "search_beliefs", query="Is Ines a beekeeper?")
        assert beliefs["results"][0]["id"] == observed["belief"]["id"]

        assert await call(lore, "forget_memory", memory_id=fact["id"]) == {"forgotten": fact["id"]}
        assert fact["id"] not in {hit["id"] for hit in await found(lore, "Who keeps bees on the roof?")}

    async with asgi_client(gateway, key) as rest:
        session = (await rest.get(f"/v1/sessions/{first['sessionId']}")).json()["session"]
        turns = (await rest.get(f"/v1/sessions/{first['sessionId']}/turns")).json()["turns"]
    assert (session["scope"]["userId"], session["scope"]["agentId"]) == (someone, AGENT)
    assert [(t["role"], t["content"]) for t in turns] == [
        ("TURN_ROLE_USER", "The hive swarmed today."),
        ("TURN_ROLE_ASSISTANT", "Oh no!"),
        ("TURN_ROLE_USER", "We caught it."),
        ("TURN_ROLE_ASSISTANT", "Well done."),
    ]


async def test_record_turn_over_stdio_writes_the_bound_users_session(gateway, gateway_url, org_key):
    _, key = org_key
    someone = user()
    async with over_stdio(gateway_url, key, user=someone) as lore:
        recorded = await call(
            lore, "record_turn", user_message="I start a new job Monday.", assistant_reply="Good luck!"
        )
    async with asgi_client(gateway, key) as rest:
        session = (await rest.get(f"/v1/sessions/{recorded['sessionId']}")).json()["session"]
    assert (session["scope"]["userId"], session["scope"]["agentId"], session["turnCount"]) == (someone, AGENT, 2)


async def test_record_turn_writes_to_the_session_the_configuration_names(gateway, gateway_url, org_key):
    _, key = org_key
    someone, other = user(), user()
    async with asgi_client(gateway, key) as rest:
        mine = (await rest.post("/v1/sessions", json={"scope": {"userId": someone, "agentId": AGENT}})).json()
        theirs = (await rest.post("/v1/sessions", json={"scope": {"userId": other, "agentId": AGENT}})).json()
    turn = {"user_message": "Lunch at noon?", "assistant_reply": "Noted."}
    for session, expect_error in ((mine["session"]["id"], False), (theirs["session"]["id"], True)):
        headers = {"Authorization": f"Bearer {key}", "Lore-User": someone, "Lore-Agent": AGENT, "Lore-Session": session}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(f"{gateway_url}/mcp", http_client=http)) as lore:
                result = await lore.call_tool("record_turn", turn)
        assert result.is_error is expect_error, result.content
    assert result.content[0].text == f"session {theirs['session']['id']} not found"
    async with asgi_client(gateway, key) as rest:
        counts = [(await rest.get(f"/v1/sessions/{s['session']['id']}")).json()["session"] for s in (mine, theirs)]
    assert [session.get("turnCount", 0) for session in counts] == [2, 0]


async def test_python_m_lore_client_mcp_serves_the_same_tools(gateway_url, org_key):
    """The server as ``pip install "lore-client[mcp]"`` runs it, without the lore command."""
    _, key = org_key
    environ = {name: value for name, value in os.environ.items() if not name.startswith("LORE_")}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lore_client.mcp", "--user", user(), "--agent", AGENT],
        env={**environ, "LORE_API_KEY": key, "LORE_URL": gateway_url},
    )
    async with Client(params) as lore:
        kept = await call(lore, "remember", content="Tomas repaints his boat every April.")
        hits = await found(lore, "When does Tomas repaint his boat?")
    assert hits[0]["id"] == kept["remembered"]["id"]


# -- errors ------------------------------------------------------------------------------------


async def test_a_domain_error_is_a_tool_result_with_the_rest_message(open_mcp, gateway, org_key):
    _, key = org_key
    async with asgi_client(gateway, key) as rest:
        refused = await rest.post(
            "/v1/memories",
            json={"memories": [{"content": "x", "memoryType": "MEMORY_TYPE_FACT", "validAt": "last Tuesday"}]},
        )
    assert refused.status_code == 400
    async with open_mcp(key, user()) as lore:
        bad_date = await lore.call_tool("remember", {"content": "x", "valid_at": "last Tuesday"})
        missing = await lore.call_tool("forget_memory", {"memory_id": "no-such-memory"})

    assert bad_date.is_error and bad_date.content[0].text == refused.json()["error"]["message"]
    assert bad_date.structured_content["error"]["field"] == "memories[0].validAt"
    assert bad_date.structured_content["error"]["code"] == "INVALID_ARGUMENT"
    assert missing.is_error and "not found" in missing.content[0].text
    assert missing.structured_content["error"]["status"] == 404


async def test_an_unknown_tool_or_bad_arguments_are_json_rpc_errors(open_mcp, gateway, org_key):
    _, key = org_key
    someone = user()
    async with open_mcp(key, someone) as lore:
        with pytest.raises(MCPError) as unknown:
            await lore.call_tool("drop_database", {})
        with pytest.raises(MCPError) as empty:
            await lore.call_tool("remember", {"content": "   "})
        with pytest.raises(MCPError) as smuggled:
            await lore.call_tool("search_memories", {"query": "anything", "user_id": "u-someone-else"})
    assert unknown.value.error.code == INVALID_PARAMS and "unknown tool 'drop_database'" in unknown.value.error.message
    assert (
        empty.value.error.code == INVALID_PARAMS and empty.value.error.message == "remember: content: must not be empty"
    )
    assert smuggled.value.error.code == INVALID_PARAMS and "user_id: unknown argument" in smuggled.value.error.message
    async with asgi_client(gateway, key) as rest:
        assert (await rest.get("/v1/memories", params={"scope.userId": someone})).json().get("memories", []) == []


async def test_observe_states_the_slot_the_service_requires(open_mcp, org_key):
    """The tool's schema is the service's rule: a host that follows it never sends an observe the
    service refuses, and one that does not is told which argument, before any REST call."""
    _, key = org_key
    async with open_mcp(key, user()) as lore:
        [observe] = [tool for tool in (await lore.list_tools()).tools if tool.name == "observe"]
        with pytest.raises(MCPError) as without_slot:
            await lore.call_tool("observe", {"kind": "world_fact", "subject_id": "tomas", "summary": "Tomas rows."})
        longest = await call(
            lore, "observe", kind="world_fact", subject_id="tomas", slot="s" * 64, summary="Tomas rows at dawn."
        )
    assert "slot" in observe.input_schema["required"]
    assert (
        observe.input_schema["properties"]["slot"]["minLength"],
        observe.input_schema["properties"]["slot"]["maxLength"],
    ) == (1, 64)
    assert without_slot.value.error.code == INVALID_PARAMS
    assert without_slot.value.error.message == "observe: slot: required"
    assert longest["outcome"] == "created" and longest["belief"]["summary"] == "Tomas rows at dawn."


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}},
}
MCP_ACCEPT = {"Accept": "application/json, text/event-stream", "Lore-User": "u-1", "Lore-Agent": AGENT}


async def test_mcp_refuses_a_request_without_a_valid_credential(gateway, org_key):
    _, key = org_key
    async with asgi_client(gateway) as anonymous, asgi_client(gateway, "wrong-key-0123456789abcdef") as wrong:
        for client in (anonymous, wrong):
            answer = await client.post("/mcp", json=INITIALIZE, headers=MCP_ACCEPT)
            assert answer.status_code == 401 and "mcp-session-id" not in answer.headers
            assert answer.json()["error"]["status"] == "UNAUTHENTICATED"
    async with asgi_client(gateway, key) as keyed:
        no_user = await keyed.post("/mcp", json=INITIALIZE, headers={**MCP_ACCEPT, "Lore-User": ""})
        no_agent = await keyed.post("/mcp", json=INITIALIZE, headers={**MCP_ACCEPT, "Lore-Agent": ""})
        spaced = await keyed.post("/mcp", json=INITIALIZE, headers={**MCP_ACCEPT, "Lore-User": "u 1"})
        accepted = await keyed.post("/mcp", json=INITIALIZE, headers=MCP_ACCEPT)
        streamed, ended = await keyed.get("/mcp", headers=MCP_ACCEPT), await keyed.delete("/mcp", headers=MCP_ACCEPT)
        schema = (await keyed.get("/openapi.json")).json()
    assert no_user.status_code == 400 and "Lore-User header is required" in no_user.json()["error"]["message"]
    assert no_agent.status_code == 400 and "Lore-Agent" in no_agent.json()["error"]["message"]
    assert spaced.status_code == 400 and "Lore-User" in spaced.json()["error"]["message"]
    assert accepted.status_code == 200 and accepted.json()["result"]["serverInfo"]["name"] == "lore"
    assert "/mcp" not in schema["paths"]
    assert streamed.status_code == ended.status_code == 405, "stateless: no stream to GET, no session to DELETE"


# -- whose memory --------------------------------------------------------------------------------


async def test_one_users_server_never_sees_another_users_memories(open_mcp, gateway, org_key):
    _, key = org_key
    user_a, user_b = user(), user()
    marker = f"zephyrine-{uuid.uuid4().hex[:6]}"
    async with open_mcp(key, user_b) as lore_b:
        kept = await call(lore_b, "remember", content=f"My locker code is {marker} at the climbing gym.")
    b_memory = kept["remembered"]["id"]

    async with open_mcp(key, user_a) as lore_a:
        await call(lore_a, "remember", content="I climb at the gym on Thursdays.")
        hits = await found(lore_a, f"What is my locker code at the climbing gym? {marker}")
        context = await call(lore_a, "get_context", message=f"Remind me of my locker code, {marker}?")
        primed = await call(lore_a, "prime", initial_message=f"locker code {marker}")
        forgetting = await lore_a.call_tool("forget_memory", {"memory_id": b_memory})
        forgot_about = await call(lore_a, "forget_about", about=f"my locker code {marker}")
        recorded = await call(lore_a, "record_turn", user_message="Hello again.", assistant_reply="Hi!")

    assert hits and all(marker not in hit["content"] and hit["id"] != b_memory for hit in hits)
    assert marker not in context["context"] and marker not in primed["context"]
    assert forgetting.is_error and forgetting.content[0].text == f"memory {b_memory} not found"
    assert forgot_about == {"status": "FORGET_STATUS_NOTHING_MATCHED", "forgotten": []}
    async with asgi_client(gateway, key) as rest:
        still = await rest.get(f"/v1/memories/{b_memory}")
        session = (await rest.get(f"/v1/sessions/{recorded['sessionId']}")).json()["session"]
    assert still.json()["memory"]["status"] == "MEMORY_STATUS_ACTIVE"
    assert session["scope"]["userId"] == user_a


async def test_another_orgs_key_sees_nothing(gateway_url, org_key, migrated_pg):
    _, key = org_key
    other_key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    same_user = user()
    async with over_http(gateway_url, key, user=same_user) as mine:
        kept = await call(mine, "remember", content="The spare key is under the blue flowerpot.")
    async with over_http(gateway_url, other_key, user=same_user) as theirs:
        hits = await found(theirs, "Where is the spare key?")
        forgetting = await theirs.call_tool("forget_memory", {"memory_id": kept["remembered"]["id"]})
        forgot_about = await call(theirs, "forget_about", about="the spare key under the blue flowerpot")
    assert hits == [] and forgetting.is_error and "not found" in forgetting.content[0].text
    assert forgot_about == {"status": "FORGET_STATUS_NOTHING_MATCHED", "forgotten": []}
    async with over_http(gateway_url, key, user=same_user) as mine:
        assert await found(mine, "Where is the spare key?"), "the first org's memory is untouched"


@pytest.fixture(scope="module")
async def strict_gateway(services, migrated_pg, redis_url):
    """A gateway of its own accepting JWTs, with one memory write at once and 1/s per credential."""
    settings = gateway_settings(
        services,
        migrated_pg,
        redis_url,
        LORE_JWT_HS256_SECRET=SECRET,
        LORE_JWT_AUDIENCE=AUDIENCE,
        LORE_RATE_LIMITS="memories:write=1:1",
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


def pinned_token(org_id: str, user_id: str, *, scope: str = "memories:read memories:write") -> str:
    now = int(time.time())
    claims = {"sub": f"app-of-{user_id}", "org_id": org_id, "aud": AUDIENCE, "exp": now + 600, "user_id": user_id}
    return jwt.encode({**claims, "scope": scope}, SECRET, algorithm="HS256")


async def test_a_jwt_pinned_to_a_user_reaches_only_that_users_memory(strict_gateway, org_key):
    org, key = org_key
    user_a, user_b = user(), user()
    async with asgi_client(strict_gateway, key) as rest:
        written = await rest.post(
            "/v1/memories",
            json={
                "memories": [
                    {
                        "content": "My bank PIN hint is the year of the flood.",
                        "memoryType": "MEMORY_TYPE_FACT",
                        "scope": {"userId": user_b},
                    }
                ]
            },
        )
    assert written.status_code == 200, written.text
    b_memory = written.json()["memories"][0]["id"]
    token = pinned_token(org, user_a)

    async with asgi_client(strict_gateway, token) as raw:
        naming_b = await raw.post("/mcp", json=INITIALIZE, headers={**MCP_ACCEPT, "Lore-User": user_b})
    assert naming_b.status_code == 403 and naming_b.json()["error"]["details"][0]["reason"] == "USER_PINNED"

    async with over_http("http://gateway", token, app=strict_gateway) as lore:  # no Lore-User: the token's user
        kept = await call(lore, "remember", content="My bank is the one by the river.")
        hits = await found(lore, "What is my bank PIN hint, the year of the flood?")
        forgetting = await lore.call_tool("forget_memory", {"memory_id": b_memory})
    async with asgi_client(strict_gateway, key) as rest:
        mine = (await rest.get(f"/v1/memories/{kept['remembered']['id']}")).json()["memory"]
    assert mine["scope"]["userId"] == user_a
    assert b_memory not in {hit["id"] for hit in hits} and all("flood" not in hit["content"] for hit in hits)
    assert forgetting.is_error and forgetting.structured_content["error"]["status"] == 404


async def test_tool_calls_count_against_the_credentials_scopes_and_rate_limits(strict_gateway, org_key):
    org, _ = org_key
    reader = pinned_token(org, user(), scope="memories:read")
    writer = pinned_token(org, user())
    async with over_http("http://gateway", reader, app=strict_gateway) as lore:
        refused = await lore.call_tool("remember", {"content": "I like figs."})
        assert (await call(lore, "search_memories", query="figs"))["results"] == []
    async with over_http("http://gateway", writer, app=strict_gateway) as lore:
        first = await lore.call_tool("remember", {"content": "I like plums."})
        second = await lore.call_tool("remember", {"content": "I like pears."})

    assert refused.is_error and "lacks the memories:write scope" in refused.content[0].text
    assert not first.is_error
    assert second.is_error and second.structured_content["error"]["code"] == "RESOURCE_EXHAUSTED"


def test_the_stdio_command_needs_a_user_and_an_agent(tmp_path):
    environ = {"PATH": os.environ["PATH"], "LORE_API_KEY": "a-key-0123456789abcdef", "LORE_DATA_DIR": str(tmp_path)}
    missing = subprocess.run([str(LORE), "mcp", "--user", "u-1"], env=environ, capture_output=True, text=True)
    blank = subprocess.run(
        [str(LORE), "mcp", "--user", " ", "--agent", AGENT], env=environ, capture_output=True, text=True
    )
    assert missing.returncode == 2 and "--agent" in missing.stderr and missing.stdout == ""
    assert blank.returncode == 2 and "user_id is required" in blank.stderr and blank.stdout == ""
