"""Tenancy through the gateway: a key of org A tries every route of the app
against the ids and subjects of org B, and gets NOT_FOUND or 403, or its own (empty) data —
never B's, and never a change to B's.

Org B's data is built once per module through REST: sessions with processed and imported turns,
memories of a subject both orgs use (``shared-user``) and of one only B uses, a belief, an
engagement hypothesis and unknown, an episode and an erasure job. Every answer to A is searched,
as raw text, for B's ids and for a marker only B's contents carry; after every call that could
write, B re-reads its data with its own key and finds it unchanged.

The route table is the app's: ``test_every_route_is_tried_or_tenant_free`` fails when a route has
neither a case here nor a place in ``TENANT_FREE``, so a route added later must be given one.

No request message of ``protos/lore/*/v1`` has an org field (checked below), so a body or query
that names an org (``orgId``, ``org_id``) is an unknown field: 400, like any other.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import httpx
import lore
import pytest
from agent_svc.adapters.pgqueuer_jobs import enqueue_on
from agent_svc.domain.jobs import erase_job, reflect_job
from fastapi.routing import iter_route_contexts
from lore_runtime.request_context import ORG_ID_KEY

from tests.integration.gateway.conftest import _create_key, asgi_client
from tests.integration.gateway.mcp_requests import found_nothing, not_found, tool_call
from tests.polling import eventually, settled

SHARED_USER = "shared-user"
B_AGENT = "agent-b"
# Routes with no tenant data: the gateway's own health, metrics and documentation.
TENANT_FREE = frozenset(
    {"/healthz", "/readyz", "/v1/status", "/metrics", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"}
    | {"/ui", "/ui/{path:path}"}  # the memory browser's static files: the page reads data through the API
)
# Fields whose value moves with the clock or with B's own reads, not with anyone's writes.
VOLATILE = frozenset({"currentSalience", "freshness", "lastAccessedAt", "accessCount"})


def _ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, f"{response.request.method} {response.request.url}: {response.text}"
    return response.json()


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _stable(item) for key, item in value.items() if key not in VOLATILE}
    if isinstance(value, list):
        return [_stable(item) for item in value]
    return value


def _ids(value: Any) -> set[str]:
    """Every ``id`` in a JSON document (ids are uuids; subjects and agent names are not ids)."""
    if isinstance(value, dict):
        found = {value["id"]} if isinstance(value.get("id"), str) and value["id"] else set()
        return found.union(*(_ids(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(_ids(item) for item in value))
    return set()


@dataclass
class OrgB:
    """The victim: what it owns, and how to read it back with its own key."""

    org_id: str
    marker: str
    user: str  # a subject only B uses
    new_client: Callable[[], Awaitable[httpx.AsyncClient]]
    active_session: str = ""
    ended_session: str = ""
    start_request: str = ""
    shared_memory: str = ""
    own_memory: str = ""
    remember_body: dict[str, Any] = field(default_factory=dict)
    idempotency_key: str = ""
    observation: str = ""
    observe_body: dict[str, Any] = field(default_factory=dict)
    hypothesis: str = ""
    hypothesis_request: str = ""
    unknown: str = ""
    unknown_request: str = ""
    episode: str = ""
    erasure_job: str = ""
    erasure_body: dict[str, Any] = field(default_factory=dict)
    turns: list[tuple[str, str]] = field(default_factory=list)  # (session, turn) of every turn
    snapshot: dict[str, Any] = field(default_factory=dict)
    ids: set[str] = field(default_factory=set)

    @property
    def secrets(self) -> set[str]:
        """What must never reach A: B's ids and the marker in B's contents."""
        return self.ids | {self.marker}

    async def read(self) -> dict[str, Any]:
        """B's data as B sees it (a fresh key each time: the re-reads never meet a rate limit)."""
        client = await self.new_client()
        async with client:
            paths = [
                "/v1/sessions",
                "/v1/memories?pageSize=100",
                f"/v1/memories?pageSize=100&userId={self.user}",
                "/v1/observations?pageSize=100",
                f"/v1/observations?pageSize=100&agentId={B_AGENT}",
                "/v1/engagement",
                "/v1/episodes",
                "/v1/open-threads",
            ]
            for session in (self.active_session, self.ended_session):
                paths += [f"/v1/sessions/{session}", f"/v1/sessions/{session}/turns?pageSize=100"]
            paths += [f"/v1/memories/{memory}" for memory in (self.shared_memory, self.own_memory)]
            paths += [f"/v1/observations/{self.observation}", f"/v1/observations/{self.observation}/history"]
            return {path: _stable(_ok(await client.get(path))) for path in paths}


