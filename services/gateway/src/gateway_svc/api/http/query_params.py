"""GET query strings → the proto3 JSON of a request message.

Dotted names address nested fields (``scope.userId=u-1``); a repeated field takes every
value given (``memoryTypes=A&memoryTypes=B``). As a convenience, ``userId``/``agentId``/
``teamId`` address ``scope.*`` when the message has a ``scope`` field and no field of that
name, so ``GET /v1/memories?userId=u-1`` reads naturally. Unknown names are refused by the
JSON parser like unknown body fields (400 naming the field).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from lore_runtime import errors

_SCOPE_SHORTHANDS = {"userId", "agentId", "teamId"}
_NUMBERS = {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_UINT32}
_FLOATS = {FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT}


def _field(descriptor: Descriptor, json_name: str) -> FieldDescriptor | None:
    return next((field for field in descriptor.fields if field.json_name == json_name), None)


def _typed(field: FieldDescriptor, value: str, path: str) -> Any:
    try:
        if field.type in _NUMBERS:
            return int(value)
        if field.type in _FLOATS:
            return float(value)
    except ValueError:
        rule = "must be an integer" if field.type in _NUMBERS else "must be a number"
        raise errors.InvalidArgument(path, rule) from None
    if field.type == FieldDescriptor.TYPE_BOOL:
        if value not in ("true", "false"):
            raise errors.InvalidArgument(path, "must be true or false")
        return value == "true"
    return value


def query_to_json(items: Iterable[tuple[str, str]], descriptor: Descriptor) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for name, value in items:
        path = name.split(".")
        if len(path) == 1 and name in _SCOPE_SHORTHANDS and _field(descriptor, name) is None:
            if _field(descriptor, "scope") is not None:
                path = ["scope", name]
        target, current = document, descriptor
        for part in path[:-1]:
            field = _field(current, part) if current is not None else None
            current = field.message_type if field is not None else None
            target = target.setdefault(part, {})
            if not isinstance(target, dict):
                raise errors.InvalidArgument(name, "is not a message field")
        leaf = _field(current, path[-1]) if current is not None else None
        if leaf is None:
            target[path[-1]] = value  # let the JSON parser name the unknown field
        elif leaf.is_repeated:
            target.setdefault(path[-1], []).append(_typed(leaf, value, name))
        else:
            target[path[-1]] = _typed(leaf, value, name)
    return document
