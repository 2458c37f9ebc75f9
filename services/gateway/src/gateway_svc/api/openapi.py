"""OpenAPI for bodies that are proto3 JSON: the schema is derived from the message descriptor."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

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


def schema_of(descriptor: Descriptor, depth: int = 0) -> dict[str, Any]:
    if descriptor.full_name in _WELL_KNOWN:
        return dict(_WELL_KNOWN[descriptor.full_name])
    if depth > 6:
        return {"type": "object"}
    properties = {}
    for field in descriptor.fields:
        properties[field.json_name] = _field_schema(field, depth)
    # The parser refuses fields the message does not have (a 400 naming the field).
    return {"type": "object", "title": descriptor.name, "properties": properties, "additionalProperties": False}


def _field_schema(field: FieldDescriptor, depth: int) -> dict[str, Any]:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        value = field.message_type.fields_by_name["value"]
        return {"type": "object", "additionalProperties": _single(value, depth + 1)}
    single = _single(field, depth + 1)
    if field.is_repeated:
        return {"type": "array", "items": single}
    return single


def _single(field: FieldDescriptor, depth: int) -> dict[str, Any]:
    if field.enum_type is not None:
        return {"type": "string", "enum": [value.name for value in field.enum_type.values]}
    if field.message_type is not None:
        return schema_of(field.message_type, depth)
    return dict(_SCALARS.get(field.type, {}))


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
    schema = _field_schema(field, 0)
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
# Body fields a request cannot leave out or leave empty: (method, path) -> fields.
REQUIRED_BODY_FIELDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("post", "/v1/memories:search"): ("query",),
    ("post", "/v1/observations:search"): ("query",),
    ("post", "/v1/context:assemble"): ("message",),
}


def with_enforced_rules(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` stating page-size ranges, UUID path ids, required body fields, and that a body's
    id, when given, must equal the path's."""
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query" and parameter["name"] == "pageSize" and path in PAGE_SIZES:
                    refused_above, largest = PAGE_SIZES[path]
                    parameter["schema"] |= {"minimum": 0} | ({"maximum": refused_above} if refused_above else {})
                    parameter["description"] = f"0 means the default; at most {largest}" + (
                        "" if refused_above else f" (a larger size is served as {largest})"
                    )
                if parameter["in"] == "path" and parameter["name"] in UUID_PATH_PARAMETERS:
                    parameter["schema"]["format"] = "uuid"
            body = operation.get("requestBody")
            if body is None:
                continue
            schema = body["content"]["application/json"]["schema"]
            for name in REQUIRED_BODY_FIELDS.get((method, path), ()):
                required = schema.setdefault("required", [])
                required.extend([name] if name not in required else [])
                schema["properties"][name]["minLength"] = 1
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path":
                    _say_body_id_is_the_paths(body, schema, parameter["name"])
    return document


def _say_body_id_is_the_paths(body: dict[str, Any], schema: dict[str, Any], path_name: str) -> None:
    head, *rest = path_name.split("_")
    camel = head + "".join(part.title() for part in rest)
    field = camel if camel in schema["properties"] else "id" if "id" in schema["properties"] else None
    if field is None:
        return
    rule = f"`{field}` may be left out: the path's `{path_name}` fills it; a different value is refused (400)."
    schema["properties"][field]["description"] = rule
    body["description"] = (body.get("description", "") + " " + rule).strip()
