"""Real back ends for integration tests, started once per pytest run.

Loaded with ``-p tests.backends`` (see pyproject), so it must import without starting
anything: the embedded servers are only started when a test asks for a fixture, and
``lore_devstack`` is imported lazily for the same reason. Every database, org id and
directory is random, so runs (and tests within a run) never see each other's data.

Environment overrides, for CI with real services:
``LORE_TEST_PG_SUPERUSER_DSN`` (a superuser DSN to an existing cluster) and
``LORE_TEST_REDIS_URL`` (an existing Redis; tests must use random key prefixes).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import pytest_asyncio

if TYPE_CHECKING:
    from lore_devstack import DatabaseUrls


def _random_id() -> str:
    return secrets.token_hex(6)


@pytest.fixture(scope="session")
def pg_superuser_dsn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A superuser DSN: the env override, else an embedded Postgres in a fresh tmp dir."""
    external = os.environ.get("LORE_TEST_PG_SUPERUSER_DSN")
    if external:
        yield external
        return
    from lore_devstack import EmbeddedPostgres

    server = EmbeddedPostgres(tmp_path_factory.mktemp("postgres") / "data")
    try:
        yield server.start()
    finally:
        server.stop()


@contextlib.asynccontextmanager
async def fresh_database(superuser_dsn: str, prefix: str = "lore_test") -> AsyncIterator[DatabaseUrls]:
    """A new, randomly named database with the lore_owner/lore_app roles and pgvector; dropped after."""
    import asyncpg
    from lore_devstack import prepare_database

    database = f"{prefix}_{_random_id()}"
    urls = await prepare_database(superuser_dsn, database)
    try:
        yield urls
    finally:
        connection = await asyncpg.connect(superuser_dsn)
        try:
            await connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        finally:
            await connection.close()


@contextlib.asynccontextmanager
async def fresh_migrated_database(superuser_dsn: str, prefix: str) -> AsyncIterator[DatabaseUrls]:
    """``fresh_database`` with every service's schema migrated: for a test whose background
    workers must not meet the in-process services' (the agent's job worker drains its queue)."""
    from lore_cli.migrate import apply_all

    async with fresh_database(superuser_dsn, prefix) as urls:
        await apply_all(urls.owner_dsn, quiet=True)
        yield urls


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def pg_dsns(pg_superuser_dsn: str) -> AsyncIterator[DatabaseUrls]:
    """A fresh, randomly named database with the lore_owner/lore_app roles and pgvector; dropped at the end."""
    async with fresh_database(pg_superuser_dsn) as urls:
        yield urls


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def migrated_pg(pg_dsns: DatabaseUrls) -> DatabaseUrls:
    """``pg_dsns`` with every service's schema migrated, as ``lore migrate`` does it."""
    from lore_cli.migrate import apply_all

    await apply_all(pg_dsns.owner_dsn, quiet=True)
    return pg_dsns


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``LORE_TEST_REDIS_URL`` when set, else an embedded Valkey on a free port."""
    external = os.environ.get("LORE_TEST_REDIS_URL")
    if external:
        yield external
        return
    from lore_devstack import EmbeddedRedis

    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"))
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(scope="session")
def qdrant_edge_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh directory for qdrant-edge shards (the engine runs in-process, nothing to start)."""
    return tmp_path_factory.mktemp("qdrant-edge")


@pytest.fixture
def org_id() -> str:
    """A tenant id no other test uses, so tests sharing a database never see each other's rows."""
    return f"org-{_random_id()}"


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def isolated_pg(pg_superuser_dsn: str) -> AsyncIterator[DatabaseUrls]:
    """A second migrated database no in-process service uses (see ``fresh_migrated_database``)."""
    async with fresh_migrated_database(pg_superuser_dsn, "lore_isolated") as urls:
        yield urls
