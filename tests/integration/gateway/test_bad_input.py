"""Bad input is a 400 that names the field and the rule, never a 500.

- Item 4: a body nested about a thousand levels deep (arrays or objects, in ``memories``, in
  ``metadata``, in a search body) used to exhaust the parser's stack (RecursionError → 500). Every
  route that takes a body, enumerated from the app, now answers 400 naming ``body`` for a body
  nested deeper than the limit or larger than ``LORE_MAX_BODY_BYTES``.
- Item 5: each message reproduced in the issue now names the indexed field and its rule; NUL
  (U+0000) is refused, naming the field, in every text field (memories, turns, metadata keys and
  values, observations, search queries, query strings); a service that cannot be reached or answers
  UNAVAILABLE is a 503 naming the service, with ``Retry-After``, and no address or transport text
  (the log keeps them).
- Every string parsed safely (lore_runtime.text_rules): an unpaired surrogate anywhere in a body
  (every enum field of every route, map keys, metadata values, a tool result) is a 400 naming the
  field, never a 500; ids (user, agent, team, session, request ids, idempotency keys) refuse control
  and bidirectional characters, and every field is bounded (entities, request ids included), on
  REST and on a direct gRPC call; after any 4xx or 5xx the keep-alive connection stays usable.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager

import grpc
import httpx
import pytest
import uvicorn
from gateway_svc.api.json.json_limits import DEFAULT_MAX_DEPTH, depth_of
from gateway_svc.config import Settings
from gateway_svc.domain.credentials import ALL_SCOPES
from gateway_svc.server import create_app
from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_runtime import errors, grpc_errors
from lore_runtime.request_context import RequestContext
from lore_runtime.settings import load_settings
from lore_runtime.text_rules import ID_CHARACTERS_RULE, MAX_ID_CHARS, SURROGATE_RULE

from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.integration.gateway.conftest import _create_key, asgi_client, gateway_settings
from tests.polling import eventually

BODY_LIMIT = 65_536
DEPTH = 1_000  # what the issue sent
# "operator" may not be one of ALL_SCOPES (store-wide operations): asked for too.
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


async def test_a_field_given_null_is_read_as_left_out_but_not_an_item_or_a_map_value(strict):
    """proto3's JSON mapping, as every request body's description says."""
    memory = {
        "content": "Null is left out.",
        "memoryType": "MEMORY_TYPE_FACT",
        "scope": {"userId": "u-null", "teamId": None},
        "importance": None,
    }

    stored = await strict.post("/v1/memories", json={"memories": [memory], "requestId": None})
    searched = await strict.post("/v1/memories:search", json={"query": "left out", "k": None, "scope": memory["scope"]})
    an_item = await strict.post("/v1/memories", json={"memories": [memory, None]})
    a_value = await strict.post("/v1/memories", json={"memories": [{**memory, "metadata": {"k": None}}]})

    assert stored.status_code == 200, stored.text
    assert stored.json()["memories"][0]["scope"]["teamId"] == ""
    assert searched.status_code == 200, searched.text
    assert _refused(an_item, "memories[1]") == "invalid memories[1]: must be a JSON object"
    assert _refused(a_value, "memories[0].metadata.k") == "invalid memories[0].metadata.k: must not be null"


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


def _enum_fields(schema: dict, components: dict, path: str = "", depth: int = 0) -> list[str]:
    """The JSON path (``memories[0].memoryType``) of every enum-valued field a request schema holds."""
    while "$ref" in schema or "allOf" in schema:  # a named schema, or a rule's wrapper of one
        schema = components[schema["$ref"].rsplit("/", 1)[-1]] if "$ref" in schema else schema["allOf"][0]
    if "enum" in schema:
        return [path]
    if depth > 6:
        return []
    found = _enum_fields(schema["items"], components, f"{path}[0]", depth + 1) if "items" in schema else []
    for name, member in (schema.get("properties") or {}).items():
        found += _enum_fields(member, components, f"{path}.{name}" if path else name, depth + 1)
    return found


def _every_enum_field() -> list[tuple[str, str, str]]:
    """(method, path, field) of every enum field of every documented request body, read at collection."""
    document = _placeholder_app().openapi()
    components = document["components"]["schemas"]
    return sorted(
        (method.upper(), path, field)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if "requestBody" in operation
        for field in _enum_fields(operation["requestBody"]["content"]["application/json"]["schema"], components)
    )


ENUM_FIELDS = _every_enum_field()


def _body_with(field: str, value: object) -> dict:
    """A body holding only ``value`` at the JSON path ``field`` (``a[0].b``: a list of one object)."""
    body: dict = {}
    here = body
    parts = field.split(".")
    for index, part in enumerate(parts):
        name, listed = part.removesuffix("[0]"), part.endswith("[0]")
        last = index == len(parts) - 1
        inner = value if last else {}
        here[name] = [inner] if listed else inner
        here = inner
    return body


def test_the_enum_fields_cover_the_reported_operations():
    operations = {(method, path) for method, path, _ in ENUM_FIELDS}
    assert len(operations) >= 11, operations  # the issue found eleven operations with enum fields
    fields = {field.rsplit(".", 1)[-1] for _, _, field in ENUM_FIELDS}
    assert {"memoryType", "kind", "stance", "sourceType", "role"} <= fields, fields


@pytest.mark.parametrize(("method", "path", "field"), ENUM_FIELDS)
async def test_an_unpaired_surrogate_in_any_enum_field_is_400_naming_it(strict, method, path, field):
    body = json.dumps(_body_with(field, "\ud800"))  # ASCII JSON: the escape as a client writes it

    response = await strict.request(method, _concrete(path), content=body, headers={"content-type": "application/json"})

    assert _refused(response, field) == f"invalid {field}: {SURROGATE_RULE}"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/v1/memories", {"memories": [{"content": "x", "metadata": {"\ud800": "v"}}]}, "memories[0].metadata"),
        ("/v1/memories", {"memories": [{"content": "x", "metadata": {"k": "\udfff"}}]}, "memories[0].metadata.k"),
        ("/v1/memories", {"memories": [{"content": "a\ud800b", "scope": {"userId": "u"}}]}, "memories[0].content"),
        ("/v1/memories", {"memories": [{"content": "x", "entities": ["\udbff"]}]}, "memories[0].entities[0]"),
        ("/v1/memories:search", {"query": "x", "scope": {"userId": "\ud800"}}, "scope.userId"),
        ("/v1/memories:search", {"\ud800": "x"}, "body"),
        (
            "/v1/sessions/{id}/turns",
            {"turn": {"role": "TURN_ROLE_TOOL", "content": "x", "toolInteractions": [{"result": {"a": ["\ud800"]}}]}},
            "turn.toolInteractions[0].result.a[0]",
        ),
    ],
    ids=["map-key", "metadata-value", "content", "entity", "user-id", "top-level-key", "tool-result"],
)
async def test_an_unpaired_surrogate_anywhere_in_a_body_is_400_naming_it(strict, path, body, field):
    response = await strict.post(
        _concrete(path.replace("{id}", "{session_id}")),
        content=json.dumps(body),
        headers={"content-type": "application/json"},
    )

    assert SURROGATE_RULE in _refused(response, field)


def _raw_json(body: dict) -> str:
    """``body`` as JSON whose non-ASCII text is written as is (a surrogate as UTF-8 bytes that
    ``surrogatepass`` decodes)."""
    return json.dumps(body, ensure_ascii=False)


async def test_a_surrogate_written_as_raw_bytes_is_400_too(strict):
    content = _raw_json({"memories": [{"content": "x", "memoryType": "\ud800"}]}).encode("utf-8", "surrogatepass")

    response = await strict.post("/v1/memories", content=content, headers={"content-type": "application/json"})

    assert _refused(response, "memories[0].memoryType") == f"invalid memories[0].memoryType: {SURROGATE_RULE}"


@pytest.mark.parametrize(
    "user_id",
    ["alice\nbob", "alice\u202e", "\u2066alice\u2069", "alice\u200fx", "tab\tbed", "zw\u200bsp"],
    ids=["newline", "RLO", "isolate", "RLM", "tab", "zero-width"],
)
async def test_an_id_with_a_control_or_bidi_character_is_400_on_every_kind_of_route(strict, user_id):
    session = (await strict.post("/v1/sessions", json={"scope": {"userId": "u-ids"}})).json()["session"]
    cases = [
        (
            "POST",
            "/v1/memories",
            {"memories": [{"content": "x", "scope": {"userId": user_id}}]},
            "memories[0].scope.userId",
        ),
        ("POST", "/v1/memories:search", {"query": "x", "scope": {"userId": user_id}}, "scope.userId"),
        ("POST", "/v1/sessions", {"scope": {"userId": user_id}}, "scope.userId"),
        ("POST", "/v1/sessions", {"scope": {"userId": "u"}, "requestId": user_id}, "requestId"),
        ("POST", "/v1/subjects:forget", {"subject": {"userId": user_id}}, "subject.userId"),
        (
            "POST",
            f"/v1/sessions/{session['id']}/turns",
            {"turn": {"role": "TURN_ROLE_USER", "content": "hi", "idempotencyKey": user_id}},
            "turn.idempotencyKey",
        ),
    ]
    for method, path, body, field in cases:
        response = await strict.request(method, path, json=body)
        assert _refused(response, field).endswith(ID_CHARACTERS_RULE), (path, response.text)

    listed = await strict.get("/v1/memories", params={"userId": user_id})
    assert _refused(listed, "scope.userId").endswith(ID_CHARACTERS_RULE)


async def test_every_field_is_bounded_entities_and_request_ids_included(client_for):
    """The issue's sizes, under the default body limit (2 MiB): each is refused naming its field."""
    client = await client_for(f"org-bounds-{uuid.uuid4().hex[:12]}")
    huge = await client.post("/v1/memories", json={"memories": [{"content": "x", "entities": ["e" * 100_000]}]})
    entity = await client.post(
        "/v1/memories",
        json={"memories": [{"content": "x", "memoryType": "MEMORY_TYPE_FACT", "entities": ["ok", "e" * 201]}]},
    )
    request_id = await client.post("/v1/sessions", json={"scope": {"userId": "u"}, "requestId": "r" * 5_000})
    user_id = await client.post(
        "/v1/memories",
        json={"memories": [{"content": "x", "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": "u" * 129}}]},
    )

    assert _refused(huge, "memories[0].entities[0]").endswith("at most 65536 characters")
    assert _refused(entity, "memories[0].entities[1]").endswith("at most 200 characters")
    assert _refused(request_id, "requestId").endswith(f"at most {MAX_ID_CHARS} characters")
    assert _refused(user_id, "memories[0].scope.userId").endswith("at most 128 characters")
    assert (await client.get("/v1/memories")).json()["memories"] == [], "nothing of a refused request was stored"


