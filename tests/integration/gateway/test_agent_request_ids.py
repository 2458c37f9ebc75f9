"""The ids the agent service dedupes on are each caller's own, as the gateway's Idempotency-Key is.

Two API keys of one principal (one app), each pinned to its own user, and an org-wide key of
another principal, all in one org:
- a session's ``requestId`` is the caller's (org, principal, pinned user): the same id from another
  caller starts that caller's own session and learns nothing of the first; a rotated credential of
  the same principal and user still finds its own session;
- a turn's ``idempotencyKey`` (live or imported) is the session's: only callers allowed to write the
  session reach it, so another user's caller, naming the same key in its own session, writes its own
  turn, and can neither replay nor even detect the first;
- a key reused with another body is refused (409 ``IDEMPOTENCY_KEY_REUSED``), the same body replays;
- an erasure's ``requestId`` is the caller's, as a session's: another caller's equal id queues its own
  erasure and never answers with the first one's job.
"""

from __future__ import annotations

import pytest
from gateway_svc.adapters.postgres_key_admin import create_api_key

from tests.integration.gateway.conftest import asgi_client

PRINCIPAL = "tutor-app"


@pytest.fixture
async def key_for(gateway, migrated_pg, org_id):
    """A factory: an HTTP client for a new API key of the org, pinned to ``user`` (None: org-wide)."""
    clients = []

    async def make(user: str | None, principal: str = PRINCIPAL, scopes: tuple[str, ...] = ()):
        _, key = await create_api_key(
            migrated_pg.owner_dsn,
            org_id=org_id,
            principal=principal,
            scopes=["sessions:write", "sessions:read", *scopes],
            user_id=user,
        )
        client = asgi_client(gateway, key)
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


async def start(client, request_id: str, user: str = "", **extra) -> dict:
    body = {"scope": {"userId": user} if user else {}, "requestId": request_id, **extra}
    started = await client.post("/v1/sessions", json=body)
    assert started.status_code == 200, started.text
    return started.json()["session"]


async def test_a_session_request_id_is_each_callers_own(key_for):
    alice, bob = await key_for("alice"), await key_for("bob")
    everyone = await key_for(None, principal="ops-console")

    alices = await start(alice, "chat-41", metadata={"topic": "alice's private topic"})
    bobs = await start(bob, "chat-41")
    ops = await start(everyone, "chat-41", "alice")

    assert bobs["id"] != alices["id"] and bobs["scope"]["userId"] == "bob" and bobs["metadata"] == {}
    assert ops["id"] not in (alices["id"], bobs["id"]) and ops["scope"]["userId"] == "alice"
    assert (await start(alice, "chat-41"))["id"] == alices["id"]
    assert (await start(bob, "chat-41"))["id"] == bobs["id"]
    rotated = await key_for("alice")
    assert (await start(rotated, "chat-41"))["id"] == alices["id"], "a new key of the same caller is the same caller"


async def test_an_org_wide_request_id_reused_for_another_scope_is_still_refused(key_for):
    everyone = await key_for(None)
    await start(everyone, "r-9", "alice")

    again = await everyone.post("/v1/sessions", json={"scope": {"userId": "bob"}, "requestId": "r-9"})

    assert again.status_code == 409 and again.json()["error"]["details"][0]["reason"] == "REQUEST_ID_REUSED"


async def test_a_turn_key_reaches_only_the_session_it_was_said_in(key_for):
    alice, bob = await key_for("alice"), await key_for("bob")
    alices, bobs = await start(alice, "a-1"), await start(bob, "b-1")
    said = {"turn": {"content": "My locker code is 4711.", "idempotencyKey": "turn-3"}}

    first = await alice.post(f"/v1/sessions/{alices['id']}/turns", json=said)
    into_hers = await bob.post(f"/v1/sessions/{alices['id']}/turns", json=said)
    own = await bob.post(
        f"/v1/sessions/{bobs['id']}/turns", json={"turn": {"content": "Hello there.", "idempotencyKey": "turn-3"}}
    )

    assert first.status_code == 200 and own.status_code == 200, own.text
    assert into_hers.status_code == 404
    assert own.json()["turn"]["content"] == "Hello there." and own.json()["turn"]["id"] != first.json()["turn"]["id"]
    assert own.headers.get("idempotent-replayed") is None


async def test_an_imported_turn_key_reaches_only_the_session_it_was_imported_into(key_for):
    alice, bob = await key_for("alice"), await key_for("bob")
    alices, bobs = await start(alice, "a-2"), await start(bob, "b-2")

    def body(content: str) -> dict:
        return {"turns": [{"role": "TURN_ROLE_USER", "content": content, "idempotencyKey": "old-1"}]}

    hers = await alice.post(f"/v1/sessions/{alices['id']}/turns:import", json=body("My locker code is 4711."))
    into_hers = await bob.post(f"/v1/sessions/{alices['id']}/turns:import", json=body("My locker code is 4711."))
    own = await bob.post(f"/v1/sessions/{bobs['id']}/turns:import", json=body("Hello there."))
    transcript = await bob.get(f"/v1/sessions/{bobs['id']}/turns")

    assert hers.json() == {"imported": 1, "skipped": 0} and own.json() == {"imported": 1, "skipped": 0}, own.text
    assert into_hers.status_code == 404
    assert [turn["content"] for turn in transcript.json()["turns"]] == ["Hello there."]


async def test_an_erasure_request_id_is_each_callers_own(key_for):
    alice = await key_for("alice", scopes=("subjects:forget",))
    bob = await key_for("bob", scopes=("subjects:forget",))

    def forget(client, user: str):
        return client.post("/v1/subjects:forget", json={"subject": {"userId": user}, "requestId": "bye-1"})

    alices = await forget(alice, "alice")
    bobs = await forget(bob, "bob")
    alice_again = await forget(alice, "alice")

    assert alices.status_code == 200 and bobs.status_code == 200, bobs.text
    assert bobs.json()["job"]["id"] != alices.json()["job"]["id"], "Bob's erasure is his own, not Alice's job"
    assert alice_again.json()["job"]["id"] == alices.json()["job"]["id"]


def error_of(response) -> tuple[int, str, dict]:
    [info] = [detail for detail in response.json()["error"]["details"] if "reason" in detail]
    return response.status_code, info["reason"], info["metadata"]


async def test_a_turn_key_reused_with_another_turn_is_a_409_and_the_same_turn_replays(key_for):
    alice = await key_for("alice")
    session = (await start(alice, "a-3"))["id"]
    tool = {"toolName": "weather", "result": {"city": "Lisbon", "celsius": 21}, "summary": "sunny"}
    said = {"turn": {"content": "Is it warm in Lisbon?", "idempotencyKey": "t-1", "toolInteractions": [tool]}}

    first = await alice.post(f"/v1/sessions/{session}/turns", json=said)
    replayed = await alice.post(f"/v1/sessions/{session}/turns", json=said)
    other = {"turn": {**said["turn"], "content": "Is it cold in Oslo?"}}
    reused = await alice.post(f"/v1/sessions/{session}/turns", json=other)
    as_reply = await alice.post(f"/v1/sessions/{session}/turns", json={"turn": {**said["turn"], "role": "assistant"}})
    transcript = await alice.get(f"/v1/sessions/{session}/turns")

    assert first.status_code == 200 and replayed.status_code == 200, replayed.text
    assert replayed.json()["turn"] == first.json()["turn"]
    turn_id = first.json()["turn"]["id"]
    assert error_of(reused) == (409, "IDEMPOTENCY_KEY_REUSED", {"field": "turn.idempotencyKey", "id": turn_id})
    assert error_of(as_reply)[:2] == (409, "IDEMPOTENCY_KEY_REUSED")
    assert [turn["content"] for turn in transcript.json()["turns"]] == ["Is it warm in Lisbon?"]


async def test_an_import_reusing_a_key_for_another_turn_is_a_409_and_writes_nothing(key_for):
    alice = await key_for("alice")
    session = (await start(alice, "a-4"))["id"]
    url = f"/v1/sessions/{session}/turns:import"

    def turn(key: str, content: str, at: str = "2023-05-08T13:56:00Z") -> dict:
        return {"role": "TURN_ROLE_USER", "content": content, "idempotencyKey": key, "createdAt": at}

    first = await alice.post(url, json={"turns": [turn("k-1", "I moved to Lisbon.")]})
    same = await alice.post(url, json={"turns": [turn("k-1", "I moved to Lisbon."), turn("k-2", "New job too.")]})
    reworded = await alice.post(url, json={"turns": [turn("k-3", "Hello."), turn("k-1", "I moved to Porto.")]})
    retimed = await alice.post(url, json={"turns": [turn("k-1", "I moved to Lisbon.", "2023-05-09T10:00:00Z")]})
    twice = await alice.post(url, json={"turns": [turn("k-4", "One."), turn("k-4", "Two.")]})
    transcript = await alice.get(f"/v1/sessions/{session}/turns")

    assert first.json() == {"imported": 1, "skipped": 0} and same.json() == {"imported": 1, "skipped": 1}
    assert error_of(reworded)[:2] == (409, "IDEMPOTENCY_KEY_REUSED")
    assert error_of(reworded)[2]["field"] == "turns[1].idempotencyKey"
    assert error_of(retimed)[:2] == (409, "IDEMPOTENCY_KEY_REUSED")
    assert error_of(twice)[:2] == (409, "IDEMPOTENCY_KEY_REUSED")
    assert [t["content"] for t in transcript.json()["turns"]] == ["I moved to Lisbon.", "New job too."]
