"""Two users of one org and one agent: what is made for one user never shows the
other's memories, beliefs, episodes, threads or sessions, and the org's shared records reach both.

The org holds, for each of two users, a few hundred memories, a hundred and fifty beliefs, fifty
episodes with an open thread each, and a session whose turns went through reflection; plus records
shared by the org (no user). Every answer made for one user is searched, as raw text, for the other
user's ids and for a marker only the other user's contents carry.

Two callers are tried:
- the org-wide key an app serving many people holds, calling every content route *for* a user
  (naming that user): contexts, Prime, searches and listings never show the other user;
- a credential pinned to one user (``gateway_svc.api.auth.user_pin``), a JWT carrying the user claim and
  an API key made for that user (``lore keys create --user``) alike: every route of the app, tried
  with the other user's ids and name, answers 403/404 or the pinned user's own data — the wall holds
  even when the app is buggy. ``test_every_route_is_tried_or_user_free`` keeps the table complete.

A brand-new user of the org gets contexts and a Prime with nothing of either user; erasing one user
removes that user's scoped beliefs and leaves the other's.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import jwt
import pytest
from fastapi.routing import iter_route_contexts
from gateway_svc.adapters.postgres_key_admin import create_api_key
from gateway_svc.server import create_app
from lore.common.v1 import scope_pb2
from lore.memory.v1 import episode_service_pb2, episode_service_pb2_grpc
from lore_runtime.request_context import RequestContext

from tests.grpc_harness import service_channel
from tests.integration.gateway.conftest import _create_key, asgi_client, gateway_settings
from tests.integration.gateway.mcp_requests import tool_call
from tests.integration.gateway.test_cross_tenant import CASES as TENANT_CASES
from tests.integration.gateway.test_cross_tenant import TENANT_FREE, _ids, _ok
from tests.polling import eventually

AGENT = "aria"
MEMORIES = 300
BELIEFS = 150
EPISODES = 50
SECRET = "cross-user-secret-of-at-least-32-bytes!"
AUDIENCE = "lore-cross-user"
CONTEXT = "SCOPE_MATCH_CONTEXT"
TOPICS = ("gardening", "chess", "sailing", "pottery", "astronomy", "baking", "cycling", "jazz", "birding", "poetry")
QUERY = "What do I like: gardening chess sailing pottery astronomy baking cycling jazz birding poetry?"


@dataclass
class User:
    user_id: str
    marker: str
    session: str = ""
    ids: set[str] = field(default_factory=set)

    @property
    def secrets(self) -> set[str]:
        return self.ids | {self.marker}


@dataclass
class Org:
    org_id: str
    key: str
    shared_marker: str
    users: dict[str, User]
    shared_ids: set[str] = field(default_factory=set)

    def other(self, name: str) -> User:
        [other] = [user for key, user in self.users.items() if key != name]
        return other


async def _remember(client: httpx.AsyncClient, marker: str, scope: dict[str, str], count: int) -> None:
    kinds = ("MEMORY_TYPE_FACT", "MEMORY_TYPE_PREFERENCE", "MEMORY_TYPE_MESSAGE")
    for start in range(0, count, 100):
        batch = [
            {
                "content": f"{marker}: note {i} about {TOPICS[i % len(TOPICS)]} and the weekend plans.",
                "memoryType": kinds[i % len(kinds)],
                "scope": scope,
                "idempotencyKey": f"{marker}-{i}",
            }
            for i in range(start, min(count, start + 100))
        ]
        _ok(await client.post("/v1/memories", json={"memories": batch}))


async def _observe(client: httpx.AsyncClient, marker: str, user_id: str, count: int) -> None:
    for i in range(count):
        body = {
            "agentId": AGENT,
            "scope": {"userId": user_id},
            "candidate": {
                "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
                "subjectType": "SUBJECT_TYPE_ENTITY",
                # The same subject and slots for both users: two users' keys are two beliefs.
                "subjectId": "household",
                "slot": f"topic-{i}",
                "summary": f"Enjoys {TOPICS[i % len(TOPICS)]} ({marker} belief {i}).",
                "evidence": [
                    {"stance": "EVIDENCE_STANCE_SUPPORT", "sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": f"t-{i}"}
                ],
            },
        }
        _ok(await client.post("/v1/observations:observe", json=body))


async def _episodes(memory_address: str, org_id: str, marker: str, user_id: str, count: int) -> None:
    metadata = RequestContext(org_id=org_id, principal="seeder", request_id="").metadata()
    async with service_channel(memory_address) as channel:
        stub = episode_service_pb2_grpc.EpisodeServiceStub(channel)
        for i in range(count):
            topic = TOPICS[i % len(TOPICS)]
            episode = episode_service_pb2.Episode(
                conversation_id=f"{marker}-conversation-{i}",
                scope=scope_pb2.Scope(user_id=user_id, agent_id=AGENT),
                summary=f"Talked about {topic} ({marker} episode {i}).",
                key_topics=[topic],
                open_threads=[
                    episode_service_pb2.OpenThread(
                        topic=f"{topic} follow-up ({marker})",
                        status=episode_service_pb2.THREAD_STATUS_OPEN,
                        context=f"Pick up the {topic} question ({marker}).",
                    )
                ],
                message_count=4,
            )
            request = episode_service_pb2.CreateEpisodeRequest(episode=episode, request_id=f"{marker}-episode-{i}")
            await stub.CreateEpisode(request, metadata=metadata, timeout=10)


async def _browse_all(client: httpx.AsyncClient, path: str, listed: str, params: dict[str, str]) -> list[Any]:
    items: list[Any] = []
    token = ""
    while True:
        page = _ok(
            await client.get(path, params={**params, "pageSize": "100", **({"pageToken": token} if token else {})})
        )
        items += page[listed]
        token = page["nextPageToken"]
        if not token:
            return items


async def _converse(client: httpx.AsyncClient, user: User) -> None:
    started = _ok(await client.post("/v1/sessions", json={"scope": {"userId": user.user_id, "agentId": AGENT}}))
    user.session = started["session"]["id"]
    for index, line in enumerate(
        (
            f"I'm vegetarian and I live in Lisbon ({user.marker}).",
            f"I prefer PostgreSQL for my projects ({user.marker}).",
        )
    ):
        body = {"turn": {"role": "TURN_ROLE_USER", "content": line, "idempotencyKey": f"{user.marker}-{index}"}}
        _ok(await client.post(f"/v1/sessions/{user.session}/turns", json=body))

    async def reflected() -> bool:
        session = _ok(await client.get(f"/v1/sessions/{user.session}"))["session"]
        return session["reflectedTurns"] == 2

    await eventually(reflected, timeout=60)


@pytest.fixture(scope="module")
async def gateway(services, migrated_pg, redis_url):
    """The walls, not the rate limits, are under test: paging 600 memories seven at a time outruns
    the default 100-request burst of one key on a fast run (a 429 that says nothing about privacy)."""
    app = create_app(gateway_settings(services, migrated_pg, redis_url, LORE_RATE_LIMIT="0"))
    async with app.router.lifespan_context(app):
        yield app


@pytest.fixture(scope="module")
async def org(gateway, services, migrated_pg) -> AsyncIterator[Org]:
    tag = uuid.uuid4().hex[:10]
    org_id = f"org-users-{tag}"
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    users = {name: User(f"{name}-{tag}", f"{animal}{tag}") for name, animal in (("ana", "ibis"), ("bo", "okapi"))}
    one = Org(org_id, key, f"heron{tag}", users)
    async with asgi_client(gateway, key) as client:
        for user in users.values():
            await _remember(client, user.marker, {"userId": user.user_id, "agentId": AGENT}, MEMORIES)
            await _observe(client, user.marker, user.user_id, BELIEFS)
            await _episodes(services["memory"].address, org_id, user.marker, user.user_id, EPISODES)
            await _converse(client, user)
        # Shared by the org: no user.
        await _remember(client, one.shared_marker, {}, 20)
        await _remember(client, one.shared_marker + "a", {"agentId": AGENT}, 10)
        shared_belief = {
            "agentId": AGENT,
            "candidate": {
                "kind": "OBSERVATION_KIND_WORLD_FACT",
                "subjectType": "SUBJECT_TYPE_GLOBAL",
                "slot": "office-hours",
                "summary": f"The office is open for gardening chess and sailing clubs ({one.shared_marker}).",
                "evidence": [
                    {"stance": "EVIDENCE_STANCE_SUPPORT", "sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": "s-1"}
                ],
            },
        }
        _ok(await client.post("/v1/observations:observe", json=shared_belief))
        await _episodes(services["memory"].address, org_id, one.shared_marker, "", 2)

        for user in users.values():
            scope = {"userId": user.user_id}
            records = [
                *await _browse_all(client, "/v1/memories", "memories", scope),
                *await _browse_all(client, "/v1/observations", "observations", scope),
                *await _browse_all(client, "/v1/episodes", "episodes", scope),
                *await _browse_all(client, "/v1/sessions", "sessions", scope),
                *await _browse_all(client, f"/v1/sessions/{user.session}/turns", "turns", {}),
            ]
            user.ids = _ids(records)
            memories = [r for r in records if "memoryType" in r]
            beliefs = [r for r in records if "canonicalKey" in r]
            assert len(memories) >= MEMORIES and len(beliefs) >= BELIEFS + 1, (len(memories), len(beliefs))
            assert all(b["scope"]["userId"] == user.user_id for b in beliefs)
        one.shared_ids = _ids(await _browse_all(client, "/v1/memories", "memories", {"scopeMatch": CONTEXT}))
    yield one


def assert_nothing_of(other: User, response: httpx.Response, where: str) -> None:
    assert response.status_code < 500, f"{where} -> {response.status_code} {response.text}"
    leaked = sorted(secret for secret in other.secrets if secret in response.text)
    assert not leaked, f"{other.user_id}'s {leaked[:5]} in {where}"


# ---------------------------------------------------------------------------------------------
# An org-wide key calling every content route for one user.


def _for_user(user: User) -> list[tuple[str, str, dict[str, Any]]]:
    u = user.user_id
    scope = {"userId": u, "agentId": AGENT}
    return [
        ("POST", "/v1/memories:search", {"json": {"query": QUERY, "scope": scope, "k": 100}}),
        ("POST", "/v1/memories:search", {"json": {"query": QUERY, "scope": scope, "k": 100, "scopeMatch": CONTEXT}}),
        ("POST", "/v1/memories:search", {"json": {"query": QUERY, "scope": {"userId": u}, "k": 100}}),
        ("GET", "/v1/memories", {"params": {"userId": u, "pageSize": 500}}),
        ("GET", "/v1/memories", {"params": {"userId": u, "agentId": AGENT, "pageSize": 500, "scopeMatch": CONTEXT}}),
        ("GET", "/v1/episodes", {"params": {"userId": u, "pageSize": 100}}),
        ("GET", "/v1/episodes", {"params": {"userId": u, "pageSize": 100, "scopeMatch": CONTEXT}}),
        ("GET", "/v1/open-threads", {"params": {"userId": u, "pageSize": 100}}),
        ("GET", "/v1/open-threads", {"params": {"userId": u, "pageSize": 100, "scopeMatch": CONTEXT}}),
        ("GET", "/v1/memory/prime", {"params": {"userId": u}}),
        ("GET", "/v1/memory/prime", {"params": {"userId": u, "agentId": AGENT, "initialMessage": QUERY}}),
        ("GET", "/v1/memory/prime", {"params": {"userId": u, "agentId": AGENT, "budgetTokens": 4000}}),
        ("GET", f"/v1/users/{u}/profile", {"params": {"agentId": AGENT}}),
        ("GET", f"/v1/users/{u}/profile", {}),
        ("POST", "/v1/context:assemble", {"json": {"scope": scope, "message": QUERY}}),
        ("POST", "/v1/context:assemble", {"json": {"scope": {"userId": u}, "message": QUERY}}),
        ("POST", "/v1/context:assemble", {"json": {"sessionId": user.session, "scope": scope, "message": QUERY}}),
        ("GET", "/v1/observations", {"params": {"userId": u, "pageSize": 500}}),
        ("GET", "/v1/observations", {"params": {"userId": u, "agentId": AGENT, "scopeMatch": CONTEXT}}),
        ("POST", "/v1/observations:search", {"json": {"agentId": AGENT, "userId": u, "query": QUERY, "k": 50}}),
        ("POST", "/v1/observations:search", {"json": {"userId": u, "query": QUERY, "k": 50}}),
        ("POST", "/v1/sessions", {"json": {"scope": scope, "initialMessage": QUERY}}),
        ("POST", "/v1/sessions", {"json": {"scope": {"userId": u}, "includePrime": True}}),
        ("GET", "/v1/sessions", {"params": {"userId": u}}),
        ("GET", f"/v1/sessions/{user.session}", {}),
        ("GET", f"/v1/sessions/{user.session}/turns", {}),
        (
            "POST",
            f"/v1/sessions/{user.session}/turns",
            {"json": {"turn": {"role": "TURN_ROLE_USER", "content": QUERY, "idempotencyKey": f"q-{uuid.uuid4()}"}}},
        ),
        (
            "POST",
            f"/v1/sessions/{user.session}/turns",
            {"json": {"turn": {"role": "assistant", "content": "Noted.", "idempotencyKey": f"a-{uuid.uuid4()}"}}},
        ),
    ]


@pytest.mark.parametrize("name", ["ana", "bo"])
async def test_every_content_route_called_for_one_user_shows_nothing_of_the_other(org, gateway, name):
    user, other = org.users[name], org.other(name)
    async with asgi_client(gateway, org.key) as client:
        for method, path, given in _for_user(user):
            response = await client.request(method, path, **given)
            where = f"{method} {path} {json.dumps(given)[:160]}"
            assert response.status_code == 200, f"{where} -> {response.text}"
            assert_nothing_of(other, response, where)


async def test_a_users_context_prime_and_searches_carry_the_orgs_shared_records(org, gateway):
    user, other = org.users["ana"], org.other("ana")
    scope = {"userId": user.user_id, "agentId": AGENT}
    async with asgi_client(gateway, org.key) as client:

        async def recall(marker: str) -> str:
            body = {"query": f"{marker} weekend plans", "scope": scope, "k": 100, "scopeMatch": CONTEXT}
            return json.dumps(_ok(await client.post("/v1/memories:search", json=body)))

        async def beliefs(marker: str) -> str:
            body = {"agentId": AGENT, "userId": user.user_id, "query": f"{marker} gardening", "k": 50}
            return json.dumps(_ok(await client.post("/v1/observations:search", json=body)))

        found = {marker: (await recall(marker), await beliefs(marker)) for marker in (org.shared_marker, user.marker)}
        listed = _ok(
            await client.get("/v1/memories", params={"userId": user.user_id, "scopeMatch": CONTEXT, "pageSize": 500})
        )
        context = _ok(await client.post("/v1/context:assemble", json={"scope": scope, "message": org.shared_marker}))

    for marker, (memories, belief_hits) in found.items():
        assert marker in memories and marker in belief_hits, marker
        assert other.marker not in memories + belief_hits
    assert {m["scope"]["userId"] for m in listed["memories"]} == {user.user_id, ""}
    assert org.shared_ids & {entry["id"] for entry in context["context"]["manifest"]}


async def test_an_org_wide_key_cannot_read_one_users_session_into_anothers_context(org, gateway):
    user, other = org.users["ana"], org.other("ana")
    async with asgi_client(gateway, org.key) as client:
        crossed = await client.post(
            "/v1/context:assemble",
            json={"sessionId": other.session, "scope": {"userId": user.user_id, "agentId": AGENT}, "message": QUERY},
        )
        unscoped = await client.post("/v1/context:assemble", json={"sessionId": other.session, "message": QUERY})
        own = await client.post(
            "/v1/context:assemble",
            json={"sessionId": user.session, "scope": {"userId": user.user_id, "agentId": AGENT}, "message": QUERY},
        )

    for refused in (crossed, unscoped):
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["details"][0]["metadata"]["field"] == "sessionId"
        assert other.marker not in refused.text
    assert own.status_code == 200, own.text


async def test_a_brand_new_users_context_and_prime_show_nothing_of_the_orgs_users(org, gateway):
    newcomer = f"new-{uuid.uuid4().hex[:8]}"
    scope = {"userId": newcomer, "agentId": AGENT}
    async with asgi_client(gateway, org.key) as client:
        started = await client.post("/v1/sessions", json={"scope": scope, "initialMessage": QUERY})
        session = _ok(started)["session"]["id"]
        answers = [
            started,
            await client.get("/v1/memory/prime", params={"userId": newcomer, "agentId": AGENT}),
            await client.get("/v1/memory/prime", params={"userId": newcomer, "initialMessage": QUERY}),
            await client.post("/v1/context:assemble", json={"scope": scope, "message": "Am I vegetarian? " + QUERY}),
            await client.post(
                f"/v1/sessions/{session}/turns",
                json={"turn": {"role": "TURN_ROLE_USER", "content": "Hi! Which database do I prefer? " + QUERY}},
            ),
        ]
    for answer in answers:
        for user in org.users.values():
            assert_nothing_of(user, answer, f"{answer.request.method} {answer.request.url}")
    assert "vegetarian" not in answers[0].text.lower() and "vegetarian" not in answers[1].text.lower()
    assert "prime" in started.json() and started.json()["primeUnavailable"] is False


# ---------------------------------------------------------------------------------------------
# A credential pinned to one user, a JWT or an API key, on every route of the app.


@pytest.fixture(scope="module")
async def jwt_gateway(services, migrated_pg, redis_url):
    app = create_app(
        gateway_settings(services, migrated_pg, redis_url, LORE_JWT_HS256_SECRET=SECRET, LORE_JWT_AUDIENCE=AUDIENCE)
    )
    async with app.router.lifespan_context(app):
        yield app


def _token(org_id: str, user_id: str) -> str:
    now = int(time.time())
    claims = {"sub": f"app-of-{user_id}", "org_id": org_id, "aud": AUDIENCE, "exp": now + 600, "user_id": user_id}
    return jwt.encode({**claims, "scope": "admin"}, SECRET, algorithm="HS256")


# Both ways a credential is pinned to one user; each must hold the same walls.
CREDENTIALS = ("jwt", "api-key")


async def _pinned(credential: str, org: Org, user_id: str, owner_dsn: str) -> str:
    """A credential of ``org`` pinned to ``user_id`` with the admin scope (every scope of the org):
    a JWT carrying the user claim, or an API key made for that user."""
    if credential == "jwt":
        return _token(org.org_id, user_id)
    _, key = await create_api_key(
        owner_dsn, org_id=org.org_id, principal=f"app-of-{user_id}", scopes=["admin"], user_id=user_id
    )
    return key


@dataclass(frozen=True)
class Try:
    """One request of the pinned user with the other user's ids or name: refused (403/404), or
    answered 200 with the pinned user's own data (``own``)."""

    method: str
    path: str
    json: Any = None
    params: dict[str, Any] | None = None
    own: bool = False
    headers: dict[str, str] | None = None


