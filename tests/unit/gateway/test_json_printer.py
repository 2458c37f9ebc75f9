"""The gateway's JSON printer prints what protobuf's json_format prints, on generated messages of
every type the gateway answers with (and on their awkward values: NaN, infinities, int64 beyond
2^53, unknown enum numbers, bytes, maps, unset optionals, well-known types)."""

from __future__ import annotations

import math

from gateway_svc.api.json.json_printer import message_to_dict
from google.protobuf import json_format, struct_pb2, timestamp_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lore.agent.v1 import agent_service_pb2
from lore.assembler.v1 import assembler_service_pb2
from lore.memory.v1 import episode_service_pb2, memory_service_pb2
from lore.observations.v1 import engagement_service_pb2, observation_service_pb2

MODULES = (
    agent_service_pb2,
    assembler_service_pb2,
    episode_service_pb2,
    memory_service_pb2,
    engagement_service_pb2,
    observation_service_pb2,
)
RESPONSES = sorted(
    (getattr(module, name) for module in MODULES for name in module.DESCRIPTOR.message_types_by_name),
    key=lambda message_class: message_class.DESCRIPTOR.full_name,
)

_INTEGERS = {
    FieldDescriptor.CPPTYPE_INT32: st.integers(-(2**31), 2**31 - 1),
    FieldDescriptor.CPPTYPE_UINT32: st.integers(0, 2**32 - 1),
    FieldDescriptor.CPPTYPE_INT64: st.integers(-(2**63), 2**63 - 1),
    FieldDescriptor.CPPTYPE_UINT64: st.integers(0, 2**64 - 1),
}


def _value(draw, field: FieldDescriptor, depth: int):
    kind = field.cpp_type
    if kind == FieldDescriptor.CPPTYPE_MESSAGE:
        return _message(draw, field.message_type._concrete_class, depth + 1)
    if kind == FieldDescriptor.CPPTYPE_ENUM:
        known = [value.number for value in field.enum_type.values]
        return draw(st.sampled_from(known) | st.integers(50, 60))  # an open enum keeps unknown numbers
    if kind in _INTEGERS:
        return draw(_INTEGERS[kind])
    if kind == FieldDescriptor.CPPTYPE_BOOL:
        return draw(st.booleans())
    if kind == FieldDescriptor.CPPTYPE_DOUBLE:
        return draw(st.floats(allow_nan=True, allow_infinity=True))
    if kind == FieldDescriptor.CPPTYPE_FLOAT:
        return draw(st.floats(width=32, allow_nan=True, allow_infinity=True))
    if field.type == FieldDescriptor.TYPE_BYTES:
        return draw(st.binary(max_size=8))
    return draw(st.text(max_size=8))


def _message(draw, message_class: type[Message], depth: int) -> Message:
    message = message_class()
    name = message_class.DESCRIPTOR.full_name
    if name == "google.protobuf.Timestamp":
        seconds = draw(st.integers(-62_135_596_800, 253_402_300_799))
        nanos = draw(st.sampled_from([0, 5_000_000, 120_000, 7]) | st.integers(0, 999_999_999))
        return timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)
    if name == "google.protobuf.Struct":
        return json_format.ParseDict(draw(st.dictionaries(st.text(max_size=4), st.integers(), max_size=2)), message)
    if name.startswith("google.protobuf.") or depth > 3:
        return message
    for field in message_class.DESCRIPTOR.fields:
        if not draw(st.booleans()):
            continue  # left unset: printed as its default, or left out when it has presence
        target = getattr(message, field.name)
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key_field, value_field = (
                field.message_type.fields_by_name["key"],
                field.message_type.fields_by_name["value"],
            )
            for _ in range(draw(st.integers(0, 2))):
                key = _value(draw, key_field, depth)
                if value_field.message_type is not None:
                    target[key].CopyFrom(_value(draw, value_field, depth))
                else:
                    target[key] = _value(draw, value_field, depth)
        elif field.is_repeated:
            for _ in range(draw(st.integers(0, 2))):
                value = _value(draw, field, depth)
                target.add().CopyFrom(value) if field.message_type is not None else target.append(value)
        elif field.message_type is not None:
            target.CopyFrom(_value(draw, field, depth))
        else:
            setattr(message, field.name, _value(draw, field, depth))
    return message


@st.composite
def messages(draw) -> Message:
    return _message(draw, draw(st.sampled_from(RESPONSES)), 0)


def _same(left, right) -> bool:
    """Equality that counts NaN equal to NaN (json_format prints a NaN in a float32 field as a float)."""
    if isinstance(left, float) and isinstance(right, float):
        return (math.isnan(left) and math.isnan(right)) or left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[key], right[key]) for key in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and left == right


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(messages())
def test_prints_what_json_format_prints(message):
    expected = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)

    assert _same(message_to_dict(message), expected)


def test_every_message_type_of_the_services_is_covered():
    names = {message_class.DESCRIPTOR.name for message_class in RESPONSES}

    assert {"RecallResponse", "ProcessTurnResponse", "PrimeResponse", "GetEngagementResponse"} <= names
    for message_class in RESPONSES:
        assert message_to_dict(message_class()) == json_format.MessageToDict(
            message_class(), always_print_fields_with_no_presence=True
        )


def test_well_known_types_print_as_json_format_prints_them():
    timestamp = timestamp_pb2.Timestamp(seconds=1_700_000_000, nanos=5_000_000)
    result = struct_pb2.Struct()
    result.update({"rows": [1, 2], "ok": True})

    assert message_to_dict(timestamp) == "2023-11-14T22:13:20.005Z"
    assert message_to_dict(result) == {"rows": [1.0, 2.0], "ok": True}