@pytest.fixture(scope="module")
async def org_b(gateway, migrated_pg) -> AsyncIterator[OrgB]:
    """Org B's data, built once through REST with B's key, settled, and read back."""
    tag = uuid.uuid4().hex[:12]
    clients: list[httpx.AsyncClient] = []

    async def new_client() -> httpx.AsyncClient:
        client = asgi_client(gateway, await _create_key(migrated_pg.owner_dsn, b.org_id))
        clients.append(client)
        return client

    b = OrgB(org_id=f"org-b-{tag}", marker=f"zebrafinch{tag}", user=f"b-only-{tag}", new_client=new_client)
    client = await new_client()
    mark = b.marker

    b.start_request = f"start-{tag}"
    active = await client.post(
        "/v1/sessions",
        json={
            "scope": {"userId": SHARED_USER, "agentId": B_AGENT},
            "metadata": {"tag": mark},
            "requestId": b.start_request,
        },
    )
    b.active_session = _ok(active)["session"]["id"]
    turn = {
        "turn": {
            "role": "TURN_ROLE_USER",
            "content": f"I'm vegetarian and I live in Lisbon ({mark} turn).",
            "idempotencyKey": "b-1",
        }
    }
    _ok(await client.post(f"/v1/sessions/{b.active_session}/turns", json=turn))
    imported = {
        "turns": [
            {
                "role": "TURN_ROLE_USER",
                "content": f"My quince tree blossomed in May ({mark} import).",
                "createdAt": "2023-05-08T13:56:00Z",
            },
            {
                "role": "TURN_ROLE_ASSISTANT",
                "content": f"Lovely, quinces make good jam ({mark}).",
                "createdAt": "2023-05-08T13:57:00Z",
            },
        ]
    }
    assert _ok(await client.post(f"/v1/sessions/{b.active_session}/turns:import", json=imported))["imported"] == 2

    ended = _ok(await client.post("/v1/sessions", json={"scope": {"userId": SHARED_USER}}))
    b.ended_session = ended["session"]["id"]
    for index, line in enumerate(
        ("We decided on the Mediterranean menu.", "Do you know whether chickpeas freeze well?")
    ):
        body = {"turn": {"role": "TURN_ROLE_USER", "content": f"{line} ({mark})", "idempotencyKey": f"e-{index}"}}
        _ok(await client.post(f"/v1/sessions/{b.ended_session}/turns", json=body))

    async def reflected() -> bool:
        sessions = [_ok(await client.get(f"/v1/sessions/{s}"))["session"] for s in (b.active_session, b.ended_session)]
        return [s["reflectedTurns"] for s in sessions] == [3, 2]  # imported turns count as reflected

    await eventually(reflected)
    _ok(await client.post(f"/v1/sessions/{b.ended_session}:end"))

    async def episodes() -> list[dict[str, Any]]:
        return _ok(await client.get("/v1/episodes", params={"userId": SHARED_USER}))["episodes"]

    [episode] = await eventually(episodes)
    b.episode = episode["id"]

    b.idempotency_key = f"remember-{tag}"
    b.remember_body = {
        "memories": [
            {
                "content": f"The shared user keeps bees ({mark} shared).",
                "memoryType": "MEMORY_TYPE_FACT",
                "scope": {"userId": SHARED_USER},
                "idempotencyKey": "m-shared",
            },
            {
                "content": f"B's own user collects maps ({mark} own).",
                "memoryType": "MEMORY_TYPE_FACT",
                "scope": {"userId": b.user},
                "idempotencyKey": "m-own",
            },
        ]
    }
    remembered = await client.post("/v1/memories", json=b.remember_body, headers={"Idempotency-Key": b.idempotency_key})
    b.shared_memory, b.own_memory = (memory["id"] for memory in _ok(remembered)["memories"])

    b.observe_body = {
        "agentId": B_AGENT,
        "candidate": {
            "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
            "subjectType": "SUBJECT_TYPE_ENTITY",
            "subjectId": SHARED_USER,
            "slot": "database",
            "summary": f"Prefers Postgres for new services ({mark}).",
            "evidence": [
                {"stance": "EVIDENCE_STANCE_SUPPORT", "sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": "b-t-1"}
            ],
        },
    }
    b.observation = _ok(await client.post("/v1/observations:observe", json=b.observe_body))["observation"]["id"]

    b.hypothesis_request = f"hypothesis-{tag}"
    hypothesis = {
        "statement": f"Churn comes from onboarding ({mark}).",
        "evidence": [
            {
                "statement": f"Cancellations cluster in week one ({mark}).",
                "stance": "EVIDENCE_STANCE_SUPPORT",
                "source": "exit survey",
            }
        ],
        "requestId": b.hypothesis_request,
    }
    b.hypothesis = _ok(await client.post("/v1/engagement/hypotheses", json=hypothesis))["hypothesis"]["id"]
    b.unknown_request = f"unknown-{tag}"
    unknown = {
        "question": f"Which plan churns most ({mark})?",
        "whyItMatters": "Where to act.",
        "requestId": b.unknown_request,
    }
    b.unknown = _ok(await client.post("/v1/engagement/unknowns", json=unknown))["unknown"]["id"]

    b.erasure_body = {"subject": {"userId": f"b-erased-{tag}"}, "requestId": f"erase-{tag}"}
    b.erasure_job = _ok(await client.post("/v1/subjects:forget", json=b.erasure_body))["job"]["id"]

    b.snapshot = await settled(b.read, what="org B's data")  # two reads 0.3 s apart agree
    b.ids = _ids(b.snapshot) | {b.episode, b.erasure_job}
    b.turns = [
        (session, turn["id"])
        for session in (b.active_session, b.ended_session)
        for turn in b.snapshot[f"/v1/sessions/{session}/turns?pageSize=100"]["turns"]
    ]
    assert len(b.turns) == 5  # processed and imported, user and assistant
    await _dead_jobs(migrated_pg.app_dsn, b)
    dead = _ok(await client.get("/v1/admin/jobs:list", params={"state": "dead"}))["jobs"]
    assert {(job["kind"], job["sessionId"] or job["erasureId"]) for job in dead} == {
        ("reflect", b.active_session),
        ("erase", b.marker),
    }, "B lists its own dead jobs: A's empty listing means something"
    assert {b.active_session, b.ended_session, b.shared_memory, b.own_memory, b.observation} <= b.ids
    assert {b.hypothesis, b.unknown} <= b.ids
    yield b
    for opened in clients:
        await opened.aclose()


