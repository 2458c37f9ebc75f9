"""The OpenAPI document says what the gateway answers (found by tests/integration/gateway/test_fuzz.py)."""

from gateway_svc.app import create_app
from gateway_svc.config import Settings
from lore_runtime.settings import load_settings


def _document() -> dict:
    app = create_app(load_settings(Settings, {"LORE_DATABASE_URL": "postgresql://unused@localhost/unused"}))
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
