"""The migration runner against a real (embedded) Postgres, as the roles services use."""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest
from lore_devstack import DatabaseUrls
from lore_migrations import Migration, MigrationError, discover, migrate
from lore_runtime.stores import tenant_transaction

from tests.backends import fresh_database


@pytest.fixture
def schema() -> str:
    """A schema no other test touches: every test shares the session's database."""
    return f"t_{secrets.token_hex(5)}"


def notes_migrations(schema: str) -> list[Migration]:
    """Two migrations that fail if applied twice (no IF NOT EXISTS), so double application shows."""
    return [
        Migration.from_sql(1, "notes", f"CREATE TABLE {schema}.notes (id bigserial PRIMARY KEY, body text NOT NULL);"),
        Migration.from_sql(2, "notes_tag", "ALTER TABLE notes ADD COLUMN tag text NOT NULL DEFAULT '';"),
    ]


def tenant_migrations(schema: str) -> list[Migration]:
    return [
        Migration.from_sql(
            1,
            "facts",
            f"""
            CREATE TABLE {schema}.facts (
                id     bigserial PRIMARY KEY,
                org_id text NOT NULL,
                body   text NOT NULL
            );
            ALTER TABLE {schema}.facts ENABLE ROW LEVEL SECURITY;
            CREATE POLICY facts_tenant ON {schema}.facts
                USING (org_id = current_setting('lore.org_id', true))
                WITH CHECK (org_id = current_setting('lore.org_id', true));
            """,
        )
    ]


async def applied_rows(dsn: str, schema: str) -> list[asyncpg.Record]:
    connection = await asyncpg.connect(dsn)
    try:
        return await connection.fetch(
            "SELECT version, name FROM lore_migrations.applied WHERE schema = $1 ORDER BY version", schema
        )
    finally:
        await connection.close()


async def test_second_run_applies_nothing(pg_dsns: DatabaseUrls, schema: str) -> None:
    migrations = notes_migrations(schema)

    first = await migrate(pg_dsns.owner_dsn, schema, migrations)
    second = await migrate(pg_dsns.owner_dsn, schema, migrations)

    assert (first.applied, first.skipped) == ((1, 2), ())
    assert (second.applied, second.skipped) == ((), (1, 2))
    assert [(row["version"], row["name"]) for row in await applied_rows(pg_dsns.owner_dsn, schema)] == [
        (1, "notes"),
        (2, "notes_tag"),
    ]


async def test_new_migrations_are_applied_after_old_ones(pg_dsns: DatabaseUrls, schema: str) -> None:
    first, second = notes_migrations(schema)
    await migrate(pg_dsns.owner_dsn, schema, [first])

    report = await migrate(pg_dsns.owner_dsn, schema, [first, second])

    assert (report.applied, report.skipped) == ((2,), (1,))


async def test_changed_checksum_is_refused(pg_dsns: DatabaseUrls, schema: str) -> None:
    original = notes_migrations(schema)
    await migrate(pg_dsns.owner_dsn, schema, original)
    edited = [original[0], Migration.from_sql(2, "notes_tag", "ALTER TABLE notes ADD COLUMN tag2 text;")]

    with pytest.raises(MigrationError) as raised:
        await migrate(pg_dsns.owner_dsn, schema, edited)

    assert schema in str(raised.value) and "0002" in str(raised.value)
    assert (raised.value.schema, raised.value.version) == (schema, 2)


async def test_failing_migration_names_schema_and_version_and_rolls_back(pg_dsns: DatabaseUrls, schema: str) -> None:
    broken = [*notes_migrations(schema), Migration.from_sql(3, "broken", "CREATE TABLE x (; ")]

    with pytest.raises(MigrationError, match=rf"{schema} migration 0003"):
        await migrate(pg_dsns.owner_dsn, schema, broken)

    assert [row["version"] for row in await applied_rows(pg_dsns.owner_dsn, schema)] == [1, 2]