# Routes that act on the org as a whole (engagement is one state per org; admin jobs act on the org):
# a credential pinned to one user is refused there (403 USER_PINNED).
ORG_WIDE: dict[tuple[str, str], Try] = {
    ("GET", "/v1/engagement"): Try("GET", "/v1/engagement"),
    ("POST", "/v1/engagement/hypotheses"): Try("POST", "/v1/engagement/hypotheses", json={"statement": "x"}),
    ("POST", "/v1/engagement/hypotheses/{hypothesis_id}/evidence"): Try(
        "POST", "/v1/engagement/hypotheses/h-1/evidence", json={"evidence": {"statement": "x"}}
    ),
    ("POST", "/v1/engagement/hypotheses/{hypothesis_id}:revise"): Try(
        "POST", "/v1/engagement/hypotheses/h-1:revise", json={"confidence": 0.5, "reason": "x"}
    ),
    ("POST", "/v1/engagement/hypotheses/{hypothesis_id}:promote"): Try(
        "POST", "/v1/engagement/hypotheses/h-1:promote", json={"source": "x"}
    ),
    ("POST", "/v1/engagement/hypotheses/{hypothesis_id}:archive"): Try(
        "POST", "/v1/engagement/hypotheses/h-1:archive", json={"note": "x"}
    ),
    ("POST", "/v1/engagement/unknowns"): Try("POST", "/v1/engagement/unknowns", json={"question": "x?"}),
    ("POST", "/v1/engagement/unknowns/{unknown_id}:resolve"): Try(
        "POST", "/v1/engagement/unknowns/u-1:resolve", json={"resolution": "x"}
    ),
    ("POST", "/v1/engagement:advanceWeek"): Try("POST", "/v1/engagement:advanceWeek", json={}),
    ("POST", "/v1/admin/decay:run"): Try("POST", "/v1/admin/decay:run", json={}),
    ("POST", "/v1/admin/consolidation:run"): Try("POST", "/v1/admin/consolidation:run", json={"threshold": 0.99}),
    ("POST", "/v1/admin/revalidation:run"): Try("POST", "/v1/admin/revalidation:run", json={}),
    ("POST", "/v1/admin/reindex"): Try("POST", "/v1/admin/reindex", json={}),
    ("GET", "/v1/admin/jobs"): Try("GET", "/v1/admin/jobs"),
    ("GET", "/v1/admin/jobs:list"): Try("GET", "/v1/admin/jobs:list"),
    ("POST", "/v1/admin/jobs:retry"): Try("POST", "/v1/admin/jobs:retry", json={}),
}

