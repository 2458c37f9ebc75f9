"""Forgetting reaches the episodes summarised before the request, through REST on the real services
with no language model: an episode that held what was forgotten is made again from its remaining
turns (same episode, summary without it, marked with the request that forgot it), an episode with
nothing else is deleted, another user's episode is untouched, and asking again changes nothing. The
working-memory summary of the session the request is said in is rewritten without it too."""

from __future__ import annotations

import uuid

from lore.memory.v1 import working_memory_service_pb2 as wm
from lore.memory.v1 import working_memory_service_pb2_grpc

from tests.polling import eventually

AGENT = "aria"


async def _conversation(client, user: str, lines: list[str]) -> str:
    """A session of ``user`` saying ``lines``, ended, with its episode made; the episode's id."""
    started = await client.post("/v1/sessions", json={"scope": {"userId": user, "agentId": AGENT}})
    session_id = started.json()["session"]["id"]
    for line in lines:
        body = {"turn": {"role": "TURN_ROLE_USER", "content": line, "idempotencyKey": uuid.uuid4().hex}}
        answer = await client.post(f"/v1/sessions/{session_id}/turns", json=body)
        assert answer.status_code == 200, answer.text
    ended = await client.post(f"/v1/sessions/{session_id}:end")
    assert ended.status_code == 200, ended.text

    async def episode() -> str:
        return next((e["id"] for e in await _episodes(client, user) if e["conversationId"] == session_id), "")

    return await eventually(episode, timeout=60)


async def _episodes(client, user: str) -> list[dict]:
    listed = await client.get("/v1/episodes", params={"userId": user, "pageSize": 50})
    assert listed.status_code == 200, listed.text
    return listed.json()["episodes"]


