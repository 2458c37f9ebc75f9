"""Rate limits per credential and scope, counted in the real Redis: a burst is admitted, the rest
get 429 with Retry-After until the bucket refills; scopes and credentials are counted apart."""

from __future__ import annotations

import uuid

import asyncpg
import httpx
import pytest
from gateway_svc.adapters.redis_rate_limits import KEY_PREFIX
from gateway_svc.server import create_app
from redis.asyncio import Redis

from tests.integration.gateway.conftest import _create_key, gateway_settings
from tests.polling import eventually


@pytest.fixture
async def limited(services, migrated_pg, redis_url):
    """A gateway of its own with small limits: 3 requests at once, 2/s after, per scope; writes
    of memories 1 at once, then one every 20 s (so a second write is refused however long the
    first took on a loaded machine: at 1/s, a first write of a second refilled the bucket)."""
    settings = gateway_settings(
        services, migrated_pg, redis_url, LORE_RATE_LIMIT="2:3", LORE_RATE_LIMITS="memories:write=0.05:1"
    )
    app = create_app(settings)
    clients: list[httpx.AsyncClient] = []

    async def client(org_id: str) -> httpx.AsyncClient:
        key = await _create_key(migrated_pg.owner_dsn, org_id)
        made = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://gateway",
            headers={"Authorization": f"Bearer {key}"},
        )
        clients.append(made)
        return made

    async with app.router.lifespan_context(app):
        yield client
    for made in clients:
        await made.aclose()


async def refilled_one(redis_url: str, owner_dsn: str, org_id: str) -> bool:
    """The org's one key's sessions:read bucket holds one request again, read without spending it: the
    bucket's key lives until it is full (``redis_rate_limits.GCRA``), so at 2/s with bursts of 3 one
    request is due once at most 1 s of it is left."""
    connection = await asyncpg.connect(owner_dsn)
    try:
        credential = await connection.fetchval("SELECT id FROM gateway.api_keys WHERE org_id = $1", org_id)
    finally:
        await connection.close()
    client = Redis.from_url(redis_url)
    try:
        left_ms = await client.pttl(f"{KEY_PREFIX}:{credential}:sessions:read")
    finally:
        await client.aclose()
    return left_ms <= 1000  # -2: gone, the bucket full


async def test_a_burst_is_admitted_then_429_with_retry_after_until_the_bucket_refills(limited, migrated_pg, redis_url):
    org_id = f"org-{uuid.uuid4().hex[:12]}"
    client = await limited(org_id)

    answers = [await client.get("/v1/sessions") for _ in range(5)]

    assert [a.status_code for a in answers] == [200, 200, 200, 429, 429]
    refused = answers[3]
    assert refused.headers["Retry-After"] == "1"
    error = refused.json()["error"]
    assert error["status"] == "RESOURCE_EXHAUSTED" and error["details"][0]["reason"] == "RATE_LIMITED"
    assert error["details"][0]["metadata"]["scope"] == "sessions:read"
    await eventually(lambda: refilled_one(redis_url, migrated_pg.owner_dsn, org_id), what="one request refilled")
    assert (await client.get("/v1/sessions")).status_code == 200
    page = (await client.get("/metrics")).text
    assert 'lore_gateway_rate_limited_total{scope="sessions:read"} 2.0' in page
    assert 'lore_gateway_requests_total{method="GET",route="/v1/sessions",status="429"} 2.0' in page


async def test_scopes_and_credentials_are_counted_apart(limited):
    org = f"org-{uuid.uuid4().hex[:12]}"
    first, second = await limited(org), await limited(org)
    memory = {"memories": [{"content": "Noted.", "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": "u"}}]}

    writes = [(await first.post("/v1/memories", json=memory)).status_code for _ in range(2)]
    reads = [(await first.get("/v1/sessions")).status_code for _ in range(3)]
    other_key = (await second.post("/v1/memories", json=memory)).status_code

    assert writes == [200, 429], "memories:write: one at once"
    assert reads == [200, 200, 200], "another scope has its own bucket"
    assert other_key == 200, "another credential has its own bucket"


async def test_without_redis_nothing_is_counted(services, migrated_pg, redis_url):
    settings = gateway_settings(services, migrated_pg, redis_url, LORE_RATE_LIMIT="1:1")
    settings = settings.model_copy(update={"redis_url": None})
    app = create_app(settings)
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://gateway",
            headers={"Authorization": f"Bearer {key}"},
        ) as client,
    ):
        assert [(await client.get("/v1/sessions")).status_code for _ in range(3)] == [200, 200, 200]
