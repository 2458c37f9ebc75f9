"""The OpenAPI document says what the gateway answers (found by tests/integration/gateway/test_fuzz.py)."""

import jsonschema_rs
from gateway_svc.app import create_app
from gateway_svc.config import Settings
from lore_runtime.settings import load_settings

from tests.grpc_harness import SERVICE_TOKEN_ENV


def _document() -> dict:
    placeholders = {"LORE_DATABASE_URL": "postgresql://unused@localhost/unused", **SERVICE_TOKEN_ENV}
    app = create_app(load_settings(Settings, placeholders))
    return app.openapi()


def _operations(document: dict):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield f"{method.upper()} {path}", operation


def test_every_operation_documents_the_error_body_and_none_the_422_it_never_sends():
    document = _document()

    for label, operation in _operations(document):
        assert "422" not in operation["responses"], label
        default = operation["responses"]["default"]["content"]["application/json"]["schema"]
        assert default == {"$ref": "#/components/schemas/Error"}, label
    error = document["components"]["schemas"]["Error"]["properties"]["error"]
    assert error["required"] == ["code", "status", "message", "details", "requestId"]
    assert "HTTPValidationError" not in document["components"]["schemas"]


def test_metrics_are_documented_as_text_and_health_routes_document_their_503():
    paths = _document()["paths"]

    assert list(paths["/metrics"]["get"]["responses"]["200"]["content"]) == ["text/plain"]
    for path, field in (("/readyz", "dependencies"), ("/v1/status", "services")):
        schema = paths[path]["get"]["responses"]["503"]["content"]["application/json"]["schema"]
        assert set(schema["properties"]) == {"status", field}


def test_request_bodies_document_that_unknown_fields_are_refused():
    body = _document()["paths"]["/v1/memories"]["post"]["requestBody"]["content"]["application/json"]["schema"]

    assert body["additionalProperties"] is False
    assert body["properties"]["memories"]["items"]["additionalProperties"] is False
    assert body["properties"]["memories"]["items"]["properties"]["metadata"]["additionalProperties"] == {
        "type": "string"
    }


def _answer(operation: dict) -> dict:
    return operation["responses"]["200"]["content"]


def test_every_operation_has_an_example_answer_and_every_body_and_parameter_an_example():
    for label, operation in _operations(_document()):
        assert all("example" in media for media in _answer(operation).values()), label
        if "requestBody" in operation:
            assert "example" in operation["requestBody"]["content"]["application/json"], label
        for parameter in operation.get("parameters", []):
            if parameter["in"] == "path":
                assert parameter["example"], (label, parameter["name"])
        queries = [parameter for parameter in operation.get("parameters", []) if parameter["in"] == "query"]
        assert not queries or any("example" in parameter for parameter in queries), label


def test_every_example_is_valid_against_its_own_schema():
    validator = jsonschema_rs.Draft202012Validator
    checked = 0
    for label, operation in _operations(_document()):
        documented = [_answer(operation).get("application/json", {})]
        documented.append(operation.get("requestBody", {}).get("content", {}).get("application/json", {}))
        for media in documented:
            if "schema" in media and "example" in media and "$ref" not in media["schema"]:
                errors = [error.message for error in validator(media["schema"]).iter_errors(media["example"])]
                assert not errors, (label, errors)
                checked += 1
        for parameter in operation.get("parameters", []):
            if "example" in parameter:
                assert validator(parameter["schema"]).is_valid(parameter["example"]), (label, parameter["name"])
    assert checked >= 60


def test_the_answer_schema_is_the_response_message_printed_with_every_field():
    answer = _answer(_document()["paths"]["/v1/memories:search"]["post"])["application/json"]

    assert answer["schema"]["title"] == "RecallResponse"
    memory = answer["example"]["results"][0]["memory"]
    assert memory["memoryType"] == "MEMORY_TYPE_FACT"
    assert memory["provenance"]["consolidatedFrom"] == []  # defaults printed, as the gateway prints them
