"""The embedded back ends keep data across restarts, and database preparation is idempotent."""

from __future__ import annotations

import secrets
from pathlib import Path

import asyncpg
import redis.asyncio as redis
from lore_devstack import EmbeddedPostgres, EmbeddedRedis, prepare_database


async def test_embedded_redis_persists_a_key_across_restarts(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "redis")
    try:
        client = redis.Redis.from_url(server.start())
        try:
            await client.set("lore:test:persisted", b"still here")
        finally:
            await client.aclose()
        server.stop()

        client = redis.Redis.from_url(server.start())
        try:
            assert await client.get("lore:test:persisted") == b"still here"
        finally:
            await client.aclose()
    finally:
        server.stop()
    assert (tmp_path / "redis" / "appendonlydir").is_dir()


async def test_embedded_postgres_persists_data_across_restarts(tmp_path: Path) -> None:
    server = EmbeddedPostgres(tmp_path / "pg")
    try:
        connection = await asyncpg.connect(server.start())
        try:
            await connection.execute("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')")
        finally:
            await connection.close()
        server.stop()

        connection = await asyncpg.connect(server.start())
        try:
            assert await connection.fetchval("SELECT v FROM kept") == "still here"
        finally:
            await connection.close()
    finally:
        server.stop()


async def test_prepare_database_is_idempotent(pg_superuser_dsn: str) -> None:
    database = f"lore_prep_{secrets.token_hex(4)}"
    try:
        first = await prepare_database(pg_superuser_dsn, database)
        second = await prepare_database(pg_superuser_dsn, database)
        assert first == second

        connection = await asyncpg.connect(second.superuser_dsn)
        try:
            roles = {
                row["rolname"]: row
                for row in await connection.fetch(
                    "SELECT rolname, rolsuper, rolbypassrls, rolcanlogin FROM pg_roles "
                    "WHERE rolname IN ('lore_owner', 'lore_app')"
                )
            }
            assert (
                all(
                    role["rolcanlogin"] and not role["rolsuper"] and not role["rolbypassrls"] for role in roles.values()
                )
                and len(roles) == 2
            )
            owner = await connection.fetchval(
                "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()"
            )
            assert owner == "lore_owner"
            assert await connection.fetchval("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            assert not await connection.fetchval("SELECT count(*) FROM pg_class WHERE relowner = 'lore_app'::regrole")
        finally:
            await connection.close()

        for dsn, user in ((second.owner_dsn, "lore_owner"), (second.app_dsn, "lore_app")):
            connection = await asyncpg.connect(dsn)
            try:
                assert await connection.fetchval("SELECT current_user") == user
                assert await connection.fetchval("SELECT '[1,2,3]'::vector(3)::text") == "[1,2,3]"
            finally:
                await connection.close()
    finally:
        connection = await asyncpg.connect(pg_superuser_dsn)
        try:
            await connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        finally:
            await connection.close()


async def test_embedded_postgres_stops_despite_a_crashed_previous_user(tmp_path: Path) -> None:
    server = EmbeddedPostgres(tmp_path / "pg")
    server.start()
    server.stop()
    dead_pid = 2**22 + 12345  # above the kernel's PID_MAX_LIMIT (2**22): no process can have it
    (tmp_path / "pg" / ".handle_pids.json").write_text(f"[{dead_pid}]")

    server.start()
    server.stop()

    assert not (tmp_path / "pg" / "postmaster.pid").exists()
