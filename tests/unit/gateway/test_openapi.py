"""The OpenAPI document says what the gateway answers (found by tests/integration/gateway/test_fuzz.py)."""

import json
import re

import jsonschema_rs
import pytest
from fastapi import FastAPI
from gateway_svc.api.openapi.operation_ids import operation_id
from gateway_svc.api.openapi.rules import OBSERVABLE, PATH_PATTERNS
from gateway_svc.api.openapi.schemas import MAX_SCOPE_ID_CHARS, SCOPE_ID, TEXT_PATTERN, id_pattern, schema_names
from gateway_svc.config import Settings
from gateway_svc.server import create_app
from jsonschema import Draft202012Validator
from lore_client import LoreClient
from lore_runtime.errors import InvalidArgument
from lore_runtime.settings import load_settings
from lore_runtime.text_rules import MAX_ID_CHARS, check_agent_id, id_problem, is_id_name
from schemathesis.specs.openapi.definitions import OPENAPI_31

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
    document = _document()
    paths = document["paths"]

    assert list(paths["/metrics"]["get"]["responses"]["200"]["content"]) == ["text/plain"]
    for path, field in (("/readyz", "dependencies"), ("/v1/status", "services")):
        schema = paths[path]["get"]["responses"]["503"]["content"]["application/json"]["schema"]
        assert set(_resolved(document, schema)["properties"]) == {"status", field}


def _resolved(document: dict, schema: dict) -> dict:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].removeprefix("#/components/schemas/")]
    return schema


