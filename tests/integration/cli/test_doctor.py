"""`lore doctor` on real stores and services: what is healthy says so, what is not says how to fix it."""

import json
import os
import socket
import subprocess
from pathlib import Path

from lore_cli.doctor import FAIL, OK, diagnose

from tests.backends import fresh_database

LORE = str(Path(__file__).resolve().parents[3] / ".venv/bin/lore")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _by_subject(findings) -> dict:
    return {finding.subject: finding for finding in findings}


async def test_a_healthy_system_is_reported_healthy_and_only_what_is_down_fails(
    services, migrated_pg, redis_url, tmp_path
):
    environ = {
        "LORE_DATABASE_URL": migrated_pg.owner_dsn,
        "LORE_REDIS_URL": redis_url,
        "LORE_DATA_DIR": str(tmp_path),
        "LORE_GATEWAY_ADDR": f"127.0.0.1:{_closed_port()}",
        **{f"LORE_{name.upper()}_ADDR": service.address for name, service in services.items()},
    }

    findings = _by_subject(await diagnose(environ))

    for subject in ("postgres", "postgres: pgvector", "postgres: migrations", "redis", "embeddings", "data dir"):
        assert findings[subject].status == OK, findings[subject]
    assert findings["postgres: migrations"].detail.startswith("all applied")
    for name in services:
        assert findings[f"service: {name}"].status == OK
        assert findings[f"service: {name}"].detail == f"SERVING at {services[name].address}"
    assert all(findings[f"settings: {name}"].status == OK for name in (*services, "gateway"))
    gateway = findings["gateway"]
    assert gateway.status == FAIL and "cannot reach" in gateway.detail and "LORE_GATEWAY_ADDR" in gateway.fix


async def test_an_unmigrated_database_a_dead_redis_and_a_bad_setting_fail_with_their_fixes(pg_superuser_dsn, tmp_path):
    async with fresh_database(pg_superuser_dsn, "doctor") as urls:
        env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
        env.update(
            LORE_DATABASE_URL=urls.owner_dsn,
            LORE_REDIS_URL=f"redis://127.0.0.1:{_closed_port()}/0",
            LORE_DATA_DIR=str(tmp_path),
            LORE_RATE_LIMIT="fast",
            LORE_MEMORY_ADDR=f"127.0.0.1:{_closed_port()}",
        )
        # Blocking is fine: nothing else runs on this test's loop.
        result = subprocess.run([LORE, "doctor", "--json"], capture_output=True, text=True, env=env, timeout=120)  # noqa: ASYNC221

    assert result.returncode == 1, result.stderr
    findings = {finding["subject"]: finding for finding in json.loads(result.stdout)}
    assert findings["postgres"]["status"] == OK
    assert findings["postgres: migrations"] == {
        "status": FAIL,
        "subject": "postgres: migrations",
        "detail": "none applied",
        "fix": "run `lore migrate`",
    }
    assert findings["redis"]["status"] == FAIL and "cannot connect" in findings["redis"]["detail"]
    assert (
        findings["settings: gateway"]["status"] == FAIL and "LORE_RATE_LIMIT" in findings["settings: gateway"]["detail"]
    )
    assert findings["service: memory"]["status"] == FAIL and findings["service: memory"]["detail"].startswith(
        "UNREACHABLE"
    )
