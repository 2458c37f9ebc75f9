"""Credentials at the gateway: JWT bearer tokens (HS256 and RS256, keys generated here) and API keys.

A token is accepted only when its signature verifies with a configured key of a configured
algorithm, it has not expired, it names the configured audience and issuer and carries ``sub``
and the org claim; anything else is 401 with the reason. The org comes only from the token;
its scopes are enforced. A revoked API key is refused once the gateway's key cache lapses
(0.2 s here, 10 s at most in production).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from pathlib import Path

import asyncpg
import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from gateway_svc.adapters.postgres_key_admin import create_api_key, revoke_api_key
from gateway_svc.api.auth.jwt_verifier import JwtVerifier
from gateway_svc.bootstrap import GatewayOverrides
from gateway_svc.config import Settings
from gateway_svc.server import create_app
from lore_runtime import errors
from lore_runtime.settings import SettingsError, load_settings

from tests.fakes import FixedClock
from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.integration.gateway.conftest import asgi_client, gateway_settings

SECRET = "hs256-test-secret-" + "x" * 46  # 64 bytes: enough for HS512 too, which is still refused
AUDIENCE = "lore-test"
ISSUER = "https://issuer.test"
CACHE_SECONDS = 0.2


def _private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _public_pem(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


# Two configured RS256 keys (a rotation in progress), and one the gateway has never seen.
RSA_OLD, RSA_NEW, RSA_STRANGER = _private_key(), _private_key(), _private_key()


def _claims(org_id: str, /, **changes: object) -> dict[str, object]:
    now = int(time.time())
    claims: dict[str, object] = {
        "sub": f"user-{uuid.uuid4().hex[:8]}",
        "org_id": org_id,
        "aud": AUDIENCE,
        "iss": ISSUER,
        "iat": now,
        "exp": now + 300,
        "scope": "sessions:read sessions:write",
    }
    claims.update(changes)
    return {name: value for name, value in claims.items() if value is not None}


def hs256(claims: dict[str, object], secret: str = SECRET, algorithm: str = "HS256") -> str:
    return jwt.encode(claims, secret, algorithm=algorithm)


def rs256(claims: dict[str, object], key: rsa.RSAPrivateKey = RSA_NEW) -> str:
    return jwt.encode(claims, key, algorithm="RS256")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned(claims: dict[str, object]) -> str:
    """``alg: none``: a header, the claims and an empty signature."""
    return f"{_b64(json.dumps({'alg': 'none', 'typ': 'JWT'}).encode())}.{_b64(json.dumps(claims).encode())}."


@pytest.fixture(scope="module")
def cache_clock() -> FixedClock:
    """What the gateway's API-key cache ages by: a test advances it past the cache."""
    return FixedClock()


@pytest.fixture(scope="module")
async def jwt_gateway(services, migrated_pg, redis_url, cache_clock):
    settings = gateway_settings(
        services,
        migrated_pg,
        redis_url,
        LORE_JWT_HS256_SECRET=SECRET,
        LORE_JWT_PUBLIC_KEYS=_public_pem(RSA_OLD) + _public_pem(RSA_NEW),
        LORE_JWT_AUDIENCE=AUDIENCE,
        LORE_JWT_ISSUER=ISSUER,
        LORE_API_KEY_CACHE_SECONDS=str(CACHE_SECONDS),
    )
    app = create_app(settings, GatewayOverrides(clock=cache_clock))
    async with app.router.lifespan_context(app):
        yield app


@pytest.fixture
async def bearer(jwt_gateway):
    """A factory: an HTTP client of the JWT-configured gateway sending ``Bearer <token>``."""
    clients: list[httpx.AsyncClient] = []

    def make(token: str) -> httpx.AsyncClient:
        client = asgi_client(jwt_gateway, token)
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


def _refused(response: httpx.Response, reason: str) -> dict:
    assert response.status_code == 401, response.text
    assert response.headers["WWW-Authenticate"] == "Bearer"
    error = response.json()["error"]
    assert error["status"] == "UNAUTHENTICATED"
    assert error["details"][0]["reason"] == reason, error
    return error


async def test_hs256_and_rs256_tokens_are_accepted_with_either_configured_public_key(bearer, org_id):
    for token in (hs256(_claims(org_id)), rs256(_claims(org_id)), rs256(_claims(org_id), RSA_OLD)):
        response = await bearer(token).get("/v1/sessions")
        assert response.status_code == 200, response.text