async def _dead_jobs(dsn: str, b: OrgB) -> None:
    """B's jobs leave the queue once done; two dead ones stay, as pgqueuer holds a job whose attempts
    ran out (status failed), so the job listing has B's jobs (a session id, the marker) to show A."""
    connection = await asyncpg.connect(dsn)
    try:
        jobs = [reflect_job(b.org_id, b.active_session, 99), erase_job(b.org_id, b.marker)]
        async with connection.transaction():  # dead before any worker could see them queued
            await enqueue_on(connection, jobs)
            await connection.execute(
                "UPDATE agent.pgqueuer SET status = 'failed', attempts = 8 WHERE dedupe_key = ANY($1::text[])",
                [job.dedupe_key for job in jobs],
            )
    finally:
        await connection.close()


# ---------------------------------------------------------------------------------------------
# What A tries, route by route. An attempt without ``own`` must be refused (403 or 404); one with
# ``own`` is answered 200 from A's own, empty org and ``own`` holds of the answer; an ``either``
# attempt may be either. Each attempt runs as a key of a fresh org, with every scope.


@dataclass(frozen=True)
class Attempt:
    method: str
    path: str
    json: Any = None
    params: dict[str, str] | None = None
    headers: dict[str, str] | None = None
    own: Callable[[httpx.Response, OrgB], bool] | None = None
    either: bool = False
    # Background work A's call started, awaited before B re-reads its data.
    settle: Callable[[httpx.AsyncClient, Attempt, httpx.Response, OrgB], Awaitable[None]] | None = None


def denied(method: str, path: str, **fields: Any) -> Attempt:
    return Attempt(method, path, **fields)


def own(method: str, path: str, check: Callable[[httpx.Response, OrgB], bool], **fields: Any) -> Attempt:
    return Attempt(method, path, own=check, **fields)


def empty(*names: str) -> Callable[[httpx.Response, OrgB], bool]:
    return lambda response, b: all(response.json()[name] == [] for name in names)


def no_profile(response: httpx.Response, b: OrgB) -> bool:
    return response.json()["profile"].get("lines", []) == []


def anything(response: httpx.Response, b: OrgB) -> bool:
    return True  # A's own answer; the search for B's ids and marker is the check


def not_replayed(response: httpx.Response, b: OrgB) -> bool:
    return "idempotent-replayed" not in response.headers and len(response.json()["memories"]) == 2


def nothing_checked(response: httpx.Response, b: OrgB) -> bool:
    return response.json()["checked"] == 0  # A's org has no beliefs to revalidate


def nothing_requeued(response: httpx.Response, b: OrgB) -> bool:
    return response.json() == {"requeued": 0, "skipped": 0}


def primed_empty(response: httpx.Response, b: OrgB) -> bool:
    """A's new session, with a Prime made (A's org remembers nothing: no item in it)."""
    body = response.json()
    prime = body.get("prime", {})
    items = [prime.get(name) for name in ("recentContext", "openThreads", "salientFacts", "observations")]
    return body["session"]["turnCount"] == 0 and body["primeUnavailable"] is False and items == [[], [], [], []]


def no_jobs(response: httpx.Response, b: OrgB) -> bool:
    counted = ("queued", "running", "retrying", "dead")
    return all(kind[name] == 0 for kind in response.json()["kinds"] for name in counted)


async def erasure_completes(attacker: httpx.AsyncClient, attempt: Attempt, first: httpx.Response, b: OrgB) -> None:
    """A's erasure job runs to its end, as A's job, having erased nothing (A has nothing)."""

    async def completed() -> dict[str, Any] | None:
        again = await attacker.post(attempt.path, json=attempt.json)
        assert_nothing_of_b(attempt, again, b)
        job = _ok(again)["job"]
        return job if job["status"] == "ERASURE_STATUS_COMPLETED" else None

    job = await eventually(completed)
    assert job["id"] == first.json()["job"]["id"] and not any(job["counts"].values()), job


