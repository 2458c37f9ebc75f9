"""Bad input is a 400 that names the field and the rule, never a 500 (issue #19 items 4 and 5).

- Item 4: a body nested about a thousand levels deep (arrays or objects, in ``memories``, in
  ``metadata``, in a search body) used to exhaust the parser's stack (RecursionError → 500). Every
  route that takes a body, enumerated from the app, now answers 400 naming ``body`` for a body
  nested deeper than the limit or larger than ``LORE_MAX_BODY_BYTES``.
- Item 5: each message reproduced in the issue now names the indexed field and its rule; NUL
  (U+0000) is refused, naming the field, in every text field (memories, turns, metadata keys and
  values, observations, search queries, query strings); a service that cannot be reached or answers
  UNAVAILABLE is a 503 naming the service, with ``Retry-After``, and no address or transport text
  (the log keeps them).
"""

from __future__ import annotations

import json
import logging
import socket
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager

import grpc
import httpx
import pytest
from gateway_svc.api.json_limits import DEFAULT_MAX_DEPTH, depth_of
from gateway_svc.app import create_app
from gateway_svc.config import Settings
from gateway_svc.domain.credentials import ALL_SCOPES
from lore.memory.v1 import memory_service_pb2_grpc
from lore_runtime import errors, grpc_errors
from lore_runtime.settings import load_settings

from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.integration.gateway.conftest import _create_key, asgi_client, gateway_settings

BODY_LIMIT = 65_536
DEPTH = 1_000  # what the issue sent
# "operator" may not be one of ALL_SCOPES (store-wide operations, issue #19 item 7): asked for too.
SCOPES = (*ALL_SCOPES, "operator")


def _placeholder_app():
    """An app built for its routes only (never started): its OpenAPI depends on no setting."""
    environ = {**SERVICE_TOKEN_ENV, "LORE_DATABASE_URL": "postgresql://collect@localhost/unused"}
    return create_app(load_settings(Settings, environ))


def _operations_with_a_body() -> list[tuple[str, str]]:
    """(method, path) of every operation the app documents with a request body, read at collection."""
    app = _placeholder_app()
    return sorted(
        (method.upper(), path)
        for path, item in app.openapi()["paths"].items()
        for method, operation in item.items()
        if "requestBody" in operation
    )


def _unwritten_methods() -> list[tuple[str, str]]:
    """Every POST/PATCH/PUT route of the app, documented or not: none may take a body unseen."""
    app = _placeholder_app()
    return sorted(
        (method, route.path)
        for route in app.routes
        for method in getattr(route, "methods", ()) or ()
        if method in ("POST", "PATCH", "PUT")
    )


# Routes outside the OpenAPI document that read a body all the same: held to the same limits.
UNDOCUMENTED_WITH_A_BODY = [("POST", "/mcp")]
BODY_OPERATIONS = _operations_with_a_body() + UNDOCUMENTED_WITH_A_BODY


def _concrete(path: str) -> str:
    """The path with a fresh id in each parameter: the body is refused before any id is looked up."""
    while "{" in path:
        start, end = path.index("{"), path.index("}")
        path = path[:start] + str(uuid.uuid4()) + path[end + 1 :]
    return path


@pytest.fixture(scope="module")
async def strict(services, migrated_pg, redis_url):
    """A gateway of its own with a small body limit (the depth limit is the default), no rate
    limits, and a client of a fresh org holding every scope."""
    app = create_app(
        gateway_settings(services, migrated_pg, redis_url, LORE_MAX_BODY_BYTES=str(BODY_LIMIT), LORE_RATE_LIMIT="0")
    )
    key = await _create_key(migrated_pg.owner_dsn, f"org-bad-input-{uuid.uuid4().hex[:12]}", SCOPES)
    async with app.router.lifespan_context(app), asgi_client(app, key) as client:
        yield client


def _refused(response: httpx.Response, field: str) -> str:
    """The 400's message, once checked: the error body of every route, naming ``field``."""
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT" and error["code"] == 400
    assert error["details"][0]["metadata"]["field"] == field, error
    assert error["message"].startswith(f"invalid {field}: "), error
    return error["message"]