async def test_an_expired_token_is_refused_beyond_the_leeway(bearer, org_id):
    past = int(time.time()) - 120  # the leeway is 30 s
    for token in (hs256(_claims(org_id, exp=past)), rs256(_claims(org_id, exp=past))):
        error = _refused(await bearer(token).get("/v1/sessions"), "TOKEN_EXPIRED")
        assert "expired" in error["message"]
    within_leeway = hs256(_claims(org_id, exp=int(time.time()) - 5))
    assert (await bearer(within_leeway).get("/v1/sessions")).status_code == 200


async def test_a_tampered_token_is_refused(bearer, org_id):
    for token in (hs256(_claims(org_id)), rs256(_claims(org_id))):
        header, _, signature = token.split(".")
        # Same signature, claims naming another org: the signature no longer verifies.
        forged = f"{header}.{_b64(json.dumps(_claims(f'{org_id}-victim')).encode())}.{signature}"
        _refused(await bearer(forged).get("/v1/sessions"), "INVALID_TOKEN")
        flipped = signature[:-2] + ("AA" if not signature.endswith("AA") else "BB")
        _refused(await bearer(f"{header}.{token.split('.')[1]}.{flipped}").get("/v1/sessions"), "INVALID_TOKEN")
    _refused(
        await bearer(hs256(_claims(org_id), secret="another-secret-" + "y" * 32)).get("/v1/sessions"), "INVALID_TOKEN"
    )
    _refused(await bearer(rs256(_claims(org_id), RSA_STRANGER)).get("/v1/sessions"), "INVALID_TOKEN")


async def test_the_token_cannot_choose_an_algorithm_none_or_unconfigured(bearer, org_id):
    error = _refused(await bearer(unsigned(_claims(org_id))).get("/v1/sessions"), "INVALID_TOKEN")
    assert "'none'" in error["message"]
    _refused(await bearer(hs256(_claims(org_id), algorithm="HS512")).get("/v1/sessions"), "INVALID_TOKEN")
    # Key confusion: HS256 "signed" with the (public) RS256 key as the secret.
    signing_input = (
        f"{_b64(json.dumps({'alg': 'HS256', 'typ': 'JWT'}).encode())}.{_b64(json.dumps(_claims(org_id)).encode())}"
    )
    signature = hmac.new(_public_pem(RSA_NEW).encode(), signing_input.encode(), hashlib.sha256).digest()
    _refused(await bearer(f"{signing_input}.{_b64(signature)}").get("/v1/sessions"), "INVALID_TOKEN")


async def test_a_token_for_another_audience_or_issuer_is_refused(bearer, org_id):
    _refused(await bearer(hs256(_claims(org_id, aud="someone-else"))).get("/v1/sessions"), "WRONG_AUDIENCE")
    _refused(await bearer(rs256(_claims(org_id, aud=["a", "b"]))).get("/v1/sessions"), "WRONG_AUDIENCE")
    assert (await bearer(rs256(_claims(org_id, aud=["a", AUDIENCE]))).get("/v1/sessions")).status_code == 200
    error = _refused(await bearer(hs256(_claims(org_id, iss="https://evil.test"))).get("/v1/sessions"), "INVALID_TOKEN")
    assert "issuer" in error["message"] and error["details"][0]["metadata"] == {"claim": "iss"}


@pytest.mark.parametrize("claim", ["org_id", "sub", "exp", "aud", "iss"])
async def test_a_token_without_a_required_claim_is_refused_naming_it(bearer, org_id, claim):
    error = _refused(await bearer(hs256(_claims(org_id, **{claim: None}))).get("/v1/sessions"), "MISSING_CLAIM")
    assert claim in error["message"] and error["details"][0]["metadata"] == {"claim": claim}


async def test_an_empty_subject_or_malformed_org_is_refused(bearer, org_id):
    _refused(await bearer(hs256(_claims(org_id, sub=""))).get("/v1/sessions"), "MISSING_CLAIM")
    _refused(await bearer(hs256(_claims("not an org!"))).get("/v1/sessions"), "INVALID_TOKEN")
    _refused(await bearer(hs256(_claims(org_id, scope=["sessions:read"]))).get("/v1/sessions"), "INVALID_TOKEN")


