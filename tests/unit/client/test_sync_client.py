"""``SyncLoreClient`` is ``LoreClient`` without ``await``: the same public methods with the same
parameters, the same requests on the wire, the same answers and ``LoreApiError``s, the same retry
rule and paging (as generators) — against ``httpx.MockTransport``, which serves both flavours."""

from __future__ import annotations

import inspect
import json
from typing import Any

import httpx
import pytest
from lore_client import LoreApiError, LoreClient, NewEvidence, NewMemory, SyncLoreClient

from tests.unit.client.test_requests import Recorder

LIFECYCLE = {LoreClient: {"aclose"}, SyncLoreClient: {"close"}}


def _public(client: type) -> set[str]:
    return {name for name in dir(client) if not name.startswith("_")} - LIFECYCLE[client]


def test_both_clients_expose_the_same_public_methods_with_the_same_parameters():
    assert _public(LoreClient) == _public(SyncLoreClient)
    assert {"remember", "search", "process_turn", "iter_memories", "observe", "with_options"} <= _public(LoreClient)
    for name in sorted(_public(LoreClient)):
        asynchronous, synchronous = getattr(LoreClient, name), getattr(SyncLoreClient, name)
        assert inspect.signature(asynchronous).parameters == inspect.signature(synchronous).parameters, name
        assert asynchronous.__doc__ == synchronous.__doc__, name
    assert inspect.signature(LoreClient.__init__).parameters.keys() == (
        inspect.signature(SyncLoreClient.__init__).parameters.keys()
    )


def test_each_flavour_has_its_own_kind_of_method_and_return_annotation():
    assert inspect.iscoroutinefunction(LoreClient.remember)
    assert not inspect.iscoroutinefunction(SyncLoreClient.remember)
    assert (
        inspect.signature(LoreClient.get_memory).return_annotation
        == inspect.signature(SyncLoreClient.get_memory).return_annotation
    )  # an async def is annotated with what awaiting it gives
    assert "AsyncIterator" in str(inspect.signature(LoreClient.iter_memories).return_annotation)
    assert "Iterator" in str(inspect.signature(SyncLoreClient.iter_memories).return_annotation)
    assert not inspect.isasyncgenfunction(SyncLoreClient.iter_memories)


# Calls of every shape: a body, a query string, a quoted id, an Idempotency-Key, a PATCH, a DELETE.
CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("remember", (NewMemory(content="Rosa repaints her bicycle every spring.", memory_type="fact"),), {"scope": "u-r"}),
    ("search", ("What does Rosa repaint?", "u-r"), {"k": 3, "memory_types": ["fact"], "idempotency_key": "s-1"}),
    ("list_memories", ({"userId": "u-r", "agentId": "aria"},), {"statuses": "active", "page_size": 2}),
    ("process_turn", ("s/1", "Spring again!"), {"turn_idempotency_key": "t-1"}),
    ("update_memory", ("m-1",), {"importance": 0.4, "metadata": {}}),
    ("forget_memory", ("m-1",), {}),
    ("observe", ("aria",), {"kind": "world_fact", "subject_id": "rosa", "summary": "Rosa cycles",
                            "evidence": [NewEvidence(source_id="turn-3")]}),
    ("query_observations", (), {"user_id": "u-r", "scope_match": "context"}),
    ("prime", ("u-r",), {"initial_message": "hello"}),
    ("advance_week", (), {"expected_week_number": 3}),
]  # fmt: skip


def _wire(request: httpx.Request) -> tuple[Any, ...]:
    return request.method, str(request.url), sorted(request.headers.items()), request.content


