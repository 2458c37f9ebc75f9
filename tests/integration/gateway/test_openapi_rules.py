"""The OpenAPI document states the rules the gateway and the services enforce beyond a message's
shape — page-size ranges, UUID session ids, required fields, a body id equal to the path's — and a
request breaking one is a 400 naming the field, so a client that follows the document is never
refused with a 400 it could not predict."""

from __future__ import annotations

import uuid

import pytest
from gateway_svc.api.openapi import PAGE_SIZES, REQUIRED_BODY_FIELDS, resolved

from tests.integration.gateway.conftest import _create_key, asgi_client


@pytest.fixture
async def client(gateway, migrated_pg):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    async with asgi_client(gateway, key) as client:
        yield client


@pytest.fixture
async def document(client):
    return (await client.get("/openapi.json")).json()


def _refused_naming(answer, field: str) -> bool:
    error = answer.json()["error"]
    return answer.status_code == 400 and field in f"{error['message']} {error['details']}"


def _parameter(document, method: str, path: str, name: str) -> dict:
    [found] = [p for p in document["paths"][path][method].get("parameters", []) if p["name"] == name]
    return found


@pytest.mark.parametrize("path", sorted(PAGE_SIZES))
async def test_page_sizes_are_stated_and_enforced(client, document, path):
    refused_above, largest = PAGE_SIZES[path]
    parameter = _parameter(document, "get", path, "pageSize")
    assert parameter["schema"]["minimum"] == 0 and parameter["schema"].get("maximum") == refused_above
    assert f"at most {largest}" in parameter["description"]
    concrete = path
    if "{session_id}" in path:  # a session that exists: an unknown one is a 404 before its page is read
        example = document["paths"]["/v1/sessions"]["post"]["requestBody"]["content"]["application/json"]["example"]
        started = await client.post("/v1/sessions", json=example)
        concrete = path.replace("{session_id}", started.json()["session"]["id"])
    negative = await client.get(concrete, params={"pageSize": -1})
    assert _refused_naming(negative, "page"), (path, negative.text)
    if refused_above is not None:
        too_many = await client.get(concrete, params={"pageSize": refused_above + 1})
        assert _refused_naming(too_many, "page"), (path, too_many.text)


async def test_session_ids_are_stated_as_uuids_and_enforced(client, document):
    for path, item in document["paths"].items():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                if parameter["name"] == "session_id":
                    assert parameter["schema"]["format"] == "uuid", path
    answer = await client.get("/v1/sessions/not-a-uuid")
    assert _refused_naming(answer, "session"), answer.text


@pytest.mark.parametrize(("operation", "fields"), sorted(REQUIRED_BODY_FIELDS.items()))
async def test_required_body_fields_are_stated_and_enforced(client, document, operation, fields):
    method, path = operation
    schema = resolved(document, document["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"])
    for field in fields:
        assert field in schema["required"] and schema["properties"][field]["minLength"] == 1
        answer = await client.request(method.upper(), path, json={})
        assert _refused_naming(answer, field), (path, answer.text)


async def test_a_body_id_must_equal_the_path_id_and_the_document_says_so(client, document):
    stated = {
        path
        for path, item in document["paths"].items()
        for operation in item.values()
        if "the path's" in operation.get("requestBody", {}).get("description", "")
    }
    assert {
        "/v1/sessions/{session_id}:end",
        "/v1/sessions/{session_id}/turns",
        "/v1/sessions/{session_id}/turns:import",
        "/v1/observations/{observation_id}:confirm",
        "/v1/observations/{observation_id}:contradict",
        "/v1/engagement/hypotheses/{hypothesis_id}:revise",
        "/v1/engagement/unknowns/{unknown_id}:resolve",
    } <= stated
    end = document["paths"]["/v1/sessions/{session_id}:end"]["post"]["requestBody"]
    end_schema = resolved(document, end["content"]["application/json"]["schema"])
    assert "a different value is refused" in end_schema["properties"]["id"]["description"]
    answer = await client.post(f"/v1/sessions/{uuid.uuid4()}:end", json={"id": str(uuid.uuid4())})
    assert _refused_naming(answer, "id"), answer.text


async def test_each_operation_takes_a_credential_exactly_when_the_document_says_so(gateway, document):
    """Without a credential, an operation whose ``security`` names the bearer scheme is a 401 and one
    whose ``security`` is empty is served (the probes and metrics)."""
    checked = 0
    async with asgi_client(gateway) as anonymous:
        for path, item in document["paths"].items():
            for method, operation in item.items():
                concrete = path
                for parameter in operation.get("parameters", []):
                    if parameter["in"] == "path":
                        concrete = concrete.replace(f"{{{parameter['name']}}}", str(parameter["example"]))
                answer = await anonymous.request(
                    method.upper(), concrete, json={} if "requestBody" in operation else None
                )
                if operation["security"]:
                    assert operation["security"] == [{"bearer": operation["security"][0]["bearer"]}]
                    assert answer.status_code == 401, (method, path, answer.status_code)
                    assert answer.headers["www-authenticate"].startswith("Bearer")
                else:
                    assert answer.status_code in (200, 503), (method, path, answer.status_code)
                checked += 1
    assert checked == sum(len(item) for item in document["paths"].values())