FRESH_ENGAGEMENT = {"weekNumber": 1, "firstSession": True, "hypotheses": [], "unknowns": [], "findings": []}
QUERY = "vegetarian Lisbon quince jam bees maps Mediterranean menu chickpeas Postgres"
TURN = {"turn": {"role": "TURN_ROLE_USER", "content": "Where do I live again?", "idempotencyKey": "b-1"}}
# The caller's own reply, under the key of B's turn.
REPLY = {"turn": {"role": "assistant", "content": "You live in Porto now.", "idempotencyKey": "b-1"}}
IMPORT = {"turns": [{"role": "TURN_ROLE_USER", "content": "A was here.", "createdAt": "2023-05-08T13:58:00Z"}]}
CONTRADICTION = {
    "evidence": {"stance": "EVIDENCE_STANCE_CONTRADICT", "sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": "a-t-9"},
    "correction": "Prefers MySQL now.",
}
HYPOTHESIS_EVIDENCE = {
    "evidence": {
        "statement": "Onboarding changed nothing.",
        "stance": "EVIDENCE_STANCE_CONTRADICT",
        "source": "A's survey",
    }
}


def _sessions(b: OrgB) -> tuple[str, str]:
    return (b.active_session, b.ended_session)


def _memories(b: OrgB) -> tuple[str, str]:
    return (b.shared_memory, b.own_memory)


