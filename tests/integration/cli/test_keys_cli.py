"""`lore keys create|list|revoke` as an operator runs them, against the test database as its owner."""

import asyncio
import hashlib
import os
import subprocess
import uuid
from pathlib import Path

import asyncpg
import pytest

LORE = str(Path(__file__).resolve().parents[3] / ".venv/bin/lore")


@pytest.fixture
def lore(migrated_pg):
    env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    env["LORE_MIGRATIONS_DATABASE_URL"] = migrated_pg.owner_dsn

    async def run(*args: str) -> subprocess.CompletedProcess[str]:
        # In a thread: the session's event loop may be serving in-process services meanwhile.
        command = [LORE, "keys", *args]
        return await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, env=env, timeout=120)

    return run


async def _resolve(app_dsn: str, key: str):
    """What the gateway's service role resolves the key to (None: not a live key)."""
    connection = await asyncpg.connect(app_dsn)
    try:
        return await connection.fetchrow(
            "SELECT id, org_id, principal, scopes, user_id FROM gateway.resolve_api_key($1)",
            hashlib.sha256(key.encode()).digest(),
        )
    finally:
        await connection.close()


async def test_create_prints_the_key_once_and_stores_only_its_digest(lore, migrated_pg, org_id):
    created = await lore(
        "create", "--org", org_id, "--principal", "ci-bot", "--scope", "memories:read", "--scope", "sessions:write",
        "--name", "ci",
    )  # fmt: skip

    assert created.returncode == 0, created.stderr
    key = created.stdout.strip()
    assert key.startswith("lore_") and len(key) >= len("lore_") + 43 and "\n" not in key, "32 random bytes, base64"
    assert key not in created.stderr and org_id in created.stderr
    resolved = await _resolve(migrated_pg.app_dsn, key)
    assert (resolved["org_id"], resolved["principal"]) == (org_id, "ci-bot")
    assert list(resolved["scopes"]) == ["memories:read", "sessions:write"]
    assert str(resolved["id"]) in created.stderr
    another = await lore("create", "--org", org_id, "--principal", "ci-bot")
    assert another.returncode == 0 and another.stdout.strip() != key


async def test_list_shows_the_orgs_keys_but_never_a_key(lore, org_id):
    first = await lore("create", "--org", org_id, "--principal", "alice", "--scope", "admin", "--name", "laptop")
    await lore("create", "--org", f"{org_id}-other", "--principal", "mallory", "--name", "elsewhere")

    listed = await lore("list", "--org", org_id)

    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.strip().splitlines()
    assert header.split() == ["ID", "NAME", "PRINCIPAL", "USER", "SCOPES", "CREATED", "LAST", "USED", "REVOKED"]
    assert len(rows) == 1 and "laptop" in rows[0] and "alice" in rows[0] and "admin" in rows[0]
    assert rows[0].split()[-2:] == ["-", "-"], "never used, not revoked"
    assert first.stdout.strip() not in listed.stdout and "mallory" not in listed.stdout
    empty = await lore("list", "--org", f"{org_id}-none")
    assert empty.returncode == 0 and empty.stdout.split() == header.split()


async def test_revoke_makes_the_key_unresolvable_and_is_scoped_to_the_org(lore, migrated_pg, org_id):
    key = (await lore("create", "--org", org_id, "--principal", "svc", "--scope", "memories:read")).stdout.strip()
    key_id = str((await _resolve(migrated_pg.app_dsn, key))["id"])

    elsewhere = await lore("revoke", key_id, "--org", f"{org_id}-other")
    assert elsewhere.returncode == 1 and "has no key" in elsewhere.stderr
    assert await _resolve(migrated_pg.app_dsn, key) is not None

    revoked = await lore("revoke", key_id, "--org", org_id)
    again = await lore("revoke", key_id, "--org", org_id)
    listed = await lore("list", "--org", org_id)

    assert revoked.returncode == 0, revoked.stderr
    assert again.returncode == 0, "revoking twice is harmless"
    assert await _resolve(migrated_pg.app_dsn, key) is None
    [row] = listed.stdout.strip().splitlines()[1:]
    assert row.startswith(key_id) and row.split()[-1] != "-"


async def test_bad_arguments_are_refused_before_anything_is_written(lore, org_id):
    unknown_scope = await lore("create", "--org", org_id, "--principal", "p", "--scope", "root")
    bad_org = await lore("create", "--org", "not an org!", "--principal", "p")
    bad_id = await lore("revoke", "not-a-uuid", "--org", org_id)
    missing = await lore("revoke", str(uuid.uuid4()), "--org", org_id)

    assert unknown_scope.returncode == 2 and "invalid choice" in unknown_scope.stderr
    assert bad_org.returncode == 1 and "not an org id" in bad_org.stderr
    assert bad_id.returncode == 1 and "not a key id" in bad_id.stderr
    assert missing.returncode == 1 and "has no key" in missing.stderr
    assert (await lore("list", "--org", org_id)).stdout.strip().count("\n") == 0


async def test_a_key_made_for_one_user_resolves_pinned_to_them_and_lists_them(lore, migrated_pg, org_id):
    created = await lore(
        "create", "--org", org_id, "--principal", "tutor-app", "--scope", "memories:write", "--user", "u-maren",
    )  # fmt: skip
    org_wide = (await lore("create", "--org", org_id, "--principal", "backend")).stdout.strip()

    assert created.returncode == 0, created.stderr
    assert "acting only for user u-maren" in created.stderr
    pinned = await _resolve(migrated_pg.app_dsn, created.stdout.strip())
    assert (pinned["principal"], pinned["user_id"]) == ("tutor-app", "u-maren")
    assert (await _resolve(migrated_pg.app_dsn, org_wide))["user_id"] == ""
    rows = {row.split()[2]: row.split()[3] for row in (await lore("list", "--org", org_id)).stdout.splitlines()[1:]}
    assert rows == {"tutor-app": "u-maren", "backend": "-"}


async def test_a_bad_user_is_refused_by_the_cli_and_by_the_table_itself(lore, migrated_pg, org_id):
    blank = await lore("create", "--org", org_id, "--principal", "p", "--user", "")
    padded = await lore("create", "--org", org_id, "--principal", "p", "--user", " u-1")
    too_long = await lore("create", "--org", org_id, "--principal", "p", "--user", "u" * 129)
    operator = await lore("create", "--org", org_id, "--principal", "p", "--user", "u-1", "--scope", "operator")

    for refused in (blank, padded, too_long):
        assert refused.returncode == 1 and "is not a user id (1 to 128 characters" in refused.stderr, refused.stderr
    assert operator.returncode == 1 and "cannot hold the operator scope" in operator.stderr
    assert (await lore("list", "--org", org_id)).stdout.strip().count("\n") == 0
    connection = await asyncpg.connect(migrated_pg.owner_dsn)
    try:
        for user_id in ("u-1 ", "u" * 129):
            with pytest.raises(asyncpg.CheckViolationError):
                await connection.execute(
                    "INSERT INTO gateway.api_keys (id, org_id, principal, key_hash, user_id) VALUES ($1,$2,$3,$4,$5)",
                    uuid.uuid4(), org_id, "p", os.urandom(32), user_id,
                )  # fmt: skip
    finally:
        await connection.close()