PINNED_CASES: dict[tuple[str, str], Callable[[User, dict[str, str]], list[Try]]] = {
    ("POST", "/v1/sessions"): lambda v, r: [
        Try("POST", "/v1/sessions", json={"scope": {"userId": v.user_id, "agentId": AGENT}}),
        Try("POST", "/v1/sessions", json={"scope": {"userId": v.user_id}, "initialMessage": QUERY}),
        Try("POST", "/v1/sessions", json={"scope": {"agentId": AGENT}}, own=True),
        # Primed for the pinned user: nothing of the other's in it.
        Try("POST", "/v1/sessions", json={"scope": {"agentId": AGENT}, "initialMessage": QUERY}, own=True),
        Try("POST", "/v1/sessions", json={"includePrime": True}, own=True),
    ],
    ("GET", "/v1/sessions"): lambda v, r: [
        Try("GET", "/v1/sessions", params={"userId": v.user_id}),
        Try("GET", "/v1/sessions", own=True),
    ],
    ("GET", "/v1/sessions/{session_id}"): lambda v, r: [Try("GET", f"/v1/sessions/{v.session}")],
    # Another user's profile: 403 USER_PINNED, however it is named.
    ("GET", "/v1/users/{user_id}/profile"): lambda v, r: [
        Try("GET", f"/v1/users/{v.user_id}/profile"),
        Try("GET", f"/v1/users/{v.user_id}/profile", params={"agentId": AGENT}),
        Try("GET", f"/v1/users/{v.user_id}/profile", params={"userProfile": "x", "budgetTokens": 300}),
    ],
    # Who the credential is: its own user, nothing of the other's (test_whoami_and_ui checks the fields).
    ("GET", "/v1/whoami"): lambda v, r: [Try("GET", "/v1/whoami", own=True)],
    ("POST", "/v1/sessions/{session_id}:end"): lambda v, r: [Try("POST", f"/v1/sessions/{v.session}:end")],
    ("GET", "/v1/sessions/{session_id}/turns"): lambda v, r: [Try("GET", f"/v1/sessions/{v.session}/turns")],
    ("GET", "/v1/sessions/{session_id}/turns/{turn_id}/context"): lambda v, r: [
        Try("GET", f"/v1/sessions/{v.session}/turns/{r['turn']}/context")
    ],
    ("POST", "/v1/sessions/{session_id}/turns"): lambda v, r: [
        Try("POST", f"/v1/sessions/{v.session}/turns", json={"turn": {"role": "TURN_ROLE_USER", "content": QUERY}}),
        Try("POST", f"/v1/sessions/{v.session}/turns", json={"turn": {"role": "assistant", "content": "Noted."}}),
    ],
    ("POST", "/v1/sessions/{session_id}/turns:import"): lambda v, r: [
        Try(
            "POST",
            f"/v1/sessions/{v.session}/turns:import",
            json={"turns": [{"role": "TURN_ROLE_USER", "content": "x", "createdAt": "2023-05-08T13:58:00Z"}]},
        )
    ],
    ("POST", "/v1/memories"): lambda v, r: [
        Try("POST", "/v1/memories", json={"memories": [{"content": "x", "scope": {"userId": v.user_id}}]}),
        Try(
            "POST",
            "/v1/memories",
            json={"memories": [{"content": "Pinned user's own note.", "memoryType": "MEMORY_TYPE_FACT"}]},
            own=True,
        ),
    ],
    ("GET", "/v1/memories"): lambda v, r: [
        Try("GET", "/v1/memories", params={"userId": v.user_id}),
        Try("GET", "/v1/memories", params={"pageSize": 500}, own=True),
        Try("GET", "/v1/memories", params={"pageSize": 500, "scopeMatch": CONTEXT}, own=True),
    ],
    ("GET", "/v1/memories/{memory_id}"): lambda v, r: [Try("GET", f"/v1/memories/{r['memory']}")],
    ("PATCH", "/v1/memories/{memory_id}"): lambda v, r: [
        Try("PATCH", f"/v1/memories/{r['memory']}", json={"memory": {"importance": 0.1}, "updateMask": "importance"}),
        Try(
            "PATCH",
            f"/v1/memories/{r['shared_memory']}",
            json={"memory": {"importance": 0.1}, "updateMask": "importance"},
        ),
    ],
    ("DELETE", "/v1/memories/{memory_id}"): lambda v, r: [
        Try("DELETE", f"/v1/memories/{r['memory']}"),
        Try("DELETE", f"/v1/memories/{r['shared_memory']}"),
    ],
    ("POST", "/v1/memories:forget"): lambda v, r: [
        Try("POST", "/v1/memories:forget", json={"scope": {"userId": v.user_id}, "about": QUERY}),
        Try("POST", "/v1/memories:forget", json={"about": QUERY}, own=True),
    ],
    ("POST", "/v1/memories:search"): lambda v, r: [
        Try("POST", "/v1/memories:search", json={"query": QUERY, "scope": {"userId": v.user_id}}),
        Try("POST", "/v1/memories:search", json={"query": QUERY, "k": 100}, own=True),
        Try("POST", "/v1/memories:search", json={"query": QUERY, "k": 100, "scopeMatch": CONTEXT}, own=True),
    ],
    ("GET", "/v1/episodes"): lambda v, r: [
        Try("GET", "/v1/episodes", params={"userId": v.user_id}),
        Try("GET", "/v1/episodes", params={"pageSize": 100}, own=True),
    ],
    ("GET", "/v1/open-threads"): lambda v, r: [
        Try("GET", "/v1/open-threads", params={"userId": v.user_id}),
        Try("GET", "/v1/open-threads", params={"pageSize": 100}, own=True),
    ],
    ("POST", "/v1/open-threads/{episode_id}/{thread_index}:resolve"): lambda v, r: [
        Try("POST", f"/v1/open-threads/{r['episode']}/0:resolve", json={"resolution": "closed by the other user"}),
        Try("POST", f"/v1/open-threads/{r['shared_episode']}/0:resolve"),
    ],
    ("POST", "/v1/subjects:forget"): lambda v, r: [
        Try("POST", "/v1/subjects:forget", json={"subject": {"userId": v.user_id}, "requestId": "pinned-forget"})
    ],
    ("GET", "/v1/memory/prime"): lambda v, r: [
        Try("GET", "/v1/memory/prime", params={"userId": v.user_id}),
        Try("GET", "/v1/memory/prime", params={"agentId": AGENT, "initialMessage": QUERY}, own=True),
    ],
    ("POST", "/v1/context:assemble"): lambda v, r: [
        Try("POST", "/v1/context:assemble", json={"scope": {"userId": v.user_id}, "message": QUERY}),
        Try("POST", "/v1/context:assemble", json={"sessionId": v.session, "message": QUERY}),
        Try("POST", "/v1/context:assemble", json={"scope": {"agentId": AGENT}, "message": QUERY}, own=True),
    ],
    ("GET", "/v1/observations"): lambda v, r: [
        Try("GET", "/v1/observations", params={"userId": v.user_id}),
        Try("GET", "/v1/observations", params={"pageSize": 500}, own=True),
        Try("GET", "/v1/observations", params={"subjectId": "household", "pageSize": 500}, own=True),
    ],
    ("POST", "/v1/observations:search"): lambda v, r: [
        Try("POST", "/v1/observations:search", json={"userId": v.user_id, "query": QUERY}),
        Try("POST", "/v1/observations:search", json={"agentId": AGENT, "query": QUERY, "k": 50}, own=True),
    ],
    ("POST", "/v1/observations:observe"): lambda v, r: [
        Try(
            "POST",
            "/v1/observations:observe",
            json={
                "agentId": AGENT,
                "scope": {"userId": v.user_id},
                "candidate": {
                    "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
                    "subjectType": "SUBJECT_TYPE_ENTITY",
                    "subjectId": "household",
                    "slot": "topic-1",
                    "summary": "Hates everything.",
                },
            },
        )
    ],
    ("GET", "/v1/observations/{observation_id}"): lambda v, r: [Try("GET", f"/v1/observations/{r['belief']}")],
    ("GET", "/v1/observations/{observation_id}/history"): lambda v, r: [
        Try("GET", f"/v1/observations/{r['belief']}/history")
    ],
    ("POST", "/v1/observations/{observation_id}:confirm"): lambda v, r: [
        Try("POST", f"/v1/observations/{r['belief']}:confirm", json={"note": "yes"}),
        Try("POST", f"/v1/observations/{r['shared_belief']}:confirm", json={"note": "yes"}),
    ],
    ("POST", "/v1/observations/{observation_id}:contradict"): lambda v, r: [
        Try(
            "POST",
            f"/v1/observations/{r['belief']}:contradict",
            json={"evidence": {"sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": "t-x"}, "correction": "Hates it."},
        )
    ],
    # MCP (test_mcp.py): naming the other user is refused; without a name the tools act for the pinned
    # user, and the other's ids (memory, session) come back as the tool's "not found" error result.
    ("POST", "/mcp"): lambda v, r: [
        Try("POST", "/mcp", **tool_call("search_memories", {"query": QUERY}, agent=AGENT, user=v.user_id)),
        *(
            Try("POST", "/mcp", own=True, **tool_call(tool, arguments, agent=AGENT, session=session))
            for tool, arguments, session in (
                ("search_memories", {"query": QUERY, "k": 50}, ""),
                ("search_beliefs", {"query": QUERY, "k": 50}, ""),
                ("get_context", {"message": QUERY}, ""),
                ("prime", {"initial_message": QUERY}, ""),
                ("forget_memory", {"memory_id": r["memory"]}, ""),
                ("forget_memory", {"memory_id": r["shared_memory"]}, ""),
                ("record_turn", {"user_message": "Hello.", "assistant_reply": "Hi."}, v.session),
            )
        ),
    ],
}


