"""The gateway in-process (ASGI) in front of the in-process gRPC services, on real stores."""

import hashlib
import uuid

import asyncpg
import httpx
import pytest
from gateway_svc.config import Settings
from gateway_svc.domain.credentials import ALL_SCOPES
from gateway_svc.server import create_app
from lore_runtime.settings import load_settings

from tests.grpc_harness import SERVICE_TOKEN_ENV


async def _create_key(owner_dsn: str, org_id: str, scopes=ALL_SCOPES, principal: str = "tester") -> str:
    key = f"test_{uuid.uuid4().hex}{uuid.uuid4().hex}"
    connection = await asyncpg.connect(owner_dsn)
    try:
        await connection.execute(
            "INSERT INTO gateway.api_keys (id, org_id, principal, name, key_hash, scopes) VALUES ($1,$2,$3,$4,$5,$6)",
            uuid.uuid4(),
            org_id,
            principal,
            "test",
            hashlib.sha256(key.encode()).digest(),
            list(scopes),
        )
    finally:
        await connection.close()
    return key


def gateway_settings(services, migrated_pg, redis_url: str, **extra: str) -> Settings:
    return load_settings(
        Settings,
        {
            "LORE_DATABASE_URL": migrated_pg.app_dsn,
            "LORE_REDIS_URL": redis_url,
            **SERVICE_TOKEN_ENV,
            **{f"LORE_{name.upper()}_ADDR": running.address for name, running in services.items()},
            **extra,
        },
    )


def asgi_client(app, token: str | None = None) -> httpx.AsyncClient:
    """An HTTP client of ``app`` in-process, sending ``Bearer <token>`` when given."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway", headers=headers)


@pytest.fixture(scope="session")
async def gateway(services, migrated_pg, redis_url):
    app = create_app(gateway_settings(services, migrated_pg, redis_url))
    async with app.router.lifespan_context(app):
        yield app


@pytest.fixture
async def client_for(gateway, migrated_pg):
    """A factory: an HTTP client authenticated as a fresh key of the given org."""
    clients = []

    async def make(org_id: str, scopes=ALL_SCOPES) -> httpx.AsyncClient:
        key = await _create_key(migrated_pg.owner_dsn, org_id, scopes)
        client = asgi_client(gateway, key)
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()