@pytest.mark.parametrize(("name", "args", "kwargs"), CALLS, ids=[call[0] for call in CALLS])
async def test_both_clients_send_the_same_request_and_read_the_same_answer(name, args, kwargs):
    answer = {"memory": {"id": "m-1", "content": "x"}, "memories": [{"id": "m-2"}], "weekNumber": 4}
    heard, said = Recorder(httpx.Response(200, json=answer)), Recorder(httpx.Response(200, json=answer))
    async with LoreClient("http://lore.test", "k-1", transport=httpx.MockTransport(heard)) as lore:
        awaited = await getattr(lore, name)(*args, **kwargs)
    with SyncLoreClient("http://lore.test", "k-1", transport=httpx.MockTransport(said)) as lore:
        returned = getattr(lore, name)(*args, **kwargs)

    assert [_wire(r) for r in said.requests] == [_wire(r) for r in heard.requests]
    assert returned == awaited


def test_an_error_is_the_same_lore_api_error_and_a_bad_argument_fails_before_sending():
    body = {
        "error": {
            "code": 404,
            "status": "NOT_FOUND",
            "message": "memory m-9 not found",
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "MEMORY_NOT_FOUND"}],
            "requestId": "req-4",
        }
    }
    recorder = Recorder(httpx.Response(404, json=body))
    with SyncLoreClient("http://lore.test", transport=httpx.MockTransport(recorder)) as lore:
        with pytest.raises(LoreApiError) as missing:
            lore.get_memory("m-9")
        with pytest.raises(ValueError, match="an id is required"):
            lore.get_memory("")
        with pytest.raises(ValueError, match="at least one field"):
            lore.update_memory("m-1")

    assert (missing.value.status, missing.value.code, missing.value.reason) == (404, "NOT_FOUND", "MEMORY_NOT_FOUND")
    assert missing.value.request_id == "req-4" and len(recorder.requests) == 1


def _limited() -> httpx.Response:
    error = {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "slow down", "details": []}
    return httpx.Response(429, json={"error": error}, headers={"Retry-After": "2"})


def test_429_is_retried_with_time_sleep_only_for_idempotent_requests_and_never_past_max_retries():
    recorder = Recorder(_limited(), httpx.Response(200, json={"sessions": [{"id": "s-1"}]}), _limited(), *[
        _limited() for _ in range(3)
    ])  # fmt: skip
    slept: list[float] = []
    with SyncLoreClient("http://lore.test", transport=httpx.MockTransport(recorder), max_retries=1) as lore:
        lore._sleep = slept.append
        page = lore.list_sessions()  # GET: retried after Retry-After
        with pytest.raises(LoreApiError) as refused:
            lore.remember(NewMemory(content="x"))  # POST without a key: never retried
        with pytest.raises(LoreApiError) as exhausted:
            lore.remember(NewMemory(content="x"), idempotency_key="k-1")  # retried once, then raised

    assert [s.id for s in page] == ["s-1"] and slept == [2.0, 2.0]
    assert refused.value.status == 429 and exhausted.value.retry_after == 2.0
    assert len(recorder.requests) == 5
    assert json.loads(recorder.requests[3].content) == json.loads(recorder.requests[4].content)


def test_iterators_are_generators_following_next_page_token():
    recorder = Recorder(
        httpx.Response(200, json={"memories": [{"id": "a"}, {"id": "b"}], "nextPageToken": "t1"}),
        httpx.Response(200, json={"memories": [{"id": "c"}], "nextPageToken": ""}),
    )
    with SyncLoreClient("http://lore.test", transport=httpx.MockTransport(recorder)) as lore:
        memories = lore.iter_memories("u-1", page_size=2)
        assert recorder.requests == []  # lazy: nothing is asked before the first item is
        seen = [memory.id for memory in memories]

    assert seen == ["a", "b", "c"]
    assert [request.url.params.get("pageToken") for request in recorder.requests] == [None, "t1"]


def test_a_transport_failure_is_a_lore_api_error_and_a_view_leaves_the_pool_open():
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    lore = SyncLoreClient("http://lore.test", transport=httpx.MockTransport(refuse))
    with lore.with_options(timeout=1, max_retries=0) as view:
        with pytest.raises(LoreApiError) as failed:
            view.get_session("s-1")
    assert (failed.value.status, failed.value.code) == (0, "UNAVAILABLE")
    assert view.timeout == 1 and lore.timeout == 30.0 and not lore._http.is_closed
    lore.close()
    assert lore._http.is_closed