async def _records(client: httpx.AsyncClient, org: Org, victim: User) -> dict[str, str]:
    """Ids of the victim's records and of the org's shared ones, read with the org-wide key."""
    memories = _ok(await client.get("/v1/memories", params={"userId": victim.user_id, "pageSize": 1}))["memories"]
    beliefs = _ok(await client.get("/v1/observations", params={"userId": victim.user_id, "pageSize": 1}))
    shared = _ok(await client.get("/v1/memories", params={"scopeMatch": CONTEXT, "pageSize": 1}))["memories"]
    shared_beliefs = _ok(
        await client.post("/v1/observations:search", json={"agentId": AGENT, "query": "office hours clubs"})
    )["results"]
    episodes = _ok(await client.get("/v1/episodes", params={"userId": victim.user_id, "pageSize": 1}))["episodes"]
    shared_episodes = _ok(await client.get("/v1/episodes", params={"scopeMatch": CONTEXT, "pageSize": 1}))["episodes"]
    turns = _ok(await client.get(f"/v1/sessions/{victim.session}/turns", params={"pageSize": 1}))["turns"]
    return {
        "turn": turns[0]["id"],
        "episode": episodes[0]["id"],
        "shared_episode": shared_episodes[0]["id"],
        "memory": memories[0]["id"],
        "belief": beliefs["observations"][0]["id"],
        "shared_memory": shared[0]["id"],
        "shared_belief": shared_beliefs[0]["observation"]["id"],
    }


