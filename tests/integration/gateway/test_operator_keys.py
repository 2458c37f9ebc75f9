"""Who holds the operator scope: keys made with `lore keys create --scope operator`, and the dev key of
`lore up` — also one an older `lore up` made without it, once the stack starts again."""

import asyncio
import hashlib
import os
import subprocess
import uuid
from pathlib import Path

import asyncpg
from gateway_svc.adapters.postgres_key_admin import DEV_KEY_NAME, DEV_ORG, DEV_PRINCIPAL, ensure_development_key
from gateway_svc.domain.credentials import ALL_SCOPES

from tests.backends import fresh_migrated_database

LORE = str(Path(__file__).resolve().parents[3] / ".venv/bin/lore")


async def scopes_of(app_dsn: str, key: str) -> list[str]:
    connection = await asyncpg.connect(app_dsn)
    try:
        row = await connection.fetchrow(
            "SELECT scopes FROM gateway.resolve_api_key($1)", hashlib.sha256(key.encode()).digest()
        )
    finally:
        await connection.close()
    return list(row["scopes"])


async def test_the_dev_key_of_an_existing_data_dir_gains_operator_on_the_next_lore_up(pg_superuser_dsn):
    key = "lore_dev_" + uuid.uuid4().hex
    async with fresh_migrated_database(pg_superuser_dsn, "operator_dev_key") as urls:
        owner = await asyncpg.connect(urls.owner_dsn)
        try:  # what an older `lore up` stored: every scope it knew, no operator
            await owner.execute(
                "INSERT INTO gateway.api_keys (id, org_id, principal, name, key_hash, scopes)"
                " VALUES ($1, $2, $3, $4, $5, $6)",
                uuid.uuid4(),
                DEV_ORG,
                DEV_PRINCIPAL,
                DEV_KEY_NAME,
                hashlib.sha256(key.encode()).digest(),
                [scope for scope in ALL_SCOPES if scope != "operator"],
            )
        finally:
            await owner.close()
        assert "operator" not in await scopes_of(urls.app_dsn, key)

        await ensure_development_key(urls.owner_dsn, key)

        assert await scopes_of(urls.app_dsn, key) == list(ALL_SCOPES)


async def test_lore_keys_create_grants_the_operator_scope(migrated_pg):
    env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    env["LORE_MIGRATIONS_DATABASE_URL"] = migrated_pg.owner_dsn
    command = [
        LORE,
        "keys",
        "create",
        "--org",
        f"org-{uuid.uuid4().hex[:8]}",
        "--principal",
        "ops",
        "--scope",
        "operator",
    ]
    created = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, env=env, timeout=120)

    assert created.returncode == 0, created.stderr
    assert await scopes_of(migrated_pg.app_dsn, created.stdout.strip()) == ["operator"]
