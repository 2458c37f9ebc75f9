"""OpenAPI for bodies that are proto3 JSON: the schema is derived from the message descriptor."""

from __future__ import annotations

import sys
import unicodedata
from collections import Counter
from collections.abc import Iterator
from functools import cache
from typing import Any

from google.protobuf import descriptor_pool, json_format
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message
from lore_runtime.page_tokens import MAX_TOKEN_CHARS
from lore_runtime.text_rules import MAX_ID_CHARS, OBSERVABLE_ID, is_id_name
from lore_runtime.timestamps import CALENDAR_RANGE, EARLIEST, LATEST, OBSERVED_RANGE

from gateway_svc.api.json.proto_json import to_json
from gateway_svc.api.openapi.openapi_examples import PATH_PARAMETERS, RESPONSES

# The largest finite float32: a larger number does not parse into a ``float`` field.
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
_WELL_KNOWN = {
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
    if descriptor.full_name in _WELL_KNOWN:
        return dict(_WELL_KNOWN[descriptor.full_name])
    return {"$ref": COMPONENTS + descriptor.full_name}


def _message_schema(descriptor: Descriptor) -> dict[str, Any]:
    properties = {field.json_name: _field_schema(field) for field in descriptor.fields}
    # The parser refuses fields the message does not have (a 400 naming the field).
    return {
        "type": "object",
        "title": descriptor.name,
        "description": f"The proto message `{descriptor.full_name}` in its JSON mapping",
        "properties": properties,
        "additionalProperties": False,
    }


def _field_schema(field: FieldDescriptor) -> dict[str, Any]:
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


def _references(value: Any) -> Iterator[dict[str, Any]]:
    """Every ``{"$ref": ...}`` object in ``value``, however deep."""
    if isinstance(value, dict):
        if isinstance(value.get("$ref"), str):
            yield value
        for member in value.values():
            yield from _references(member)
    elif isinstance(value, list):
        for member in value:
            yield from _references(member)


def with_named_schemas(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with every proto message and enum its operations reference (and those these
    reference, transitively) as a named schema under ``components/schemas``, each ``$ref`` naming it
    (``schema_names``)."""
    pool = descriptor_pool.Default()
    pending = [ref["$ref"].removeprefix(COMPONENTS) for ref in _references(document.get("paths", {}))]
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
        pending.extend(ref["$ref"].removeprefix(COMPONENTS) for ref in _references(schemas[full_name]))
    names = schema_names(set(schemas), reserved=frozenset({"Error", *NAMED}))
    components = document.setdefault("components", {}).setdefault("schemas", {})
    components.update({name: dict(schema, title=name) for name, schema in sorted(NAMED.items())})
    for full_name, schema in schemas.items():
        schema["title"] = names[full_name]
    for ref in _references([document.get("paths", {}), list(schemas.values())]):
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


def json_body(
    message_class: type[Message], example: dict[str, Any], response: type[Message] | None = None
) -> dict[str, Any]:
    """A request body of ``message_class`` with its example, and the 200 answer when ``response`` is given."""
    body = {
        "requestBody": {
            "required": True,
            "description": NULL_FIELDS,
            "content": {"application/json": {"schema": schema_of(message_class.DESCRIPTOR), "example": example}},
        }
    }
    return body | (json_response(response) if response is not None else {})


# What every request body takes beyond its schema (proto_json.lenient_problem): a field given ``null``
# is read as left out, as proto3's JSON mapping says. Stated in words: ``null`` in the schema would
# make every generated model's field nullable, answers' included, which never hold one.
NULL_FIELDS = (
    "A field given `null` is read as left out (its default), as proto3's JSON mapping reads it; "
    "an item of a list or a map's value (a `Struct`'s aside) may not be `null`."
)


def json_response(message_class: type[Message]) -> dict[str, Any]:
    """The 200 answer of an operation: the response message's schema and its example (openapi_examples.py),
    printed as the gateway prints answers, every field included."""
    example = to_json(json_format.ParseDict(RESPONSES[message_class.DESCRIPTOR.full_name], message_class()))
    content = {"application/json": {"schema": schema_of(message_class.DESCRIPTOR), "example": example}}
    return {"responses": {"200": {"description": f"A {message_class.DESCRIPTOR.name}", "content": content}}}


def query_parameters(
    message_class: type[Message], response: type[Message], examples: dict[str, Any] | None = None
) -> dict[str, Any]:
    """OpenAPI query parameters of a GET whose request message is read from the query string, with an
    example value for those named in ``examples``, and its 200 answer."""
    examples = examples or {}
    parameters = []
    for field in message_class.DESCRIPTOR.fields:
        if field.message_type is not None and field.message_type.full_name not in _WELL_KNOWN:
            for nested in field.message_type.fields:
                if nested.message_type is None:
                    parameters.append(_parameter(f"{field.json_name}.{nested.json_name}", nested))
            continue
        parameters.append(_parameter(field.json_name, field))
    for parameter in parameters:
        if parameter["name"] in examples:
            parameter["example"] = examples[parameter["name"]]
    unknown = set(examples) - {parameter["name"] for parameter in parameters}
    if unknown:
        raise ValueError(f"examples for parameters {message_class.DESCRIPTOR.name} does not have: {sorted(unknown)}")
    return {"parameters": parameters} | json_response(response)


def _parameter(name: str, field: FieldDescriptor) -> dict[str, Any]:
    schema = _field_schema(field)
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": schema,
        **({"style": "form", "explode": True} if field.is_repeated else {}),
    }


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "Error",
    "required": ["error"],
    "additionalProperties": False,
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "status", "message", "details", "requestId"],
            "additionalProperties": False,
            "properties": {
                "code": {"type": "integer", "description": "the HTTP status"},
                "status": {"type": "string", "description": "the gRPC status name", "example": "NOT_FOUND"},
                "message": {"type": "string"},
                "details": {"type": "array", "items": {"type": "object"}, "description": "google.rpc details"},
                "requestId": {"type": "string"},
            },
        }
    },
}


def with_error_responses(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with the gateway's one error body (STYLE.md) as every operation's ``default``
    response, in place of FastAPI's 422 ``HTTPValidationError``, which the gateway never sends
    (a request that fails validation is a 400 in the error shape)."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas["Error"] = ERROR_SCHEMA
    for item in document.get("paths", {}).values():
        for operation in item.values():
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            responses["default"] = {
                "description": "An error: code is the HTTP status, status the gRPC status name",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            }
    return document


def with_path_examples(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with an example id for every path parameter (openapi_examples.PATH_PARAMETERS)."""
    for item in document.get("paths", {}).values():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path":
                    parameter["example"] = PATH_PARAMETERS[parameter["name"]]
    return document


# Rules the services enforce that a message descriptor cannot say, stated in the document so a client
# can keep to them. A listing's page size: (the largest one accepted, None when a larger one is served
# as the largest, that largest).
PAGE_SIZES: dict[str, tuple[int | None, int]] = {
    "/v1/memories": (500, 500),
    "/v1/sessions": (500, 500),
    "/v1/sessions/{session_id}/turns": (500, 500),
    "/v1/admin/jobs:list": (500, 500),
    "/v1/observations": (None, 200),
    "/v1/episodes": (None, 100),
    "/v1/open-threads": (None, 100),
}
# Path parameters that are UUIDs (anything else is a 400 naming the parameter).
UUID_PATH_PARAMETERS = frozenset({"session_id", "hypothesis_id", "unknown_id"})
# Path parameters held to a pattern (anything else is a 400 naming the parameter).
PATH_PATTERNS = {
    "thread_index": "^0*(?:[0-9]{1,3}|1000)$",  # 0 to 1,000 (routes/memories.MAX_THREAD_INDEX)
    # A profile's user: the id rule, and more than spaces (the assembler trims it, then requires it).
    "user_id": "(?=[^\\u0000]*\\S)" + id_pattern(),
}
# What the services refuse in a request body beyond its message's shape, stated in the document so a
# client can keep to it: operation id -> {field: JSON Schema keywords}. A field is written with its
# JSON names, dotted, ``[]`` for an array's items (``memories[].memoryType``); ``"required": True``
# puts it in its object's ``required``. Each rule is stated in the named schema holding the field,
# which must then belong to that operation's request alone (``with_enforced_rules`` refuses to state
# it for another operation's body or an answer too). tests/integration/gateway/test_openapi_rules.py
# breaks each rule on a real stack and asks for a 400 naming the field.
# Holds a character that is not a space (the services trim before they check), and no NUL (the
# every-string rule, which this pattern stands in for).
NOT_BLANK = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"
# A page token is opaque, and only one the listing itself answered (``nextPageToken``) is taken:
# JSON Schema cannot say which were issued, so the document states its alphabet and length, and
# its description the rest (lore_runtime.page_tokens).
PAGE_TOKEN = {
    "maxLength": MAX_TOKEN_CHARS,
    "pattern": "^$|^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$",
    "description": "Empty for the first page; else the `nextPageToken` the same listing (same filters) "
    "answered. Any other token is refused (400).",
}
# The agent's job kinds and states (agent_svc.domain.jobs), stated as patterns (a generated client
# keeps them strings, as the CLI and the examples pass them); empty: every one.
JOB_KINDS = ("reflect", "episode", "erase")
JOB_STATES = ("queued", "running", "retrying", "dead")
# An agent or subject id an observation may name: empty, or ``text_rules.OBSERVABLE_ID``.
OBSERVABLE = {"maxLength": 128, "pattern": f"^$|{OBSERVABLE_ID.pattern}"}
# Path -> its query parameters' rules the services enforce (budgets, unit intervals, observable ids).
QUERY_RULES: dict[str, dict[str, dict[str, Any]]] = {
    "/v1/memory/prime": {"budgetTokens": {"minimum": 0, "maximum": 4_000}},
    "/v1/episodes": {"minSalience": {"minimum": 0}},
    "/v1/users/{user_id}/profile": {"budgetTokens": {"minimum": 0, "maximum": 4_000}, "agentId": OBSERVABLE},
    "/v1/observations": {
        "minConfidence": {"minimum": 0, "maximum": 1},
        "agentId": OBSERVABLE,
        "subjectId": OBSERVABLE,
        # observations_svc's limits: MAX_TAGS of MAX_TAG_CHARS each; a canonical key of 512 characters.
        "tags": {"maxItems": 20, "items": {"type": "string", "maxLength": 64, "pattern": TEXT_PATTERN}},
        "canonicalKey": {"maxLength": 512},
    },
    "/v1/admin/jobs:list": {
        "kind": {"pattern": f"^(?:{'|'.join(JOB_KINDS)})?$"},
        "state": {"pattern": f"^(?:{'|'.join(JOB_STATES)})?$"},
    },
}


def _required_text(most: int) -> dict[str, Any]:
    """A text the service trims and then requires, of at most ``most`` characters."""
    return {"required": True, "minLength": 1, "maxLength": most, "pattern": NOT_BLANK}


# UpdateMemory's mask names at least one updatable field (memory_svc's manage_memories.UPDATABLE).
_UPDATABLE = "(?:content|importance|status|metadata|entities|validAt)"
_SCOPE_NAMES = ("userId", "agentId", "teamId")
_CONTENT = {"minLength": 1, "maxLength": 16_000, "pattern": NOT_BLANK}  # memory_svc's limits
_ENTITIES = {"maxItems": 64, "items": {"type": "string", "maxLength": 200, "pattern": TEXT_PATTERN}}


def _when_masked(name: str, memory: dict[str, Any]) -> dict[str, Any]:
    """UpdateMemory's ``memory`` held to ``memory`` when ``updateMask`` names ``name``."""
    return {
        "if": {"required": ["updateMask"], "properties": {"updateMask": {"pattern": f"(?:^|,){name}(?:,|$)"}}},
        "then": {"required": ["memory"], "properties": {"memory": memory}},
    }


# What a query parameter must be that JSON Schema cannot relate to another parameter, in words.
QUERY_WORDS: dict[str, dict[str, str]] = {
    "/v1/observations": {"subjectId": "Left out (or empty) when `subjectType` is SUBJECT_TYPE_GLOBAL"},
}

BODY_RULES: dict[str, dict[str, dict[str, Any]]] = {
    "memories.remember": {
        "memories": {"required": True, "minItems": 1, "maxItems": 100},
        "memories[].content": {"required": True, **_CONTENT},
        "memories[].entities": _ENTITIES,
        "memories[].memoryType": {"required": True, "not": {"const": "MEMORY_TYPE_UNSPECIFIED"}},
        "memories[].importance": {"minimum": 0, "maximum": 1},
        "memories[].metadata": {"maxProperties": 32},
        "memories[].idempotencyKey": {"maxLength": 256},
    },
    "memories.search": {
        "query": {"required": True, "minLength": 1, "maxLength": 4_000, "pattern": NOT_BLANK},
        "validBefore": {"description": "Later than `validAfter` when both are given"},
        "k": {"minimum": 0, "maximum": 100},
        "minSalience": {"minimum": 0},
    },
    "memories.forgetAbout": {
        "scope.agentId": OBSERVABLE,
        "about": {
            "required": True,
            "minLength": 1,
            "maxLength": 500,
            "pattern": NOT_BLANK,
            "description": "What to forget: at least one word that is not only a pronoun or a stop word",
        },
        "scope": {"required": True},
        "scope.userId": {"required": True, "minLength": 1},
    },
    "observations.searchObservations": {
        "query": {"required": True, "minLength": 1, "maxLength": 2_000, "pattern": NOT_BLANK},
        "k": {"minimum": 0, "maximum": 100},
        "minConfidence": {"minimum": 0, "maximum": 1},
        "agentId": OBSERVABLE,
    },
    "observations.observe": {
        "agentId": OBSERVABLE,
        "scope.agentId": {
            **OBSERVABLE,
            "description": "The agent whose belief this is, when `agentId` is empty; else left out or `agentId`",
        },
        "candidate": {
            "required": True,
            # A global subject has no id; any other is named by one.
            "if": {"required": ["subjectType"], "properties": {"subjectType": {"const": "SUBJECT_TYPE_GLOBAL"}}},
            "then": {"properties": {"subjectId": {"maxLength": 0}}},
            "else": {"required": ["subjectId"], "properties": {"subjectId": {"minLength": 1}}},
        },
        "candidate.kind": {"required": True, "not": {"const": "OBSERVATION_KIND_UNSPECIFIED"}},
        "candidate.subjectType": {"required": True, "not": {"const": "SUBJECT_TYPE_UNSPECIFIED"}},
        "candidate.subjectId": OBSERVABLE,
        "candidate.slot": {"required": True, "minLength": 1, "maxLength": 64, "pattern": "^[a-z0-9_.-]{1,64}$"},
        "candidate.summary": {"required": True, "minLength": 1, "maxLength": 1_000, "pattern": NOT_BLANK},
        "candidate.detail": {"maxLength": 4_000},
        "candidate.tags": {"maxItems": 20},
        "candidate.tags[]": {"minLength": 1, "maxLength": 64, "pattern": NOT_BLANK},
        "candidate.evidence": {"maxItems": 50},
        "candidate.evidence[].stance": {"required": True, "not": {"const": "EVIDENCE_STANCE_UNSPECIFIED"}},
    },
    "engagement.formHypothesis": {
        "statement": {"required": True, "minLength": 1, "maxLength": 500, "pattern": NOT_BLANK},
    },
    "engagement.addUnknown": {
        "question": _required_text(1_000),
        "whyItMatters": _required_text(1_000),
    },
    "engagement.advanceWeek": {"expectedWeekNumber": {"minimum": 1}},
    "sessions.processTurn": {"turn": {"required": True}},
    "sessions.importTurns": {"turns": {"required": True, "minItems": 1, "maxItems": 500}},
    "context.assembleContext": {
        "message": {"required": True, "minLength": 1, "maxLength": 4_000, "pattern": NOT_BLANK},
        "sessionId": {
            "description": "A session of the agent's (its id, a UUID), or the caller's own conversation id; "
            "with a credential pinned to a user, only a session of that user's"
        },
    },
    "admin.runConsolidation": {"threshold": {"minimum": 0.8, "exclusiveMaximum": 1}},
    "admin.runRevalidation": {"agentId": OBSERVABLE},
    "admin.retryJobs": {"kinds[]": {"pattern": f"^(?:{'|'.join(JOB_KINDS)})$"}},
    "memories.updateMemory": {
        "updateMask": {"required": True, "pattern": f"^{_UPDATABLE}(?:,{_UPDATABLE})*$"},
        # A field the mask names is checked as a new memory's would be; the others are not read.
        ".": {
            "allOf": [
                _when_masked("content", {"required": ["content"], "properties": {"content": _CONTENT}}),
                _when_masked("importance", {"properties": {"importance": {"minimum": 0, "maximum": 1}}}),
                _when_masked(
                    "status",
                    {"required": ["status"], "properties": {"status": {"not": {"const": "MEMORY_STATUS_UNSPECIFIED"}}}},
                ),
                _when_masked("entities", {"properties": {"entities": _ENTITIES}}),
                _when_masked("validAt", {"required": ["validAt"]}),
            ]
        },
    },
    "engagement.addHypothesisEvidence": {"evidence": {"required": True}},
    "engagement.reviseHypothesis": {
        "confidence": {"required": True, "minimum": 0, "maximum": 1},
        "reason": _required_text(1_000),
        "statement": {"maxLength": 500},
    },
    "engagement.promoteHypothesis": {"statement": {"maxLength": 500}, "source": {"maxLength": 200}},
    "engagement.archiveHypothesis": {"note": _required_text(1_000)},
    "engagement.resolveUnknown": {"resolution": _required_text(1_000)},
    "observations.contradictObservation": {
        "evidence": {"required": True},
        "evidence.stance": {"enum": ["EVIDENCE_STANCE_UNSPECIFIED", "EVIDENCE_STANCE_CONTRADICT"]},
        "correction": {"maxLength": 1_000},
    },
    "erasure.forgetSubject": {
        "subject": {
            "required": True,
            "anyOf": [{"required": [name], "properties": {name: {"pattern": NOT_BLANK}}} for name in _SCOPE_NAMES],
        },
    },
}
# Rules of a named schema, stated in it for every operation that sends it (AssembleContext's
# options are ProcessTurn's context options too): schema -> {field: keywords}.
SCHEMA_RULES: dict[str, dict[str, dict[str, Any]]] = {
    # A tool interaction, of a turn or among a context's tool results (the agent's transcript rules;
    # tool_names holds the assembler's tool results to the same name length). What the services
    # answer keeps to it too.
    "ToolInteraction": {
        "toolName": {"required": True, "minLength": 1, "maxLength": 64, "pattern": NOT_BLANK},
        "intent": {"maxLength": 1_000},
        "summary": {"maxLength": 1_000},
        "salientFields": {"maxItems": 16},
        "salientFields[]": {"maxLength": 128},
        "result": {"description": "At most 16 KiB as JSON"},
    },
    # The observation service's evidence (observations_svc's observation_convert and limits).
    "EvidenceInput": {
        "weight": {"exclusiveMinimum": 0, "maximum": 10, "description": "1 when left out"},
        "sourceType": {"required": True, "not": {"const": "SOURCE_TYPE_UNSPECIFIED"}},
        "sourceId": {
            "required": True,
            "minLength": 1,
            "maxLength": 256,
            "pattern": "(?=[^\\u0000]*\\S)" + id_pattern(),
        },
        "excerpt": {"maxLength": 2_000},
    },
    # An evidence line of a hypothesis (observations_svc's engagement rules).
    "HypothesisEvidenceInput": {
        "statement": _required_text(500),
        "stance": {"required": True, "enum": ["EVIDENCE_STANCE_SUPPORT", "EVIDENCE_STANCE_CONTRADICT"]},
        "weight": {"exclusiveMinimum": 0, "maximum": 10, "description": "1 when left out"},
        "source": {
            "maxLength": 200,
            "description": "Required when the statement states a precise figure (a number with its unit, "
            "a percentage, an amount of money): such a line without its source is refused (400).",
        },
    },
    "AssembleOptions": {
        "persona": {"maxLength": 8_000},
        "userProfile": {"maxLength": 4_000},
        "toolResults": {"maxItems": 20},
        "expressedOpinions": {"maxItems": 20},
        "expressedOpinions[]": {"maxLength": 1_000},
        "minScore": {"minimum": 0, "maximum": 1},
        "minObservationConfidence": {"minimum": 0, "maximum": 1},
        "recallK": {"minimum": 0, "maximum": 100, "description": "0: the default, 30"},
        "personaMode": {"pattern": "^[A-Za-z0-9_-]{0,64}$"},
    },
    "SectionBudget": {
        "section": {"required": True, "not": {"const": "SECTION_KIND_UNSPECIFIED"}},
        "tokens": {"minimum": 0, "maximum": 4_000},
    },
}


def with_enforced_rules(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` stating page-size ranges, UUID path ids, the query rules (``QUERY_RULES``), the
    body rules (``BODY_RULES``), and that a body's id, when given, must equal the path's. A rule on a
    body is stated in the named schema holding its field, which must then belong to that operation's
    request only."""
    bodies = Counter(
        operation["requestBody"]["content"]["application/json"]["schema"].get("$ref")
        for item in document.get("paths", {}).values()
        for operation in item.values()
        if "requestBody" in operation
    )
    owners = _schema_owners(document)
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query" and parameter["name"] == "pageSize" and path in PAGE_SIZES:
                    refused_above, largest = PAGE_SIZES[path]
                    parameter["schema"] |= {"minimum": 0} | ({"maximum": refused_above} if refused_above else {})
                    parameter["description"] = f"0 means the default; at most {largest}" + (
                        "" if refused_above else f" (a larger size is served as {largest})"
                    )
                if parameter["in"] == "query" and parameter["name"] == "pageToken":
                    parameter["schema"] |= {k: v for k, v in PAGE_TOKEN.items() if k != "description"}
                    parameter["description"] = PAGE_TOKEN["description"]
                if parameter["in"] == "query" and parameter["name"] in QUERY_RULES.get(path, {}):
                    parameter["schema"] |= QUERY_RULES[path][parameter["name"]]
                if parameter["in"] == "query" and parameter["name"] in QUERY_WORDS.get(path, {}):
                    parameter["description"] = QUERY_WORDS[path][parameter["name"]]
                if parameter["in"] == "path" and parameter["name"] in UUID_PATH_PARAMETERS:
                    parameter["schema"]["format"] = "uuid"
                if parameter["in"] == "path" and parameter["name"] in PATH_PATTERNS:
                    parameter["schema"]["pattern"] = PATH_PATTERNS[parameter["name"]]
                elif parameter["in"] == "path" and parameter["name"] not in UUID_PATH_PARAMETERS:
                    parameter["schema"] |= string_schema(id_rule=True)
            body = operation.get("requestBody")
            if body is None:
                continue
            reference = body["content"]["application/json"]["schema"]
            schema = resolved(document, reference)
            path_ids = [parameter["name"] for parameter in operation.get("parameters", []) if parameter["in"] == "path"]
            same_as_path = [(path_id, field) for path_id in path_ids if (field := body_id_field(schema, path_id))]
            if same_as_path and bodies[reference.get("$ref")] > 1:
                raise ValueError(f"{method} {path}: a rule of its body would be stated for another operation's too")
            own = {(method, path, "request")}
            for field, rule in BODY_RULES.get(operation.get("operationId", ""), {}).items():
                _state_rule(document, owners, own, reference, field, rule)
            for path_id, field in same_as_path:
                rule = (
                    f"`{field}` may be left out: the path's `{path_id}` fills it; a different value is refused (400)."
                )
                schema["properties"][field]["description"] = rule
                body["description"] = (body.get("description", "") + " " + rule).strip()
    for name, rules in SCHEMA_RULES.items():
        if not any(role == "request" for _, _, role in owners.get(name, ())):
            raise ValueError(f"SCHEMA_RULES: no request sends {name}")
        for field, rule in rules.items():
            _state_rule(document, owners, owners[name], {"$ref": COMPONENTS + name}, field, rule)
    return document


def _schema_owners(document: dict[str, Any]) -> dict[str, set[tuple[str, str, str]]]:
    """Each named schema -> the (method, path, "request" or "response") whose bodies reach it."""
    owners: dict[str, set[tuple[str, str, str]]] = {}
    schemas = document.get("components", {}).get("schemas", {})
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            roots = [("request", operation.get("requestBody", {}))]
            roots += [("response", answer) for answer in operation.get("responses", {}).values()]
            roots += [("request", parameter) for parameter in operation.get("parameters", [])]
            for role, root in roots:
                pending = [ref["$ref"].removeprefix(COMPONENTS) for ref in _references(root)]
                seen: set[str] = set()
                while pending:
                    name = pending.pop()
                    if name in seen or name not in schemas:
                        continue
                    seen.add(name)
                    owners.setdefault(name, set()).add((method, path, role))
                    pending.extend(ref["$ref"].removeprefix(COMPONENTS) for ref in _references(schemas[name]))
    return owners


def _state_rule(
    document: dict[str, Any],
    owners: dict[str, set[tuple[str, str, str]]],
    own: set[tuple[str, str, str]],
    reference: dict[str, Any],
    field: str,
    rule: dict[str, Any],
) -> None:
    """State ``rule`` on ``field`` of the request body ``reference`` points to (``BODY_RULES``). The
    field's own object is a named schema of this operation's request alone, or one shared with
    others (a ``Scope``): then the rule is stated where this operation's schema uses it, as
    ``allOf`` that schema and the rule."""
    if field == ".":  # keywords of the body itself
        resolved(document, reference).update(rule)
        return
    *parents, name = field.split(".")
    holder, parent, slot = reference, "", (None, "")
    for part in parents:
        holder = holder["allOf"][0] if "allOf" in holder else holder  # through a rule's wrapper
        parent = holder.get("$ref", parent).removeprefix(COMPONENTS)
        properties = resolved(document, holder)["properties"]
        slot, holder = (properties, part.removesuffix("[]")), properties[part.removesuffix("[]")]
        if part.endswith("[]"):
            slot, holder = (holder, "items"), holder["items"]
    wrapped = "allOf" in holder
    target = holder["allOf"][0] if wrapped else holder
    named = target.get("$ref", "").removeprefix(COMPONENTS)
    keywords = dict(rule)
    key = name.removesuffix("[]")
    required = keywords.pop("required", False)
    if name.endswith("[]"):  # the rule of each item
        keywords = {"items": keywords}
    if named and owners.get(named) != own:  # shared: stated where this operation's schema uses it
        container, place = slot
        if not wrapped and (container is None or owners.get(parent) != own):
            raise ValueError(
                f"{sorted(own)}: the rule on {field} would be stated for {sorted(owners.get(named, ()))} too"
            )
        if not wrapped:
            holder = container[place] = {"allOf": [holder]}
        if required:
            holder["required"] = list(dict.fromkeys([*holder.get("required", []), key]))
        if keywords:
            _merge(holder.setdefault("properties", {}).setdefault(key, {}), keywords)
        return
    schema = resolved(document, target)
    if required:
        schema["required"] = list(dict.fromkeys([*schema.get("required", []), key]))
    if keywords:
        inner = schema["properties"][key].get("$ref", "").removeprefix(COMPONENTS)
        if inner and inner not in NAMED and owners.get(inner) == own:  # this request's own object: its rule
            _merge(resolved(document, schema["properties"][key]), keywords)
            return
        if inner:  # keywords beside a reference: the reference and them, both
            schema["properties"][key] = {"allOf": [schema["properties"][key]]}
        _merge(schema["properties"][key], keywords)


def _merge(schema: dict[str, Any], keywords: dict[str, Any]) -> None:
    """``keywords`` added to ``schema``; ``items`` merged into its items."""
    for keyword, value in keywords.items():
        if keyword == "items" and isinstance(schema.get("items"), dict):
            _merge(schema["items"], value)
        else:
            schema[keyword] = value


def body_id_field(schema: dict[str, Any], path_name: str) -> str | None:
    """The body field the path's id fills: the id's own name in lowerCamelCase, else ``id``."""
    head, *rest = path_name.split("_")
    camel = head + "".join(part.title() for part in rest)
    return camel if camel in schema["properties"] else "id" if "id" in schema["properties"] else None


# The credential every route but the probes, the metrics and the documentation takes (auth.py).
SECURITY_SCHEMES: dict[str, Any] = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "An API key (`lore_…`), or a JWT where the deployment verifies them, as "
        "`Authorization: Bearer <credential>`. The operation's list names the scopes the credential must hold.",
    }
}


def with_security(document: dict[str, Any], guarded: dict[tuple[str, str], tuple[str, ...]]) -> dict[str, Any]:
    """``document`` with the bearer scheme and each operation's requirement: ``guarded`` maps
    (method, path) to the scopes its route checks (``auth.credentials_needed``); an operation not in
    it takes no credential (``security: []``)."""
    document.setdefault("components", {})["securitySchemes"] = SECURITY_SCHEMES
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            scopes = guarded.get((method, path))
            operation["security"] = [] if scopes is None else [{"bearer": list(scopes)}]
    return document