async def test_concurrent_runs_apply_each_migration_once(pg_dsns: DatabaseUrls, schema: str) -> None:
    migrations = notes_migrations(schema)

    reports = await asyncio.gather(*(migrate(pg_dsns.owner_dsn, schema, migrations) for _ in range(3)))

    applied = [version for report in reports for version in report.applied]
    assert sorted(applied) == [1, 2]
    assert [row["version"] for row in await applied_rows(pg_dsns.owner_dsn, schema)] == [1, 2]


async def test_app_role_uses_tables_but_neither_owns_nor_creates(pg_dsns: DatabaseUrls, schema: str) -> None:
    await migrate(pg_dsns.owner_dsn, schema, notes_migrations(schema))

    app = await asyncpg.connect(pg_dsns.app_dsn)
    try:
        note_id = await app.fetchval(f"INSERT INTO {schema}.notes (body) VALUES ('hello') RETURNING id")
        await app.execute(f"UPDATE {schema}.notes SET tag = 'greeting' WHERE id = $1", note_id)
        assert await app.fetchval(f"SELECT tag FROM {schema}.notes WHERE id = $1", note_id) == "greeting"
        assert await app.execute(f"DELETE FROM {schema}.notes WHERE id = $1", note_id) == "DELETE 1"

        owner = await app.fetchval(
            "SELECT tableowner FROM pg_tables WHERE schemaname = $1 AND tablename = 'notes'", schema
        )
        assert owner == "lore_owner"
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await app.execute(f"CREATE TABLE {schema}.intruder (id int)")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await app.execute(f"DROP TABLE {schema}.notes")
    finally:
        await app.close()


async def test_tables_created_later_by_the_owner_are_granted_by_default(pg_dsns: DatabaseUrls, schema: str) -> None:
    await migrate(pg_dsns.owner_dsn, schema, notes_migrations(schema))
    owner = await asyncpg.connect(pg_dsns.owner_dsn)
    try:
        await owner.execute(f"CREATE TABLE {schema}.later (id serial PRIMARY KEY, body text)")
    finally:
        await owner.close()

    app = await asyncpg.connect(pg_dsns.app_dsn)
    try:
        assert await app.fetchval(f"INSERT INTO {schema}.later (body) VALUES ('x') RETURNING id") == 1
    finally:
        await app.close()


async def test_row_level_security_hides_other_orgs_from_the_app_role(
    pg_dsns: DatabaseUrls, schema: str, org_id: str
) -> None:
    await migrate(pg_dsns.owner_dsn, schema, tenant_migrations(schema))
    other_org = f"{org_id}-other"

    async with asyncpg.create_pool(pg_dsns.app_dsn, min_size=1, max_size=2) as pool:
        async with tenant_transaction(pool, org_id) as connection:
            await connection.execute(f"INSERT INTO {schema}.facts (org_id, body) VALUES ($1, 'mine')", org_id)
        async with tenant_transaction(pool, other_org) as connection:
            await connection.execute(f"INSERT INTO {schema}.facts (org_id, body) VALUES ($1, 'theirs')", other_org)

        async with tenant_transaction(pool, org_id) as connection:
            # No WHERE clause on purpose: the policy alone must hide the other org's row.
            assert [row["body"] for row in await connection.fetch(f"SELECT body FROM {schema}.facts")] == ["mine"]
        async with tenant_transaction(pool, org_id) as connection:
            assert await connection.execute(f"UPDATE {schema}.facts SET body = 'stolen'") == "UPDATE 1"
        with pytest.raises(asyncpg.InsufficientPrivilegeError):  # WITH CHECK: cannot write as another org
            async with tenant_transaction(pool, org_id) as connection:
                await connection.execute(f"INSERT INTO {schema}.facts (org_id, body) VALUES ($1, 'forged')", other_org)
        async with pool.acquire() as connection:  # no tenant set: nothing visible at all
            assert await connection.fetchval(f"SELECT count(*) FROM {schema}.facts") == 0
        async with tenant_transaction(pool, other_org) as connection:
            assert await connection.fetchval(f"SELECT body FROM {schema}.facts") == "theirs"