@pytest.mark.parametrize("credential", CREDENTIALS)
@pytest.mark.parametrize("route", sorted(PINNED_CASES), ids=lambda route: f"{route[0]} {route[1]}")
async def test_a_credential_pinned_to_one_user_reaches_nothing_of_the_other_on_any_route(
    org, gateway, jwt_gateway, migrated_pg, route, credential
):
    pinned, victim = org.users["ana"], org.users["bo"]
    async with asgi_client(gateway, org.key) as backend:
        records = await _records(backend, org, victim)
        before = _ok(await backend.get("/v1/observations", params={"userId": victim.user_id, "pageSize": 500}))
    token = await _pinned(credential, org, pinned.user_id, migrated_pg.owner_dsn)
    async with asgi_client(jwt_gateway, token) as client:
        for attempt in PINNED_CASES[route](victim, records):
            response = await client.request(
                attempt.method, attempt.path, json=attempt.json, params=attempt.params, headers=attempt.headers
            )
            where = f"{attempt.method} {attempt.path} {attempt.json or attempt.params or ''}"
            if attempt.own:
                assert response.status_code == 200, f"{where} -> {response.text}"
            else:
                assert response.status_code in (403, 404), f"{where} -> {response.status_code} {response.text}"
                assert response.json()["error"]["status"] in ("NOT_FOUND", "PERMISSION_DENIED"), where
            sent = json.dumps([attempt.path, attempt.json, attempt.params, attempt.headers])
            leaked = sorted(secret for secret in victim.secrets if secret in response.text and secret not in sent)
            assert not leaked, f"{victim.user_id}'s {leaked[:5]} in {where}"
    async with asgi_client(gateway, org.key) as backend:
        after = _ok(await backend.get("/v1/observations", params={"userId": victim.user_id, "pageSize": 500}))
        memory = _ok(await backend.get(f"/v1/memories/{records['memory']}"))["memory"]
        threads = _ok(await backend.get("/v1/open-threads", params={"userId": victim.user_id, "pageSize": 100}))
    assert [o["id"] for o in after["observations"]] == [o["id"] for o in before["observations"]]
    assert records["episode"] in {t["episodeId"] for t in threads["threads"]}  # the victim's thread is still open
    assert memory["status"] == "MEMORY_STATUS_ACTIVE" and memory["importance"] != 0.1


