"""Bad REST bodies become INVALID_ARGUMENT naming the field as the client wrote it, indexed, with the
rule of its type; bodies nested too deep are refused before any parser recurses
(item 4); a NUL is refused in any string (item 5)."""

import json
import time

import pytest
from gateway_svc.api.json import proto_json
from gateway_svc.api.json.json_limits import DEFAULT_MAX_DEPTH, HIGHEST_MAX_DEPTH, depth_of
from lore.agent.v1 import agent_service_pb2
from lore.memory.v1 import memory_service_pb2
from lore.observations.v1 import observation_service_pb2
from lore_runtime import errors


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"candidate": {"kind": "operator_preference"}}, "candidate.kind"),
        ({"candidate": {"evidence": [{"weight": "heavy"}]}}, "candidate.evidence[0].weight"),
        ({"candidate": {"colour": "red"}}, "candidate.colour"),
        ([1, 2], "body"),
    ],
)
def test_a_bad_body_names_the_field_without_trailing_punctuation(body, field):
    with pytest.raises(errors.InvalidArgument) as raised:
        proto_json.parse(body if isinstance(body, dict) else "[1, 2]", observation_service_pb2.ObserveRequest)
    assert raised.value.field == field


@pytest.mark.parametrize(
    ("body", "field", "rule"),
    [
        (
            {"memories": [{"content": "x", "validAt": "2023-05-08T13:56:00"}]},
            "memories[0].validAt",
            "must be an RFC 3339 timestamp with an offset, e.g. 2023-05-08T13:56:00Z",
        ),
        ({"memories": [{"content": "x"}, {"content": 123}]}, "memories[1].content", "must be a string"),
        ({"memories": [{"content": "x", "metadata": {"a": 1}}]}, "memories[0].metadata.a", "must be a string"),
        ({"memories": [{"content": "x", "metadata": []}]}, "memories[0].metadata", "must be a JSON object"),
        ({"memories": [{"content": "x", "importance": "high"}]}, "memories[0].importance", "must be a number"),
        ({"memories": [{"content": "x", "entities": [1]}]}, "memories[0].entities[0]", "must be a string"),
        ({"memories": [None]}, "memories[0]", "must be a JSON object"),
        ({"memories": "x"}, "memories", "must be a JSON array"),
        ({"memories": [{"content": "\ud800"}]}, "memories[0].content", "must be valid Unicode (no unpaired surrogate)"),
        ({"updateMask": 5}, "updateMask", 'must be a comma-separated list of field names, e.g. "importance,metadata"'),
    ],
)
def test_the_message_names_the_indexed_field_and_the_rule(body, field, rule):
    message_class = (
        memory_service_pb2.UpdateMemoryRequest if "updateMask" in body else memory_service_pb2.RememberRequest
    )
    with pytest.raises(errors.InvalidArgument) as raised:
        proto_json.parse(json.dumps(body).encode(), message_class)
    assert (raised.value.field, raised.value.description) == (field, rule)


@pytest.mark.parametrize(
    ("k", "rule"),
    [
        ("ten", "must be an integer"),
        (1.5, "must be an integer"),
        (True, "must be an integer"),
        (10**20, "must be an integer from -2147483648 to 2147483647"),
    ],
)
def test_an_integer_field_says_it_wants_an_integer(k, rule):
    with pytest.raises(errors.InvalidArgument) as raised:
        proto_json.parse({"query": "x", "k": k}, memory_service_pb2.RecallRequest)
    assert (raised.value.field, raised.value.description) == ("k", rule)


def test_an_enum_or_an_unknown_field_names_what_is_accepted():
    with pytest.raises(errors.InvalidArgument) as enum:
        proto_json.parse({"candidate": {"kind": "nope"}}, observation_service_pb2.ObserveRequest)
    with pytest.raises(errors.InvalidArgument) as unknown:
        proto_json.parse({"candidate": {"colour": "red"}}, observation_service_pb2.ObserveRequest)
    assert enum.value.description.startswith("must be one of OBSERVATION_KIND_UNSPECIFIED, OBSERVATION_KIND_")
    assert unknown.value.description.startswith("unknown field; the fields here are kind, subjectType")
    assert "Failed to parse" not in str(enum.value) + str(unknown.value)


def test_a_field_given_null_is_left_out_and_proto_names_are_read():
    """proto3's JSON mapping: ``null`` is the field's default (every request body's description says
    so); a field may be named as in the proto (``min_salience``) beside its JSON name."""
    parsed = proto_json.parse(
        {"query": "x", "k": None, "scope": None, "memoryTypes": None, "min_salience": 0.5, "validAfter": None},
        memory_service_pb2.RecallRequest,
    )

    assert parsed.query == "x" and parsed.k == 0 and list(parsed.memory_types) == []
    assert not parsed.HasField("scope") and not parsed.HasField("valid_after")
    assert parsed.min_salience == 0.5