async def test_the_tokens_scopes_are_enforced_and_unknown_ones_ignored(bearer, org_id):
    reader = bearer(hs256(_claims(org_id, scope="sessions:read everything")))
    listed = await reader.get("/v1/sessions")
    started = await reader.post("/v1/sessions", json={"scope": {"userId": "u-1"}})
    as_list = bearer(rs256(_claims(org_id, scope=None, scopes=["sessions:write", "root"])))
    nothing = bearer(hs256(_claims(org_id, scope=None)))

    assert listed.status_code == 200
    assert started.status_code == 403 and started.json()["error"]["details"][0]["reason"] == "SCOPE_MISSING"
    assert (await as_list.post("/v1/sessions", json={"scope": {"userId": "u-1"}})).status_code == 200
    assert (await as_list.get("/v1/sessions")).status_code == 403
    assert (await nothing.get("/v1/sessions")).status_code == 403


async def test_the_org_comes_only_from_the_token(bearer, org_id):
    owner = bearer(hs256(_claims(org_id)))
    stranger = bearer(rs256(_claims(f"{org_id}-other")))
    session = (await owner.post("/v1/sessions", json={"scope": {"userId": "u-1"}})).json()["session"]

    theirs = await stranger.get(f"/v1/sessions/{session['id']}", headers={"X-Org-Id": org_id})
    listed = await stranger.get("/v1/sessions", headers={"X-Org-Id": org_id})
    named = await stranger.get("/v1/sessions", params={"orgId": org_id})
    mine = await owner.get(f"/v1/sessions/{session['id']}")

    assert theirs.status_code == 404, theirs.text
    assert listed.status_code == 200 and listed.json()["sessions"] == []
    assert named.status_code == 400, "a query naming an org is refused, never obeyed"
    assert mine.status_code == 200 and mine.json()["session"]["id"] == session["id"]


def test_a_token_caller_is_its_subject_and_counts_as_jwt_credential():
    verifier = JwtVerifier(audience=AUDIENCE, hs256_secret=SECRET, org_claim="tenant")
    caller = verifier.verify(hs256(_claims("ignored", sub="alice", tenant="acme", iss=None, scope="admin nope")))
    assert (caller.org_id, caller.principal, caller.credential) == ("acme", "alice", "jwt:alice")
    assert caller.scopes == frozenset({"admin"})
    with pytest.raises(errors.Unauthenticated) as refused:
        verifier.verify(rs256(_claims("acme")))  # RS256 is not configured on this verifier
    assert refused.value.reason == "INVALID_TOKEN"
    with pytest.raises(errors.Unauthenticated) as refused:
        verifier.verify(hs256(_claims("ignored", tenant="acme\n", iss=None)))  # not the org "acme"
    assert refused.value.reason == "INVALID_TOKEN"


def test_a_token_with_the_user_claim_is_pinned_to_that_user_and_a_bad_claim_is_refused():
    verifier = JwtVerifier(audience=AUDIENCE, hs256_secret=SECRET, user_claim="person")
    pinned = verifier.verify(hs256(_claims("acme", iss=None, person="alice")))
    org_wide = verifier.verify(hs256(_claims("acme", iss=None)))

    assert (pinned.user_id, org_wide.user_id) == ("alice", "")
    for bad in ("", " alice", 42, "x" * 129):
        with pytest.raises(errors.Unauthenticated) as refused:
            verifier.verify(hs256(_claims("acme", iss=None, person=bad)))
        assert refused.value.metadata == {"claim": "person"}


async def test_a_pinned_token_acts_only_for_its_user(bearer, org_id):
    scopes = {"scope": "sessions:read sessions:write memories:read memories:write"}
    backend = bearer(hs256(_claims(org_id, **scopes)))
    alice = bearer(hs256(_claims(org_id, user_id="alice", **scopes)))
    bobs = (await backend.post("/v1/sessions", json={"scope": {"userId": "bob"}})).json()["session"]

    started = await alice.post("/v1/sessions", json={"scope": {"agentId": "aria"}})
    as_bob = await alice.post("/v1/sessions", json={"scope": {"userId": "bob"}})
    bobs_session = await alice.get(f"/v1/sessions/{bobs['id']}")
    listed = await alice.get("/v1/sessions")

    assert started.status_code == 200 and started.json()["session"]["scope"]["userId"] == "alice"
    assert as_bob.status_code == 403 and as_bob.json()["error"]["details"][0]["reason"] == "USER_PINNED"
    assert bobs_session.status_code == 404, bobs_session.text
    assert [s["scope"]["userId"] for s in listed.json()["sessions"]] == ["alice"]


