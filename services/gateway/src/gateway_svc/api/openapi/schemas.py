"""JSON Schema of proto messages in their proto3 JSON mapping, derived from the message descriptors:
each message and enum a named schema under ``components/schemas``, and the rules every string states
(``lore_runtime.text_rules``: no NUL; an id's characters and length; a scope's id, a speaker).

The document's operations are put together in ``document.py``; what the services enforce beyond a
message's shape is stated by ``rules.py``."""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterator
from functools import cache
from typing import Any

from google.protobuf import descriptor_pool
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from lore_runtime.text_rules import MAX_ID_CHARS, is_id_name
from lore_runtime.timestamps import CALENDAR_RANGE, EARLIEST, LATEST, OBSERVED_RANGE

_FLOAT_MAX = 3.4028234663852886e38
_SCALARS = {
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number", "format": "float", "minimum": -_FLOAT_MAX, "maximum": _FLOAT_MAX},
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_INT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_UINT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
}


def _calendar_pattern() -> str:
    """RFC 3339 as protobuf reads it (``T`` and ``Z`` upper case, at most nine fraction digits),
    its year within the calendar range of ``lore_runtime.timestamps`` (whole centuries: 1900 to
    2999); on the range's first and last day an offset that would carry the moment outside it is
    left out."""
    if (EARLIEST.month, EARLIEST.day, EARLIEST.year % 100) != (1, 1, 0) or (LATEST.month, LATEST.day) != (12, 31):
        raise ValueError("the calendar range no longer spans whole centuries: restate its pattern")
    if LATEST.year % 100 != 99:
        raise ValueError("the calendar range no longer spans whole centuries: restate its pattern")
    centuries = "|".join(str(century) for century in range(EARLIEST.year // 100, LATEST.year // 100 + 1))
    first, last = EARLIEST.strftime("%Y-%m-%d"), LATEST.strftime("%Y-%m-%d")
    return (
        f"^(?!{first}T[^Z]*\\+)(?!{last}T.*[0-9]-)(?:{centuries})[0-9]{{2}}-[0-9]{{2}}-[0-9]{{2}}"
        "T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})$"
    )


CALENDAR_PATTERN = _calendar_pattern()
# A moment something was seen (``lore_runtime.timestamps``' observed range) also lies no later than
# the caller's now plus the clock skew, which JSON Schema cannot compare with: its description says so.
OBSERVED_FIELDS = frozenset(("observed_at", "recorded_at"))
_TIMESTAMP = {"type": "string", "format": "date-time", "pattern": CALENDAR_PATTERN, "description": CALENDAR_RANGE}
# A Struct (a tool's result) is any JSON object: its keys state the every-string rule; that no string
# or key deeper in it holds a NUL (``text_rules``) is said in words, since a schema spelling it out
# refers to itself, which generators (openapi-python-client, TypeScript's types) cannot follow.
_STRUCT = {
    "type": "object",
    "propertyNames": {"pattern": "^[^\\u0000]*$"},
    "description": "A JSON object; no string or key in it, however deep, holds a NUL",
}
WELL_KNOWN = {
    "google.protobuf.Timestamp": _TIMESTAMP,
    "google.protobuf.Duration": {"type": "string"},
    "google.protobuf.FieldMask": {"type": "string"},
    "google.protobuf.Struct": _STRUCT,
    "google.protobuf.Value": {"description": "Any JSON value; no string or key in it holds a NUL"},
}


# Proto messages and enums stand under ``components/schemas``, one named schema each, referenced with
# ``$ref`` (generators name their models after them). While routes are declared a reference names the
# message's full proto name; ``with_named_schemas`` then gives each its short name and adds the schemas.
COMPONENTS = "#/components/schemas/"


# Named schemas of bodies that are not proto messages (the health routes', whoami's), by name.
NAMED: dict[str, dict[str, Any]] = {}


def named(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A ``$ref`` to ``schema``, which ``with_named_schemas`` adds under ``components`` as ``name``."""
    if NAMED.setdefault(name, schema) is not schema:
        raise ValueError(f"two schemas are named {name}")
    return {"$ref": COMPONENTS + name}


def schema_of(descriptor: Descriptor) -> dict[str, Any]:
    """The schema of a message: a ``$ref`` to its named schema (``with_named_schemas``), or the
    inline schema of a well-known type."""
    if descriptor.full_name in WELL_KNOWN:
        return dict(WELL_KNOWN[descriptor.full_name])
    return {"$ref": COMPONENTS + descriptor.full_name}


def _message_schema(descriptor: Descriptor) -> dict[str, Any]:
    properties = {field.json_name: field_schema(field) for field in descriptor.fields}
    # The parser refuses fields the message does not have (a 400 naming the field).
    return {
        "type": "object",
        "title": descriptor.name,
        "description": f"The proto message `{descriptor.full_name}` in its JSON mapping",
        "properties": properties,
        "additionalProperties": False,
    }


def field_schema(field: FieldDescriptor) -> dict[str, Any]:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        value = _single(field.message_type.fields_by_name["value"])
        keys = {"pattern": TEXT_PATTERN}  # a map's keys are strings too
        limits = MAP_LIMITS.get(field.containing_type.file.package, {}).get(field.name)
        if limits is not None:
            entries, key_chars, value_chars = limits
            keys |= {"minLength": 1, "maxLength": key_chars}
            value = value | {"maxLength": value_chars}
            return {"type": "object", "maxProperties": entries, "additionalProperties": value, "propertyNames": keys}
        return {"type": "object", "additionalProperties": value, "propertyNames": keys}
    single = _single(field)
    if field.is_repeated:
        unspecified = _unspecified(field)
        if unspecified is not None:  # a list names real values: its enum's zero value is refused
            single = {"allOf": [single], "not": {"const": unspecified}}
        return {"type": "array", "items": single}
    return single


def _unspecified(field: FieldDescriptor) -> str | None:
    """The name of the zero value of ``field``'s enum when it is an ``…_UNSPECIFIED`` one."""
    if field.enum_type is None:
        return None
    zero = field.enum_type.values_by_number.get(0)
    return zero.name if zero is not None and zero.name.endswith("_UNSPECIFIED") else None


def _single(field: FieldDescriptor) -> dict[str, Any]:
    if field.enum_type is not None:
        return {"$ref": COMPONENTS + field.enum_type.full_name}
    if field.message_type is not None and field.message_type.full_name == "google.protobuf.Timestamp":
        if field.name in OBSERVED_FIELDS:
            return dict(_TIMESTAMP, description=OBSERVED_RANGE)
        return dict(_TIMESTAMP)
    if field.message_type is not None:
        return schema_of(field.message_type)
    if field.type == FieldDescriptor.TYPE_STRING:
        schema = string_schema(id_rule=is_id_name(field.name))
        if field.name in _SCOPED.get(field.containing_type.full_name, ()):
            schema |= SCOPE_ID
        if field.name == "speaker":
            schema |= SPEAKER
        return schema
    return dict(_SCALARS.get(field.type, {}))


# lore_runtime.text_rules, stated on every string: no NUL (a surrogate cannot be written in a
# schema-valid JSON string's UTF-8 and is refused too); an id (``text_rules.is_id_name``) holds no
# character of the categories text_rules refuses in ids, and at most MAX_ID_CHARS characters.
# The patterns are ECMA-262 in Unicode mode (the ``u`` flag JSON Schema 2020-12 asks for) and Python
# ``re`` alike: ``\uXXXX`` escapes, and the few refused characters above U+FFFF written as themselves
# (ECMA's ``\u{...}`` is not Python's).
# Surrogates (Cs) are left out of the class: no regex engine of JSON Schema's takes them, and the
# every-string rule refuses an unpaired one in any string.
_ID_REFUSED_CATEGORIES = frozenset(("Cc", "Cf", "Zl", "Zp"))  # text_rules._REFUSED_IN_IDS but Cs
TEXT_PATTERN = "^[^\\u0000]*$"


# A map's limits by the package of its message and its field: (entries, key characters, value
# characters). The memory service's (memory_svc.domain.limits) and the agent's (a session's and a
# turn's metadata, agent_svc.domain.transcript).
MAP_LIMITS: dict[str, dict[str, tuple[int, int, int]]] = {
    "lore.memory.v1": {"metadata": (32, 64, 1_024)},
    "lore.agent.v1": {"metadata": (32, 64, 512)},
    "lore.common.v1": {"metadata": (32, 64, 512)},
}
# A scope's ids are held to a tighter length by every service that keys on them (memory_svc's
# limits.MAX_SCOPE_ID_CHARS, observations_svc's keys.MAX_SCOPE_ID_CHARS, the agent's).
MAX_SCOPE_ID_CHARS = 128
MAX_SPEAKER_CHARS = 100
_SCOPE_IDS = frozenset(("user_id", "agent_id", "team_id"))
# The fields that hold a scope's ids: a Scope's, and a belief's filters by user and team (held to the
# scope id rule by the observation service, keys.validate_scope_id; their agent id has its own rule).
_SCOPED = {
    "lore.common.v1.Scope": _SCOPE_IDS,
    "lore.observations.v1.QueryObservationsRequest": frozenset(("user_id", "team_id")),
    "lore.observations.v1.SearchObservationsRequest": frozenset(("user_id", "team_id")),
}


def _class_member(code: int) -> str:
    return f"\\u{code:04x}" if code <= 0xFFFF else chr(code)


@cache
def id_pattern() -> str:
    """A pattern matching exactly the strings ``text_rules.id_problem`` finds no character problem in
    (this Python's Unicode database, the one the services check with)."""
    ranges: list[list[int]] = []
    for code in range(sys.maxunicode + 1):
        if unicodedata.category(chr(code)) in _ID_REFUSED_CATEGORIES:
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    members = "".join(
        _class_member(low) if low == high else f"{_class_member(low)}-{_class_member(high)}" for low, high in ranges
    )
    return f"^[^{members}]*$"


# A scope's id: the id rule, at most MAX_SCOPE_ID_CHARS, no surrounding spaces (the services that
# key on a scope refuse them). A message's speaker: one line of at most MAX_SPEAKER_CHARS (the memory
# service's and the agent's rule).
SCOPE_ID = {"maxLength": MAX_SCOPE_ID_CHARS, "pattern": "(?!\\s)(?![^\\u0000]*\\s$)" + id_pattern()}
SPEAKER = {"maxLength": MAX_SPEAKER_CHARS, "pattern": id_pattern()}


def string_schema(*, id_rule: bool) -> dict[str, Any]:
    """The schema of a string field: an id's rule or the every-string rule (``text_rules``)."""
    if id_rule:
        return {"type": "string", "maxLength": MAX_ID_CHARS, "pattern": id_pattern()}
    return {"type": "string", "pattern": TEXT_PATTERN}


def _enum_schema(descriptor: EnumDescriptor) -> dict[str, Any]:
    return {
        "type": "string",
        "title": descriptor.name,
        "description": f"The proto enum `{descriptor.full_name}`",
        "enum": [value.name for value in descriptor.values],
    }


def _short_name(full_name: str, package: str) -> str:
    """``lore.memory.v1.Memory.Provenance`` -> ``MemoryProvenance`` (the names it is nested in, joined)."""
    return full_name.removeprefix(package + ".").replace(".", "")


def _prefixed_name(full_name: str, package: str) -> str:
    """The name of a message whose short name clashes: its package's parts (but ``lore``) before it,
    ``lore.memory.v1.Scope`` -> ``MemoryV1Scope``."""
    parts = [part for part in package.split(".") if part != "lore"]
    return "".join(part[:1].upper() + part[1:] for part in parts) + _short_name(full_name, package)


def schema_names(full_names: set[str], reserved: frozenset[str] = frozenset({"Error"})) -> dict[str, str]:
    """Each proto full name's schema name: its short name, or, when two of ``full_names`` (or one and
    a ``reserved`` name) share it, each of those prefixed with its package. Stable: a name depends
    only on the names that clash with it."""
    pool = descriptor_pool.Default()
    packages = {full_name: _package_of(pool, full_name) for full_name in full_names}
    by_short: dict[str, list[str]] = {}
    for full_name, package in packages.items():
        by_short.setdefault(_short_name(full_name, package), []).append(full_name)
    names: dict[str, str] = {}
    for short, owners in by_short.items():
        clash = len(owners) > 1 or short in reserved
        for full_name in owners:
            names[full_name] = _prefixed_name(full_name, packages[full_name]) if clash else short
    if len(set(names.values())) != len(names) or reserved & set(names.values()):
        raise ValueError(f"schema names are not unique: {sorted(names.items())}")
    return names


def _package_of(pool: descriptor_pool.DescriptorPool, full_name: str) -> str:
    return _descriptor(pool, full_name).file.package


def _descriptor(pool: descriptor_pool.DescriptorPool, full_name: str) -> Descriptor | EnumDescriptor:
    try:
        return pool.FindMessageTypeByName(full_name)
    except KeyError:
        return pool.FindEnumTypeByName(full_name)


def references(value: Any) -> Iterator[dict[str, Any]]:
    """Every ``{"$ref": ...}`` object in ``value``, however deep."""
    if isinstance(value, dict):
        if isinstance(value.get("$ref"), str):
            yield value
        for member in value.values():
            yield from references(member)
    elif isinstance(value, list):
        for member in value:
            yield from references(member)


def with_named_schemas(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with every proto message and enum its operations reference (and those these
    reference, transitively) as a named schema under ``components/schemas``, each ``$ref`` naming it
    (``schema_names``)."""
    pool = descriptor_pool.Default()
    pending = [ref["$ref"].removeprefix(COMPONENTS) for ref in references(document.get("paths", {}))]
    schemas: dict[str, dict[str, Any]] = {}
    while pending:
        full_name = pending.pop()
        if full_name in schemas or full_name in NAMED or full_name == "Error":  # not a proto's
            continue
        descriptor = _descriptor(pool, full_name)
        if isinstance(descriptor, EnumDescriptor):
            schemas[full_name] = _enum_schema(descriptor)
            continue
        schemas[full_name] = _message_schema(descriptor)
        pending.extend(ref["$ref"].removeprefix(COMPONENTS) for ref in references(schemas[full_name]))
    names = schema_names(set(schemas), reserved=frozenset({"Error", *NAMED}))
    components = document.setdefault("components", {}).setdefault("schemas", {})
    components.update({name: dict(schema, title=name) for name, schema in sorted(NAMED.items())})
    for full_name, schema in schemas.items():
        schema["title"] = names[full_name]
    for ref in references([document.get("paths", {}), list(schemas.values())]):
        target = ref["$ref"].removeprefix(COMPONENTS)
        if target in names:
            ref["$ref"] = COMPONENTS + names[target]
    components.update({names[full_name]: schema for full_name, schema in sorted(schemas.items())})
    return document


def resolved(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``schema``, or the named schema its ``$ref`` points to."""
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].removeprefix(COMPONENTS)]
    return schema
