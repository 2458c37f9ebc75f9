"""The embedded back ends keep data across restarts, are their owner's alone, come back after a
crash, and database preparation is idempotent."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import stat
from pathlib import Path

import asyncpg
import pytest
import redis.asyncio as redis
from lore_devstack import EmbeddedPostgres, EmbeddedRedis, prepare_database
from lore_devstack.database import with_credentials

from tests.other_account import (
    Targets,
    open_ancestors_to_traverse,
    tcp_listeners,
    under,
    what_another_account_can_do,
)
from tests.polling import eventually


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


def _postmaster(data_dir: Path) -> tuple[int, str, int]:
    """The postmaster's pid, socket directory and port, from its postmaster.pid."""
    lines = (data_dir / "postmaster.pid").read_text().splitlines()
    return int(lines[0]), lines[4], int(lines[3])


async def test_embedded_postgres_asks_every_connection_for_a_password(tmp_path: Path) -> None:
    server = EmbeddedPostgres(tmp_path / "pg")
    try:
        dsn = server.start()
        for password in ("", "not-the-password"):
            with pytest.raises(asyncpg.InvalidPasswordError):
                await asyncpg.connect(with_credentials(dsn, user="postgres", password=password, database="postgres"))
        connection = await asyncpg.connect(dsn)
        try:
            assert await connection.fetchval("SELECT current_user") == "postgres"
        finally:
            await connection.close()
    finally:
        server.stop()
    assert stat.S_IMODE((tmp_path / "pg" / "lore-superuser-password").stat().st_mode) == 0o600


async def test_a_cluster_that_trusted_every_local_account_is_made_to_ask_for_passwords(tmp_path: Path) -> None:
    """A cluster as an older lore_devstack left it: pg_hba.conf trusting everyone, no superuser password."""
    server = EmbeddedPostgres(tmp_path / "pg")
    server.start()
    server.stop()
    (tmp_path / "pg" / "pg_hba.conf").write_text("local all all trust\nhost all all 127.0.0.1/32 trust\n")
    (tmp_path / "pg" / "lore-superuser-password").unlink()
    (tmp_path / "pg" / "postgresql.conf").chmod(0o644)
    try:
        dsn = server.start()
        with pytest.raises(asyncpg.InvalidPasswordError):
            await asyncpg.connect(with_credentials(dsn, user="postgres", password="", database="postgres"))
        await (await asyncpg.connect(dsn)).close()
    finally:
        server.stop()
    assert stat.S_IMODE((tmp_path / "pg" / "postgresql.conf").stat().st_mode) == 0o600


async def test_embedded_redis_answers_nothing_but_ping_without_its_password(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "redis")
    try:
        url = server.start()
        owner = redis.Redis.from_url(url)
        stranger = redis.Redis(host="127.0.0.1", port=server.port)
        try:
            await owner.rpush("lore:turns", b"private")
            assert await stranger.ping()
            for command in (("LRANGE", "lore:turns", 0, -1), ("FLUSHALL",), ("KEYS", "*"), ("CONFIG", "GET", "dir")):
                with pytest.raises(redis.ResponseError):
                    await stranger.execute_command(*command)
            assert await owner.lrange("lore:turns", 0, -1) == [b"private"]
        finally:
            await owner.aclose()
            await stranger.aclose()
    finally:
        server.stop()
    password = (tmp_path / "redis" / "password").read_text().strip()
    assert password not in (tmp_path / "redis" / "users.acl").read_text()  # the ACL holds its hash only


async def test_the_embedded_stores_files_are_their_owners_even_in_an_older_tree(tmp_path: Path) -> None:
    """Directories 0700 and files 0600, including what an older version left 0755/0644."""
    old = tmp_path / "redis"
    old.mkdir(mode=0o755)
    old.chmod(0o755)
    (old / "valkey.log").write_text("an old log\n")
    (old / "valkey.log").chmod(0o644)
    postgres, valkey = EmbeddedPostgres(tmp_path / "pg"), EmbeddedRedis(old)
    try:
        postgres.start()
        client = redis.Redis.from_url(valkey.start())
        try:
            await client.set("lore:test:written", b"after the start")
        finally:
            await client.aclose()
        loose = [
            f"{path} {oct(stat.S_IMODE(path.lstat().st_mode))}"
            for root in (tmp_path / "pg", old)
            for path in (root, *root.rglob("*"))
            if not path.is_socket() and stat.S_IMODE(path.lstat().st_mode) & 0o077
        ]
        assert loose == []
    finally:
        valkey.stop()
        postgres.stop()


async def test_another_account_can_neither_read_nor_use_the_embedded_stores(tmp_path: Path) -> None:
    open_ancestors_to_traverse(tmp_path)
    postgres, valkey = EmbeddedPostgres(tmp_path / "pg"), EmbeddedRedis(tmp_path / "redis")
    try:
        postgres.start()
        valkey.start()
        pg_targets, redis_targets = under(tmp_path / "pg"), under(tmp_path / "redis")
        pid, socket_dir, port = _postmaster(tmp_path / "pg")
        targets = Targets(
            files=pg_targets.files + redis_targets.files,
            dirs=pg_targets.dirs + redis_targets.dirs,
            postgres_sockets=[*pg_targets.postgres_sockets, f"{socket_dir}/.s.PGSQL.{port}"],
            redis_ports=[("127.0.0.1", valkey.port)],
        )
        assert len(targets.files) > 10 and targets.postgres_sockets
        assert await asyncio.to_thread(what_another_account_can_do, targets) == []
        assert tcp_listeners(pid) == []  # no Postgres port to try
    finally:
        valkey.stop()
        postgres.stop()


async def test_a_killed_embedded_postgres_is_started_again_with_its_data(tmp_path: Path) -> None:
    server = EmbeddedPostgres(tmp_path / "pg")
    try:
        connection = await asyncpg.connect(server.start())
        await connection.execute("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')")
        await connection.close()
        os.kill(server.pid, signal.SIGKILL)
        await eventually(lambda: not server.alive, timeout=10, what="the killed postmaster still looks alive")

        dsn = await eventually(_restarted(server), timeout=60, what="the postmaster did not start again")
        connection = await asyncpg.connect(dsn)
        try:
            assert await connection.fetchval("SELECT v FROM kept") == "still here"
        finally:
            await connection.close()
        assert server.alive
    finally:
        server.stop()
    assert not (tmp_path / "pg" / "postmaster.pid").exists()  # the new handle stopped the new server


def _restarted(server: EmbeddedPostgres):
    """A probe that restarts the cluster; None while the dead postmaster's backends still hold its memory."""

    async def attempt() -> str | None:
        try:
            return await asyncio.to_thread(server.restart)
        except Exception:  # pg_ctl refuses while the old shared memory is in use
            return None

    return attempt


async def test_a_killed_embedded_redis_is_started_again_on_its_port_with_its_data(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path / "redis")
    try:
        url = server.start()
        client = redis.Redis.from_url(url)
        await client.set("lore:test:kept", b"still here")  # written to the AOF (the page cache) before the reply
        await client.aclose()
        os.kill(server.pid, signal.SIGKILL)
        await eventually(lambda: not server.alive, timeout=10, what="the killed server still looks alive")

        assert await asyncio.to_thread(server.restart) == url
        client = redis.Redis.from_url(url)
        try:
            assert await client.get("lore:test:kept") == b"still here"
        finally:
            await client.aclose()
    finally:
        server.stop()