CASES: dict[tuple[str, str], Callable[[OrgB], list[Attempt]]] = {
    # Sessions and transcripts.
    ("POST", "/v1/sessions"): lambda b: [
        own(
            "POST",
            "/v1/sessions",
            json={"scope": {"userId": SHARED_USER, "agentId": B_AGENT}, "requestId": b.start_request},
            check=lambda response, b: response.json()["session"]["turnCount"] == 0,
        ),
        # B's subject, agent and request id, primed with B's words: A's own new session, primed from A's empty org.
        own(
            "POST",
            "/v1/sessions",
            json={
                "scope": {"userId": SHARED_USER, "agentId": B_AGENT},
                "requestId": b.start_request,
                "initialMessage": QUERY,
            },
            check=primed_empty,
        ),
        own(
            "POST",
            "/v1/sessions",
            json={"scope": {"userId": SHARED_USER}, "includePrime": True},
            check=primed_empty,
        ),
    ],
    ("GET", "/v1/sessions"): lambda b: [
        own("GET", "/v1/sessions", check=empty("sessions")),
        own("GET", "/v1/sessions", params={"userId": SHARED_USER}, check=empty("sessions")),
    ],
    ("GET", "/v1/sessions/{session_id}"): lambda b: [denied("GET", f"/v1/sessions/{s}") for s in _sessions(b)],
    ("POST", "/v1/sessions/{session_id}:end"): lambda b: [
        denied("POST", f"/v1/sessions/{s}:end") for s in _sessions(b)
    ],
    ("GET", "/v1/sessions/{session_id}/turns"): lambda b: [
        denied("GET", f"/v1/sessions/{s}/turns") for s in _sessions(b)
    ],
    ("POST", "/v1/sessions/{session_id}/turns"): lambda b: [
        denied("POST", f"/v1/sessions/{s}/turns", json=body) for s in _sessions(b) for body in (TURN, REPLY)
    ],
    ("POST", "/v1/sessions/{session_id}/turns:import"): lambda b: [
        denied("POST", f"/v1/sessions/{s}/turns:import", json=IMPORT) for s in _sessions(b)
    ],
    # A turn's kept context (its manifest names B's memories): every turn of B's, processed and imported.
    ("GET", "/v1/sessions/{session_id}/turns/{turn_id}/context"): lambda b: [
        denied("GET", f"/v1/sessions/{s}/turns/{t}/context") for s, t in b.turns
    ],
    # Long-term memory. Memory ids derive from org + scope + idempotency key: A uses B's scopes and keys,
    # and B's Idempotency-Key header (same principal name, other org), with B's body and with another.
    ("POST", "/v1/memories"): lambda b: [
        own(
            "POST",
            "/v1/memories",
            json=b.remember_body,
            headers={"Idempotency-Key": b.idempotency_key},
            check=not_replayed,
        ),
        own(
            "POST",
            "/v1/memories",
            json={"memories": [{**memory, "content": "A's note."} for memory in b.remember_body["memories"]]},
            headers={"Idempotency-Key": b.idempotency_key},
            check=not_replayed,
        ),
    ],
    ("GET", "/v1/memories"): lambda b: [
        own("GET", "/v1/memories", check=empty("memories")),
        own("GET", "/v1/memories", params={"userId": SHARED_USER}, check=empty("memories")),
        own("GET", "/v1/memories", params={"userId": b.user}, check=empty("memories")),
        own(
            "GET",
            "/v1/memories",
            params={"userId": SHARED_USER, "scopeMatch": "SCOPE_MATCH_CONTEXT", "pageSize": 7},
            check=empty("memories"),
        ),
    ],
    ("GET", "/v1/memories/{memory_id}"): lambda b: [denied("GET", f"/v1/memories/{m}") for m in _memories(b)],
    ("PATCH", "/v1/memories/{memory_id}"): lambda b: [
        denied("PATCH", f"/v1/memories/{m}", json={"memory": {"importance": 0.1}, "updateMask": "importance"})
        for m in _memories(b)
    ],
    ("DELETE", "/v1/memories/{memory_id}"): lambda b: [denied("DELETE", f"/v1/memories/{m}") for m in _memories(b)],
    ("POST", "/v1/memories:forget"): lambda b: [
        own(
            "POST", "/v1/memories:forget", json={"scope": {"userId": b.user}, "about": QUERY}, check=empty("forgotten")
        ),
        own(
            "POST",
            "/v1/memories:forget",
            json={"scope": {"userId": SHARED_USER}, "about": QUERY},
            check=empty("forgotten"),
        ),
    ],
    ("POST", "/v1/memories:search"): lambda b: [
        own(
            "POST",
            "/v1/memories:search",
            json={"query": QUERY, "scope": {"userId": SHARED_USER}},
            check=empty("results"),
        ),
        own("POST", "/v1/memories:search", json={"query": QUERY, "scope": {"userId": b.user}}, check=empty("results")),
        own("POST", "/v1/memories:search", json={"query": QUERY, "k": 50}, check=empty("results")),
        own(
            "POST",
            "/v1/memories:search",
            json={"query": QUERY, "scope": {"userId": SHARED_USER}, "scopeMatch": "SCOPE_MATCH_CONTEXT"},
            check=empty("results"),
        ),
        Attempt("POST", "/v1/memories:search", json={"query": QUERY, "sessionId": b.active_session}, either=True),
    ],
    ("GET", "/v1/episodes"): lambda b: [
        own("GET", "/v1/episodes", check=empty("episodes")),
        own("GET", "/v1/episodes", params={"userId": SHARED_USER}, check=empty("episodes")),
        own(
            "GET",
            "/v1/episodes",
            params={"userId": SHARED_USER, "scopeMatch": "SCOPE_MATCH_CONTEXT"},
            check=empty("episodes"),
        ),
    ],
    ("GET", "/v1/open-threads"): lambda b: [
        own("GET", "/v1/open-threads", check=empty("threads")),
        own("GET", "/v1/open-threads", params={"userId": SHARED_USER}, check=empty("threads")),
    ],
    # Resolving B's thread: B's episode id is absent for A (B's threads stay as they were).
    ("POST", "/v1/open-threads/{episode_id}/{thread_index}:resolve"): lambda b: [
        denied("POST", f"/v1/open-threads/{b.episode}/0:resolve", json={"resolution": "A closed it."}),
        denied("POST", f"/v1/open-threads/{b.episode}/1:resolve"),
    ],
    # Erasure: A erases "shared-user" (its own, empty), and reuses B's erasure requestId and subject.
    ("POST", "/v1/subjects:forget"): lambda b: [
        own(
            "POST",
            "/v1/subjects:forget",
            json={"subject": {"userId": SHARED_USER}, "requestId": "a-erases-shared-user"},
            check=anything,
            settle=erasure_completes,
        ),
        own("POST", "/v1/subjects:forget", json=b.erasure_body, check=anything, settle=erasure_completes),
    ],
    # Context.
    ("GET", "/v1/memory/prime"): lambda b: [
        own(
            "GET",
            "/v1/memory/prime",
            params={"userId": SHARED_USER, "agentId": B_AGENT, "initialMessage": QUERY},
            check=empty("recentContext", "openThreads", "salientFacts", "observations", "entities"),
        ),
        own(
            "GET",
            "/v1/memory/prime",
            params={"userId": b.user},
            check=empty("recentContext", "openThreads", "salientFacts", "observations", "entities"),
        ),
    ],
    # B's user's profile, read with A's key: A's own user of that name, of whom A's org learnt nothing.
    ("GET", "/v1/users/{user_id}/profile"): lambda b: [
        own("GET", f"/v1/users/{b.user}/profile", params=params, check=no_profile)
        for params in (None, {"agentId": B_AGENT}, {"agentId": B_AGENT, "budgetTokens": 300})
    ],
    ("POST", "/v1/context:assemble"): lambda b: [
        Attempt(
            "POST",
            "/v1/context:assemble",
            json={"sessionId": s, "scope": {"userId": SHARED_USER, "agentId": B_AGENT}, "message": QUERY},
            either=True,
        )
        for s in _sessions(b)
    ],
    # Observations.
    ("GET", "/v1/observations"): lambda b: [
        own("GET", "/v1/observations", check=empty("observations")),
        own(
            "GET",
            "/v1/observations",
            params={"agentId": B_AGENT, "subjectId": SHARED_USER},
            check=empty("observations"),
        ),
        own(
            "GET",
            "/v1/observations",
            params={"canonicalKey": f"entity:{SHARED_USER}:operator_preference:database"},
            check=empty("observations"),
        ),
        own("GET", "/v1/observations", params={"userId": SHARED_USER}, check=empty("observations")),
        own(
            "GET",
            "/v1/observations",
            params={"userId": SHARED_USER, "agentId": B_AGENT, "scopeMatch": "SCOPE_MATCH_CONTEXT"},
            check=empty("observations"),
        ),
    ],
    ("POST", "/v1/observations:search"): lambda b: [
        own(
            "POST",
            "/v1/observations:search",
            json={"agentId": B_AGENT, "query": QUERY, "k": 50},
            check=empty("results"),
        ),
        own("POST", "/v1/observations:search", json={"query": QUERY, "k": 50}, check=empty("results")),
        own(
            "POST",
            "/v1/observations:search",
            json={"agentId": B_AGENT, "userId": SHARED_USER, "query": QUERY, "k": 50},
            check=empty("results"),
        ),
    ],
    # The same belief (same agent, subject and slot, so the same canonical key) is A's own, created anew.
    ("POST", "/v1/observations:observe"): lambda b: [
        own(
            "POST",
            "/v1/observations:observe",
            json=b.observe_body,
            check=lambda response, b: response.json()["outcome"] == "OBSERVE_OUTCOME_CREATED",
        )
    ],
    ("GET", "/v1/observations/{observation_id}"): lambda b: [denied("GET", f"/v1/observations/{b.observation}")],
    ("GET", "/v1/observations/{observation_id}/history"): lambda b: [
        denied("GET", f"/v1/observations/{b.observation}/history")
    ],
    ("POST", "/v1/observations/{observation_id}:confirm"): lambda b: [
        denied("POST", f"/v1/observations/{b.observation}:confirm", json={"note": "A confirms."})
    ],
    ("POST", "/v1/observations/{observation_id}:contradict"): lambda b: [
        denied("POST", f"/v1/observations/{b.observation}:contradict", json=CONTRADICTION)
    ],
    # Who A is: A's own org and scopes, never B's.
    ("GET", "/v1/whoami"): lambda b: [
        own("GET", "/v1/whoami", check=lambda response, b: response.json()["orgId"] not in ("", b.org_id))
    ],
    # Engagement: A's reads see a fresh org; B's requestIds give A its own objects.
    ("GET", "/v1/engagement"): lambda b: [
        own("GET", "/v1/engagement", check=lambda response, b: response.json() == FRESH_ENGAGEMENT)
    ],
    ("POST", "/v1/engagement/hypotheses"): lambda b: [
        own(
            "POST",
            "/v1/engagement/hypotheses",
            json={"statement": "A's hunch.", "requestId": b.hypothesis_request},
            check=lambda response, b: response.json()["hypothesis"]["statement"] == "A's hunch.",
        )
    ],
    ("POST", "/v1/engagement/hypotheses/{hypothesis_id}/evidence"): lambda b: [
        denied("POST", f"/v1/engagement/hypotheses/{b.hypothesis}/evidence", json=HYPOTHESIS_EVIDENCE)
    ],
    ("POST", "/v1/engagement/hypotheses/{hypothesis_id}:revise"): lambda b: [
        denied("POST", f"/v1/engagement/hypotheses/{b.hypothesis}:revise", json={"confidence": 0.99, "reason": "A."})
    ],
    # B's hypothesis is not revised yet: B would get FAILED_PRECONDITION, A must not learn even that.
    ("POST", "/v1/engagement/hypotheses/{hypothesis_id}:promote"): lambda b: [
        denied("POST", f"/v1/engagement/hypotheses/{b.hypothesis}:promote", json={"source": "A's study"})
    ],
    ("POST", "/v1/engagement/hypotheses/{hypothesis_id}:archive"): lambda b: [
        denied("POST", f"/v1/engagement/hypotheses/{b.hypothesis}:archive", json={"note": "A archives."})
    ],
    ("POST", "/v1/engagement/unknowns"): lambda b: [
        own(
            "POST",
            "/v1/engagement/unknowns",
            json={"question": "A's question?", "whyItMatters": "A.", "requestId": b.unknown_request},
            check=lambda response, b: response.json()["unknown"]["question"] == "A's question?",
        )
    ],
    ("POST", "/v1/engagement/unknowns/{unknown_id}:resolve"): lambda b: [
        denied("POST", f"/v1/engagement/unknowns/{b.unknown}:resolve", json={"resolution": "A's answer."})
    ],
    ("POST", "/v1/engagement:advanceWeek"): lambda b: [
        own(
            "POST",
            "/v1/engagement:advanceWeek",
            json={"expectedWeekNumber": 1},
            check=lambda response, b: response.json() == {"weekNumber": 2},
        )
    ],
    # Operator jobs act on the caller's org (B's data is re-read after each).
    ("POST", "/v1/admin/decay:run"): lambda b: [
        own("POST", "/v1/admin/decay:run", json={}, check=lambda response, b: response.json()["updated"] == 0)
    ],
    ("POST", "/v1/admin/consolidation:run"): lambda b: [
        own(
            "POST",
            "/v1/admin/consolidation:run",
            json={"scope": {"userId": SHARED_USER}, "threshold": 0.8},
            check=lambda response, b: response.json()["examined"] == 0,
        ),
        own(
            "POST",
            "/v1/admin/consolidation:run",
            json={"threshold": 0.8},
            check=lambda response, b: response.json()["examined"] == 0,
        ),
    ],
    ("POST", "/v1/admin/revalidation:run"): lambda b: [
        own("POST", "/v1/admin/revalidation:run", json={"agentId": B_AGENT}, check=nothing_checked),
        own("POST", "/v1/admin/revalidation:run", json={}, check=nothing_checked),
    ],
    # The one store-wide operation (admin/routes docstring): the embedding model is the store's, so
    # it re-embeds every org's memories. It answers progress counts, never content or ids.
    ("POST", "/v1/admin/reindex"): lambda b: [own("POST", "/v1/admin/reindex", json={"force": False}, check=anything)],
    ("GET", "/v1/admin/jobs"): lambda b: [own("GET", "/v1/admin/jobs", check=no_jobs)],
    # B holds two dead jobs (_dead_jobs): A's listing, whatever its filters, is A's own, empty queue.
    ("GET", "/v1/admin/jobs:list"): lambda b: [
        own("GET", "/v1/admin/jobs:list", params=params, check=empty("jobs"))
        for params in (None, {"state": "dead"}, {"kind": "erase", "pageSize": "500"})
    ],
    ("POST", "/v1/admin/jobs:retry"): lambda b: [
        own("POST", "/v1/admin/jobs:retry", check=nothing_requeued, json={"kinds": ["reflect", "episode", "erase"]})
    ],
    # MCP (test_mcp.py): each tool call is a REST call with A's key, for B's user, agent and session.
    ("POST", "/mcp"): lambda b: [
        own("POST", "/mcp", check=check, **tool_call(tool, arguments, agent=B_AGENT, user=b.user, session=session))
        for tool, arguments, session, check in (
            ("search_memories", {"query": QUERY, "k": 50}, "", found_nothing),
            ("search_beliefs", {"query": QUERY, "k": 50}, "", found_nothing),
            ("get_context", {"message": QUERY}, b.active_session, anything),
            ("prime", {"initial_message": QUERY}, "", anything),
            ("forget_memory", {"memory_id": b.own_memory}, "", not_found),
            ("forget_memory", {"memory_id": b.shared_memory}, "", not_found),
            ("record_turn", {"user_message": "A was here.", "assistant_reply": "Hi A."}, b.active_session, not_found),
        )
    ],
}
# Known leaks: route -> pytest.mark.xfail(strict=True, reason=...). None found.
LEAKS: dict[tuple[str, str], pytest.MarkDecorator] = {}


