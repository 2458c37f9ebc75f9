"""How ``LoreClient`` builds requests (proto3 JSON: camelCase, full enum names from short forms,
the Idempotency-Key header), reads errors, retries, and pages — against ``httpx.MockTransport``."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest
from lore_client import LoreApiError, LoreClient, NewEvidence, NewMemory, NewTurn, Scope, enum_name


class Recorder:
    """A mock gateway: records each request and answers from a queue (or ``{}``)."""

    def __init__(self, *answers: httpx.Response) -> None:
        self.requests: list[httpx.Request] = []
        self.answers = list(answers)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answers.pop(0) if self.answers else httpx.Response(200, json={})

    def body(self, n: int = -1) -> dict:
        return json.loads(self.requests[n].content)


def client_of(recorder: Recorder, **options) -> LoreClient:
    return LoreClient("http://lore.test", "k-1", transport=httpx.MockTransport(recorder), **options)


def test_short_enum_forms_map_to_full_names_and_full_names_pass_unchanged():
    assert enum_name("MEMORY_TYPE", "fact") == "MEMORY_TYPE_FACT"
    assert enum_name("MEMORY_TYPE", "tool-interaction") == "MEMORY_TYPE_TOOL_INTERACTION"
    assert enum_name("MEMORY_TYPE", "MEMORY_TYPE_MESSAGE") == "MEMORY_TYPE_MESSAGE"
    assert enum_name("TURN_ROLE", "User") == "TURN_ROLE_USER"


async def test_remember_sends_the_documented_proto3_json_with_the_bearer_key():
    recorder = Recorder()
    async with client_of(recorder) as lore:
        await lore.remember(
            NewMemory(
                content="Noor volunteered at the animal shelter for the first time yesterday.",
                memory_type="message",
                valid_at=datetime(2023, 5, 8, 13, 56, tzinfo=UTC),
                metadata={"turn_ref": "D1:3"},
                idempotency_key="u-noor/D1:3",
                session_id="s-shelter",
            ),
            scope={"user_id": "u-noor"},
            request_id="r-1",
        )

    request = recorder.requests[0]
    assert (request.method, request.url.path) == ("POST", "/v1/memories")
    assert request.headers["Authorization"] == "Bearer k-1"
    assert request.headers["Content-Type"] == "application/json"
    assert "Idempotency-Key" not in request.headers
    assert recorder.body() == {
        "memories": [
            {
                "content": "Noor volunteered at the animal shelter for the first time yesterday.",
                "memoryType": "MEMORY_TYPE_MESSAGE",
                "scope": {"userId": "u-noor"},
                "validAt": "2023-05-08T13:56:00Z",
                "metadata": {"turn_ref": "D1:3"},
                "idempotencyKey": "u-noor/D1:3",
                "provenance": {"sessionId": "s-shelter"},
            }
        ],
        "requestId": "r-1",
    }


async def test_search_turns_observe_and_import_use_camel_case_and_full_enum_names():
    recorder = Recorder()
    async with client_of(recorder) as lore:
        await lore.search("tea?", "u-1", k=5, memory_types=["fact", "preference"], min_salience=0.0)
        await lore.process_turn("s/1", "I'm vegetarian.", turn_idempotency_key="m-1", idempotency_key="h-1")
        await lore.import_turns(
            "s-1", [NewTurn(content="Hi", role="assistant", created_at="2023-05-08T13:56:00Z", speaker="Aria")]
        )
        await lore.observe(
            "aria", kind="operator_preference", subject_id="user-42", slot="database", summary="Likes Postgres",
            evidence=[NewEvidence(source_id="turn-17", weight=1.0)],
        )  # fmt: skip

    search, turn, imported, observe = recorder.requests
    assert json.loads(search.content) == {
        "query": "tea?",
        "scope": {"userId": "u-1"},
        "k": 5,
        "memoryTypes": ["MEMORY_TYPE_FACT", "MEMORY_TYPE_PREFERENCE"],
        "minSalience": 0.0,
    }
    assert turn.url.raw_path == b"/v1/sessions/s%2F1/turns"  # ids are quoted, never path segments
    assert turn.headers["Idempotency-Key"] == "h-1"
    assert json.loads(turn.content) == {
        "turn": {"role": "TURN_ROLE_USER", "content": "I'm vegetarian.", "idempotencyKey": "m-1"}
    }
    assert json.loads(imported.content)["turns"] == [
        {"role": "TURN_ROLE_ASSISTANT", "content": "Hi", "createdAt": "2023-05-08T13:56:00Z", "speaker": "Aria"}
    ]
    assert json.loads(observe.content) == {
        "agentId": "aria",
        "candidate": {
            "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
            "subjectType": "SUBJECT_TYPE_ENTITY",
            "subjectId": "user-42",
            "slot": "database",
            "summary": "Likes Postgres",
            "evidence": [
                {
                    "stance": "EVIDENCE_STANCE_SUPPORT",
                    "weight": 1.0,
                    "sourceType": "SOURCE_TYPE_MESSAGE",
                    "sourceId": "turn-17",
                }
            ],
        },
    }


async def test_get_routes_put_the_request_in_the_query_string():
    recorder = Recorder()
    async with client_of(recorder) as lore:
        await lore.list_memories({"userId": "u-1", "agentId": "aria"}, memory_types=["fact", "opinion"], page_size=3)
        await lore.prime("u-1", initial_message="hello")
        await lore.query_observations(subject_id="user-42", kind="world_fact", status="active")

    memories, prime, observations = (request.url.params for request in recorder.requests)
    assert memories.multi_items() == [
        ("scope.userId", "u-1"),
        ("scope.agentId", "aria"),
        ("memoryTypes", "MEMORY_TYPE_FACT"),
        ("memoryTypes", "MEMORY_TYPE_OPINION"),
        ("pageSize", "3"),
    ]
    assert prime.multi_items() == [("scope.userId", "u-1"), ("initialMessage", "hello")]
    assert dict(observations) == {
        "subjectId": "user-42",
        "kind": "OBSERVATION_KIND_WORLD_FACT",
        "status": "OBSERVATION_STATUS_ACTIVE",
    }


async def test_update_memory_builds_the_update_mask_from_the_fields_given():
    recorder = Recorder(httpx.Response(200, json={"memory": {"id": "m-1", "importance": 0.9}}))
    async with client_of(recorder) as lore:
        memory = await lore.update_memory("m-1", importance=0.9, memory_type="insight")

    assert recorder.requests[0].method == "PATCH"
    assert recorder.body() == {
        "memory": {"memoryType": "MEMORY_TYPE_INSIGHT", "importance": 0.9},
        "updateMask": "memoryType,importance",
    }
    assert memory.id == "m-1" and memory.importance == 0.9


async def test_an_error_body_becomes_one_lore_api_error():
    body = {
        "error": {
            "code": 400,
            "status": "INVALID_ARGUMENT",
            "message": "invalid k: at most 100",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INVALID_ARGUMENT", "metadata": {}},
                {"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [{"field": "k"}]},
            ],
            "requestId": "req-9",
        }
    }
    recorder = Recorder(httpx.Response(400, json=body), httpx.Response(502, text="bad gateway"))
    async with client_of(recorder) as lore:
        with pytest.raises(LoreApiError) as invalid:
            await lore.search("x", k=1000)
        with pytest.raises(LoreApiError) as proxy:
            await lore.get_memory("m-1")

    error = invalid.value
    assert (error.status, error.code, error.reason, error.field, error.request_id) == (
        400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", "k", "req-9",
    )  # fmt: skip
    assert error.message == "invalid k: at most 100" and error.retry_after is None
    assert (proxy.value.status, proxy.value.code) == (502, "UNAVAILABLE")


def _limited() -> httpx.Response:
    error = {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "slow down", "details": [], "requestId": "r"}
    return httpx.Response(429, json={"error": error}, headers={"Retry-After": "2"})


async def test_429_is_retried_after_retry_after_only_for_idempotent_requests():
    recorder = Recorder(_limited(), httpx.Response(200, json={"sessions": [{"id": "s-1"}]}), _limited(), _limited())
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async with client_of(recorder) as lore:
        lore._sleep = sleep
        page = await lore.list_sessions()  # GET: retried
        with pytest.raises(LoreApiError) as refused:
            await lore.remember(NewMemory(content="x"))  # POST without a key: never retried

    assert [s.id for s in page] == ["s-1"] and slept == [2.0]
    assert refused.value.status == 429 and refused.value.retry_after == 2.0
    assert len(recorder.requests) == 3


async def test_retries_are_bounded_and_resend_the_same_bytes_and_key():
    unavailable = {"error": {"code": 503, "status": "UNAVAILABLE", "message": "retry", "details": []}}
    recorder = Recorder(*[httpx.Response(503, json=unavailable) for _ in range(5)])
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async with client_of(recorder, max_retries=2) as lore:
        lore._sleep = sleep
        with pytest.raises(LoreApiError) as failed:
            await lore.remember(NewMemory(content="x"), idempotency_key="k-1")

    assert failed.value.code == "UNAVAILABLE" and len(recorder.requests) == 3 and slept == [0.25, 0.5]
    assert len({request.content for request in recorder.requests}) == 1
    assert {request.headers["Idempotency-Key"] for request in recorder.requests} == {"k-1"}


async def test_iterators_follow_next_page_token_until_it_is_empty():
    pages = [
        httpx.Response(200, json={"memories": [{"id": "a"}, {"id": "b"}], "nextPageToken": "t1"}),
        httpx.Response(200, json={"memories": [{"id": "c"}], "nextPageToken": ""}),
    ]
    recorder = Recorder(*pages)
    async with client_of(recorder) as lore:
        seen = [memory.id async for memory in lore.iter_memories("u-1", page_size=2)]

    assert seen == ["a", "b", "c"]
    assert [request.url.params.get("pageToken") for request in recorder.requests] == [None, "t1"]


async def test_a_transport_failure_is_a_lore_api_error_too():
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    async with LoreClient("http://lore.test", transport=httpx.MockTransport(refuse)) as lore:
        with pytest.raises(LoreApiError) as failed:
            await lore.get_session("s-1")
    assert (failed.value.status, failed.value.code) == (0, "UNAVAILABLE")


async def test_scope_match_takes_short_forms_on_search_and_the_listings_and_is_left_out_when_unset():
    recorder = Recorder()
    async with client_of(recorder) as lore:
        await lore.search("tea?", {"userId": "u-1", "agentId": "aria"}, scope_match="context")
        await lore.search("tea?", "u-1")
        await lore.list_memories("u-1", scope_match="SCOPE_MATCH_CONTEXT", page_size=2)
        await lore.list_episodes("u-1", scope_match="context")
        await lore.list_open_threads({"user_id": "u-1", "team_id": "t-1"}, scope_match="Context", page_size=5)
        await lore.list_memories("u-1")

    search, plain, memories, episodes, threads, browse = recorder.requests
    assert json.loads(search.content) == {
        "query": "tea?",
        "scope": {"userId": "u-1", "agentId": "aria"},
        "scopeMatch": "SCOPE_MATCH_CONTEXT",
    }
    assert "scopeMatch" not in json.loads(plain.content)
    assert memories.url.params.multi_items() == [
        ("scope.userId", "u-1"),
        ("scopeMatch", "SCOPE_MATCH_CONTEXT"),
        ("pageSize", "2"),
    ]
    assert episodes.url.params.multi_items() == [("scope.userId", "u-1"), ("scopeMatch", "SCOPE_MATCH_CONTEXT")]
    assert threads.url.params.multi_items() == [
        ("scope.userId", "u-1"),
        ("scope.teamId", "t-1"),
        ("scopeMatch", "SCOPE_MATCH_CONTEXT"),
        ("pageSize", "5"),
    ]
    assert "scopeMatch" not in browse.url.params


async def test_iter_memories_passes_scope_match_to_every_page():
    pages = [
        httpx.Response(200, json={"memories": [{"id": "a"}], "nextPageToken": "t1"}),
        httpx.Response(200, json={"memories": [{"id": "b"}]}),
    ]
    recorder = Recorder(*pages)
    async with client_of(recorder) as lore:
        seen = [memory.id async for memory in lore.iter_memories("u-1", scope_match="context", page_size=1)]

    assert seen == ["a", "b"]
    assert [request.url.params.get("scopeMatch") for request in recorder.requests] == ["SCOPE_MATCH_CONTEXT"] * 2
    assert [request.url.params.get("pageToken") for request in recorder.requests] == [None, "t1"]


async def test_observe_sends_the_beliefs_scope_and_leaves_it_out_when_unset():
    recorder = Recorder()
    async with client_of(recorder) as lore:
        await lore.observe(
            "aria", kind="operator_preference", subject_id="household", slot="tea", summary="Likes green tea",
            scope={"user_id": "u-1", "team_id": "t-1"},
        )  # fmt: skip
        await lore.observe("aria", kind="world_fact", subject_id="office", summary="Opens at 9", scope="u-2")
        await lore.observe("aria", kind="world_fact", subject_id="office", summary="Opens at 9")

    scoped, by_user, shared = (json.loads(request.content) for request in recorder.requests)
    assert scoped["scope"] == {"userId": "u-1", "teamId": "t-1"} and scoped["agentId"] == "aria"
    assert scoped["candidate"]["slot"] == "tea"
    assert by_user["scope"] == {"userId": "u-2"}
    assert "scope" not in shared


async def test_query_and_search_observations_send_user_team_and_scope_match():
    recorder = Recorder()
    async with client_of(recorder) as lore:
        await lore.query_observations(agent_id="aria", user_id="u-1", team_id="t-1", scope_match="context")
        await lore.query_observations(user_id="u-1")
        await lore.search_observations("tea?", agent_id="aria", user_id="u-1", team_id="t-1", k=3)
        await lore.search_observations("tea?")

    context, browse, search, unscoped = recorder.requests
    assert (context.method, context.url.path) == ("GET", "/v1/observations")
    assert context.url.params.multi_items() == [
        ("agentId", "aria"),
        ("userId", "u-1"),
        ("teamId", "t-1"),
        ("scopeMatch", "SCOPE_MATCH_CONTEXT"),
    ]
    assert browse.url.params.multi_items() == [("userId", "u-1")]
    assert (search.method, search.url.path) == ("POST", "/v1/observations:search")
    assert json.loads(search.content) == {
        "agentId": "aria",
        "userId": "u-1",
        "teamId": "t-1",
        "query": "tea?",
        "k": 3,
    }
    assert json.loads(unscoped.content) == {"query": "tea?"}


async def test_an_observation_reads_its_scope_and_unattributed_and_defaults_them_when_missing():
    scoped = {
        "id": "o-1",
        "agentId": "aria",
        "scope": {"userId": "u-1", "agentId": "aria", "teamId": "t-1"},
        "unattributed": False,
        "summary": "Likes green tea",
    }
    legacy = {"id": "o-2", "agentId": "aria", "unattributed": True}
    answers = [
        httpx.Response(200, json={"observations": [scoped, legacy]}),
        httpx.Response(200, json={"observation": {"id": "o-3"}}),
        httpx.Response(200, json={"results": [{"observation": scoped, "score": 0.5}]}),
    ]
    recorder = Recorder(*answers)
    async with client_of(recorder) as lore:
        page = await lore.query_observations(agent_id="aria")
        bare = await lore.get_observation("o-3")
        [hit] = await lore.search_observations("tea?", user_id="u-1")

    first, second = page.items
    assert first.scope == Scope(user_id="u-1", agent_id="aria", team_id="t-1") and first.unattributed is False
    assert second.scope == Scope() and second.unattributed is True
    assert bare.scope == Scope() and bare.unattributed is False
    assert hit.observation.scope.user_id == "u-1"
