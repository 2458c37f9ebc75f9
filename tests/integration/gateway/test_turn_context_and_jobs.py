"""The memory browser's read routes through REST on the real stack: a turn's assembled context
with its manifest (``GET /v1/sessions/{id}/turns/{turnId}/context``), and what it says for a turn
that has none or no longer has one; the org's background jobs, keyset paged
(``GET /v1/admin/jobs:list``), each once. The lore_client methods read both answers."""

from __future__ import annotations

import dataclasses
from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta

import agent_svc.server
import asyncpg
import httpx
from agent_svc.adapters.pgqueuer_jobs import enqueue_on
from agent_svc.adapters.postgres_turn_loop import PostgresTurnLoop
from agent_svc.domain.jobs import episode_job, erase_job, reflect_job
from gateway_svc.adapters.postgres_key_admin import create_api_key
from gateway_svc.server import create_app
from lore_client import LoreClient, SyncLoreClient
from lore_runtime.metrics import ServiceMetrics

from tests.integration.gateway.conftest import _create_key, asgi_client, gateway_settings

USER = "u-hiker"
MEMORY = "Inês loves the Pena Park loop trail in Sintra, especially in spring."
QUESTION = "Which trail in Sintra do I love?"


def _ok(response: httpx.Response) -> dict:
    assert response.status_code == 200, f"{response.request.method} {response.request.url}: {response.text}"
    return response.json()


def _error(response: httpx.Response, status: int) -> dict:
    assert response.status_code == status, response.text
    return response.json()["error"]


def _fields(error: dict) -> set[str]:
    """The fields an error's details name (metadata.field, or a bad request's violations)."""
    named = set()
    for detail in error["details"]:
        if isinstance((detail.get("metadata") or {}).get("field"), str):
            named.add(detail["metadata"]["field"])
        named |= {violation["field"] for violation in detail.get("fieldViolations") or ()}
    return named


async def _conversation(client: httpx.AsyncClient) -> dict:
    """A memory of the user's, a session, the user's question and the caller's own reply, an imported turn."""
    memory = _ok(
        await client.post(
            "/v1/memories",
            json={"memories": [{"content": MEMORY, "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": USER}}]},
        )
    )["memories"][0]
    session = _ok(await client.post("/v1/sessions", json={"scope": {"userId": USER, "agentId": "guide"}}))["session"]
    turns = f"/v1/sessions/{session['id']}/turns"
    asked = _ok(await client.post(turns, json={"turn": {"content": QUESTION, "idempotencyKey": "q-1"}}))
    reply = {"turn": {"role": "assistant", "content": "The Pena Park loop.", "idempotencyKey": "r-1"}}
    replied = _ok(await client.post(turns, json=reply))
    imported = {
        "turns": [{"role": "TURN_ROLE_USER", "content": "We hiked it in May.", "createdAt": "2025-05-08T10:00:00Z"}]
    }
    assert _ok(await client.post(f"{turns}:import", json=imported))["imported"] == 1
    history = _ok(await client.get(turns))["turns"]
    return {
        "memory": memory["id"],
        "session": session["id"],
        "asked": asked,
        "reply": replied["turn"]["id"],
        "imported": next(turn["id"] for turn in history if turn["content"] == "We hiked it in May."),
    }


async def test_a_user_turn_answers_the_context_processturn_gave_it_with_the_manifest(gateway, migrated_pg, org_id):
    client = asgi_client(gateway, await _create_key(migrated_pg.owner_dsn, org_id))
    async with client:
        said = await _conversation(client)
        path = f"/v1/sessions/{said['session']}/turns/{said['asked']['turn']['id']}/context"

        found = _ok(await client.get(path))

    assert found["status"] == "TURN_CONTEXT_STATUS_AVAILABLE" and (found["reason"], found["message"]) == ("", "")
    assert found["context"] == said["asked"]["context"], "the kept context is the one ProcessTurn answered"
    assert found["turn"] == said["asked"]["turn"]
    manifest = found["context"]["manifest"]
    assert said["memory"] in {entry["id"] for entry in manifest}, manifest
    [entry] = [entry for entry in manifest if entry["id"] == said["memory"]]
    assert set(entry["score"]) == {"similarity", "recency", "importance", "total"} and entry["outcome"]
    assert found["context"]["budgetTokens"] > 0 and found["context"]["sections"]
    assembled, expires = (datetime.fromisoformat(found[name]) for name in ("assembledAt", "expiresAt"))
    assert expires - assembled == timedelta(days=7)  # LORE_AGENT_TURN_RESULT_DAYS, the default
    assert abs(assembled - datetime.fromisoformat(said["asked"]["turn"]["createdAt"])) < timedelta(seconds=30)