def assert_nothing_of_b(attempt: Attempt, response: httpx.Response, b: OrgB) -> None:
    where = f"{attempt.method} {attempt.path} {attempt.params or ''} -> {response.status_code} {response.text}"
    assert response.status_code < 500, where
    refused = response.status_code in (403, 404)
    if attempt.either:
        assert refused or response.status_code == 200, where
    elif attempt.own is None:
        assert refused, where
    else:
        assert response.status_code == 200 and attempt.own(response, b), where
    if refused:
        assert response.json()["error"]["status"] in ("NOT_FOUND", "PERMISSION_DENIED"), where
    # What A sent may come back (an id in an error message, its own copy of a body); nothing else of B's may.
    sent = json.dumps([attempt.path, attempt.json, attempt.params, attempt.headers])
    answer = response.text + json.dumps(dict(response.headers))
    leaked = sorted(secret for secret in b.secrets if secret in answer and secret not in sent)
    assert not leaked, f"B's {leaked} in {where}"


def _differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [path for path in before.keys() | after.keys() if before.get(path) != after.get(path)]


@pytest.mark.parametrize(
    "route", [pytest.param(route, id=f"{route[0]} {route[1]}", marks=LEAKS.get(route, ())) for route in CASES]
)
async def test_another_orgs_key_gets_nothing_of_b_and_changes_nothing(route, org_b, client_for):
    for attempt in CASES[route](org_b):
        attacker = await client_for(f"org-a-{uuid.uuid4().hex[:12]}")
        response = await attacker.request(
            attempt.method, attempt.path, json=attempt.json, params=attempt.params, headers=attempt.headers
        )
        assert_nothing_of_b(attempt, response, org_b)
        if attempt.settle is not None:
            await attempt.settle(attacker, attempt, response, org_b)
    if route[0] != "GET":
        after = await org_b.read()
        assert after == org_b.snapshot, f"{route} changed B's {_differences(org_b.snapshot, after)}"


