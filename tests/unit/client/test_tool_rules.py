"""Every tool's argument schema states its route's rules, from one source: an argument sent as a
route field takes the rules the gateway's OpenAPI document states for that field (``ARGUMENT_FIELDS``;
``route_rules.py`` is generated from the gateway's ``rules.BODY_RULES``), and every other argument
is listed here with the reason it has no field rule to take. The MCP endpoint and the stdio server
list these same schemas (tests/integration/gateway/test_mcp.py); test_openapi_rules.py holds each
rule the document states to the services on a real stack."""

from __future__ import annotations

from gateway_svc.api.openapi.schemas import resolved, string_schema
from gateway_svc.config import Settings
from gateway_svc.server import create_app
from lore_client.tools import ARGUMENT_FIELDS, MAX_TURN_CHARS, TOOLS, TOOLS_BY_NAME
from lore_runtime.settings import load_settings
from lore_runtime.text_rules import is_id_name

from tests.grpc_harness import SERVICE_TOKEN_ENV

RULE_KEYWORDS = ("minLength", "maxLength", "pattern", "minimum", "maximum", "minItems", "maxItems", "maxProperties")

# Arguments that are sent as no route body field with stated rules, and why.
NOT_A_FIELD_WITH_RULES = {
    ("remember", "memory_type"): "a short enum name, sent as the enum's full name",
    ("remember", "entities"): "at most 20 names of 200 characters: within the memory service's 64 (not stated)",
    ("remember", "valid_at"): "a timestamp",
    ("search_memories", "k"): "the tool's own range (RANGE_WITHIN below)",
    ("search_memories", "memory_types"): "short enum names",
    ("prime", "initial_message"): "a query parameter: the document states no rule for it",
    ("prime", "budget_tokens"): "a query parameter: the document states no rule for it",
    ("forget_memory", "memory_id"): "a path id",
    ("record_turn", "user_message"): "a turn's content: MAX_TURN_CHARS, compared with the agent's limit below",
    ("record_turn", "assistant_reply"): "a turn's content: MAX_TURN_CHARS, compared with the agent's limit below",
    ("search_beliefs", "k"): "the tool's own range (RANGE_WITHIN below)",
    ("search_beliefs", "kinds"): "short enum names",
    ("observe", "kind"): "a short enum name",
    ("observe", "subject_type"): "a short enum name",
    ("observe", "subject_id"): "the service's pattern, compared in test_tools.py (a global subject has none)",
    ("observe", "evidence"): "sent as an evidence excerpt, which the document states no rule for",
}
# Arguments whose range is the tool's own choice, inside the route field's: (tool, argument) -> field.
RANGE_WITHIN = {
    ("search_memories", "k"): ("memories.search", "k"),
    ("search_beliefs", "k"): ("observations.searchObservations", "k"),
}


def _document() -> dict:
    placeholders = {"LORE_DATABASE_URL": "postgresql://unused@localhost/unused", **SERVICE_TOKEN_ENV}
    return create_app(load_settings(Settings, placeholders)).openapi()


def _field(document: dict, operation_id: str, field: str) -> tuple[dict, bool]:
    """The schema of ``field`` of the request body of ``operation_id``, and whether it is required."""
    [operation] = [
        operation
        for item in document["paths"].values()
        for operation in item.values()
        if operation["operationId"] == operation_id
    ]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    *parents, name = field.split(".")
    for part in parents:
        schema = resolved(document, schema)["properties"][part.removesuffix("[]")]
        if part.endswith("[]"):
            schema = schema["items"]
    holder = resolved(document, schema)
    return holder["properties"][name], name in holder.get("required", [])


def test_each_argument_sent_as_a_route_field_states_exactly_that_fields_rules():
    document = _document()

    for (tool, argument), (operation_id, field) in ARGUMENT_FIELDS.items():
        parameters = TOOLS_BY_NAME[tool].parameters
        stated, required = _field(document, operation_id, field)
        tool_rules = {keyword: value for keyword, value in parameters["properties"][argument].items()}
        # The rules every string states (text_rules: no NUL; an id's characters and length) are
        # the services' own on any string, not this route's: a tool need not repeat them.
        general = string_schema(id_rule=is_id_name(field.rpartition(".")[2])) if stated.get("type") == "string" else {}
        assert {k: v for k, v in tool_rules.items() if k in RULE_KEYWORDS} == {
            k: v for k, v in stated.items() if k in RULE_KEYWORDS and not (general.get(k) == v and k not in tool_rules)
        }, (tool, argument)
        assert tool_rules["type"] == stated.get("type", tool_rules["type"]), (tool, argument)
        if required:
            assert argument in parameters["required"], f"{tool}: {argument} is required by {operation_id}"


def test_a_range_of_the_tools_own_lies_within_its_routes():
    document = _document()

    for (tool, argument), (operation_id, field) in RANGE_WITHIN.items():
        own = TOOLS_BY_NAME[tool].parameters["properties"][argument]
        stated, _ = _field(document, operation_id, field)
        assert stated["minimum"] <= own["minimum"] <= own["maximum"] <= stated["maximum"], (tool, argument)


def test_every_argument_of_every_tool_is_a_route_field_or_listed_with_its_reason():
    arguments = {(tool.name, name) for tool in TOOLS for name in tool.parameters["properties"]}

    assert arguments == set(ARGUMENT_FIELDS) | set(NOT_A_FIELD_WITH_RULES)
    assert not set(ARGUMENT_FIELDS) & set(NOT_A_FIELD_WITH_RULES)


def test_record_turn_takes_as_much_as_a_turn_holds():
    from agent_svc.domain import transcript

    parameters = TOOLS_BY_NAME["record_turn"].parameters["properties"]
    assert MAX_TURN_CHARS == transcript.MAX_CONTENT_CHARS
    assert parameters["user_message"]["maxLength"] == parameters["assistant_reply"]["maxLength"] == MAX_TURN_CHARS
