"""What is wrong with a JSON body protobuf refused: the indexed path of the field and its rule.

protobuf's own messages name no index and often not the rule ("expected string or bytes-like
object, got 'int'", "time data '2023-05' does not match format …"). Once ``ParseDict`` has refused
a body, this module finds the first field at fault by parsing each field on its own, descending
into objects, arrays and maps, and states the rule of the field's type
(``memories[0].validAt``: "must be an RFC 3339 timestamp with an offset, …"). It only explains:
what protobuf accepts is unchanged, and when no single field is at fault it returns ``None``.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from lore_runtime.text_rules import SURROGATE_RULE

_INTEGERS = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
_RULES = {
    FieldDescriptor.TYPE_DOUBLE: "must be a number",
    FieldDescriptor.TYPE_FLOAT: "must be a number",
    FieldDescriptor.TYPE_BOOL: "must be true or false",
    FieldDescriptor.TYPE_STRING: "must be a string",
    FieldDescriptor.TYPE_BYTES: "must be a base64 string",
}
_WELL_KNOWN = {
    "google.protobuf.Timestamp": "must be an RFC 3339 timestamp with an offset, e.g. 2023-05-08T13:56:00Z",
    "google.protobuf.Duration": 'must be a duration in seconds, e.g. "1.5s"',
    "google.protobuf.FieldMask": 'must be a comma-separated list of field names, e.g. "importance,metadata"',
    "google.protobuf.Struct": "must be a JSON object",
    "google.protobuf.ListValue": "must be a JSON array",
    "google.protobuf.Value": "must be a JSON value",
    "google.protobuf.Any": 'must be a JSON object with "@type"',
    "google.protobuf.Empty": "must be an empty JSON object",
}
_WRAPPERS = {f"google.protobuf.{kind}Value" for kind in ("Double", "Float", "Int64", "UInt64", "Int32", "UInt32")} | {
    "google.protobuf.BoolValue",
    "google.protobuf.StringValue",
    "google.protobuf.BytesValue",
}


def problem(document: dict[str, Any], descriptor: Descriptor, path: str = "") -> tuple[str, str] | None:
    """The first field of ``document`` (JSON of ``descriptor``) that does not parse, and its rule."""
    message_class = message_factory.GetMessageClass(descriptor)
    by_name = {field.json_name: field for field in descriptor.fields} | {f.name: f for f in descriptor.fields}
    for key, value in document.items():
        where = f"{path}.{key}" if path else key
        field = by_name.get(key)
        if field is None:
            return where, "unknown field; the fields here are " + ", ".join(f.json_name for f in descriptor.fields)
        if not _parses(message_class, field, value):
            return _field_problem(message_class, field, value, where)
    return None


def _field_problem(
    message_class: type[Message], field: FieldDescriptor, value: Any, path: str
) -> tuple[str, str] | None:
    if _is_map(field):
        if not isinstance(value, dict):
            return path, "must be a JSON object"
        entry = field.message_type.fields_by_name["value"]
        for key, item in value.items():
            if not _parses(message_class, field, {key: item}):
                return _single_problem(entry, item, f"{path}.{key}")
        return None
    if field.is_repeated:
        if not isinstance(value, list):
            return path, "must be a JSON array"
        for index, item in enumerate(value):
            if not _parses(message_class, field, [item]):
                return _single_problem(field, item, f"{path}[{index}]")
        return None
    return _single_problem(field, value, path)


def _single_problem(field: FieldDescriptor, value: Any, path: str) -> tuple[str, str] | None:
    """One value of ``field`` (not a list or map of them) that does not parse."""
    message_type = field.message_type
    if message_type is not None and message_type.full_name not in _WELL_KNOWN.keys() | _WRAPPERS:
        if not isinstance(value, dict):
            return path, "must be a JSON object"
        return problem(value, message_type, path)
    return path, _rule(field, value)


def _rule(field: FieldDescriptor, value: Any) -> str:
    message_type = field.message_type
    if message_type is not None:
        if message_type.full_name in _WRAPPERS:
            return _rule(message_type.fields_by_name["value"], value)
        return _WELL_KNOWN[message_type.full_name]
    if field.enum_type is not None:
        return "must be one of " + ", ".join(value.name for value in field.enum_type.values)
    if field.type in _INTEGERS:
        if isinstance(value, int) and not isinstance(value, bool):
            low, high = _INTEGERS[field.type]
            return f"must be an integer from {low} to {high}"
        return "must be an integer"
    if field.type == FieldDescriptor.TYPE_STRING and isinstance(value, str):
        return SURROGATE_RULE
    return _RULES.get(field.type, "is not valid")


def _parses(message_class: type[Message], field: FieldDescriptor, value: Any) -> bool:
    try:
        json_format.ParseDict({field.json_name: value}, message_class())
    except json_format.ParseError:
        return False
    return True


def _is_map(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry
