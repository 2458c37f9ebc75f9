"""One fact once, through REST on the real services with no language model: a fact the user states
again — in a later turn, in another session, in other words — reinforces the memory already kept
(its turn ids, sessions and salience grow) instead of adding a second; different facts (another
number, another name) stay apart, and the same words from another user or another organisation
never touch this user's memory."""

from __future__ import annotations

import uuid

from tests.polling import eventually

AGENT = "aria"
FACT = "MEMORY_TYPE_FACT"


async def _say(client, user: str, lines: list[str]) -> tuple[str, list[str]]:
    """A session of ``user`` saying ``lines``, reflected; its id and its turn ids."""
    session = (await client.post("/v1/sessions", json={"scope": {"userId": user, "agentId": AGENT}})).json()
    session_id = session["session"]["id"]
    turns = []
    for index, line in enumerate(lines):
        body = {"turn": {"role": "TURN_ROLE_USER", "content": line, "idempotencyKey": f"{session_id}-{index}"}}
        answer = await client.post(f"/v1/sessions/{session_id}/turns", json=body)
        assert answer.status_code == 200, answer.text
        turns.append(answer.json()["turn"]["id"])

    async def reflected() -> bool:
        found = (await client.get(f"/v1/sessions/{session_id}")).json()["session"]
        return found["reflectedTurns"] == len(lines)

    await eventually(reflected, timeout=60)
    return session_id, turns


async def _facts(client, user: str, about: str) -> list[dict]:
    listed = await client.get("/v1/memories", params={"userId": user, "memoryTypes": FACT, "pageSize": 100})
    assert listed.status_code == 200, listed.text
    return [m for m in listed.json()["memories"] if about in m["content"].lower()]


async def test_a_fact_said_again_in_one_session_and_in_another_is_one_memory_that_grew(client_for, org_id):
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"
    first, first_turns = await _say(
        client, user, ["I'm allergic to peanuts.", "We should plan the picnic menu.", "I'm allergic to peanuts!"]
    )
    [once] = await _facts(client, user, "peanut")
    assert set(once["provenance"]["turnIds"]) == {first_turns[0], first_turns[2]}, once

    second, second_turns = await _say(client, user, ["Just so you remember: i'm allergic to peanuts."])

    [memory] = await _facts(client, user, "peanut")
    assert memory["id"] == once["id"]
    assert set(memory["provenance"]["turnIds"]) == {first_turns[0], first_turns[2], second_turns[0]}
    assert memory["provenance"]["sessionId"] == first and memory["provenance"]["sessionIds"] == [second]

    async def reinforced() -> dict | None:
        [now] = await _facts(client, user, "peanut")
        return now if now.get("accessCount", 0) >= 1 and now["currentSalience"] > once["currentSalience"] else None

    # The restatement is counted as a use, written behind the answer like a recall's.
    await eventually(reinforced, timeout=30)


async def test_restatements_in_other_words_fold_and_other_numbers_or_names_stay_apart(client_for, org_id):
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"
    scope = {"userId": user, "agentId": AGENT}

    async def learnt(content: str, turn: str) -> dict:
        provenance = {"sessionId": "s-learnt", "turnIds": [turn], "source": "PROVENANCE_SOURCE_REFLECTION"}
        body = {"memories": [{"content": content, "memoryType": FACT, "scope": scope, "provenance": provenance}]}
        written = await client.post("/v1/memories", json=body)
        assert written.status_code == 200, written.text
        [memory] = written.json()["memories"]
        return memory

    allergic = await learnt("The user is allergic to peanuts.", "t-1")
    allergy = await learnt("The user has a peanut allergy.", "t-2")
    kids = await learnt("The user has 3 kids.", "t-3")
    more_kids = await learnt("The user has 4 kids.", "t-4")
    anna = await learnt("The user's sister is called Anna.", "t-5")
    emma = await learnt("The user's sister is called Emma.", "t-6")
    meat = await learnt("The user eats meat.", "t-7")
    no_meat = await learnt("The user does not eat meat.", "t-8")

    assert allergy["id"] == allergic["id"] and allergy["provenance"]["turnIds"] == ["t-1", "t-2"]
    for one, other in ((kids, more_kids), (anna, emma), (meat, no_meat)):
        assert one["id"] != other["id"], (one["content"], other["content"])
    listed = await client.get("/v1/memories", params={"userId": user, "pageSize": 100})
    assert len(listed.json()["memories"]) == 7, [m["content"] for m in listed.json()["memories"]]


async def test_a_clients_own_writes_are_kept_as_asked(client_for, org_id):
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"
    memory = {"content": "The user likes green tea.", "memoryType": FACT, "scope": {"userId": user}}

    for _ in range(2):
        written = await client.post("/v1/memories", json={"memories": [memory]})
        assert written.status_code == 200, written.text

    assert len(await _facts(client, user, "green tea")) == 2


async def test_two_users_saying_the_same_fact_keep_one_memory_each(client_for, org_id):
    client = await client_for(org_id)
    stranger = await client_for(f"org-{uuid.uuid4().hex[:10]}")
    ada, bob = f"u-{uuid.uuid4().hex[:8]}", f"u-{uuid.uuid4().hex[:8]}"
    line = "I live in Leeds."

    _, ada_turns = await _say(client, ada, [line])
    _, bob_turns = await _say(client, bob, [line])
    _, other_turns = await _say(stranger, ada, [line])

    [ada_fact] = await _facts(client, ada, "leeds")
    [bob_fact] = await _facts(client, bob, "leeds")
    [other_fact] = await _facts(stranger, ada, "leeds")
    assert len({ada_fact["id"], bob_fact["id"], other_fact["id"]}) == 3
    assert ada_fact["provenance"]["turnIds"] == ada_turns
    assert bob_fact["provenance"]["turnIds"] == bob_turns
    assert other_fact["provenance"]["turnIds"] == other_turns
