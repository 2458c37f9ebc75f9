"""Idempotency-Key on POST, on the running stack: a repeat is replayed from the first response, a
different request under the same key is refused, keys are the caller's own, expired keys run again.
A small app of its own (same middleware, same Postgres) covers what the real routes cannot be made
to do on demand: fail with 5xx, raise, answer 429, or still be running."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from datetime import timedelta
from types import SimpleNamespace

import asyncpg
import httpx
import jwt
import pytest
from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from gateway_svc.adapters.postgres_idempotency import PostgresIdempotencyStore
from gateway_svc.adapters.postgres_key_admin import create_api_key
from gateway_svc.adapters.redis_rate_limits import NoRateLimiter
from gateway_svc.api.auth.auth import authorized
from gateway_svc.api.http import errors as gateway_errors
from gateway_svc.api.http import idempotency
from gateway_svc.bootstrap import idempotency_store
from gateway_svc.config import Settings
from gateway_svc.domain.credentials import ALL_SCOPES, Caller
from gateway_svc.domain.idempotency import Claim, IdempotencyRecord, Namespace
from gateway_svc.server import create_app
from lore_migrations import discover, migrate
from lore_runtime import errors
from lore_runtime.settings import load_settings

from tests.backends import fresh_database
from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.integration.gateway.conftest import _create_key, asgi_client, gateway_settings


def _key() -> dict[str, str]:
    return {"Idempotency-Key": f"key-{uuid.uuid4().hex}"}


async def _client_as(gateway, owner_dsn: str, org_id: str, principal: str, scopes=ALL_SCOPES) -> httpx.AsyncClient:
    return asgi_client(gateway, await _create_key(owner_dsn, org_id, scopes, principal=principal))


async def _owner_execute(owner_dsn: str, sql: str, *args) -> None:
    connection = await asyncpg.connect(owner_dsn)
    try:
        await connection.execute(sql, *args)
    finally:
        await connection.close()


async def test_a_repeated_post_writes_once_and_replays_the_first_response(client_for, org_id):
    client = await client_for(org_id)
    key = _key()
    body = {
        "memories": [{"content": "Ana keeps bees.", "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": "u-idem"}}]
    }

    first = await client.post("/v1/memories", json=body, headers=key)
    again = await client.post("/v1/memories", json=body, headers=key)
    listed = await client.get("/v1/memories", params={"userId": "u-idem"})

    assert first.status_code == 200, first.text
    assert "Idempotent-Replayed" not in first.headers
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.content == first.content and again.headers["content-type"] == first.headers["content-type"]
    assert again.headers["X-Request-Id"] != first.headers["X-Request-Id"]  # this request's own id
    assert [memory["id"] for memory in listed.json()["memories"]] == [first.json()["memories"][0]["id"]]


async def test_a_session_started_twice_under_one_key_is_one_session(client_for, org_id):
    client = await client_for(org_id)
    key = _key()

    first = await client.post("/v1/sessions", json={"scope": {"userId": "u-idem"}}, headers=key)
    again = await client.post("/v1/sessions", json={"scope": {"userId": "u-idem"}}, headers=key)
    without_key = await client.post("/v1/sessions", json={"scope": {"userId": "u-idem"}})

    assert first.status_code == 200, first.text
    assert again.json()["session"]["id"] == first.json()["session"]["id"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert without_key.json()["session"]["id"] != first.json()["session"]["id"]


async def test_the_same_key_with_another_request_is_refused_naming_the_header(client_for, org_id):
    client = await client_for(org_id)
    key = _key()
    await client.post("/v1/sessions", json={"scope": {"userId": "u-1"}}, headers=key)

    other_body = await client.post("/v1/sessions", json={"scope": {"userId": "u-2"}}, headers=key)
    other_query = await client.post("/v1/sessions?x=1", json={"scope": {"userId": "u-1"}}, headers=key)
    other_path = await client.post("/v1/memories:search", json={"query": "bees"}, headers=key)

    for refused in (other_body, other_query, other_path):
        assert refused.status_code == 409, refused.text
        error = refused.json()["error"]
        assert error["status"] == "ALREADY_EXISTS" and "Idempotency-Key" in error["message"]
        assert error["requestId"] == refused.headers["X-Request-Id"]
        [info] = [detail for detail in error["details"] if detail["@type"].endswith("ErrorInfo")]
        assert info["reason"] == "IDEMPOTENCY_KEY_REUSED" and info["metadata"]["header"] == "Idempotency-Key"


async def test_a_key_belongs_to_its_org_and_principal(client_for, gateway, migrated_pg, org_id):
    key = _key()
    body = {"scope": {"userId": "u-1"}}
    owner = await client_for(org_id)
    other_org = await client_for(f"{org_id}-other")
    colleague = await _client_as(gateway, migrated_pg.owner_dsn, org_id, "someone-else")
    try:
        sessions = [
            await client.post("/v1/sessions", json=body, headers=key) for client in (owner, other_org, colleague)
        ]
        changed = await colleague.post("/v1/sessions", json={"scope": {"userId": "u-2"}}, headers=key)
    finally:
        await colleague.aclose()

    assert all(response.status_code == 200 for response in sessions), [response.text for response in sessions]
    assert all("Idempotent-Replayed" not in response.headers for response in sessions)
    assert len({response.json()["session"]["id"] for response in sessions}) == 3
    assert changed.status_code == 409  # the colleague's own record, not the owner's


async def _pinned_client(gateway, owner_dsn: str, org_id: str, principal: str, user_id: str, scopes=ALL_SCOPES):
    _, key = await create_api_key(
        owner_dsn,
        org_id=org_id,
        principal=principal,
        scopes=[scope for scope in scopes if scope != "operator"],
        user_id=user_id,
    )
    return asgi_client(gateway, key)


async def test_keys_pinned_to_two_users_of_one_principal_never_share_an_answer(
    client_for, gateway, migrated_pg, org_id
):
    app = await client_for(org_id)
    for user_id in ("alice", "bob"):
        memory = {"content": f"{user_id.title()} keeps bees.", "memoryType": "MEMORY_TYPE_FACT"}
        body = {"memories": [{**memory, "scope": {"userId": user_id}}]}
        assert (await app.post("/v1/memories", json=body)).status_code == 200
    key = {"Idempotency-Key": "chat-41/turn-3"}
    search = {"query": "Who keeps bees?", "k": 10}
    alice = await _pinned_client(gateway, migrated_pg.owner_dsn, org_id, "tutor-app", "alice")
    bob = await _pinned_client(gateway, migrated_pg.owner_dsn, org_id, "tutor-app", "bob")
    try:
        alices = await alice.post("/v1/memories:search", json=search, headers=key)
        bobs = await bob.post("/v1/memories:search", json=search, headers=key)
        alices_again = await alice.post("/v1/memories:search", json=search, headers=key)
    finally:
        await alice.aclose()
        await bob.aclose()

    assert alices.status_code == bobs.status_code == 200, (alices.text, bobs.text)
    assert "Idempotent-Replayed" not in bobs.headers
    assert "Alice" in alices.text and "Alice" not in bobs.text and "Bob" in bobs.text
    assert alices_again.headers["Idempotent-Replayed"] == "true" and alices_again.content == alices.content


async def test_a_key_without_the_routes_scope_is_refused_not_replayed(client_for, gateway, migrated_pg, org_id):
    reader = await _client_as(gateway, migrated_pg.owner_dsn, org_id, "tutor-app", scopes=["memories:read"])
    writer = await _client_as(gateway, migrated_pg.owner_dsn, org_id, "tutor-app", scopes=["sessions:write"])
    key = _key()
    search = {"query": "Who keeps bees?", "scope": {"userId": "alice"}}
    try:
        read = await reader.post("/v1/memories:search", json=search, headers=key)
        refused = await writer.post("/v1/memories:search", json=search, headers=key)
        replayed = await reader.post("/v1/memories:search", json=search, headers=key)
    finally:
        await reader.aclose()
        await writer.aclose()

    assert read.status_code == 200, read.text
    assert refused.status_code == 403 and "Idempotent-Replayed" not in refused.headers, refused.text
    assert refused.json()["error"]["details"][0]["reason"] == "SCOPE_MISSING"
    assert replayed.headers["Idempotent-Replayed"] == "true"  # the refusal took nothing from the record


async def test_a_pinned_key_is_refused_an_org_wide_route_before_any_replay(gateway, migrated_pg, org_id):
    pinned = await _pinned_client(gateway, migrated_pg.owner_dsn, org_id, "tutor-app", "alice")
    try:
        refused = [await pinned.post("/v1/admin/decay:run", json={}, headers={"Idempotency-Key": "k"}) for _ in "12"]
    finally:
        await pinned.aclose()

    assert [response.status_code for response in refused] == [403, 403]
    assert all("Idempotent-Replayed" not in response.headers for response in refused)
    assert refused[1].json()["error"]["details"][0]["reason"] == "USER_PINNED"


async def test_a_rotated_key_of_the_same_principal_and_user_replays_its_answers(gateway, migrated_pg, org_id):
    key = _key()
    body = {"memories": [{"content": "A note of the tutor app.", "memoryType": "MEMORY_TYPE_FACT"}]}
    answers = []
    for user_id in ("alice", "alice", ""):
        if user_id:
            client = await _pinned_client(gateway, migrated_pg.owner_dsn, org_id, "tutor-app", user_id)
        else:
            client = await _client_as(gateway, migrated_pg.owner_dsn, org_id, "tutor-app")
        async with client:
            answers.append(await client.post("/v1/memories", json=body, headers=key))
    first, rotated, org_wide = answers

    assert first.status_code == rotated.status_code == org_wide.status_code == 200, first.text
    assert rotated.headers["Idempotent-Replayed"] == "true" and rotated.content == first.content
    assert "Idempotent-Replayed" not in org_wide.headers  # the principal's org-wide namespace is another
    assert first.json()["memories"][0]["scope"]["userId"] == "alice"
    assert org_wide.json()["memories"][0]["scope"].get("userId", "") == ""


async def test_records_kept_before_keys_were_per_user_still_replay_to_their_org_wide_caller(pg_superuser_dsn):
    """The migration carries the live records of the previous table into the org-wide namespace of
    their principal; expired ones stay behind."""
    migrations = discover("gateway_svc")
    body = json.dumps({"scope": {"userId": "u-1"}}).encode()
    fingerprint = idempotency.request_hash("POST", "/v1/sessions", b"", body)
    async with fresh_database(pg_superuser_dsn, prefix="lore_idem") as urls:
        await migrate(urls.owner_dsn, "gateway", [m for m in migrations if m.version < 5])
        for key, expires in (("live", timedelta(hours=1)), ("expired", timedelta(hours=-1))):
            await _owner_execute(
                urls.owner_dsn,
                """INSERT INTO gateway.idempotency_records
                       (org_id, principal, key, method, path, request_hash, state, status_code, content_type,
                        body, expires_at)
                   VALUES ('acme', 'tutor-app', $1, 'POST', '/v1/sessions', $2, 'completed', 200,
                           'application/json', '{"kept": true}', now() + $3)""",
                key,
                fingerprint,
                expires,
            )
        await migrate(urls.owner_dsn, "gateway", migrations)
        pool = await asyncpg.create_pool(urls.app_dsn, min_size=1, max_size=2)
        try:
            store = PostgresIdempotencyStore(pool, ttl_seconds=60, in_progress_seconds=60)
            org_wide, pinned = Namespace("acme", "tutor-app"), Namespace("acme", "tutor-app", "alice")
            kept = await store.claim(org_wide, "live", "POST", "/v1/sessions", fingerprint)
            expired = await store.claim(org_wide, "expired", "POST", "/v1/sessions", fingerprint)
            pinneds = await store.claim(pinned, "live", "POST", "/v1/sessions", fingerprint)
        finally:
            await pool.close()

    assert isinstance(kept, IdempotencyRecord) and (kept.status_code, kept.body) == (200, b'{"kept": true}')
    assert isinstance(expired, Claim) and isinstance(pinneds, Claim)  # new keys: the request runs


JWT_SECRET = "idempotency-test-secret-of-32-bytes-or-more"
JWT_AUDIENCE = "lore-idempotency"


@pytest.fixture(scope="module")
async def jwt_gateway(services, migrated_pg, redis_url):
    settings = gateway_settings(
        services, migrated_pg, redis_url, LORE_JWT_HS256_SECRET=JWT_SECRET, LORE_JWT_AUDIENCE=JWT_AUDIENCE
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        yield app


def _token(org_id: str, subject: str, **claims: str) -> str:
    expires = int(time.time()) + 600
    payload = {"sub": subject, "org_id": org_id, "aud": JWT_AUDIENCE, "exp": expires, "scope": "admin", **claims}
    return jwt.encode(payload, JWT_SECRET, algorithm="HS256")


async def test_tokens_of_one_subject_pinned_to_two_users_never_share_an_answer(jwt_gateway, org_id):
    key = _key()
    body = {"memories": [{"content": "A note of the tutor app.", "memoryType": "MEMORY_TYPE_FACT"}]}
    answers = []
    for claims in ({"user_id": "alice"}, {"user_id": "bob"}, {}, {"user_id": "alice"}):
        async with asgi_client(jwt_gateway, _token(org_id, "tutor-app", **claims)) as client:
            answers.append(await client.post("/v1/memories", json=body, headers=key))
    alice, _, _, alice_again = answers

    assert all(answer.status_code == 200 for answer in answers), [answer.text for answer in answers]
    assert [answer.headers.get("Idempotent-Replayed") for answer in answers] == [None, None, None, "true"]
    owners = [answer.json()["memories"][0]["scope"].get("userId", "") for answer in answers]
    assert owners == ["alice", "bob", "", "alice"]
    assert alice_again.content == alice.content


async def test_a_client_error_is_replayed_as_it_was(client_for, org_id):
    client = await client_for(org_id)
    key = _key()
    body = {"memories": [{"content": "x", "memoryType": "GOSSIP"}]}

    first = await client.post("/v1/memories", json=body, headers=key)
    again = await client.post("/v1/memories", json=body, headers=key)

    assert first.status_code == 400, first.text
    assert again.status_code == 400 and again.headers["Idempotent-Replayed"] == "true"
    assert again.content == first.content  # down to the first request's id


async def test_a_key_still_in_progress_is_refused_with_retry_after(client_for, migrated_pg, org_id):
    client = await client_for(org_id)
    key = _key()
    body = json.dumps({"scope": {"userId": "u-1"}}).encode()
    await _owner_execute(
        migrated_pg.owner_dsn,
        """INSERT INTO gateway.caller_idempotency_records
               (org_id, principal, key, method, path, request_hash, state, expires_at)
           VALUES ($1, 'tester', $2, 'POST', '/v1/sessions', $3, 'in_progress', now() + interval '1 hour')""",
        org_id,
        key["Idempotency-Key"],
        idempotency.request_hash("POST", "/v1/sessions", b"", body),
    )

    refused = await client.post("/v1/sessions", content=body, headers={**key, "Content-Type": "application/json"})

    assert refused.status_code == 409, refused.text
    assert refused.headers["Retry-After"] == "1"
    error = refused.json()["error"]
    assert error["status"] == "ABORTED" and error["details"][0]["reason"] == "IDEMPOTENCY_KEY_IN_USE"


async def test_an_expired_key_runs_the_request_again(client_for, migrated_pg, org_id):
    client = await client_for(org_id)
    key = _key()
    first = await client.post("/v1/sessions", json={"scope": {"userId": "u-1"}}, headers=key)
    await _owner_execute(
        migrated_pg.owner_dsn,
        "UPDATE gateway.caller_idempotency_records SET expires_at = now() - interval '1 second' WHERE org_id = $1",
        org_id,
    )

    again = await client.post("/v1/sessions", json={"scope": {"userId": "u-1"}}, headers=key)
    replayed = await client.post("/v1/sessions", json={"scope": {"userId": "u-1"}}, headers=key)

    assert again.status_code == 200 and "Idempotent-Replayed" not in again.headers
    assert again.json()["session"]["id"] != first.json()["session"]["id"]
    assert replayed.json()["session"]["id"] == again.json()["session"]["id"]


async def test_expired_records_of_any_org_are_purged_when_a_key_is_recorded(client_for, migrated_pg, org_id):
    """Those a gateway of the previous release wrote (``gateway.idempotency_records``) too."""
    stale_org = f"{org_id}-stale"
    for table in ("gateway.caller_idempotency_records", "gateway.idempotency_records"):
        await _owner_execute(
            migrated_pg.owner_dsn,
            f"""INSERT INTO {table}
                   (org_id, principal, key, method, path, request_hash, state, created_at, expires_at)
               VALUES ($1, 'tester', 'old', 'POST', '/v1/sessions', $2, 'in_progress',
                       now() - interval '2 days', now() - interval '1 day')""",
            stale_org,
            bytes(32),
        )
    client = await client_for(org_id)

    await client.post("/v1/sessions", json={}, headers=_key())

    connection = await asyncpg.connect(migrated_pg.owner_dsn)
    try:
        left = [
            await connection.fetchval(f"SELECT count(*) FROM {table} WHERE org_id = $1", stale_org)
            for table in ("gateway.caller_idempotency_records", "gateway.idempotency_records")
        ]
    finally:
        await connection.close()
    assert left == [0, 0]


@pytest.mark.parametrize(
    "value",
    ["", "x" * 256, "tab\tinside", "caf\u00e9"],
    ids=["empty", "too-long", "control-character", "not-ascii"],
)
async def test_a_malformed_key_is_a_400_and_nothing_runs(client_for, org_id, value):
    client = await client_for(org_id)

    refused = await client.post(
        "/v1/sessions", json={"scope": {"userId": "u-malformed"}}, headers={"Idempotency-Key": value.encode("latin-1")}
    )
    listed = await client.get("/v1/sessions", params={"userId": "u-malformed"})

    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT" and "Idempotency-Key" in error["message"]
    assert error["details"][0]["reason"] == "INVALID_IDEMPOTENCY_KEY"
    assert listed.json()["sessions"] == []


async def test_an_unauthenticated_request_is_answered_as_without_the_key(gateway):
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=gateway), base_url="http://gateway") as anonymous:
        with_key = await anonymous.post("/v1/sessions", json={}, headers={"Idempotency-Key": ""})
        without = await anonymous.post("/v1/sessions", json={})

    assert with_key.status_code == without.status_code == 401
    assert with_key.json()["error"]["details"] == without.json()["error"]["details"]


async def test_get_ignores_the_header(client_for, org_id):
    client = await client_for(org_id)

    listed = await client.get("/v1/sessions", headers={"Idempotency-Key": ""})
    again = await client.get("/v1/sessions", headers={"Idempotency-Key": ""})

    assert listed.status_code == again.status_code == 200
    assert "Idempotent-Replayed" not in again.headers


# The middleware on a small app of its own: routes that fail, refuse and wait on demand.


class _Authenticator:
    def __init__(self, org_id: str) -> None:
        self.org_id = org_id

    async def authenticate(self, authorization: str | None) -> Caller:
        if not authorization:
            raise errors.Unauthenticated("missing Authorization header", reason="MISSING_CREDENTIAL")
        return Caller(org_id=self.org_id, principal="tester", scopes=frozenset(ALL_SCOPES))


@pytest.fixture
async def small(migrated_pg, org_id):
    """A client of an app with the idempotency middleware and routes that count their runs."""
    runs: dict[str, int] = {}
    release = asyncio.Event()
    entered = asyncio.Event()  # a /slow request is past the middleware, running
    app = FastAPI()
    gateway_errors.install(app)
    idempotency.install(app)

    def counted(name: str) -> int:
        runs[name] = runs.get(name, 0) + 1
        return runs[name]

    guarded = {"dependencies": [Depends(authorized("sessions:write"))]}

    @app.post("/fail", **guarded)
    async def fail() -> JSONResponse:
        return JSONResponse({"run": counted("fail")}, status_code=503)

    @app.post("/raise", **guarded)
    async def explode() -> None:
        counted("raise")
        raise RuntimeError("boom")

    @app.post("/busy", **guarded)
    async def busy() -> JSONResponse:
        return JSONResponse({"run": counted("busy")}, status_code=429)

    @app.post("/slow", **guarded)
    async def slow(request: Request) -> dict[str, int]:
        await request.body()
        entered.set()
        await release.wait()
        return {"run": counted("slow")}

    pool = await asyncpg.create_pool(migrated_pg.app_dsn, min_size=1, max_size=4)
    settings = load_settings(Settings, {"LORE_DATABASE_URL": migrated_pg.app_dsn, **SERVICE_TOKEN_ENV})
    app.state.container = SimpleNamespace(
        settings=settings,
        postgres=pool,
        authenticator=_Authenticator(org_id),
        rate_limiter=NoRateLimiter(),
        idempotency=idempotency_store(settings, pool),  # the records the middleware keeps, as the gateway wires them
    )
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://small", headers={"Authorization": "Bearer any"}
    ) as client:
        yield SimpleNamespace(client=client, runs=runs, release=release, entered=entered)
    await pool.close()


async def test_a_server_error_is_not_recorded_so_the_retry_runs(small):
    key = _key()

    first = await small.client.post("/fail", json={}, headers=key)
    again = await small.client.post("/fail", json={}, headers=key)

    assert first.status_code == again.status_code == 503
    assert again.json() == {"run": 2} and "Idempotent-Replayed" not in again.headers


async def test_a_failing_route_releases_its_key(small):
    key = _key()

    first = await small.client.post("/raise", json={}, headers=key)
    again = await small.client.post("/raise", json={}, headers=key)

    assert first.status_code == again.status_code == 500
    assert small.runs["raise"] == 2


async def test_a_rate_limited_answer_is_not_replayed(small):
    key = _key()

    await small.client.post("/busy", json={}, headers=key)
    again = await small.client.post("/busy", json={}, headers=key)

    assert again.json() == {"run": 2}


async def test_a_duplicate_of_a_running_request_is_refused_then_replayed(small):
    key = _key()
    first = asyncio.create_task(small.client.post("/slow", json={"a": 1}, headers=key))
    await asyncio.wait_for(small.entered.wait(), timeout=30)

    duplicate = await small.client.post("/slow", json={"a": 1}, headers=key)
    small.release.set()
    done = await first
    replayed = await small.client.post("/slow", json={"a": 1}, headers=key)

    assert duplicate.status_code == 409 and duplicate.headers["Retry-After"] == "1"
    assert duplicate.json()["error"]["details"][0]["reason"] == "IDEMPOTENCY_KEY_IN_USE"
    assert done.json() == {"run": 1}
    assert replayed.json() == {"run": 1} and replayed.headers["Idempotent-Replayed"] == "true"