def test_request_bodies_document_that_unknown_fields_are_refused():
    document = _document()
    body = _resolved(
        document, document["paths"]["/v1/memories"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    )

    assert body["additionalProperties"] is False
    memory = _resolved(document, body["properties"]["memories"]["items"])
    assert memory["additionalProperties"] is False
    metadata = memory["properties"]["metadata"]
    assert metadata["additionalProperties"] == {"type": "string", "pattern": TEXT_PATTERN, "maxLength": 1_024}
    assert metadata["propertyNames"] == {"pattern": TEXT_PATTERN, "minLength": 1, "maxLength": 64}
    assert metadata["maxProperties"] == 32


def _json_schemas(operation: dict):
    """Every JSON body schema of ``operation``: its request body's and each answer's."""
    if "requestBody" in operation:
        yield "request", operation["requestBody"]["content"]["application/json"]["schema"]
    for status, answer in operation["responses"].items():
        if "application/json" in answer.get("content", {}):
            yield status, answer["content"]["application/json"]["schema"]


def test_every_json_body_is_a_named_schema_that_resolves():
    document = _document()
    schemas = document["components"]["schemas"]

    for label, operation in _operations(document):
        found = list(_json_schemas(operation))
        assert any(status == "200" for status, _ in found) or label == "GET /metrics", label
        for status, schema in found:
            assert set(schema) == {"$ref"}, (label, status, schema)
            assert schema["$ref"].removeprefix("#/components/schemas/") in schemas, (label, status)
    references = re.findall(r'"\$ref": "([^"]+)"', json.dumps(document))
    assert references and all(ref.removeprefix("#/components/schemas/") in schemas for ref in references)
    for name, schema in schemas.items():
        assert schema["title"] == name, name


def test_schema_names_are_the_proto_names_prefixed_with_their_package_only_on_a_clash():
    document = _document()
    schemas = document["components"]["schemas"]

    assert {"RememberRequest", "RememberResponse", "Memory", "Scope", "PrimeResponse", "MemoryType"} <= set(schemas)
    assert "`lore.memory.v1.RememberRequest`" in schemas["RememberRequest"]["description"]
    assert "`lore.common.v1.Scope`" in schemas["Scope"]["description"]
    assert schema_names({"lore.common.v1.Scope", "lore.memory.v1.Memory"}) == {
        "lore.common.v1.Scope": "Scope",
        "lore.memory.v1.Memory": "Memory",
    }
    # A clash (here with a name taken by a schema that is not a proto's): the package comes first.
    assert schema_names({"lore.common.v1.Scope", "lore.memory.v1.Memory"}, reserved=frozenset({"Memory"})) == {
        "lore.common.v1.Scope": "Scope",
        "lore.memory.v1.Memory": "MemoryV1Memory",
    }


def test_security_names_the_bearer_scheme_and_each_operations_scopes():
    document = _document()
    schemes = document["components"]["securitySchemes"]
    operations = dict(_operations(document))

    assert schemes == {"bearer": {"type": "http", "scheme": "bearer", "description": schemes["bearer"]["description"]}}
    for label in ("GET /healthz", "GET /readyz", "GET /v1/status", "GET /metrics"):
        assert operations[label]["security"] == [], label
    assert operations["POST /v1/memories"]["security"] == [{"bearer": ["memories:write"]}]
    assert operations["GET /v1/memory/prime"]["security"] == [{"bearer": ["memories:read", "observations:read"]}]
    assert operations["GET /v1/whoami"]["security"] == [{"bearer": []}]
    assert operations["POST /v1/admin/reindex"]["security"] == [{"bearer": ["operator"]}]
    unguarded = {label for label, operation in operations.items() if not operation["security"]}
    assert unguarded == {"GET /healthz", "GET /readyz", "GET /v1/status", "GET /metrics"}


def test_the_document_is_valid_openapi_3_1():
    document = _document()

    assert document["openapi"].startswith("3.1.")
    # The OpenAPI Initiative's schema of 3.1 documents, as schemathesis ships it (it leaves the
    # Schema Objects to the JSON Schema dialect: each named schema is checked against 2020-12's).
    errors = [f"{error.json_path}: {error.message}" for error in Draft202012Validator(OPENAPI_31).iter_errors(document)]
    assert not errors, errors[:5]
    for schema in document["components"]["schemas"].values():
        Draft202012Validator.check_schema(schema)


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
    document = _document()
    checked = 0

    def validator(schema: dict) -> jsonschema_rs.Draft202012Validator:
        # References point into the document's components: they resolve against a root holding them.
        return jsonschema_rs.Draft202012Validator({"allOf": [schema], "components": document["components"]})

    for label, operation in _operations(document):
        documented = [_answer(operation).get("application/json", {})]
        documented.append(operation.get("requestBody", {}).get("content", {}).get("application/json", {}))
        for media in documented:
            if "schema" in media and "example" in media and media["schema"] != {"$ref": "#/components/schemas/Error"}:
                errors = [error.message for error in validator(media["schema"]).iter_errors(media["example"])]
                assert not errors, (label, errors)
                checked += 1
        for parameter in operation.get("parameters", []):
            if "example" in parameter:
                assert validator(parameter["schema"]).is_valid(parameter["example"]), (label, parameter["name"])
    assert checked >= 60


def test_the_answer_schema_is_the_response_message_printed_with_every_field():
    document = _document()
    answer = _answer(document["paths"]["/v1/memories:search"]["post"])["application/json"]

    assert answer["schema"] == {"$ref": "#/components/schemas/RecallResponse"}
    assert _resolved(document, answer["schema"])["title"] == "RecallResponse"
    memory = answer["example"]["results"][0]["memory"]
    assert memory["memoryType"] == "MEMORY_TYPE_FACT"
    assert memory["provenance"]["consolidatedFrom"] == []  # defaults printed, as the gateway prints them


# Operation ids are part of the contract (generated SDKs name their methods after them): one scheme,
# `<tag>.<lowerCamel route name>` (gateway_svc/api/openapi/operation_ids.py), and a change here breaks clients.
OPERATION_IDS = {
    "GET /metrics": "health.metrics",
    "GET /healthz": "health.healthz",
    "GET /readyz": "health.readyz",
    "GET /v1/status": "health.status",
    "POST /v1/memories": "memories.remember",
    "GET /v1/memories": "memories.listMemories",
    "POST /v1/memories:search": "memories.search",
    "POST /v1/memories:forget": "memories.forgetAbout",
    "GET /v1/memories/{memory_id}": "memories.getMemory",
    "PATCH /v1/memories/{memory_id}": "memories.updateMemory",
    "DELETE /v1/memories/{memory_id}": "memories.forgetMemory",
    "GET /v1/episodes": "memories.listEpisodes",
    "GET /v1/open-threads": "memories.listOpenThreads",
    "POST /v1/open-threads/{episode_id}/{thread_index}:resolve": "memories.resolveThread",
    "GET /v1/observations": "observations.queryObservations",
    "POST /v1/observations:search": "observations.searchObservations",
    "POST /v1/observations:observe": "observations.observe",
    "GET /v1/observations/{observation_id}": "observations.getObservation",
    "GET /v1/observations/{observation_id}/history": "observations.observationHistory",
    "POST /v1/observations/{observation_id}:confirm": "observations.confirmObservation",
    "POST /v1/observations/{observation_id}:contradict": "observations.contradictObservation",
    "GET /v1/engagement": "engagement.getEngagement",
    "POST /v1/engagement/hypotheses": "engagement.formHypothesis",
    "POST /v1/engagement/hypotheses/{hypothesis_id}/evidence": "engagement.addHypothesisEvidence",
    "POST /v1/engagement/hypotheses/{hypothesis_id}:revise": "engagement.reviseHypothesis",
    "POST /v1/engagement/hypotheses/{hypothesis_id}:promote": "engagement.promoteHypothesis",
    "POST /v1/engagement/hypotheses/{hypothesis_id}:archive": "engagement.archiveHypothesis",
    "POST /v1/engagement/unknowns": "engagement.addUnknown",
    "POST /v1/engagement/unknowns/{unknown_id}:resolve": "engagement.resolveUnknown",
    "POST /v1/engagement:advanceWeek": "engagement.advanceWeek",
    "POST /v1/context:assemble": "context.assembleContext",
    "GET /v1/memory/prime": "context.prime",
    "GET /v1/users/{user_id}/profile": "context.getUserProfile",
    "POST /v1/sessions": "sessions.startSession",
    "GET /v1/sessions": "sessions.listSessions",
    "GET /v1/sessions/{session_id}": "sessions.getSession",
    "POST /v1/sessions/{session_id}:end": "sessions.endSession",
    "GET /v1/sessions/{session_id}/turns": "sessions.listTurns",
    "POST /v1/sessions/{session_id}/turns": "sessions.processTurn",
    "POST /v1/sessions/{session_id}/turns:import": "sessions.importTurns",
    "GET /v1/sessions/{session_id}/turns/{turn_id}/context": "sessions.getTurnContext",
    "POST /v1/subjects:forget": "erasure.forgetSubject",
    "POST /v1/admin/decay:run": "admin.runDecay",
    "POST /v1/admin/consolidation:run": "admin.runConsolidation",
    "POST /v1/admin/revalidation:run": "admin.runRevalidation",
    "POST /v1/admin/reindex": "admin.reindex",
    "GET /v1/admin/jobs": "admin.jobStats",
    "GET /v1/admin/jobs:list": "admin.listJobs",
    "POST /v1/admin/jobs:retry": "admin.retryJobs",
    "GET /v1/whoami": "credentials.whoami",
}
# Operations the typed client does not wrap (probes, operator chores); every other id names its method.
NOT_IN_THE_CLIENT = {
    "health.metrics",
    "health.healthz",
    "health.readyz",
    "memories.resolveThread",
    "admin.runDecay",
    "admin.runConsolidation",
    "admin.runRevalidation",
    "admin.reindex",
    "admin.retryJobs",
    "credentials.whoami",  # the memory browser's scopes (docs/browser.md)
}


def test_every_operation_id_is_its_section_and_the_client_method_name():
    operations = dict(_operations(_document()))

    assert {label: operation["operationId"] for label, operation in operations.items()} == OPERATION_IDS
    for label, operation in operations.items():
        section, _, action = operation["operationId"].partition(".")
        assert section == operation["tags"][0] and re.fullmatch(r"[a-z][a-zA-Z]*", action), label
        if operation["operationId"] not in NOT_IN_THE_CLIENT:
            method = re.sub(r"[A-Z]", lambda letter: "_" + letter.group().lower(), action)
            assert callable(getattr(LoreClient, method, None)), f"{label}: LoreClient.{method} is missing"


def test_a_documented_route_without_a_tag_is_refused_when_the_app_is_built():
    app = FastAPI(generate_unique_id_function=operation_id)

    with pytest.raises(ValueError, match="/v1/untagged has no tag"):
        app.get("/v1/untagged")(internal_probe)
    app.get("/internal", include_in_schema=False)(internal_probe)
    assert [route.unique_id for route in app.routes if getattr(route, "path", "") == "/internal"] == ["internalProbe"]


async def internal_probe() -> dict[str, str]:
    return {}


def _strings(document: dict):
    """(where, name, schema) of every string of the proto messages' schemas and of every parameter."""
    for name, schema in document["components"]["schemas"].items():
        if not schema.get("description", "").startswith("The proto message"):
            continue
        for field, member in schema.get("properties", {}).items():
            single = member.get("items", member)
            if single.get("type") == "string" and "format" not in single:
                yield f"{name}.{field}", field, single
    for label, operation in _operations(document):
        for parameter in operation.get("parameters", []):
            schema = parameter["schema"]
            single = schema.get("items", schema)
            if single.get("type") == "string" and "format" not in single and "enum" not in single:
                yield f"{label} {parameter['name']}", parameter["name"].rpartition(".")[2], single


# A belief's filters by user and team, held to a scope's id rule by the observation service.
SCOPE_FILTERS = {
    f"{where}{name}"
    for where in ("SearchObservationsRequest.", "QueryObservationsRequest.", "GET /v1/observations ")
    for name in ("userId", "teamId")
}


def test_every_string_states_the_text_rules_and_every_id_the_id_rule():
    document = _document()
    checked = 0
    for where, name, schema in _strings(document):
        if name in PATH_PATTERNS or name == "updateMask":  # a FieldMask: its own syntax
            continue
        is_path_id = where.split(" ")[-1] in {"memory_id", "turn_id", "observation_id", "hypothesis_id"}
        if is_id_name(name) or is_path_id:
            limit = MAX_SCOPE_ID_CHARS if where.split(".")[0].endswith("Scope") and name != "id" else MAX_ID_CHARS
            if " scope." in where or where in SCOPE_FILTERS:  # a query parameter of a scope's id, a belief's filter
                limit = MAX_SCOPE_ID_CHARS
            if schema.get("pattern", "").endswith(id_pattern()) and schema["pattern"].startswith("(?="):
                schema = schema | {"pattern": id_pattern()}  # the id rule, and more than spaces
            if schema.get("pattern") == OBSERVABLE["pattern"]:  # ASCII only: narrower than the id rule
                assert schema.get("maxLength", limit + 1) <= limit, where
                checked += 1
                continue
            scope_id = limit == MAX_SCOPE_ID_CHARS and name != "id"  # nor surrounding spaces
            assert schema.get("pattern") == (SCOPE_ID["pattern"] if scope_id else id_pattern()), where
            assert schema.get("maxLength") == limit, where
        elif "pattern" not in schema or schema["pattern"] == TEXT_PATTERN:
            assert schema.get("pattern") == TEXT_PATTERN, where
        checked += 1
    assert checked > 100


@pytest.mark.parametrize("value", ["", "a", "A9._@/-z", "x" * 128, "x" * 129, "-a", "a b", "a:b", "é", "a\n"])
def test_an_observable_id_is_stated_as_text_rules_checks_it(value):
    """The pattern and length an observation's agent and subject ids state (``rules.OBSERVABLE``)
    take exactly the values ``text_rules.check_agent_id`` takes."""
    try:
        taken = check_agent_id(value) == value
    except InvalidArgument:
        taken = False
    stated = jsonschema_rs.validator_for({"type": "string", **OBSERVABLE}).is_valid(value)
    assert stated is taken


def test_the_id_pattern_refuses_exactly_the_characters_text_rules_refuses_in_ids():
    """Every code point but the surrogates (no JSON Schema regex engine takes them; the every-string
    rule refuses an unpaired one), through the validator schemathesis uses and through Python's re."""

    validator = jsonschema_rs.validator_for({"type": "string", "pattern": id_pattern()})
    compiled = re.compile(id_pattern())
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        value = f"a{chr(code)}b"
        refused = id_problem(value) is not None
        assert validator.is_valid(value) is not refused, hex(code)
        assert (compiled.search(value) is None) is refused, hex(code)