@pytest.mark.parametrize("value", [None, 42, ["alice"], ""], ids=["null", "number", "list", "empty"])
async def test_a_user_claim_that_is_not_a_user_id_is_refused_even_null(bearer, org_id, value):
    claims = {**_claims(org_id), "user_id": value}  # _claims drops None: a null claim is set here

    error = _refused(await bearer(hs256(claims)).get("/v1/sessions"), "INVALID_TOKEN")

    assert error["details"][0]["metadata"] == {"claim": "user_id"}


async def test_without_jwt_settings_a_jwt_is_looked_up_as_an_api_key(gateway, org_id):
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=gateway),
        base_url="http://gateway",
        headers={"Authorization": f"Bearer {hs256(_claims(org_id))}"},
    ) as client:
        _refused(await client.get("/v1/sessions"), "INVALID_API_KEY")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=gateway), base_url="http://gateway") as anonymous:
        _refused(await anonymous.get("/v1/sessions"), "MISSING_CREDENTIAL")


async def test_api_keys_still_work_beside_jwts_and_a_revoked_key_is_refused_once_the_cache_lapses(
    bearer, migrated_pg, org_id, cache_clock
):
    key, plaintext = await create_api_key(
        migrated_pg.owner_dsn, org_id=org_id, principal="svc", scopes=["sessions:read"], name="ci"
    )
    client = bearer(plaintext)
    assert plaintext.startswith("lore_") and len(plaintext) >= 5 + 43
    assert (await client.get("/v1/sessions")).status_code == 200

    assert await revoke_api_key(migrated_pg.owner_dsn, org_id, key.id) is not None
    cache_clock.advance(seconds=CACHE_SECONDS + 0.05)

    _refused(await client.get("/v1/sessions"), "INVALID_API_KEY")


async def test_last_used_at_is_written_on_use_at_most_once_a_minute(bearer, migrated_pg, org_id, cache_clock):
    key, plaintext = await create_api_key(
        migrated_pg.owner_dsn, org_id=org_id, principal="svc", scopes=["sessions:read"]
    )
    connection = await asyncpg.connect(migrated_pg.owner_dsn)
    try:
        query = "SELECT last_used_at FROM gateway.api_keys WHERE id = $1"
        assert await connection.fetchval(query, key.id) is None
        client = bearer(plaintext)
        assert (await client.get("/v1/sessions")).status_code == 200
        first = await connection.fetchval(query, key.id)
        cache_clock.advance(seconds=CACHE_SECONDS + 0.05)  # past the cache: the key is resolved again
        assert (await client.get("/v1/sessions")).status_code == 200
        second = await connection.fetchval(query, key.id)
    finally:
        await connection.close()
    assert first is not None and second == first


def _base_env(**extra: str) -> dict[str, str]:
    return {"LORE_DATABASE_URL": "postgresql://lore@localhost/lore", **SERVICE_TOKEN_ENV, **extra}


def test_jwt_settings_are_checked_at_start_up(tmp_path: Path):
    with pytest.raises(SettingsError) as short:
        load_settings(Settings, _base_env(LORE_JWT_HS256_SECRET="too-short", LORE_JWT_AUDIENCE=AUDIENCE))
    with pytest.raises(SettingsError) as no_audience:
        load_settings(Settings, _base_env(LORE_JWT_HS256_SECRET=SECRET))
    with pytest.raises(SettingsError) as not_rsa:
        load_settings(Settings, _base_env(LORE_JWT_PUBLIC_KEYS=str(tmp_path / "absent.pem"), LORE_JWT_AUDIENCE="a"))
    with pytest.raises(SettingsError) as slow_revocation:
        load_settings(Settings, _base_env(LORE_API_KEY_CACHE_SECONDS="60"))

    assert "LORE_JWT_HS256_SECRET" in str(short.value) and "32 bytes" in str(short.value)
    assert "LORE_JWT_AUDIENCE is required" in str(no_audience.value)
    assert "LORE_JWT_PUBLIC_KEYS" in str(not_rsa.value)
    assert "LORE_API_KEY_CACHE_SECONDS" in str(slow_revocation.value)
    assert not load_settings(Settings, _base_env()).jwt_enabled


def test_public_keys_may_be_a_pem_file_with_several_keys(tmp_path: Path):
    path = tmp_path / "keys.pem"
    path.write_text(_public_pem(RSA_OLD) + "\n" + _public_pem(RSA_NEW))

    settings = load_settings(Settings, _base_env(LORE_JWT_PUBLIC_KEYS=str(path), LORE_JWT_AUDIENCE=AUDIENCE))

    assert settings.jwt_enabled and settings.jwt_public_keys.count("BEGIN PUBLIC KEY") == 2
