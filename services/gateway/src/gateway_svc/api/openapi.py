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
from lore_runtime.text_rules import MAX_ID_CHARS, OBSERVABLE_ID, is_id_name

from gateway_svc.api.openapi_examples import PATH_PARAMETERS, RESPONSES
from gateway_svc.api.proto_json import to_json

_SCALARS = {
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_INT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_UINT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
}
_WELL_KNOWN = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string"},
    "google.protobuf.FieldMask": {"type": "string"},
    "google.protobuf.Struct": {"type": "object"},
    "google.protobuf.Value": {},
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
        value = field.message_type.fields_by_name["value"]
        keys = {"propertyNames": {"pattern": TEXT_PATTERN}}  # a map's keys are strings too
        return {"type": "object", "additionalProperties": _single(value), **keys}
    single = _single(field)
    if field.is_repeated:
        return {"type": "array", "items": single}
    return single


def _single(field: FieldDescriptor) -> dict[str, Any]:
    if field.enum_type is not None:
        return {"$ref": COMPONENTS + field.enum_type.full_name}
    if field.message_type is not None:
        return schema_of(field.message_type)
    if field.type == FieldDescriptor.TYPE_STRING:
        schema = string_schema(id_rule=is_id_name(field.name))
        if field.containing_type.name == "Scope" and field.name in _SCOPE_IDS:
            schema["maxLength"] = MAX_SCOPE_ID_CHARS
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
# A scope's ids are held to a tighter length by every service that keys on them (memory_svc's
# limits.MAX_SCOPE_ID_CHARS, observations_svc's keys.MAX_SCOPE_ID_CHARS, the agent's).
MAX_SCOPE_ID_CHARS = 128
_SCOPE_IDS = frozenset(("user_id", "agent_id", "team_id"))


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
            "content": {"application/json": {"schema": schema_of(message_class.DESCRIPTOR), "example": example}},
        }
    }
    return body | (json_response(response) if response is not None else {})


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
UUID_PATH_PARAMETERS = frozenset({"session_id"})
# Path parameters held to a pattern (anything else is a 400 naming the parameter).
PATH_PATTERNS = {"thread_index": "^[0-9]+$"}
# What the services refuse in a request body beyond its message's shape, stated in the document so a
# client can keep to it: operation id -> {field: JSON Schema keywords}. A field is written with its
# JSON names, dotted, ``[]`` for an array's items (``memories[].memoryType``); ``"required": True``
# puts it in its object's ``required``. Each rule is stated in the named schema holding the field,
# which must then belong to that operation's request alone (``with_enforced_rules`` refuses to state
# it for another operation's body or an answer too). tests/integration/gateway/test_openapi_rules.py
# breaks each rule on a real stack and asks for a 400 naming the field.
NOT_BLANK = "\\S"  # holds a character that is not a space: the services trim before they check
# An agent or subject id an observation may name: empty, or ``text_rules.OBSERVABLE_ID``.
OBSERVABLE = {"maxLength": 128, "pattern": f"^$|{OBSERVABLE_ID.pattern}"}
# Path -> its query parameters' rules the services enforce (budgets, unit intervals, observable ids).
QUERY_RULES: dict[str, dict[str, dict[str, Any]]] = {
    "/v1/memory/prime": {"budgetTokens": {"minimum": 0, "maximum": 4_000}},
    "/v1/users/{user_id}/profile": {"budgetTokens": {"minimum": 0, "maximum": 4_000}, "agentId": OBSERVABLE},
    "/v1/observations": {"minConfidence": {"minimum": 0, "maximum": 1}, "agentId": OBSERVABLE, "subjectId": OBSERVABLE},
}