def test_every_route_is_tried_or_tenant_free(gateway):
    # FastAPI keeps included routers as branches of ``app.routes``; this walks them down to the routes.
    routes = list(iter_route_contexts(gateway.routes))
    served = set()
    for route in routes:
        if route.path not in TENANT_FREE:
            served |= {(method, route.path) for method in (route.methods or {"ANY"}) - {"HEAD"}}

    assert sorted(served - CASES.keys()) == [], "routes with no cross-tenant case: add one to CASES (or TENANT_FREE)"
    assert sorted(CASES.keys() - served) == [], "cases of routes the app no longer has"
    assert {route.path for route in routes} >= TENANT_FREE


# The browser's routes as a browser asks for them: the page itself and one of its files.
CONCRETE = {"/ui": "/ui/", "/ui/{path:path}": "/ui/js/app.js"}


@pytest.mark.parametrize("path", sorted(TENANT_FREE))
async def test_tenant_free_routes_carry_nothing_of_b(path, org_b, client_for, org_id):
    response = await (await client_for(org_id)).get(CONCRETE.get(path, path))

    assert response.status_code == 200, response.text
    assert not [secret for secret in org_b.secrets if secret in response.text]


# ---------------------------------------------------------------------------------------------
# Naming an org: the tenant comes from the credential only.