def test_every_route_is_tried_or_user_free(gateway):
    served = set()
    for route in iter_route_contexts(gateway.routes):
        if route.path not in TENANT_FREE:
            served |= {(method, route.path) for method in (route.methods or {"ANY"}) - {"HEAD"}}

    assert served == TENANT_CASES.keys(), "the cross-tenant table must cover the app first"
    assert sorted(served - PINNED_CASES.keys() - ORG_WIDE.keys()) == [], "routes with no cross-user case"
    assert sorted((PINNED_CASES.keys() | ORG_WIDE.keys()) - served) == [], "cases of routes the app no longer has"
    assert not PINNED_CASES.keys() & ORG_WIDE.keys()


@pytest.mark.parametrize("credential", CREDENTIALS)
async def test_a_credential_pinned_to_one_user_never_gets_the_others_session_or_prime_by_its_request_id(
    org, gateway, jwt_gateway, migrated_pg, credential
):
    pinned, victim = org.users["ana"], org.users["bo"]
    request_id = f"start-{uuid.uuid4().hex[:8]}"
    async with asgi_client(gateway, org.key) as backend:
        theirs = _ok(
            await backend.post("/v1/sessions", json={"scope": {"userId": victim.user_id}, "requestId": request_id})
        )
    token = await _pinned(credential, org, pinned.user_id, migrated_pg.owner_dsn)
    async with asgi_client(jwt_gateway, token) as client:
        response = await client.post("/v1/sessions", json={"requestId": request_id, "initialMessage": QUERY})

    # A request id is its caller's own (org, principal, pinned user): the same one from another caller
    # starts that caller's own session.
    assert response.status_code == 200, response.text
    assert response.json()["session"]["scope"]["userId"] == pinned.user_id
    assert theirs["session"]["id"] not in response.text
    assert_nothing_of(victim, response, "POST /v1/sessions with the other user's request id")