async def test_turns_without_a_context_say_why_and_unknown_or_bad_ids_are_refused(gateway, migrated_pg, org_id):
    reader = asgi_client(gateway, await _create_key(migrated_pg.owner_dsn, org_id, scopes=("sessions:read",)))
    writer_only = asgi_client(gateway, await _create_key(migrated_pg.owner_dsn, org_id, scopes=("sessions:write",)))
    async with asgi_client(gateway, await _create_key(migrated_pg.owner_dsn, org_id)) as client, reader, writer_only:
        said = await _conversation(client)
        base = f"/v1/sessions/{said['session']}/turns"
        reply = _ok(await reader.get(f"{base}/{said['reply']}/context"))
        imported = _ok(await reader.get(f"{base}/{said['imported']}/context"))
        unknown = await reader.get(f"{base}/0b9a7c52-3f0e-4d1a-9c55-8f1e2d3c4b5a/context")
        bad = await reader.get(f"{base}/turn-1/context")
        no_session = await reader.get(
            f"/v1/sessions/7a1b2c3d-4e5f-5a6b-8c7d-9e0f1a2b3c4d/turns/{said['reply']}/context"
        )
        unscoped = await writer_only.get(f"{base}/{said['reply']}/context")

    assert (reply["status"], reply["reason"]) == ("TURN_CONTEXT_STATUS_NONE", "ASSISTANT_TURN")
    assert (imported["status"], imported["reason"]) == ("TURN_CONTEXT_STATUS_NONE", "IMPORTED_TURN")
    for answer in (reply, imported):
        assert answer["message"] and "context" not in answer and "expiresAt" not in answer
    assert reply["turn"]["id"] == said["reply"] and imported["turn"]["content"] == "We hiked it in May."
    assert _error(unknown, 404)["details"][0]["reason"] == "TURN_NOT_FOUND"
    assert _error(no_session, 404)["details"][0]["reason"] == "SESSION_NOT_FOUND"
    assert "turnId" in _fields(_error(bad, 400))
    assert _error(unscoped, 403)["details"][0]["metadata"] == {"scope": "sessions:read"}


async def test_a_key_pinned_to_the_user_reads_the_user_turn_context(gateway, migrated_pg, org_id):
    async with asgi_client(gateway, await _create_key(migrated_pg.owner_dsn, org_id)) as client:
        said = await _conversation(client)
    _, key = await create_api_key(
        migrated_pg.owner_dsn, org_id=org_id, principal="hiking-app", scopes=["sessions:read"], user_id=USER
    )
    async with LoreClient("http://gateway", key, transport=httpx.ASGITransport(app=gateway)) as lore:
        found = await lore.get_turn_context(said["session"], said["asked"]["turn"]["id"])
        none = await lore.get_turn_context(said["session"], said["reply"])

    assert found.available and found.turn.content == QUESTION and found.context is not None
    assert said["memory"] in {entry["id"] for entry in found.context.manifest}
    assert found.expires_at - found.assembled_at == timedelta(days=7)
    assert not none.available and none.reason == "ASSISTANT_TURN" and none.context is None


class _Ahead:
    """The system clock, ``days`` later."""

    def __init__(self, days: float) -> None:
        self.delta = timedelta(days=days)

    def now(self) -> datetime:
        return datetime.now(UTC) + self.delta