_ORG_OR_TENANT = re.compile(r"(?:^|_)org|tenant")


def _org_fields(descriptor) -> list[str]:
    # "org" as a word of the field's name ("org_id", "orgs", "organisation"), not inside one ("forgotten").
    names = [f"{descriptor.full_name}.{f.name}" for f in descriptor.fields if _ORG_OR_TENANT.search(f.name)]
    return names + [name for nested in descriptor.nested_types for name in _org_fields(nested)]


def test_no_message_of_the_protos_has_an_org_field():
    found = []
    for module in pkgutil.walk_packages(lore.__path__, "lore."):
        if module.name.endswith("_pb2"):
            for message in importlib.import_module(module.name).DESCRIPTOR.message_types_by_name.values():
                found += _org_fields(message)
    assert found == [], "an org field in a request would need the gateway to refuse another org's id"


ORG_NAMED: list[tuple[str, str, Callable[[OrgB], dict[str, Any]], str]] = [
    ("POST", "/v1/sessions", lambda b: {"scope": {"userId": SHARED_USER}, "orgId": b.org_id}, "orgId"),
    ("POST", "/v1/memories", lambda b: {**b.remember_body, "org_id": b.org_id}, "org_id"),
    (
        "POST",
        "/v1/memories:search",
        lambda b: {"query": QUERY, "scope": {"userId": SHARED_USER, "orgId": b.org_id}},
        "orgId",
    ),
    ("POST", "/v1/observations:observe", lambda b: {**b.observe_body, "orgId": b.org_id}, "orgId"),
    ("POST", "/v1/subjects:forget", lambda b: {"subject": {"userId": SHARED_USER}, "orgId": b.org_id}, "orgId"),
    ("POST", "/v1/context:assemble", lambda b: {"message": QUERY, "org_id": b.org_id}, "org_id"),
    ("GET", "/v1/memories", lambda b: {"userId": SHARED_USER, "orgId": b.org_id}, "orgId"),
    ("GET", "/v1/sessions", lambda b: {"org_id": b.org_id}, "org_id"),
]


@pytest.mark.parametrize(("method", "path", "build", "name"), ORG_NAMED, ids=[f"{m} {p}" for m, p, *_ in ORG_NAMED])
async def test_a_body_or_query_naming_an_org_is_refused_as_an_unknown_field(
    method, path, build, name, org_b, client_for, org_id
):
    client = await client_for(org_id)
    given = {"params": build(org_b)} if method == "GET" else {"json": build(org_b)}

    refused = await client.request(method, path, **given)

    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["status"] == "INVALID_ARGUMENT" and name in refused.json()["error"]["message"]
    assert (await client.get("/v1/sessions")).json()["sessions"] == []
    assert (await client.get("/v1/memories")).json()["memories"] == []


async def test_a_header_naming_another_org_changes_nothing(org_b, client_for, org_id):
    client = await client_for(org_id)
    headers = {ORG_ID_KEY: org_b.org_id, "X-Org-Id": org_b.org_id}  # the first is the services' metadata key

    session = await client.get(f"/v1/sessions/{org_b.active_session}", headers=headers)
    memories = await client.get("/v1/memories", params={"userId": SHARED_USER}, headers=headers)

    assert session.status_code == 404, session.text
    assert memories.status_code == 200 and memories.json()["memories"] == []