BODY_RULES: dict[str, dict[str, dict[str, Any]]] = {
    "memories.remember": {
        "memories": {"required": True, "minItems": 1, "maxItems": 100},
        "memories[].content": {"required": True, "minLength": 1, "maxLength": 16_000, "pattern": NOT_BLANK},
        "memories[].memoryType": {"required": True},
        "memories[].importance": {"minimum": 0, "maximum": 1},
        "memories[].metadata": {"maxProperties": 32},
        "memories[].idempotencyKey": {"maxLength": 256},
    },
    "memories.search": {
        "query": {"required": True, "minLength": 1, "maxLength": 4_000, "pattern": NOT_BLANK},
        "k": {"minimum": 0, "maximum": 100},
        "minSalience": {"minimum": 0},
    },
    "memories.forgetAbout": {"about": {"required": True, "minLength": 1, "maxLength": 500, "pattern": NOT_BLANK}},
    "observations.searchObservations": {
        "query": {"required": True, "minLength": 1, "maxLength": 2_000, "pattern": NOT_BLANK},
        "k": {"minimum": 0, "maximum": 100},
        "minConfidence": {"minimum": 0, "maximum": 1},
        "agentId": OBSERVABLE,
    },
    "observations.observe": {
        "agentId": OBSERVABLE,
        "candidate": {"required": True},
        "candidate.kind": {"required": True},
        "candidate.subjectType": {"required": True},
        "candidate.subjectId": OBSERVABLE,
        "candidate.slot": {"required": True, "minLength": 1, "maxLength": 64, "pattern": "^[a-z0-9_.-]{1,64}$"},
        "candidate.summary": {"required": True, "minLength": 1, "maxLength": 1_000, "pattern": NOT_BLANK},
        "candidate.detail": {"maxLength": 4_000},
        "candidate.tags": {"maxItems": 20},
        "candidate.evidence": {"maxItems": 50},
    },
    "engagement.formHypothesis": {
        "statement": {"required": True, "minLength": 1, "maxLength": 500, "pattern": NOT_BLANK},
    },
    "engagement.addUnknown": {
        "question": {"required": True, "minLength": 1, "maxLength": 1_000, "pattern": NOT_BLANK},
        "whyItMatters": {"required": True, "minLength": 1, "maxLength": 1_000, "pattern": NOT_BLANK},
    },
    "engagement.advanceWeek": {"expectedWeekNumber": {"minimum": 1}},
    "sessions.processTurn": {"turn": {"required": True}},
    "sessions.importTurns": {"turns": {"required": True, "minItems": 1, "maxItems": 500}},
    "context.assembleContext": {
        "message": {"required": True, "minLength": 1, "maxLength": 4_000, "pattern": NOT_BLANK},
    },
    "admin.runConsolidation": {"threshold": {"minimum": 0.8, "exclusiveMaximum": 1}},
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
                if parameter["in"] == "query" and parameter["name"] in QUERY_RULES.get(path, {}):
                    parameter["schema"] |= QUERY_RULES[path][parameter["name"]]
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
            same_as_path = [(path_id, field) for path_id in path_ids if (field := _body_id_field(schema, path_id))]
            if same_as_path and bodies[reference.get("$ref")] > 1:
                raise ValueError(f"{method} {path}: a rule of its body would be stated for another operation's too")
            for field, rule in BODY_RULES.get(operation.get("operationId", ""), {}).items():
                _state_rule(document, owners, (method, path), reference, field, rule)
            for path_id, field in same_as_path:
                rule = (
                    f"`{field}` may be left out: the path's `{path_id}` fills it; a different value is refused (400)."
                )
                schema["properties"][field]["description"] = rule
                body["description"] = (body.get("description", "") + " " + rule).strip()
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
    operation: tuple[str, str],
    reference: dict[str, Any],
    field: str,
    rule: dict[str, Any],
) -> None:
    """State ``rule`` on ``field`` of the request body ``reference`` points to (``BODY_RULES``)."""
    *parents, name = field.split(".")
    holder = reference
    for part in parents:
        holder = resolved(document, holder)["properties"][part.removesuffix("[]")]
        if part.endswith("[]"):
            holder = holder["items"]
    named = holder.get("$ref", "").removeprefix(COMPONENTS)
    if owners.get(named) != {(*operation, "request")}:
        raise ValueError(f"{operation}: the rule on {field} would be stated for {sorted(owners.get(named, ()))} too")
    schema = resolved(document, holder)
    keywords = dict(rule)
    if keywords.pop("required", False):
        schema["required"] = list(dict.fromkeys([*schema.get("required", []), name.removesuffix("[]")]))
    if keywords:
        schema["properties"][name.removesuffix("[]")].update(keywords)


def _body_id_field(schema: dict[str, Any], path_name: str) -> str | None:
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