@pytest.mark.parametrize(
    ("document", "field", "rule"),
    [
        ({"query": "x", "k": "7"}, "k", "must be an integer"),
        ({"query": "x", "k": True}, "k", "must be an integer"),
        ({"query": "x", "minSalience": "0.5"}, "minSalience", "must be a number"),
        ({"query": "x", "memoryTypes": [1]}, "memoryTypes[0]", "must be one of MEMORY_TYPE_UNSPECIFIED"),
        ({"query": "x", "memoryTypes": [None]}, "memoryTypes[0]", "must not be null"),
    ],
)
def test_what_protobuf_takes_beyond_the_document_is_refused_naming_the_field(document, field, rule):
    """A number written as a string, a boolean for a number, an enum by its number, a null item."""
    with pytest.raises(errors.InvalidArgument) as raised:
        proto_json.parse(json.dumps(document).encode(), memory_service_pb2.RecallRequest)

    assert raised.value.field == field and raised.value.description.startswith(rule), raised.value


def test_a_boolean_in_a_list_of_floats_is_refused():
    """Python's ``bool`` is an ``int``: protobuf's parser would read ``true`` as 1.0."""
    body = {"query": "x", "queryEmbedding": [0.5, True]}

    with pytest.raises(errors.InvalidArgument) as raised:
        proto_json.parse(json.dumps(body).encode(), observation_service_pb2.SearchObservationsRequest)

    assert (raised.value.field, raised.value.description) == ("queryEmbedding[1]", "must be a number")


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ({"memories": [{"content": "ok"}, {"content": "a\x00b"}]}, "memories[1].content"),
        ({"memories": [{"content": "ok", "metadata": {"k": "\x00"}}]}, "memories[0].metadata.k"),
        ({"memories": [{"content": "ok", "metadata": {"k\x00": "v"}}]}, "memories[0].metadata"),
        ({"query": "\x00"}, "query"),
    ],
)
def test_a_nul_is_refused_naming_the_field_in_a_body_and_in_a_query(document, field):
    message_class = memory_service_pb2.RecallRequest if "query" in document else memory_service_pb2.RememberRequest
    for raw in (json.dumps(document).encode(), document):  # a body's text, or a query string's dict
        with pytest.raises(errors.InvalidArgument) as raised:
            proto_json.parse(raw, message_class)
        assert raised.value.field == field and "U+0000" in raised.value.description


def test_a_nul_inside_a_tool_result_is_refused_too():
    turn = {"turn": {"content": "x", "toolInteractions": [{"toolName": "t", "result": {"a": ["\x00"]}}]}}
    with pytest.raises(errors.InvalidArgument) as raised:
        proto_json.parse(json.dumps(turn), agent_service_pb2.ProcessTurnRequest)
    assert raised.value.field == "turn.toolInteractions[0].result.a[0]"


@pytest.mark.parametrize("nested", ["[" * 1000 + "]" * 1000, '{"a": ' * 1000 + "1" + "}" * 1000, "[" * 32 + "]" * 32])
def test_a_body_nested_deeper_than_the_limit_is_refused_naming_body(nested):
    with pytest.raises(errors.InvalidArgument) as raised:
        proto_json.parse(f'{{"query": {nested}}}'.encode(), memory_service_pb2.RecallRequest)
    assert (raised.value.field, raised.value.description) == ("body", "nested deeper than 32 levels")
    assert raised.value.reason == "BODY_TOO_DEEP"


@pytest.mark.parametrize("limit", [DEFAULT_MAX_DEPTH, HIGHEST_MAX_DEPTH])
def test_a_struct_nested_up_to_the_limit_parses_so_protobufs_own_limit_is_never_reached(limit):
    """A tool result's Struct spends two protobuf levels per JSON level: at the highest setting it
    still parses (protobuf stops at 100), and one level more is the gateway's 400, not protobuf's."""
    body = '{"turn": {"toolInteractions": [{"result": ' + '{"a": ' * (limit - 4) + "1" + "}" * (limit - 4)
    body += "}]}}"
    assert depth_of(body) == limit
    parsed = proto_json.parse(body, agent_service_pb2.ProcessTurnRequest, max_depth=limit)
    assert parsed.turn.tool_interactions[0].result["a"]
    deeper = body.replace('"result": ', '"result": {"b": ', 1).replace("}]}}", "}}]}}")
    with pytest.raises(errors.InvalidArgument) as raised:
        proto_json.parse(deeper, agent_service_pb2.ProcessTurnRequest, max_depth=limit)
    assert raised.value.description == f"nested deeper than {limit} levels"


def test_the_depth_is_measured_on_any_encoding_and_brackets_in_strings_do_not_count():
    assert depth_of('{"a": "[[[[{{{{", "b": [[1]], "c": "\\"[[["}') == 3
    assert depth_of("42") == 0
    deep = '{"query": ' + "[" * 100 + "]" * 100 + "}"
    with pytest.raises(errors.InvalidArgument):
        proto_json.parse(deep.encode("utf-16"), memory_service_pb2.RecallRequest)  # JSON may be UTF-16
    with pytest.raises(errors.InvalidArgument) as too_many_digits:
        proto_json.parse(b'{"k": ' + b"1" * 5000 + b"}", memory_service_pb2.RecallRequest)
    assert too_many_digits.value.field == "body"


def test_measuring_the_depth_of_a_large_body_is_fast():
    body = '{"memories": [' + ",".join(['{"content": "[[x]]", "entities": ["a", "b"]}'] * 40_000) + "]}"
    began = time.perf_counter()
    assert depth_of(body) == 4
    assert depth_of("[" * 1_000_000 + "]" * 1_000_000) == 1_000_000
    assert time.perf_counter() - began < 1.0