@pytest.fixture
def migrations_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A throwaway importable package with an empty ``migrations`` folder to fill per test."""
    name = f"lore_test_pkg_{secrets.token_hex(4)}"
    folder = tmp_path / name / "migrations"
    folder.mkdir(parents=True)
    (tmp_path / name / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name, folder
    sys.modules.pop(name, None)


def test_discover_reads_sorted_sql_files(migrations_package: tuple[str, Path]) -> None:
    package, folder = migrations_package
    (folder / "0002_second.sql").write_text("SELECT 2;\n")
    (folder / "0001_first.sql").write_text("SELECT 1;\r\n")
    (folder / "README.md").write_text("not a migration")

    migrations = discover(package)

    assert [(m.version, m.name, m.sql) for m in migrations] == [
        (1, "first", "SELECT 1;\n"),
        (2, "second", "SELECT 2;\n"),
    ]
    assert migrations[0].checksum == Migration.from_sql(1, "first", "SELECT 1;\n").checksum


@pytest.mark.parametrize("bad_name", ["1_short.sql", "0001-dash.sql", "0001_Upper.sql", "0000_zero.sql", "abcd_x.sql"])
def test_discover_refuses_bad_names(migrations_package: tuple[str, Path], bad_name: str) -> None:
    package, folder = migrations_package
    (folder / bad_name).write_text("SELECT 1;")

    with pytest.raises(MigrationError, match="bad migration file name"):
        discover(package)


def test_discover_refuses_duplicate_versions(migrations_package: tuple[str, Path]) -> None:
    package, folder = migrations_package
    (folder / "0001_one.sql").write_text("SELECT 1;")
    (folder / "0001_uno.sql").write_text("SELECT 1;")

    with pytest.raises(MigrationError, match="duplicate migration version 0001"):
        discover(package)


def test_discover_finds_the_gateway_migrations() -> None:
    pytest.importorskip("gateway_svc")

    migrations = discover("gateway_svc")

    assert migrations[0].version == 1 and migrations[0].name == "api_keys"


async def test_keys_made_before_users_could_be_pinned_stay_org_wide_and_old_gateways_still_resolve(
    pg_superuser_dsn: str,
) -> None:
    """0004 is additive: a key of 0001-0003 resolves with no user (org-wide, as it was made), and the
    previous gateway's query, naming its four columns, still works during a rolling upgrade."""
    gateway = discover("gateway_svc")
    [pinning] = [migration for migration in gateway if migration.name == "api_key_users"]
    key_hash = secrets.token_bytes(32)
    async with fresh_database(pg_superuser_dsn, "lore_keys_upgrade") as urls:
        await migrate(urls.owner_dsn, "gateway", [m for m in gateway if m.version < pinning.version])
        owner = await asyncpg.connect(urls.owner_dsn)
        try:
            await owner.execute(
                "INSERT INTO gateway.api_keys (id, org_id, principal, key_hash) VALUES (gen_random_uuid(), $1, $2, $3)",
                "org-before",
                "old-app",
                key_hash,
            )
        finally:
            await owner.close()
        report = await migrate(urls.owner_dsn, "gateway", gateway)
        app = await asyncpg.connect(urls.app_dsn)
        try:
            resolved = await app.fetchrow("SELECT * FROM gateway.resolve_api_key($1)", key_hash)
            previous = await app.fetchrow(
                "SELECT id, org_id, principal, scopes FROM gateway.resolve_api_key($1)", key_hash
            )
        finally:
            await app.close()

    assert pinning.version in report.applied
    assert (resolved["org_id"], resolved["principal"], resolved["user_id"]) == ("org-before", "old-app", "")
    assert previous["id"] == resolved["id"]