async def test_a_direct_grpc_caller_is_held_to_the_same_rule(services):
    """No gateway in front: the memory service itself answers INVALID_ARGUMENT naming the field."""
    stub = memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)
    caller = RequestContext(org_id=f"org-grpc-{uuid.uuid4().hex[:12]}", principal="tester").metadata()
    cases = [
        (scope_pb2.Scope(user_id="alice\u202e"), "", "memories[0].scope.user_id", ID_CHARACTERS_RULE),
        (scope_pb2.Scope(user_id="a\nb"), "", "memories[0].scope.user_id", ID_CHARACTERS_RULE),
        (scope_pb2.Scope(user_id="u"), "k" * 5_000, "memories[0].idempotency_key", f"at most {MAX_ID_CHARS}"),
    ]
    for scope, key, field, rule in cases:
        request = memory_service_pb2.RememberRequest(
            memories=[memory_service_pb2.MemoryInput(content="x", scope=scope, idempotency_key=key)]
        )
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.Remember(request, metadata=caller, timeout=10)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert refused.value.details().startswith(f"invalid {field}: {rule}"), refused.value.details()
    listed = await stub.ListMemories(memory_service_pb2.ListMemoriesRequest(), metadata=caller, timeout=10)
    assert list(listed.memories) == [], "no bad id was stored"


