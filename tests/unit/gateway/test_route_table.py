"""The route table is the one source of the gateway's operations: the app serves exactly its
entries, the OpenAPI document states each as declared, and README.md's route table is the one it
prints."""

from pathlib import Path

from fastapi.routing import iter_route_contexts
from gateway_svc.api.http import route_table
from gateway_svc.api.http.route_table import ROUTES, markdown_table
from gateway_svc.api.openapi.schemas import resolved
from gateway_svc.config import Settings
from gateway_svc.server import create_app
from lore_runtime.settings import load_settings

from tests.grpc_harness import SERVICE_TOKEN_ENV

README = Path(__file__).resolve().parents[3] / "README.md"


def _app():
    placeholders = {"LORE_DATABASE_URL": "postgresql://unused@localhost/unused", **SERVICE_TOKEN_ENV}
    return create_app(load_settings(Settings, placeholders))


def test_the_app_serves_each_declared_operation_once_and_no_other_documented_one():
    served = [
        f"{method} {route.path}"
        for route in iter_route_contexts(_app().routes)
        if getattr(route, "include_in_schema", False) and getattr(route, "methods", None)
        for method in sorted(route.methods)
    ]

    assert sorted(served) == sorted(route.label for route in ROUTES)


def test_the_document_states_every_operation_as_the_table_declares_it():
    document = _app().openapi()
    documented = {f"{method.upper()} {path}" for path, item in document["paths"].items() for method in item}

    assert documented == {route.label for route in ROUTES}
    for declared in ROUTES:
        operation = document["paths"][declared.path][declared.method.lower()]
        assert operation["operationId"] == declared.operation_id, declared.label
        assert operation["summary"] == declared.summary, declared.label
        assert operation["tags"] == declared.tags, declared.label
        expected = [] if declared.scopes is None else [{"bearer": list(declared.scopes)}]
        assert operation["security"] == expected, declared.label
        if declared.response is not None:
            answer = operation["responses"]["200"]["content"]["application/json"]["schema"]
            assert f"`{declared.response.DESCRIPTOR.full_name}`" in resolved(document, answer)["description"]
        if declared.reads in ("body", "optional body"):
            body = operation["requestBody"]["content"]["application/json"]["schema"]
            assert f"`{declared.request.DESCRIPTOR.full_name}`" in resolved(document, body)["description"]
        else:
            assert "requestBody" not in operation, declared.label
        queries = [parameter for parameter in operation.get("parameters", []) if parameter["in"] == "query"]
        assert bool(queries) == (declared.reads == "query"), declared.label


def test_readme_shows_the_route_table_the_table_prints():
    text = README.read_text()

    shown = text[text.index(route_table.TABLE_START) + len(route_table.TABLE_START) : text.index(route_table.TABLE_END)]
    assert shown.strip() == markdown_table(), (
        "README.md is stale: python -m gateway_svc.api.http.route_table --write README.md"
    )


def test_the_command_writes_the_table_between_the_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\n{route_table.TABLE_START}\nold rows\n{route_table.TABLE_END}\n\nafter\n")

    assert route_table.main(["--write", str(readme)]) == 0

    written = readme.read_text()
    assert "old rows" not in written and written.endswith(f"{route_table.TABLE_END}\n\nafter\n")
    assert f"{route_table.TABLE_START}\n{markdown_table()}\n{route_table.TABLE_END}" in written
    assert "| `POST /v1/memories` | `memories.remember` | `memories:write` |" in written


def test_the_clients_copy_of_the_body_rules_is_the_one_the_table_writes():
    written = (README.parent / route_table.CLIENT_RULES).read_text()

    assert written == route_table.client_rules(), (
        f"{route_table.CLIENT_RULES} is stale: python -m gateway_svc.api.http.route_table --write-client-rules"
        f" {route_table.CLIENT_RULES}"
    )