async def test_a_context_past_the_retention_is_expired_once_the_agent_purged_it(
    services, migrated_pg, redis_url, org_id
):
    """The same agent, read thirty days on: the kept result is still shown until the agent's purge
    deletes it, and then answers EXPIRED with the time it passed the seven days (never NOT_FOUND)."""
    running = services["agent"]
    later = dataclasses.replace(running.container, clock=_Ahead(30), metrics=ServiceMetrics())
    async with AsyncExitStack() as stack:
        server = agent_svc.server.create_server(later, "127.0.0.1:0")  # no worker, no schedule: only the RPCs
        await server.start()
        stack.push_async_callback(server.stop, grace=None)
        upstreams = {**services, "agent": dataclasses.replace(running, server=server)}
        app = create_app(gateway_settings(upstreams, migrated_pg, redis_url))
        await stack.enter_async_context(app.router.lifespan_context(app))
        key = await _create_key(migrated_pg.owner_dsn, org_id)
        client = await stack.enter_async_context(asgi_client(app, key))

        said = await _conversation(client)
        turn = said["asked"]["turn"]
        path = f"/v1/sessions/{said['session']}/turns/{turn['id']}/context"
        not_yet_purged = _ok(await client.get(path))
        # The agent's purge (its daily turn_results job), for this result only: backdated, then purged
        # by the same function with a cut-off no other test's result is older than.
        pool = await asyncpg.create_pool(migrated_pg.owner_dsn, min_size=1, max_size=1)
        stack.push_async_callback(pool.close)
        await pool.execute("UPDATE agent.turn_results SET created_at = '2001-01-01Z' WHERE turn_id = $1", turn["id"])
        assert await PostgresTurnLoop(pool).prune_results(datetime(2002, 1, 1, tzinfo=UTC)) == 1
        expired = _ok(await client.get(path))
        reply = _ok(await client.get(f"/v1/sessions/{said['session']}/turns/{said['reply']}/context"))

    assert not_yet_purged["status"] == "TURN_CONTEXT_STATUS_AVAILABLE", "kept until the purge deletes it"
    assert datetime.fromisoformat(not_yet_purged["expiresAt"]) < datetime.now(UTC) + timedelta(days=30)
    assert (expired["status"], expired["reason"]) == ("TURN_CONTEXT_STATUS_EXPIRED", "RETENTION")
    assert "context" not in expired and "assembledAt" not in expired and "7 days" in expired["message"]
    assert datetime.fromisoformat(expired["expiresAt"]) == datetime.fromisoformat(turn["createdAt"]) + timedelta(days=7)
    assert reply["reason"] == "ASSISTANT_TURN", "a reply never had a context, however old"


async def _dead_jobs(dsn: str, org_id: str, sessions: list[str]) -> None:
    """Jobs of the org that stay in the queue: dead, as pgqueuer holds a job whose attempts ran out
    (done jobs leave the queue, and the running worker would finish queued ones)."""
    jobs = [reflect_job(org_id, session, 1) for session in sessions]
    jobs += [episode_job(org_id, sessions[0]), erase_job(org_id, f"erase-{org_id}")]
    connection = await asyncpg.connect(dsn)
    try:
        for job in jobs:  # one transaction each: ids in creation order, newest last
            async with connection.transaction():
                await enqueue_on(connection, [job])
                await connection.execute(
                    "UPDATE agent.pgqueuer SET status = 'failed', attempts = 8 WHERE dedupe_key = $1", job.dedupe_key
                )
    finally:
        await connection.close()