async def _forget(client, user: str, about: str, request_id: str) -> dict:
    answer = await client.post(
        "/v1/memories:forget",
        json={"scope": {"userId": user, "agentId": AGENT}, "about": about, "requestId": request_id},
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_the_forget_route_rewrites_the_episodes_that_held_it_and_deletes_those_left_empty(client_for, org_id):
    client = await client_for(org_id)
    user, bystander = f"u-{uuid.uuid4().hex[:8]}", f"u-{uuid.uuid4().hex[:8]}"
    mixed = await _conversation(
        client,
        user,
        [
            "I live at 14 Juniper Road in Leeds.",
            "I'm training for the half marathon in April.",
            "I'm allergic to peanuts.",
        ],
    )
    only = await _conversation(client, user, ["I live at 14 Juniper Road, next to the old mill."])
    theirs = await _conversation(client, bystander, ["I live at 14 Juniper Road too, above the bakery."])
    before = {e["id"]: e for e in await _episodes(client, user)}
    assert "Juniper" in before[mixed]["summary"] and "Juniper" in before[only]["summary"], before

    answer = await _forget(client, user, "my address", "r-episodes")

    assert answer["status"] == "FORGET_STATUS_FORGOTTEN", answer
    after = {e["id"]: e for e in await _episodes(client, user)}
    assert list(after) == [mixed], after  # the episode that only held the address is deleted
    kept = after[mixed]
    assert "Juniper" not in str(kept), kept
    assert "marathon" in kept["summary"] and "peanuts" in kept["summary"], kept
    assert "User:" not in kept["summary"], kept
    assert kept["metadata"]["forgotten_by"] == "request:r-episodes", kept
    assert (kept["conversationId"], kept["endedAt"]) == (before[mixed]["conversationId"], before[mixed]["endedAt"])
    [other] = await _episodes(client, bystander)
    assert other["id"] == theirs and "Juniper" in other["summary"], other

    await _forget(client, user, "my address", "r-episodes-again")

    assert {e["id"]: e["summary"] for e in await _episodes(client, user)} == {mixed: kept["summary"]}


async def test_a_spoken_request_to_forget_reaches_the_episodes_of_earlier_sessions(client_for, org_id):
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"
    earlier = await _conversation(
        client, user, ["My ex is called Dorian.", "I started a pottery course at the community centre."]
    )
    assert "Dorian" in (await _episodes(client, user))[0]["summary"]
    session = await client.post("/v1/sessions", json={"scope": {"userId": user, "agentId": AGENT}})
    session_id = session.json()["session"]["id"]

    said = await client.post(
        f"/v1/sessions/{session_id}/turns",
        json={"turn": {"role": "TURN_ROLE_USER", "content": "Please forget my ex's name.", "idempotencyKey": "f-1"}},
    )
    assert said.status_code == 200, said.text

    async def rewritten() -> dict | None:
        found = {e["id"]: e for e in await _episodes(client, user)}
        return found[earlier] if "Dorian" not in found[earlier]["summary"] else None

    episode = await eventually(rewritten, timeout=60)
    assert "pottery" in episode["summary"], episode
    assert episode["metadata"]["forgotten_by"] == said.json()["turn"]["id"], episode


async def test_the_working_memory_summary_is_rewritten_without_what_was_forgotten(client_for, org_id, services):
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"
    session = await client.post("/v1/sessions", json={"scope": {"userId": user, "agentId": AGENT}})
    session_id = session.json()["session"]["id"]
    stub = working_memory_service_pb2_grpc.WorkingMemoryServiceStub(services["memory"].channel)
    tenant = (("x-lore-org-id", org_id), ("x-lore-principal", "test"))

    async def say(line: str) -> None:
        body = {"turn": {"role": "TURN_ROLE_USER", "content": line, "idempotencyKey": uuid.uuid4().hex}}
        assert (await client.post(f"/v1/sessions/{session_id}/turns", json=body)).status_code == 200

        async def reflected() -> bool:
            found = (await client.get(f"/v1/sessions/{session_id}")).json()["session"]
            return found["reflectedTurns"] == found["turnCount"]

        await eventually(reflected)

    async def summary() -> str:
        read = await stub.GetWorkingMemory(wm.GetWorkingMemoryRequest(session_id=session_id), metadata=tenant)
        return read.working_memory.summary

    await say("I live at 14 Juniper Road in Leeds.")
    await say("I'm allergic to peanuts.")
    assert "Juniper" in await summary()

    await say("Forget what I said about my address.")

    rewritten = await summary()
    assert "Juniper" not in rewritten and "peanuts" in rewritten, rewritten


async def test_after_a_forget_nothing_a_reader_sees_names_what_an_earlier_episode_held(client_for, org_id):
    """An episode summarised before the request: afterwards the Prime, a context, the episode listing
    and the browser's listing of the user's live memories hold none of it; what else was said stays."""
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"
    scope = {"userId": user, "agentId": AGENT}
    episode_id = await _conversation(
        client, user, ["My brother Casimir is moving to Oslo next month.", "I'm learning to play the cello."]
    )
    assert "Casimir" in (await _episodes(client, user))[0]["summary"]

    answer = await _forget(client, user, "my brother Casimir", "r-readers")

    assert answer["status"] == "FORGET_STATUS_FORGOTTEN", answer
    [episode] = await _episodes(client, user)
    assert episode["id"] == episode_id and "cello" in episode["summary"], episode
    assert "casimir" not in str(episode).lower(), episode
    prime = await client.get("/v1/memory/prime", params={"scope.userId": user, "scope.agentId": AGENT})
    assert prime.status_code == 200 and "casimir" not in prime.text.lower(), prime.text
    context = await client.post("/v1/context:assemble", json={"scope": scope, "message": "Who is moving to Oslo?"})
    assert context.status_code == 200 and "casimir" not in context.text.lower(), context.text
    listed = await client.get("/v1/memories", params={"scope.userId": user, "pageSize": 200})
    live = [m for m in listed.json()["memories"] if m["status"] != "MEMORY_STATUS_ARCHIVED"]
    assert any("cello" in m["content"] for m in live), live
    assert "casimir" not in str(live).lower(), live