def test_every_route_that_takes_a_body_documents_it():
    """The parametrisation below covers every route with a body: a route that reads one without
    documenting it would escape it."""
    documented = set(BODY_OPERATIONS)
    bodyless = {("POST", "/v1/admin/decay:run"), ("POST", "/v1/admin/consolidation:run")} - documented
    assert set(_unwritten_methods()) - documented <= bodyless, set(_unwritten_methods()) - documented
    assert len(BODY_OPERATIONS) >= 20


@pytest.mark.parametrize(("method", "path"), BODY_OPERATIONS)
async def test_a_body_nested_a_thousand_deep_is_400_naming_body_on_every_route(strict, method, path):
    arrays = '{"x": ' + "[" * DEPTH + "]" * DEPTH + "}"
    objects = "{" + '"a": {' * DEPTH + "}" * DEPTH + "}"
    for body in (arrays, objects):
        response = await strict.request(
            method, _concrete(path), content=body, headers={"content-type": "application/json"}
        )
        assert "nested deeper than 32 levels" in _refused(response, "body")
        assert response.json()["error"]["details"][0]["reason"] == "BODY_TOO_DEEP"


@pytest.mark.parametrize(("method", "path"), BODY_OPERATIONS)
async def test_a_body_larger_than_the_limit_is_400_naming_body_on_every_route(strict, method, path):
    body = '{"x": "' + "a" * BODY_LIMIT + '"}'
    response = await strict.request(method, _concrete(path), content=body, headers={"content-type": "application/json"})
    assert f"larger than {BODY_LIMIT} bytes" in _refused(response, "body")


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/memories", '{"memories": ' + "[" * DEPTH + "]" * DEPTH + "}"),
        (
            "/v1/memories",
            '{"memories": [{"content": "x", "scope": {"userId": "u"}, "metadata": '
            + '{"a": ' * DEPTH
            + '"b"'
            + "}" * DEPTH
            + "}]}",
        ),
        ("/v1/memories:search", '{"query": "x", "scope": ' + '{"userId": ' * DEPTH + '"u"' + "}" * DEPTH + "}"),
        ("/v1/memories:search", '{"query": ' + "[" * DEPTH + "]" * DEPTH + "}"),
    ],
    ids=["memories", "metadata", "search-object", "search-array"],
)
async def test_the_reported_deep_bodies_are_400_not_500(strict, path, body):
    response = await strict.post(path, content=body, headers={"content-type": "application/json"})
    _refused(response, "body")


async def test_nesting_up_to_the_limit_is_stored_and_brackets_in_strings_do_not_count(strict):
    """A tool result (a Struct) nested to exactly the limit is taken: the limit stops stacks, not data."""
    session = (await strict.post("/v1/sessions", json={"scope": {"userId": "u-deep"}})).json()["session"]
    result: dict = {"leaf": "[[[[ {{{{ " * 50}
    for _ in range(DEFAULT_MAX_DEPTH - 6):  # under body, turns, a turn, toolInteractions, one, result
        result = {"next": result}
    turn = {
        "role": "TURN_ROLE_TOOL",
        "content": "Looked it up.",
        "createdAt": "2023-05-08T13:56:00Z",
        "toolInteractions": [{"toolName": "lookup", "result": result, "summary": "found"}],
    }
    body = json.dumps({"turns": [turn]})
    assert depth_of(body) == DEFAULT_MAX_DEPTH

    imported = await strict.post(f"/v1/sessions/{session['id']}/turns:import", json={"turns": [turn]})
    deeper = await strict.post(
        f"/v1/sessions/{session['id']}/turns:import",
        json={"turns": [{**turn, "toolInteractions": [{"toolName": "lookup", "result": {"up": result}}]}]},
    )

    assert imported.status_code == 200, imported.text
    assert imported.json()["imported"] == 1
    assert _refused(deeper, "body") == f"invalid body: nested deeper than {DEFAULT_MAX_DEPTH} levels"


