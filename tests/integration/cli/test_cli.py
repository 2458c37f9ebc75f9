"""`lore migrate` and `lore health` as an operator runs them."""

import os
import socket
import subprocess
from pathlib import Path

import asyncpg

LORE = str(Path(__file__).resolve().parents[3] / ".venv/bin/lore")


def _env(**values: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    env.update(values)
    return env


def test_health_exits_non_zero_when_the_gateway_does_not_answer():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = subprocess.run(
        [LORE, "health", "--url", f"http://127.0.0.1:{port}"], capture_output=True, text=True, env=_env(), timeout=60
    )
    assert result.returncode == 1
    assert "UNREACHABLE" in result.stdout


async def test_migrate_applies_every_schema_once(pg_dsns):
    env = _env(LORE_MIGRATIONS_DATABASE_URL=pg_dsns.owner_dsn)
    # Blocking is fine here: the event loop only serves this test's own connection below.
    first = subprocess.run([LORE, "migrate"], capture_output=True, text=True, env=env, timeout=120)  # noqa: ASYNC221
    assert first.returncode == 0, first.stderr
    second = subprocess.run([LORE, "migrate"], capture_output=True, text=True, env=env, timeout=120)  # noqa: ASYNC221
    assert second.returncode == 0, second.stderr
    assert "gateway: applied none" in second.stderr
    connection = await asyncpg.connect(pg_dsns.app_dsn)
    try:
        assert await connection.fetchval("SELECT to_regclass('gateway.api_keys') IS NOT NULL")
    finally:
        await connection.close()
