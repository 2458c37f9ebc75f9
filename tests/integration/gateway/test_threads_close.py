"""Threads and commitments that close, through REST on the real services:
``POST /v1/open-threads/{episodeId}/{index}:resolve`` resolves an open thread (idempotent, 404
across orgs, 400 naming ``threadIndex``), a commitment completes with ``PATCH /v1/memories/{id}``
(status ``MEMORY_STATUS_COMPLETED``), and Prime and contexts show neither as open afterwards."""

from __future__ import annotations

import json
import uuid

from lore.common.v1 import scope_pb2
from lore.memory.v1 import episode_service_pb2 as epb
from lore.memory.v1 import episode_service_pb2_grpc
from lore_runtime.request_context import RequestContext

from tests.grpc_harness import service_channel
from tests.polling import eventually

AGENT = "aria"


async def _episode(memory_address: str, org_id: str, user_id: str, topics: list[str]) -> str:
    metadata = RequestContext(org_id=org_id, principal="seeder", request_id="").metadata()
    async with service_channel(memory_address) as channel:
        stub = episode_service_pb2_grpc.EpisodeServiceStub(channel)
        sent = epb.Episode(
            conversation_id=f"conv-{uuid.uuid4().hex[:8]}",
            scope=scope_pb2.Scope(user_id=user_id, agent_id=AGENT),
            summary="Planned the move to Lisbon.",
            open_threads=[epb.OpenThread(topic=topic, status=epb.THREAD_STATUS_OPEN) for topic in topics],
            message_count=4,
        )
        created = await stub.CreateEpisode(epb.CreateEpisodeRequest(episode=sent), metadata=metadata, timeout=10)
        return created.episode.id


async def test_a_resolved_thread_is_gone_from_the_open_threads_and_from_prime(client_for, org_id, services):
    user = f"u-{uuid.uuid4().hex[:8]}"
    episode = await _episode(
        services["memory"].address, org_id, user, ["Which visa fits a remote job", "Schools near Alfama"]
    )
    client = await client_for(org_id)
    prime = await client.get("/v1/memory/prime", params={"userId": user, "agentId": AGENT})
    assert "Which visa fits a remote job" in json.dumps(prime.json()["openThreads"])

    answer = await client.post(f"/v1/open-threads/{episode}/0:resolve", json={"resolution": "The D8 visa."})
    replay = await client.post(f"/v1/open-threads/{episode}/0:resolve")

    assert answer.status_code == 200, answer.text
    assert answer.json()["thread"]["thread"]["status"] == "THREAD_STATUS_RESOLVED"
    assert answer.json()["thread"]["index"] == 0
    assert replay.status_code == 200 and replay.json() == answer.json()
    listed = (await client.get("/v1/open-threads", params={"userId": user})).json()["threads"]
    assert [(t["thread"]["topic"], t["index"]) for t in listed] == [("Schools near Alfama", 1)]
    prime = await client.get("/v1/memory/prime", params={"userId": user, "agentId": AGENT})
    shown = json.dumps(prime.json()["openThreads"])
    assert "Schools near Alfama" in shown and "Which visa" not in shown, shown
    context = await client.post(
        "/v1/context:assemble", json={"scope": {"userId": user, "agentId": AGENT}, "message": "Which visa?"}
    )
    assert context.status_code == 200, context.text
    assert "Which visa fits a remote job" not in context.json()["context"]["text"]


async def test_resolving_names_the_bad_field_and_another_orgs_thread_is_not_found(client_for, org_id, services):
    episode = await _episode(services["memory"].address, org_id, "u-bad-index", ["Passport renewal"])
    client = await client_for(org_id)
    stranger = await client_for(f"org-{uuid.uuid4().hex[:10]}")

    # "¹" and "٣" are digits to str.isdigit, not to the path: refused like any other non-index.
    bad = ("5", "x", "%C2%B9", "%D9%A3")
    for path in (f"/v1/open-threads/{episode}/{index}:resolve" for index in bad):
        refused = await client.post(path)
        assert refused.status_code == 400, refused.text
        assert "threadIndex" in refused.text
    absent = await stranger.post(f"/v1/open-threads/{episode}/0:resolve")
    assert absent.status_code == 404, absent.text
    listed = (await client.get("/v1/open-threads", params={"userId": "u-bad-index"})).json()["threads"]
    assert [t["thread"]["topic"] for t in listed] == ["Passport renewal"]


