"""``lore_client.tools``: the catalogue in each vendor's format (checked against OpenAI's own SDK
types and against JSON Schema itself), every tool-call shape read, bad arguments and unknown tools
refused before anything is sent, whose memory taken from the binding only, Lore's refusals turned
into error results — on the async and the sync client alike, against ``httpx.MockTransport``."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import jsonschema
import pytest
from lore_client import LoreClient, SyncLoreClient
from lore_client.tools import (
    TOOLS,
    ToolArgumentError,
    ToolBinding,
    ToolCallError,
    UnknownToolError,
    anthropic_tools,
    check_arguments,
    openai_tools,
    parse_tool_call,
    resolve_tool_call,
    resolve_tool_call_sync,
)
from openai.types.chat import ChatCompletionMessageToolCall, ChatCompletionToolParam
from openai.types.responses import FunctionToolParam, ResponseFunctionToolCall
from pydantic import TypeAdapter

BINDING = ToolBinding(user_id="u-noor", agent_id="aria", team_id="t-home")
NAMES = [
    "remember",
    "search_memories",
    "get_context",
    "prime",
    "get_user_profile",
    "forget_memory",
    "forget_about",
    "record_turn",
    "search_beliefs",
    "observe",
]
# Anthropic's and OpenAI's rule for a tool's name.
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
WHOSE = {"user", "user_id", "userId", "agent", "agent_id", "agentId", "team", "team_id", "teamId", "org", "org_id"}

MEMORY = {
    "id": "m-1",
    "content": "Noor's sister Lena moved to Porto in March 2024.",
    "memoryType": "MEMORY_TYPE_FACT",
    "scope": {"userId": "u-noor", "agentId": "aria"},
    "validAt": "2024-03-01T00:00:00Z",
}


class Gateway:
    """A mock gateway: answers by route, records every request."""

    def __init__(self, answers: dict[str, tuple[int, Any]] | None = None) -> None:
        self.answers = answers or {}
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        route = f"{request.method} {request.url.path}"
        status, body = self.answers.get(route, (200, {}))
        return httpx.Response(status, json=body)

    def bodies(self) -> list[tuple[str, Any]]:
        return [
            (f"{r.method} {r.url.path}", json.loads(r.content) if r.content else dict(r.url.params.multi_items()))
            for r in self.requests
        ]


def test_the_catalogue_has_its_nine_tools_in_each_vendors_format():
    assert [tool.name for tool in TOOLS] == NAMES
    chat, responses, anthropic = openai_tools(), openai_tools(responses_api=True), anthropic_tools()

    chat_tool, responses_tool = TypeAdapter(ChatCompletionToolParam), TypeAdapter(FunctionToolParam)
    for tool, a, b, c in zip(TOOLS, chat, responses, anthropic, strict=True):
        assert chat_tool.validate_python(a) == a and a["function"]["parameters"] == tool.parameters
        assert responses_tool.validate_python(b) == b and b["name"] == tool.name and b["type"] == "function"
        assert set(c) == {"name", "description", "input_schema"} and c["input_schema"] == tool.parameters
        assert TOOL_NAME.match(tool.name) and 80 < len(tool.description) <= 1024


def test_every_schema_is_a_closed_json_schema_object_naming_nobodys_memory():
    for tool in TOOLS:
        schema = tool.parameters
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema["required"]) <= set(schema["properties"])
        assert not set(schema["properties"]) & WHOSE, f"{tool.name}: whose memory is the binding's, never an argument"
        assert all(rules.get("description") for rules in schema["properties"].values()), tool.name


def test_a_definition_handed_out_can_be_edited_without_changing_the_catalogue():
    openai_tools()[0]["function"]["parameters"]["properties"].clear()
    anthropic_tools()[0]["input_schema"]["required"].append("x")
    assert TOOLS[0].parameters["required"] == ["content"] and "content" in TOOLS[0].parameters["properties"]


ARGUMENTS = {"query": "Where does Lena live?", "k": 3}


@pytest.mark.parametrize(
    "call",
    [
        {"id": "c1", "type": "function", "function": {"name": "search_memories", "arguments": json.dumps(ARGUMENTS)}},
        ChatCompletionMessageToolCall.model_validate(
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "search_memories", "arguments": json.dumps(ARGUMENTS)},
            }
        ),
        ResponseFunctionToolCall(
            type="function_call", call_id="c1", name="search_memories", arguments=json.dumps(ARGUMENTS)
        ),
        {"type": "tool_use", "id": "toolu_1", "name": "search_memories", "input": ARGUMENTS},
        {"name": "search_memories", "arguments": ARGUMENTS},
    ],
    ids=["openai-chat-dict", "openai-chat-sdk", "openai-responses-sdk", "anthropic", "plain"],
)
def test_every_vendors_tool_call_shape_is_read(call):
    assert parse_tool_call(call) == ("search_memories", ARGUMENTS)


def test_a_name_with_its_arguments_beside_it_is_read_too():
    assert parse_tool_call("prime", None) == ("prime", {})
    assert parse_tool_call("prime", '{"initial_message": "Hi"}') == ("prime", {"initial_message": "Hi"})


@pytest.mark.parametrize(
    ("tool", "arguments", "argument", "message"),
    [
        ("remember", {}, "content", "remember: content: required"),
        ("remember", {"content": "  "}, "content", "remember: content: must not be empty"),
        ("remember", {"content": 7}, "content", "remember: content: must be a string"),
        ("remember", {"content": "x", "memory_type": "gossip"}, "memory_type", "must be one of fact, preference"),
        ("remember", {"content": "x", "importance": 2}, "importance", "must be between 0 and 1"),
        ("remember", {"content": "x", "importance": True}, "importance", "must be a number"),
        ("remember", {"content": "x", "entities": ["ok", 3]}, "entities", "[1] must be a string"),
        ("remember", {"content": "x", "user_id": "u-other"}, "user_id", "unknown argument"),
        ("search_memories", {"query": "q", "k": 0}, "k", "must be between 1 and 50"),
        ("search_memories", {"query": "q", "k": 2.5}, "k", "must be an integer"),
        ("search_memories", {"query": "q", "memory_types": "fact"}, "memory_types", "must be an array"),
        ("observe", {"kind": "world_fact", "subject_id": "s", "summary": "x", "slot": "Diet!"}, "slot", "must match"),
        ("observe", {"kind": "world_fact", "subject_id": "s", "summary": "x"}, "slot", "observe: slot: required"),
        ("observe", {"kind": "world_fact", "subject_id": "s", "summary": "x", "slot": ""}, "slot", "must not be empty"),
        ("observe", {"kind": "world_fact", "subject_id": "s", "summary": "x", "slot": "d" * 65}, "slot", "at most 64"),
        (
            "observe",
            {"kind": "world_fact", "subject_id": "a b", "summary": "x", "slot": "d"},
            "subject_id",
            "must match",
        ),
        (
            "observe",
            {"kind": "world_fact", "subject_id": "s", "summary": "x" * 1001, "slot": "d"},
            "summary",
            "at most",
        ),
        ("record_turn", {"user_message": "hi"}, "assistant_reply", "required"),
        ("search_beliefs", {"query": "q", "kinds": ["gossip"]}, "kinds", "[0] must be one of"),
    ],
)
def test_bad_arguments_are_refused_naming_the_argument_and_the_rule(tool, arguments, argument, message):
    [chosen] = [t for t in TOOLS if t.name == tool]
    with pytest.raises(ToolArgumentError) as refused:
        check_arguments(chosen, arguments)
    assert refused.value.argument == argument and refused.value.tool == tool and message in str(refused.value)
    # JSON Schema itself refuses them too: the checker is the schema, not a second set of rules.
    assert not jsonschema.Draft202012Validator(chosen.parameters).is_valid(arguments)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("remember", {"content": "x", "memory_type": "decision", "importance": 1, "entities": ["Lena"]}),
        ("search_memories", {"query": "q", "k": 50, "memory_types": ["fact", "preference"]}),
        ("observe", {"kind": "world_fact", "subject_id": "s", "summary": "x", "slot": "diet.v2", "detail": ""}),
        ("observe", {"kind": "world_fact", "subject_id": "s", "summary": "x", "slot": "d" * 64}),
        ("prime", {}),
    ],
)
def test_good_arguments_pass_the_checker_and_json_schema_alike(tool, arguments):
    [chosen] = [t for t in TOOLS if t.name == tool]
    check_arguments(chosen, arguments)
    jsonschema.Draft202012Validator(chosen.parameters).validate(arguments)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        ({"name": "drop_database", "arguments": {}}, UnknownToolError, "unknown tool 'drop_database' (known: remember"),
        ({"arguments": {}}, ToolCallError, "no name found"),
        ({"name": "prime", "arguments": "{not json"}, ToolArgumentError, "prime: the arguments are not JSON"),
        ({"name": "prime", "arguments": "[1]"}, ToolArgumentError, "prime: the arguments must be a JSON object"),
        (42, ToolCallError, "not a tool call: int"),
    ],
)
async def test_an_unknown_tool_or_unreadable_call_raises_before_anything_is_sent(call, error, message):
    gateway = Gateway()
    async with LoreClient("http://lore.test", "k", transport=httpx.MockTransport(gateway)) as lore:
        with pytest.raises(error) as raised:
            await resolve_tool_call(lore, BINDING, call)
    assert message in str(raised.value) and gateway.requests == []


def test_a_binding_names_a_user_and_an_agent():
    with pytest.raises(ValueError, match=r"ToolBinding\.user_id is required"):
        ToolBinding(user_id=" ", agent_id="aria")
    with pytest.raises(ValueError, match=r"ToolBinding\.agent_id is required"):
        ToolBinding(user_id="u-noor", agent_id="")


SEARCH_ANSWER = {"POST /v1/memories:search": (200, {"results": [{"memory": MEMORY, "score": 0.8}]})}


async def test_a_call_is_made_for_the_bound_user_agent_and_team_only():
    gateway = Gateway(SEARCH_ANSWER)
    async with LoreClient("http://lore.test", "k", transport=httpx.MockTransport(gateway)) as lore:
        found = await resolve_tool_call(lore, BINDING, {"name": "search_memories", "arguments": ARGUMENTS})

    [(route, body)] = gateway.bodies()
    assert route == "POST /v1/memories:search"
    assert body["scope"] == {"userId": "u-noor", "agentId": "aria", "teamId": "t-home"}
    assert body["scopeMatch"] == "SCOPE_MATCH_CONTEXT" and body["k"] == 3
    assert found == {
        "results": [
            {
                "id": "m-1",
                "content": MEMORY["content"],
                "type": "fact",
                "when": "2024-03-01T00:00:00+00:00",
                "score": 0.8,
            }
        ]
    }


REFUSED = (
    400,
    {
        "error": {
            "code": 400,
            "status": "INVALID_ARGUMENT",
            "message": "invalid memories[0].validAt: not an RFC 3339 timestamp",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.BadRequest",
                    "fieldViolations": [{"field": "memories[0].validAt", "description": "x"}],
                }
            ],
        }
    },
)


async def test_lores_refusal_is_an_error_result_with_the_rest_message():
    gateway = Gateway({"POST /v1/memories": REFUSED})
    async with LoreClient("http://lore.test", "k", transport=httpx.MockTransport(gateway), max_retries=0) as lore:
        result = await resolve_tool_call(lore, BINDING, "remember", {"content": "x", "valid_at": "last Tuesday"})
    assert result == {
        "error": {
            "message": "invalid memories[0].validAt: not an RFC 3339 timestamp",
            "code": "INVALID_ARGUMENT",
            "status": 400,
            "field": "memories[0].validAt",
        }
    }


ANOTHER_USERS = {"GET /v1/memories/m-2": (200, {"memory": {**MEMORY, "id": "m-2", "scope": {"userId": "u-lena"}}})}
SHARED = {"GET /v1/memories/m-3": (200, {"memory": {**MEMORY, "id": "m-3", "scope": {}}})}


@pytest.mark.parametrize("answers", [ANOTHER_USERS, SHARED], ids=["another-users", "the-orgs-shared"])
async def test_forget_memory_forgets_only_the_bound_users_own_memory(answers):
    [memory_id] = [route.rsplit("/", 1)[1] for route in answers]
    gateway = Gateway(answers)
    async with LoreClient("http://lore.test", "k", transport=httpx.MockTransport(gateway)) as lore:
        result = await resolve_tool_call(lore, BINDING, "forget_memory", {"memory_id": memory_id})
    assert result["error"]["message"] == f"memory {memory_id} not found" and result["error"]["status"] == 404
    assert [route for route, _ in gateway.bodies()] == [f"GET /v1/memories/{memory_id}"], "nothing deleted"


TURN_ANSWERS = {
    "GET /v1/sessions": (200, {"sessions": []}),
    "POST /v1/sessions": (200, {"session": {"id": "s-9", "scope": {"userId": "u-noor"}}}),
    "POST /v1/sessions/s-9/turns": (200, {"turn": {"id": "t-1", "sequence": 1, "role": "TURN_ROLE_USER"}}),
}


def test_the_sync_client_runs_the_same_executors_with_the_same_requests():
    """record_turn (four calls, one depending on the last) on SyncLoreClient, as on LoreClient."""
    arguments = {"user_message": "I start a new job Monday.", "assistant_reply": "Good luck!"}
    sync_gateway = Gateway(TURN_ANSWERS)
    with SyncLoreClient("http://lore.test", "k", transport=httpx.MockTransport(sync_gateway)) as lore:
        result = resolve_tool_call_sync(lore, BINDING, "record_turn", arguments)

    assert [route for route, _ in sync_gateway.bodies()] == [
        "GET /v1/sessions",
        "POST /v1/sessions",
        "POST /v1/sessions/s-9/turns",
        "POST /v1/sessions/s-9/turns",
    ]
    listed, started, said, replied = (body for _, body in sync_gateway.bodies())
    assert listed == {
        "scope.userId": "u-noor",
        "scope.agentId": "aria",
        "scope.teamId": "t-home",
        "status": "SESSION_STATUS_ACTIVE",
        "pageSize": "1",
    }
    assert started["scope"] == {"userId": "u-noor", "agentId": "aria", "teamId": "t-home"}
    assert said["turn"] == {"role": "TURN_ROLE_USER", "content": "I start a new job Monday."}
    assert replied["turn"] == {"role": "TURN_ROLE_ASSISTANT", "content": "Good luck!"}
    assert result["sessionId"] == "s-9" and result["userTurn"] == {"id": "t-1", "sequence": 1, "role": "user"}
    with pytest.raises(UnknownToolError):
        resolve_tool_call_sync(lore, BINDING, "nope", {})


async def test_the_async_client_sends_the_same_bytes_as_the_sync_one():
    arguments = {"user_message": "I start a new job Monday.", "assistant_reply": "Good luck!"}
    sync_gateway, async_gateway = Gateway(TURN_ANSWERS), Gateway(TURN_ANSWERS)
    with SyncLoreClient("http://lore.test", "k", transport=httpx.MockTransport(sync_gateway)) as lore:
        expected = resolve_tool_call_sync(lore, BINDING, "record_turn", arguments)
    async with LoreClient("http://lore.test", "k", transport=httpx.MockTransport(async_gateway)) as lore:
        result = await resolve_tool_call(lore, BINDING, "record_turn", arguments)
    assert result == expected
    assert [(r.method, str(r.url), r.content) for r in async_gateway.requests] == [
        (r.method, str(r.url), r.content) for r in sync_gateway.requests
    ]


async def test_record_turn_writes_to_a_bound_session_only_when_it_is_the_bound_users():
    bound = ToolBinding(user_id="u-noor", agent_id="aria", session_id="s-lena")
    gateway = Gateway({"GET /v1/sessions/s-lena": (200, {"session": {"id": "s-lena", "scope": {"userId": "u-lena"}}})})
    async with LoreClient("http://lore.test", "k", transport=httpx.MockTransport(gateway)) as lore:
        result = await resolve_tool_call(lore, bound, "record_turn", {"user_message": "Hi", "assistant_reply": "Hello"})
    assert result["error"]["message"] == "session s-lena not found"
    assert [route for route, _ in gateway.bodies()] == ["GET /v1/sessions/s-lena"], "no turn written"


def test_the_observe_schema_states_the_observations_services_rules():
    from observations_svc.domain import keys, limits

    [observe] = [tool for tool in TOOLS if tool.name == "observe"]
    rules = observe.parameters
    assert "slot" in rules["required"], "the service refuses an observation without a slot"
    slot, subject, summary = (rules["properties"][name] for name in ("slot", "subject_id", "summary"))
    assert (slot["minLength"], slot["maxLength"]) == (1, limits.MAX_SLOT_CHARS)
    assert slot["pattern"] == keys.SLOT_PATTERN.pattern
    assert subject["pattern"] == keys.SUBJECT_ID_PATTERN.pattern
    assert summary["maxLength"] == limits.MAX_SUMMARY_CHARS