async def test_a_timestamp_without_an_offset_names_the_indexed_field_and_the_rule(strict):
    memories = [
        {"content": "Fine.", "scope": {"userId": "u"}, "validAt": "2023-05-08T13:56:00Z"},
        {"content": "No offset.", "scope": {"userId": "u"}, "validAt": "2023-05-08T13:56:00"},
    ]

    response = await strict.post("/v1/memories", json={"memories": memories})

    message = _refused(response, "memories[1].validAt")
    assert message == (
        "invalid memories[1].validAt: must be an RFC 3339 timestamp with an offset, e.g. 2023-05-08T13:56:00Z"
    )


async def test_a_wrong_type_names_the_index_and_the_type(strict):
    memories = [{"content": "Fine.", "scope": {"userId": "u"}}, {"content": 123, "scope": {"userId": "u"}}]

    response = await strict.post("/v1/memories", json={"memories": memories})

    assert _refused(response, "memories[1].content") == "invalid memories[1].content: must be a string"


async def test_a_number_that_is_not_one_says_so_in_a_body_and_in_a_query(strict):
    body = await strict.post("/v1/memories:search", json={"query": "x", "k": "ten", "scope": {"userId": "u"}})
    query = await strict.get("/v1/memories", params={"userId": "u", "pageSize": "ten"})
    too_big = await strict.post("/v1/memories:search", json={"query": "x", "k": 10**12, "scope": {"userId": "u"}})

    assert _refused(body, "k") == "invalid k: must be an integer"
    assert _refused(query, "pageSize") == "invalid pageSize: must be an integer"
    assert _refused(too_big, "k") == "invalid k: must be an integer from -2147483648 to 2147483647"


async def test_an_unknown_field_or_enum_value_names_what_is_accepted(strict):
    unknown = await strict.post("/v1/memories", json={"memories": [{"contents": "x", "scope": {"userId": "u"}}]})
    enum = await strict.post(
        "/v1/memories", json={"memories": [{"content": "x", "memoryType": "FACT", "scope": {"userId": "u"}}]}
    )

    assert "unknown field; the fields here are content, memoryType" in _refused(unknown, "memories[0].contents")
    assert "must be one of MEMORY_TYPE_UNSPECIFIED, MEMORY_TYPE_FACT" in _refused(enum, "memories[0].memoryType")


async def test_nul_is_refused_naming_the_field_in_every_kind_of_text(strict):
    """One rule, wherever the text goes: it used to be kept (memories), stripped (turns) or refused
    without a field name (turn metadata)."""
    session = (await strict.post("/v1/sessions", json={"scope": {"userId": "u-nul"}})).json()["session"]
    turns = f"/v1/sessions/{session['id']}/turns"
    memory = {"content": "fine", "scope": {"userId": "u-nul"}}
    observe = {
        "agentId": "agent-1",
        "candidate": {
            "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
            "subjectType": "SUBJECT_TYPE_ENTITY",
            "subjectId": "user-42",
            "slot": "database",
            "summary": "Prefers\x00Postgres.",
        },
    }
    cases = [
        ("POST", "/v1/memories", {"memories": [memory, {**memory, "content": "a\x00b"}]}, "memories[1].content"),
        ("POST", "/v1/memories", {"memories": [{**memory, "metadata": {"k": "v\x00"}}]}, "memories[0].metadata.k"),
        ("POST", "/v1/memories", {"memories": [{**memory, "metadata": {"k\x00": "v"}}]}, "memories[0].metadata"),
        ("POST", turns, {"turn": {"role": "TURN_ROLE_USER", "content": "hi\x00there"}}, "turn.content"),
        (
            "POST",
            turns,
            {"turn": {"role": "TURN_ROLE_USER", "content": "hi", "metadata": {"m": "\x00"}}},
            "turn.metadata.m",
        ),
        ("POST", "/v1/observations:observe", observe, "candidate.summary"),
        ("POST", "/v1/memories:search", {"query": "x\x00", "scope": {"userId": "u"}}, "query"),
        ("POST", "/v1/observations:search", {"query": "x\x00"}, "query"),
    ]
    for method, path, body, field in cases:
        response = await strict.request(method, path, json=body)
        assert _refused(response, field).endswith("must not contain U+0000 (NUL)"), (path, body)

    in_query = await strict.get("/v1/memories", params={"userId": "u\x00"})
    assert _refused(in_query, "scope.userId").endswith("must not contain U+0000 (NUL)")
    listed = await strict.get("/v1/memories", params={"userId": "u-nul"})
    assert listed.json()["memories"] == [], "nothing of a refused batch was stored"
    transcript = await strict.get(f"{turns}")
    assert transcript.json()["turns"] == [], "no turn was stored with its NUL stripped"


