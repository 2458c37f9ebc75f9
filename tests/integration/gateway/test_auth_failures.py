"""Failed authentications are limited per client address, counted in the real
Redis: an address that sent too many bad credentials gets 429 with Retry-After, before its next
credential is even looked at (a valid one included: the documented rule); other addresses are not
affected; ``X-Forwarded-For`` is believed only from a trusted proxy."""

from __future__ import annotations

import random
import socket
import uuid

import httpx
import pytest
import redis.asyncio as redis
from gateway_svc.adapters.redis_auth_failures import AuthFailureLimiter
from gateway_svc.domain.rate_limits import RateLimit
from gateway_svc.server import create_app
from lore_runtime.breaker import Breaker

from tests.integration.gateway.conftest import _create_key, gateway_settings
from tests.polling import eventually

BURST = 4  # failures an address may make at once; then one per 10 s (none within a test)
PROXY = "10.20.30.40"


def _address() -> str:
    """A random address of the benchmarking block: no other test (Redis is shared) counts against it."""
    return f"198.18.{random.randrange(256)}.{random.randrange(1, 255)}"


@pytest.fixture
async def guarded(services, migrated_pg, redis_url):
    """A gateway of its own with a small failure limit behind a trusted proxy network, and a factory of
    clients connecting from a given address (the ASGI peer), with a key or a bad one."""
    settings = gateway_settings(
        services,
        migrated_pg,
        redis_url,
        LORE_AUTH_FAILURE_LIMIT=f"0.1:{BURST}",
        LORE_TRUSTED_PROXIES="10.0.0.0/8",
    )
    app = create_app(settings)
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    clients: list[httpx.AsyncClient] = []

    def client(peer: str, token: str | None = None, **headers: str) -> httpx.AsyncClient:
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        made = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app, client=(peer, 40_000)), base_url="http://gateway", headers=headers
        )
        clients.append(made)
        return made

    async with app.router.lifespan_context(app):
        yield app, client, key
    for made in clients:
        await made.aclose()


def _bad() -> str:
    return f"bad_{uuid.uuid4().hex}"


async def test_too_many_bad_keys_from_one_address_get_429_before_any_lookup(guarded, monkeypatch):
    app, client, key = guarded
    address = _address()

    failures = [(await client(address, _bad()).get("/v1/sessions")).status_code for _ in range(BURST)]
    lookups = []
    authenticate = app.state.container.authenticator.authenticate

    async def counted(authorization):
        lookups.append(authorization)
        return await authenticate(authorization)

    monkeypatch.setattr(app.state.container.authenticator, "authenticate", counted)
    refused = await client(address, _bad()).get("/v1/sessions")
    good_key_same_address = await client(address, key).get("/v1/sessions")
    good_key_elsewhere = await client(_address(), key).get("/v1/sessions")
    no_credential = await client(address).get("/v1/sessions")
    health = await client(address, _bad()).get("/healthz")

    assert failures == [401] * BURST
    assert refused.status_code == 429, refused.text
    assert int(refused.headers["Retry-After"]) >= 1
    error = refused.json()["error"]
    assert error["status"] == "RESOURCE_EXHAUSTED" and error["details"][0]["reason"] == "AUTH_FAILURES_LIMITED"
    assert error["requestId"] == refused.headers["X-Request-Id"]
    assert good_key_same_address.status_code == 429, "refused before the key is resolved, a valid one too"
    # Looked up: the other address's key and the request without one; never the blocked address's.
    assert lookups == [f"Bearer {key}", None]
    assert good_key_elsewhere.status_code == 200
    assert no_credential.status_code == 401, "a request without a credential costs no lookup: never limited"
    assert health.status_code == 429, "every request presenting a credential, whatever the route"
    page = (await client("127.0.0.1").get("/metrics")).text
    assert 'lore_gateway_rate_limited_total{scope="auth_failures"} 3.0' in page


async def test_successes_do_not_count_and_the_bucket_drains(services, migrated_pg, redis_url):
    settings = gateway_settings(services, migrated_pg, redis_url, LORE_AUTH_FAILURE_LIMIT="5:2")
    app = create_app(settings)
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    transport = httpx.ASGITransport(app=app, client=(_address(), 40_000))
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://g") as http:
        good = {"Authorization": f"Bearer {key}"}
        successes = [(await http.get("/v1/sessions", headers=good)).status_code for _ in range(5)]
        bad = [(await http.get("/v1/sessions", headers={"Authorization": f"Bearer {_bad()}"})) for _ in range(3)]

        async def drained() -> httpx.Response | None:  # 5 failures/s: two drained within 0.4 s
            answer = await http.get("/v1/sessions", headers=good)  # a success: it counts for nothing
            return answer if answer.status_code != 429 else None

        after = await eventually(drained, what="the failed-authentication bucket drained")

    assert successes == [200] * 5
    assert [response.status_code for response in bad] == [401, 401, 429]
    assert after.status_code == 200


async def test_x_forwarded_for_counts_only_from_a_trusted_proxy(guarded):
    _, client, _ = guarded
    spoofer = _address()

    # An untrusted peer naming a new client each time is still one address.
    spoofed = [
        (await client(spoofer, _bad(), **{"X-Forwarded-For": _address()}).get("/v1/sessions")).status_code
        for _ in range(BURST + 1)
    ]
    # Behind the trusted proxy, each client is its own: one's failures do not block another.
    behind = _address()
    blocked = [
        (await client(PROXY, _bad(), **{"X-Forwarded-For": behind}).get("/v1/sessions")).status_code
        for _ in range(BURST + 1)
    ]
    neighbour = await client(PROXY, _bad(), **{"X-Forwarded-For": f"{behind}, {_address()}"}).get("/v1/sessions")
    spoofing_the_blocked = await client(PROXY, _bad(), **{"X-Forwarded-For": f"{_address()}, {behind}"}).get(
        "/v1/sessions"
    )

    assert spoofed == [401] * BURST + [429]
    assert blocked == [401] * BURST + [429]
    assert neighbour.status_code == 401, "the hop the proxy appended is the client; what it was told is not"
    assert spoofing_the_blocked.status_code == 429


async def test_an_unreachable_redis_refuses_nothing():
    """An outage of the counter's store must not become an outage of the API (as for rate limits)."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        url = f"redis://127.0.0.1:{bound.getsockname()[1]}"
        client = redis.Redis.from_url(url, socket_timeout=0.2, socket_connect_timeout=0.2)
        limiter = AuthFailureLimiter(client, RateLimit(0.1, 1), breaker=Breaker(cooldown=5))
        for _ in range(3):
            await limiter.record("198.18.0.1")
        waits = await limiter.retry_after("198.18.0.1")
        await client.aclose()

    assert waits == 0
