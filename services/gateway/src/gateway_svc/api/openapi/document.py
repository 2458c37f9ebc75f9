"""The parts of the OpenAPI document the routes declare (a JSON body, a 200 answer, query parameters,
each with its example) and the passes over the document FastAPI generates: the one error body as
every operation's ``default`` answer, path examples, and the bearer credential with each operation's
scopes. The schemas themselves come from ``schemas.py``."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from gateway_svc.api.json.proto_json import to_json
from gateway_svc.api.openapi.openapi_examples import PATH_PARAMETERS, RESPONSES
from gateway_svc.api.openapi.schemas import WELL_KNOWN, field_schema, schema_of


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
        if field.message_type is not None and field.message_type.full_name not in WELL_KNOWN:
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
    schema = field_schema(field)
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