@pytest.mark.parametrize("credential", CREDENTIALS)
@pytest.mark.parametrize("route", sorted(ORG_WIDE), ids=lambda route: f"{route[0]} {route[1]}")
async def test_a_credential_pinned_to_one_user_cannot_use_org_wide_routes(
    org, jwt_gateway, migrated_pg, route, credential
):
    attempt = ORG_WIDE[route]
    token = await _pinned(credential, org, org.users["ana"].user_id, migrated_pg.owner_dsn)
    async with asgi_client(jwt_gateway, token) as client:
        response = await client.request(attempt.method, attempt.path, json=attempt.json)

    assert response.status_code == 403, response.text
    # Reindex needs the operator scope, which neither a JWT nor a pinned key carries: refused before
    # the pin is looked at.
    expected = "SCOPE_MISSING" if route == ("POST", "/v1/admin/reindex") else "USER_PINNED"
    assert response.json()["error"]["details"][0]["reason"] == expected


# ---------------------------------------------------------------------------------------------
# Erasure of one user.


async def test_erasing_one_user_removes_their_scoped_beliefs_and_leaves_the_others(gateway, migrated_pg):
    org_id = f"org-erase-{uuid.uuid4().hex[:10]}"
    async with asgi_client(gateway, await _create_key(migrated_pg.owner_dsn, org_id)) as client:
        for user in ("gone", "stays"):
            await _observe(client, f"marker-{user}", user, 3)
        erasure = {"subject": {"userId": "gone"}, "requestId": "erase-gone"}
        _ok(await client.post("/v1/subjects:forget", json=erasure))

        async def completed() -> bool:
            job = _ok(await client.post("/v1/subjects:forget", json=erasure))["job"]
            return job["status"] == "ERASURE_STATUS_COMPLETED"

        await eventually(completed, timeout=60)
        gone = _ok(await client.get("/v1/observations", params={"userId": "gone"}))["observations"]
        stays = _ok(await client.get("/v1/observations", params={"userId": "stays"}))["observations"]

    assert gone == []
    assert len(stays) == 3 and all(o["scope"]["userId"] == "stays" for o in stays)