async def test_the_org_jobs_are_paged_newest_first_each_once(gateway, migrated_pg, org_id):
    sessions = [f"0b9a7c52-3f0e-4d1a-9c55-8f1e2d3c4b{index:02d}" for index in range(7)]
    await _dead_jobs(migrated_pg.app_dsn, org_id, sessions)
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    reader = asgi_client(gateway, await _create_key(migrated_pg.owner_dsn, org_id, scopes=("sessions:read",)))
    async with asgi_client(gateway, key) as client, reader:
        pages, tokens, token = [], [], ""
        while True:
            page = _ok(await client.get("/v1/admin/jobs:list", params={"pageSize": 3, "pageToken": token}))
            pages.append(page["jobs"])
            if not (token := page["nextPageToken"]):
                break
            tokens.append(token)
        erase = _ok(await client.get("/v1/admin/jobs:list", params={"kind": "erase"}))["jobs"]
        queued = _ok(await client.get("/v1/admin/jobs:list", params={"state": "queued"}))["jobs"]
        bad_state = await client.get("/v1/admin/jobs:list", params={"state": "done"})
        bad_token = await client.get("/v1/admin/jobs:list", params={"pageToken": "not-a-token"})
        other_filters = await client.get("/v1/admin/jobs:list", params={"kind": "reflect", "pageToken": tokens[0]})
        refused = await reader.get("/v1/admin/jobs:list")

    jobs = [job for page in pages for job in page]
    assert [len(page) for page in pages] == [3, 3, 3]
    assert len({job["id"] for job in jobs}) == 9, "each job once"
    assert [int(job["id"]) for job in jobs] == sorted((int(job["id"]) for job in jobs), reverse=True)
    assert [job["kind"] for job in jobs[:2]] == ["erase", "episode"], "newest first"
    assert [job["sessionId"] for job in jobs[2:]] == sessions[::-1]
    assert all(job["state"] == "dead" and job["attempts"] == 8 and "nextAttemptAt" not in job for job in jobs)
    assert [job["erasureId"] for job in erase] == [f"erase-{org_id}"] and queued == []
    assert "state" in _fields(_error(bad_state, 400)) and "done" in bad_state.json()["error"]["message"]
    assert "pageToken" in _fields(_error(bad_token, 400))
    assert "pageToken" in _fields(_error(other_filters, 400))
    assert _error(refused, 403)["details"][0]["metadata"] == {"scope": "admin"}


async def test_the_client_iterates_the_jobs_and_both_clients_send_the_same_request(gateway, migrated_pg, org_id):
    sessions = [f"5b7e1c9a-0d2f-4e3b-8a61-7c9d0e1f2a{index:02d}" for index in range(4)]
    await _dead_jobs(migrated_pg.app_dsn, org_id, sessions)
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    async with LoreClient("http://gateway", key, transport=httpx.ASGITransport(app=gateway)) as lore:
        every = [job async for job in lore.iter_jobs(page_size=2)]
        dead_reflects = await lore.list_jobs(kind="reflect", state="dead", page_size=10)

    assert len(every) == 6 and len({job.id for job in every}) == 6
    assert [job.session_id for job in dead_reflects] == sessions[::-1]
    assert all(job.created_at is not None and job.last_error == "" for job in every)
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"jobs": [], "nextPageToken": "", "status": "TURN_CONTEXT_STATUS_NONE"})

    with SyncLoreClient("http://gateway", key, transport=httpx.MockTransport(answer)) as sync:
        assert list(sync.list_jobs(kind="reflect", state="dead", page_size=10)) == []
        assert sync.get_turn_context(sessions[0], sessions[1]).context is None
    listing, context = sent
    assert (listing.method, listing.url.path) == ("GET", "/v1/admin/jobs:list")
    assert dict(listing.url.params) == {"kind": "reflect", "state": "dead", "pageSize": "10"}
    assert (context.method, context.url.path) == ("GET", f"/v1/sessions/{sessions[0]}/turns/{sessions[1]}/context")


async def test_every_memory_answer_carries_the_half_life_the_decay_curve_needs(gateway, migrated_pg, org_id):
    """The memory service's own LORE_HALF_LIFE_DAYS (none in the test stack: 30 days for every type),
    on each route that answers memories, so the page draws the deployment's curve, not a guess."""
    async with asgi_client(gateway, await _create_key(migrated_pg.owner_dsn, org_id)) as client:
        body = {"memories": [{"content": MEMORY, "memoryType": "MEMORY_TYPE_PREFERENCE", "scope": {"userId": USER}}]}
        [written] = _ok(await client.post("/v1/memories", json=body))["memories"]
        got = _ok(await client.get(f"/v1/memories/{written['id']}"))["memory"]
        [listed] = _ok(await client.get("/v1/memories", params={"userId": USER}))["memories"]
        [hit] = _ok(await client.post("/v1/memories:search", json={"query": QUESTION, "scope": {"userId": USER}}))[
            "results"
        ]

    assert [memory["halfLifeDays"] for memory in (written, got, listed, hit["memory"])] == [30.0] * 4