class PeerPorts:
    """ASGI middleware: the client port of each HTTP request, i.e. which TCP connection carried it."""

    def __init__(self, app) -> None:
        self.app = app
        self.ports: list[int] = []

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            self.ports.append(scope["client"][1])
        await self.app(scope, receive, send)


async def _boom() -> None:
    raise RuntimeError("an unexpected failure inside a route")


@pytest.fixture
async def served(services, migrated_pg, redis_url):
    """A gateway on a real port (uvicorn on this event loop, where its gRPC channels live), with one
    extra route that fails unexpectedly, and a key of a fresh org."""
    app = create_app(gateway_settings(services, migrated_pg, redis_url, LORE_RATE_LIMIT="0"))
    app.add_api_route("/test/unexpected", _boom, methods=["GET"], tags=["test"], include_in_schema=False)
    recorder = PeerPorts(app)
    key = await _create_key(migrated_pg.owner_dsn, f"org-keepalive-{uuid.uuid4().hex[:12]}")
    listener = socket.create_server(("127.0.0.1", 0))
    config = uvicorn.Config(recorder, log_level="critical", access_log=False, lifespan="off", ws="none")
    server = uvicorn.Server(config)
    async with app.router.lifespan_context(app):
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        await eventually(lambda: server.started or serving.done(), what="the gateway serving", interval=0.01)
        assert not serving.done(), "the gateway did not start serving"
        try:
            yield f"http://127.0.0.1:{listener.getsockname()[1]}", key, recorder
        finally:
            server.should_exit = True
            await serving
            listener.close()


async def test_the_keep_alive_connection_stays_usable_after_a_4xx_and_a_5xx(served):
    url, key, recorder = served
    headers = {"Authorization": f"Bearer {key}", "content-type": "application/json"}
    surrogate = '{"memories": [{"content": "x", "memoryType": "\\ud800"}]}'
    async with httpx.AsyncClient(base_url=url, headers=headers, limits=httpx.Limits(max_connections=1)) as client:
        refused = await client.post("/v1/memories", content=surrogate)
        after_refused = await client.post("/v1/memories:search", json={"query": "x", "scope": {"userId": "u"}})
        failed = await client.get("/test/unexpected")
        after_failed = await client.post("/v1/memories:search", json={"query": "x", "scope": {"userId": "u"}})

    assert refused.status_code == 400, refused.text
    assert failed.status_code == 500 and failed.json()["error"]["message"] == "internal error"
    assert failed.json()["error"]["requestId"] == failed.headers["x-request-id"]
    assert after_refused.status_code == after_failed.status_code == 200
    assert len(recorder.ports) == 4 and len(set(recorder.ports)) == 1, f"connections used: {recorder.ports}"


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
            with caplog.at_level(logging.WARNING, logger="gateway_svc.api.http.errors"):
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
            with caplog.at_level(logging.WARNING, logger="gateway_svc.api.http.errors"):
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
