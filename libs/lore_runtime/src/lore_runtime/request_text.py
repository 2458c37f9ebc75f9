"""``text_rules`` applied to every string of a request message, before any servicer reads it.

Every service's error interceptor runs ``check_message`` on each request: a string field holding a
NUL or longer than ``MAX_TEXT_CHARS``, an id field (``text_rules.is_id_name``) holding a control,
format or bidirectional character or longer than ``MAX_ID_CHARS`` is ``InvalidArgument`` naming the
field by its proto path (``memories[0].scope.user_id``, map entries as ``metadata[key]``, a Struct's
members as ``result[key]``). A direct gRPC caller is held to the rule the gateway's clients are, on
every RPC, and the fields' own, tighter limits (in each service's ``api/*convert*.py``) still apply.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from lore_runtime.errors import InvalidArgument
from lore_runtime.text_rules import id_problem, is_id_name, text_problem

_STRUCT = "google.protobuf.Struct"
_VALUE = "google.protobuf.Value"
_LIST_VALUE = "google.protobuf.ListValue"
_STRING = FieldDescriptor.TYPE_STRING
_MESSAGE = FieldDescriptor.TYPE_MESSAGE


def check_message(message: Message, path: str = "") -> None:
    """Raise ``InvalidArgument`` for the first string of ``message`` that breaks its rule."""
    found = message_problem(message, path)
    if found is not None:
        raise InvalidArgument(*found)


def message_problem(message: Message, path: str = "") -> tuple[str, str] | None:
    """(the proto path of the first string of ``message`` that breaks its rule, the rule), or ``None``."""
    name = message.DESCRIPTOR.full_name
    if name == _STRUCT:
        return _struct_problem(message, path)
    if name == _VALUE:
        return _value_problem(message, path)
    if name == _LIST_VALUE:
        return _list_problem(message, path)
    if not _has_strings(message.DESCRIPTOR):
        return None
    for field, value in message.ListFields():
        where = f"{path}.{field.name}" if path else field.name
        found = _field_problem(field, value, where)
        if found is not None:
            return found
    return None


def _field_problem(field: FieldDescriptor, value: Any, where: str) -> tuple[str, str] | None:
    if _is_map(field):
        key_field, value_field = field.message_type.fields
        for key, item in value.items():
            if key_field.type == _STRING:
                found = text_problem(key)
                if found is not None:
                    return where, f"a key {found}"
            found = _single_problem(value_field, item, f"{where}[{key}]")
            if found is not None:
                return found
        return None
    if field.is_repeated:
        for index, item in enumerate(value):
            found = _single_problem(field, item, f"{where}[{index}]")
            if found is not None:
                return found
        return None
    return _single_problem(field, value, where)


def _single_problem(field: FieldDescriptor, value: Any, where: str) -> tuple[str, str] | None:
    if field.type == _STRING:
        found = id_problem(value) if is_id_name(field.name) else text_problem(value)
        return None if found is None else (where, found)
    if field.type == _MESSAGE:
        return message_problem(value, where)
    return None


def _struct_problem(struct: Message, path: str) -> tuple[str, str] | None:
    for key, value in struct.fields.items():
        found = text_problem(key)
        if found is not None:
            return path, f"a key {found}"
        found = _value_problem(value, f"{path}[{key}]")
        if found is not None:
            return found
    return None


def _list_problem(values: Message, path: str) -> tuple[str, str] | None:
    for index, value in enumerate(values.values):
        found = _value_problem(value, f"{path}[{index}]")
        if found is not None:
            return found
    return None


def _value_problem(value: Message, path: str) -> tuple[str, str] | None:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        found = text_problem(value.string_value)
        return None if found is None else (path, found)
    if kind == "struct_value":
        return _struct_problem(value.struct_value, path)
    if kind == "list_value":
        return _list_problem(value.list_value, path)
    return None


def _is_map(field: FieldDescriptor) -> bool:
    return field.type == _MESSAGE and field.message_type.GetOptions().map_entry


@cache
def _has_strings(descriptor: Descriptor) -> bool:
    """Whether a message of this type can hold a string at any depth (else it is not walked)."""
    return _reaches_strings(descriptor, frozenset())


def _reaches_strings(descriptor: Descriptor, seen: frozenset[str]) -> bool:
    if descriptor.full_name in (_STRUCT, _VALUE, _LIST_VALUE):
        return True
    seen = seen | {descriptor.full_name}
    for field in descriptor.fields:
        if field.type == _STRING:
            return True
        if field.type == _MESSAGE and field.message_type.full_name not in seen:
            if _reaches_strings(field.message_type, seen):
                return True
    return False