class _StoreDown(memory_service_pb2_grpc.MemoryServiceServicer):
    """A memory service whose store is down, saying so with the address, as a real one would."""

    async def Recall(self, request, context):
        error = errors.DependencyUnavailable(
            "Redis is not reachable: Error 111 connecting to 10.9.8.7:6379. Connection refused.",
            reason="REDIS_UNAVAILABLE",
        )
        await context.abort_with_status(grpc_errors.to_status(error))


async def _gateway_with_memory_at(services, migrated_pg, redis_url, address: str, stack: AsyncExitStack):
    settings = gateway_settings(services, migrated_pg, redis_url, LORE_MEMORY_ADDR=address)
    app = create_app(settings)
    await stack.enter_async_context(app.router.lifespan_context(app))
    key = await _create_key(migrated_pg.owner_dsn, f"org-503-{uuid.uuid4().hex[:12]}")
    return await stack.enter_async_context(asgi_client(app, key))


def _unavailable(response: httpx.Response, service: str) -> dict:
    assert response.status_code == 503, response.text
    assert response.headers["Retry-After"].isdigit()
    error = response.json()["error"]
    assert error["status"] == "UNAVAILABLE"
    assert error["message"] == f"the {service} service is unavailable; retry later"
    assert error["details"][0]["metadata"]["service"] == service
    for leak in ("127.0.0.1", "10.9.8.7", "ipv4", "Failed to connect", "Error 111", "connecting to"):
        assert leak not in response.text, leak
    return error


async def test_an_unreachable_service_is_a_503_naming_it_without_address(services, migrated_pg, redis_url, caplog):
    with unused_address() as address:
        async with AsyncExitStack() as stack:
            client = await _gateway_with_memory_at(services, migrated_pg, redis_url, address, stack)
            with caplog.at_level(logging.WARNING, logger="gateway_svc.api.errors"):
                recalled = await client.post("/v1/memories:search", json={"query": "x", "scope": {"userId": "u"}})
                listed = await client.get("/v1/memories", params={"userId": "u"})
                sessions = await client.get("/v1/sessions")  # the agent is up: only memory routes fail

    for response in (recalled, listed):
        error = _unavailable(response, "memory")
        assert error["details"][0]["reason"] == "SERVICE_UNAVAILABLE"
    assert sessions.status_code == 200
    assert any(address in record.getMessage() for record in caplog.records), "the log keeps the transport text"


async def test_a_service_whose_store_is_down_is_a_503_naming_it_and_keeping_its_reason(
    services, migrated_pg, redis_url, caplog
):
    server = grpc.aio.server()
    memory_service_pb2_grpc.add_MemoryServiceServicer_to_server(_StoreDown(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with AsyncExitStack() as stack:
            client = await _gateway_with_memory_at(services, migrated_pg, redis_url, f"127.0.0.1:{port}", stack)
            with caplog.at_level(logging.WARNING, logger="gateway_svc.api.errors"):
                response = await client.post("/v1/memories:search", json={"query": "x", "scope": {"userId": "u"}})
    finally:
        await server.stop(None)

    error = _unavailable(response, "memory")
    assert error["details"][0]["reason"] == "REDIS_UNAVAILABLE"
    assert any("10.9.8.7:6379" in record.getMessage() for record in caplog.records)


@contextmanager
def unused_address() -> Iterator[str]:
    """An address nothing listens on: a port bound, so no one else takes it, but never listened on."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield f"127.0.0.1:{bound.getsockname()[1]}"