@pytest.mark.parametrize("order", ["MEMORY_ORDER_NEWEST", "MEMORY_ORDER_SALIENCE"])
async def test_paging_a_users_context_listing_through_ties_never_brings_in_the_other_user(org, gateway, order):
    """Memories written 100 to a call share their creation time and salience, so small pages cut
    through ties. Every page holds only the user's and the org's memories. (That each comes exactly
    once is what keyset paging gives: offset tokens over unstable ties would repeat and skip.)"""
    user, other = org.users["ana"], org.other("ana")
    seen: list[dict[str, Any]] = []
    async with asgi_client(gateway, org.key) as client:
        token = ""
        while True:
            params = {"userId": user.user_id, "scopeMatch": CONTEXT, "orderBy": order, "pageSize": "7"}
            page = _ok(await client.get("/v1/memories", params={**params, **({"pageToken": token} if token else {})}))
            assert_nothing_of(other, httpx.Response(200, text=json.dumps(page)), f"page after {len(seen)}")
            seen += page["memories"]
            token = page["nextPageToken"]
            if not token:
                break

    assert len(seen) > MEMORIES
    assert {memory["scope"]["userId"] for memory in seen} == {user.user_id, ""}
    assert not {memory["id"] for memory in seen} & other.ids


# ---------------------------------------------------------------------------------------------
# Another user's record looks absent: its 404 is the 404 of an id nobody holds.


def _without_ids(response: httpx.Response, *ids: str) -> tuple[int, str, str]:
    """Status, content type and body of ``response`` with its request id and ``ids`` blanked."""
    body = response.json()
    body["error"]["requestId"] = ""
    text = json.dumps(body, sort_keys=True)
    for record_id in ids:
        text = text.replace(record_id, "<id>")
    return response.status_code, response.headers["content-type"], text


@pytest.mark.parametrize("credential", CREDENTIALS)
async def test_another_users_record_answers_the_404_of_an_id_that_does_not_exist(
    gateway, jwt_gateway, services, migrated_pg, credential
):
    org_id = f"org-oracle-{uuid.uuid4().hex[:10]}"
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    async with asgi_client(gateway, key) as backend:
        await _remember(backend, "oracle", {"userId": "bo", "agentId": AGENT}, 1)
        await _observe(backend, "oracle", "bo", 1)
        await _episodes(services["memory"].address, org_id, "oracle", "bo", 1)
        memory = _ok(await backend.get("/v1/memories", params={"userId": "bo"}))["memories"][0]["id"]
        belief = _ok(await backend.get("/v1/observations", params={"userId": "bo"}))["observations"][0]["id"]
        episode = _ok(await backend.get("/v1/episodes", params={"userId": "bo"}))["episodes"][0]["id"]
        session = _ok(await backend.post("/v1/sessions", json={"scope": {"userId": "bo", "agentId": AGENT}}))
        session_id = session["session"]["id"]
        turn = {"turn": {"role": "TURN_ROLE_USER", "content": "I keep bees.", "idempotencyKey": "t-1"}}
        turn_id = _ok(await backend.post(f"/v1/sessions/{session_id}/turns", json=turn))["turn"]["id"]
    one = Org(org_id, key, "", {})
    token = await _pinned(credential, one, "ana", migrated_pg.owner_dsn)
    patch = {"json": {"memory": {"importance": 0.1}, "updateMask": "importance"}}
    evidence = {"sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": "t-x"}
    # (method, path with {0} for the record's id and {1} for a turn's, what to send)
    routes: list[tuple[str, str, dict[str, Any]]] = [
        ("GET", "/v1/memories/{0}", {}),
        ("PATCH", "/v1/memories/{0}", patch),
        ("DELETE", "/v1/memories/{0}", {}),
        ("GET", "/v1/observations/{0}", {}),
        ("GET", "/v1/observations/{0}/history", {}),
        ("POST", "/v1/observations/{0}:confirm", {"json": {"note": "yes"}}),
        ("POST", "/v1/observations/{0}:contradict", {"json": {"evidence": evidence, "correction": "No."}}),
        ("POST", "/v1/open-threads/{0}/0:resolve", {"json": {"resolution": "done"}}),
        ("GET", "/v1/sessions/{0}", {}),
        ("POST", "/v1/sessions/{0}:end", {"json": {}}),
        ("GET", "/v1/sessions/{0}/turns", {}),
        ("GET", "/v1/sessions/{0}/turns/{1}/context", {}),
        ("POST", "/v1/sessions/{0}/turns", {"json": {"turn": {"role": "TURN_ROLE_USER", "content": "Hi."}}}),
        (
            "POST",
            "/v1/sessions/{0}/turns:import",
            {"json": {"turns": [{"role": "TURN_ROLE_USER", "content": "x", "createdAt": "2023-05-08T13:58:00Z"}]}},
        ),
    ]
    theirs = {"memories": memory, "observations": belief, "open-threads": episode, "sessions": session_id}
    async with asgi_client(jwt_gateway, token) as client:
        for method, path, given in routes:
            owned_id = theirs[path.split("/")[2]]
            nobodys_id, nobodys_turn = str(uuid.uuid4()), str(uuid.uuid4())
            other = await client.request(method, path.format(owned_id, turn_id), **given)
            absent = await client.request(method, path.format(nobodys_id, nobodys_turn), **given)

            where = f"{method} {path}"
            assert absent.status_code == 404, f"{where} -> {absent.text}"
            assert _without_ids(other, owned_id, turn_id) == _without_ids(absent, nobodys_id, nobodys_turn), where