async def test_a_completed_commitment_stays_listed_but_is_never_recalled_or_shown(client_for, org_id):
    client = await client_for(org_id)
    scope = {"userId": "u-commit", "agentId": AGENT}
    written = await client.post(
        "/v1/memories",
        json={
            "memories": [
                {
                    "content": "The user will send the tax report to Marta.",
                    "memoryType": "MEMORY_TYPE_COMMITMENT",
                    "scope": scope,
                },
                {"content": "The user lives in Porto.", "memoryType": "MEMORY_TYPE_FACT", "scope": scope},
            ]
        },
    )
    assert written.status_code == 200, written.text
    commitment, fact = [m["id"] for m in written.json()["memories"]]
    complete = {"memory": {"status": "MEMORY_STATUS_COMPLETED"}, "updateMask": "status"}

    done = await client.patch(f"/v1/memories/{commitment}", json=complete)
    again = await client.patch(f"/v1/memories/{commitment}", json=complete)
    refused = await client.patch(f"/v1/memories/{fact}", json=complete)

    assert done.status_code == 200 and again.status_code == 200, done.text + again.text
    assert done.json()["memory"]["status"] == again.json()["memory"]["status"] == "MEMORY_STATUS_COMPLETED"
    assert refused.status_code == 400 and "memory.status" in refused.text, refused.text
    listed = (await client.get("/v1/memories", params={"userId": "u-commit"})).json()["memories"]
    assert {m["id"]: m["status"] for m in listed}[commitment] == "MEMORY_STATUS_COMPLETED"
    found = await client.post("/v1/memories:search", json={"query": "send the tax report", "scope": scope, "k": 20})
    assert commitment not in json.dumps(found.json())
    prime = await client.get("/v1/memory/prime", params={"userId": "u-commit", "agentId": AGENT})
    context = await client.post("/v1/context:assemble", json={"scope": scope, "message": "Did I send the tax report?"})
    for answer in (prime, context):
        assert answer.status_code == 200, answer.text
        assert "tax report" not in answer.text
    assert "Porto" in prime.text


async def _conversation(client, user: str, lines: list[str]) -> str:
    session = (await client.post("/v1/sessions", json={"scope": {"userId": user, "agentId": AGENT}})).json()
    session_id = session["session"]["id"]
    for index, line in enumerate(lines):
        body = {"turn": {"role": "TURN_ROLE_USER", "content": line, "idempotencyKey": f"{session_id}-{index}"}}
        answer = await client.post(f"/v1/sessions/{session_id}/turns", json=body)
        assert answer.status_code == 200, answer.text
    ended = await client.post(f"/v1/sessions/{session_id}:end")
    assert ended.status_code == 200, ended.text

    async def episode() -> bool:
        listed = (await client.get("/v1/episodes", params={"userId": user, "pageSize": 50})).json()["episodes"]
        return any(e["conversationId"] == session_id for e in listed)

    await eventually(episode, timeout=60)
    return session_id


async def test_a_later_session_that_reports_the_answer_closes_the_thread_for_prime(client_for, org_id):
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"
    question = "Which visa do I need to work remotely from Portugal?"
    await _conversation(client, user, [question])
    threads = (await client.get("/v1/open-threads", params={"userId": user})).json()["threads"]
    assert [t["thread"]["topic"] for t in threads] == [question]
    prime = await client.get("/v1/memory/prime", params={"userId": user, "agentId": AGENT})
    assert question in json.dumps(prime.json()["openThreads"])

    await _conversation(client, user, ["Good news: I got the digital nomad visa to work remotely from Portugal."])

    async def still_open() -> list[dict]:
        return (await client.get("/v1/open-threads", params={"userId": user})).json()["threads"]

    async def closed() -> bool:  # reflection stores the episode, then closes what it answered
        return question not in json.dumps(await still_open())

    await eventually(closed, timeout=60, what="the thread closed")
    threads = await still_open()
    assert question not in json.dumps(threads), threads
    episodes = (await client.get("/v1/episodes", params={"userId": user, "pageSize": 50})).json()["episodes"]
    closed = [t for e in episodes for t in e.get("openThreads", []) if t["topic"] == question]
    assert [t["status"] for t in closed] == ["THREAD_STATUS_RESOLVED"]
    assert "digital nomad visa" in closed[0]["resolution"]
    prime = await client.get("/v1/memory/prime", params={"userId": user, "agentId": AGENT})
    assert question not in json.dumps(prime.json()["openThreads"])


async def test_a_later_session_reporting_a_commitment_done_completes_it(client_for, org_id):
    client = await client_for(org_id)
    user = f"u-{uuid.uuid4().hex[:8]}"
    first = await _conversation(client, user, ["I'll send the tax report to Marta on Friday."])

    async def commitment() -> list[dict]:
        listed = (await client.get("/v1/memories", params={"userId": user, "pageSize": 50})).json()["memories"]
        return [m for m in listed if m["memoryType"] == "MEMORY_TYPE_COMMITMENT"]

    [promised] = await eventually(commitment, timeout=60)
    assert promised["status"] == "MEMORY_STATUS_ACTIVE"
    threads = (await client.get("/v1/open-threads", params={"userId": user})).json()["threads"]
    assert [(t["conversationId"], t["thread"]["context"]) for t in threads] == [(first, promised["content"])]

    await _conversation(client, user, ["I sent the tax report to Marta this morning."])

    async def done() -> bool:  # reflection stores the episode, then completes what it reported done
        return any(m["id"] == promised["id"] and m["status"] != "MEMORY_STATUS_ACTIVE" for m in await commitment())

    await eventually(done, timeout=60, what="the commitment completed")
    [completed] = [m for m in await commitment() if m["id"] == promised["id"]]
    assert completed["status"] == "MEMORY_STATUS_COMPLETED"
    assert (await client.get("/v1/open-threads", params={"userId": user})).json()["threads"] == []
    prime = await client.get("/v1/memory/prime", params={"userId": user, "agentId": AGENT})
    # Shown as history (the first conversation's summary), never as open or as something to do.
    assert prime.json()["openThreads"] == []
    assert promised["content"] not in prime.text and promised["id"] not in prime.text, prime.text
