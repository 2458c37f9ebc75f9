"""Spoken memory control through REST, with no language model: "forget what I said about my address",
"don't remember that", "delete my address", "please forget my ex's name", "scratch that" and more
archive the user's matching memories and message memories and invalidate the matching beliefs,
each with the forgetting turn as the reason; none of it is recalled or shown in a context or the
Prime afterwards, the request itself is never indexed, and an ambiguous request forgets nothing.
The same through ``POST /v1/memories:forget``."""

from __future__ import annotations

import uuid

from tests.polling import eventually


async def _session(client, user: str) -> str:
    answer = await client.post("/v1/sessions", json={"scope": {"userId": user, "agentId": "aria"}})
    assert answer.status_code == 200, answer.text
    return answer.json()["session"]["id"]


async def _say(client, session_id: str, line: str) -> dict:
    answer = await client.post(
        f"/v1/sessions/{session_id}/turns",
        json={"turn": {"role": "user", "content": line, "idempotencyKey": uuid.uuid4().hex}},
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()

    async def reflected():
        session = (await client.get(f"/v1/sessions/{session_id}")).json()["session"]
        return session["reflectedTurns"] == session["turnCount"]

    await eventually(reflected)
    return body


async def _memories(client, user: str) -> list[dict]:
    listed = await client.get("/v1/memories", params={"scope.userId": user, "pageSize": 200})
    assert listed.status_code == 200, listed.text
    return listed.json()["memories"]


async def _beliefs(client, user: str) -> list[dict]:
    found = await client.get("/v1/observations", params={"agentId": "aria", "userId": user, "pageSize": 200})
    assert found.status_code == 200, found.text
    return found.json()["observations"]


async def _context(client, user: str, message: str) -> str:
    answer = await client.post(
        "/v1/context:assemble", json={"scope": {"userId": user, "agentId": "aria"}, "message": message}
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["context"]["text"]


async def _prime(client, user: str) -> str:
    answer = await client.get("/v1/memory/prime", params={"scope.userId": user, "scope.agentId": "aria"})
    assert answer.status_code == 200, answer.text
    return answer.text


async def _assert_forgotten(client, user: str, word: str, reason: str, kept: str, question: str) -> None:
    """Every memory naming ``word`` is archived with ``reason``; every belief naming it invalidated; the
    memory naming ``kept`` is untouched; neither the context for ``question`` nor the Prime names ``word``."""
    memories = await _memories(client, user)
    named = [m for m in memories if word.lower() in m["content"].lower()]
    assert named, memories
    for memory in named:
        assert memory["status"] == "MEMORY_STATUS_ARCHIVED", memory
        assert memory["metadata"]["forgotten_by"] == reason, memory
    assert any(kept.lower() in m["content"].lower() and m["status"] == "MEMORY_STATUS_ACTIVE" for m in memories)
    for belief in await _beliefs(client, user):
        if word.lower() in belief["summary"].lower():
            assert belief["status"] == "OBSERVATION_STATUS_INVALIDATED", belief
            read = (await client.get(f"/v1/observations/{belief['id']}")).json()["observation"]
            assert any(line.get("sourceId") == reason for line in read["evidence"]), read
    assert word.lower() not in (await _context(client, user, question)).lower()
    assert word.lower() not in (await _prime(client, user)).lower()
    found = await client.post(
        "/v1/memories:search", json={"query": question, "scope": {"userId": user, "agentId": "aria"}, "k": 20}
    )
    assert word.lower() not in found.text.lower()


def _request_never_indexed(memories: list[dict], turn_id: str) -> None:
    assert not [m for m in memories if turn_id in m.get("provenance", {}).get("turnIds", [])], memories


async def _forget_by_saying(client, org_user: str, said: list[str], request: str) -> tuple[dict, str]:
    session_id = await _session(client, org_user)
    for line in said:
        await _say(client, session_id, line)
    answer = await _say(client, session_id, request)
    return answer, answer["turn"]["id"]


FORMS = [
    # (what was said, the request, a word of what goes, a word of what stays, a question about it)
    (
        ["I live at 14 Juniper Road in Leeds.", "I'm allergic to peanuts."],
        "Forget what I said about my address.",
        "Juniper",
        "peanuts",
        "Where do I live?",
    ),
    (
        ["I'm allergic to peanuts.", "I live at 14 Juniper Road in Leeds."],
        "Don't remember that.",
        "Juniper",
        "peanuts",
        "Where do I live?",
    ),
    (
        ["I live at 14 Juniper Road in Leeds.", "I'm allergic to peanuts."],
        "Delete my address.",
        "Juniper",
        "peanuts",
        "What is my home address?",
    ),
    (
        ["My ex is called Dorian.", "I'm allergic to peanuts."],
        "Please forget my ex's name.",
        "Dorian",
        "peanuts",
        "What is my ex called?",
    ),
    (
        ["I'm allergic to peanuts.", "My sister Marisol works as a nurse."],
        "Scratch that.",
        "Marisol",
        "peanuts",
        "What does my sister do?",
    ),
    (
        ["My sister Marisol works as a nurse.", "I'm allergic to peanuts."],
        "Can you forget everything I told you about my sister?",
        "Marisol",
        "peanuts",
        "What does my sister do?",
    ),
]


async def test_every_request_form_archives_the_memories_and_invalidates_the_beliefs(client_for, org_id):
    client = await client_for(org_id)
    for index, (said, request, gone, kept, question) in enumerate(FORMS):
        user = f"u-forget-{index}"
        answer, turn_id = await _forget_by_saying(client, user, said, request)
        assert answer["forgetStatus"] == "FORGET_STATUS_FORGOTTEN", (request, answer)
        assert any(gone.lower() in item["text"].lower() for item in answer["forgotten"]), (request, answer)
        assert not any(kept.lower() in item["text"].lower() for item in answer["forgotten"]), (request, answer)
        await _assert_forgotten(client, user, gone, turn_id, kept, question)
        _request_never_indexed(await _memories(client, user), turn_id)


async def test_a_request_in_the_same_turn_stores_nothing_of_that_turn(client_for, org_id):
    client = await client_for(org_id)
    answer, _ = await _forget_by_saying(
        client, "u-forget-same", ["I'm allergic to peanuts."], "My door code is 4417, actually don't remember that."
    )
    assert answer["forgetStatus"] == "FORGET_STATUS_FORGOTTEN"
    memories = await _memories(client, "u-forget-same")
    assert not [m for m in memories if "4417" in m["content"]], memories
    assert "4417" not in await _context(client, "u-forget-same", "What is my door code?")


async def test_an_ambiguous_request_forgets_nothing_and_says_so(client_for, org_id):
    client = await client_for(org_id)
    session_id = await _session(client, "u-forget-vague")
    first = await _say(client, session_id, "Forget it.")
    assert first["forgetStatus"] == "FORGET_STATUS_AMBIGUOUS" and not first.get("forgotten"), first
    await _say(client, session_id, "I live at 14 Juniper Road in Leeds.")
    unmatched = await _say(client, session_id, "Forget what I said about my submarine.")
    assert unmatched["forgetStatus"] == "FORGET_STATUS_NOTHING_MATCHED" and not unmatched.get("forgotten"), unmatched
    memories = await _memories(client, "u-forget-vague")
    assert all(m["status"] != "MEMORY_STATUS_ARCHIVED" for m in memories), memories
    assert "Juniper" in await _context(client, "u-forget-vague", "Where do I live?")


async def test_ordinary_turns_are_not_requests_to_forget(client_for, org_id):
    client = await client_for(org_id)
    session_id = await _session(client, "u-forget-not")
    await _say(client, session_id, "I live at 14 Juniper Road in Leeds.")
    for line in ("Don't forget to call my mum tomorrow.", "I always forget my keys.", "Delete my account please."):
        answer = await _say(client, session_id, line)
        status = answer.get("forgetStatus", "FORGET_STATUS_UNSPECIFIED")
        assert status == "FORGET_STATUS_UNSPECIFIED" and not answer.get("forgotten"), (line, answer)
    memories = await _memories(client, "u-forget-not")
    assert all(m["status"] != "MEMORY_STATUS_ARCHIVED" for m in memories), memories


async def test_the_forget_route_archives_the_users_own_records_only(client_for, org_id):
    client = await client_for(org_id)
    session_id = await _session(client, "u-forget-rest")
    await _say(client, session_id, "I live at 14 Juniper Road in Leeds.")
    await _say(client, session_id, "I'm allergic to peanuts.")
    shared = await client.post(
        "/v1/memories",
        json={"memories": [{"content": "The office is at 9 Juniper Road.", "memoryType": "MEMORY_TYPE_FACT"}]},
    )
    assert shared.status_code == 200, shared.text
    answer = await client.post(
        "/v1/memories:forget",
        json={"scope": {"userId": "u-forget-rest", "agentId": "aria"}, "about": "my address", "requestId": "r-1"},
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["status"] == "FORGET_STATUS_FORGOTTEN", body
    assert all("office" not in item["text"] for item in body["forgotten"]), body
    await _assert_forgotten(client, "u-forget-rest", "14 Juniper", "request:r-1", "peanuts", "Where do I live?")
    org_memory = (await client.get(f"/v1/memories/{shared.json()['memories'][0]['id']}")).json()["memory"]
    assert org_memory["status"] == "MEMORY_STATUS_ACTIVE"

    again = await client.post(
        "/v1/memories:forget",
        json={"scope": {"userId": "u-forget-rest", "agentId": "aria"}, "about": "my address", "requestId": "r-1"},
    )
    assert again.json()["status"] == "FORGET_STATUS_NOTHING_MATCHED", again.text


async def test_the_forget_route_refuses_bad_input_naming_the_field(client_for, org_id):
    client = await client_for(org_id)
    for body, field in (
        ({"about": "my address"}, "scope.userId"),
        ({"scope": {"userId": "u-1"}, "about": ""}, "about"),
        ({"scope": {"userId": "u-1"}, "about": "x" * 501}, "about"),
        ({"scope": {"userId": "u-1"}, "about": "x" * 500 + "\n"}, "about"),  # counted as sent, not trimmed
        ({"scope": {"userId": "u-1"}, "about": "it"}, "about"),
    ):
        answer = await client.post("/v1/memories:forget", json=body)
        assert answer.status_code == 400, answer.text
        assert field in answer.text, answer.text
