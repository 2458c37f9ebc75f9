"""Applying migrations: one runner at a time per database, one transaction per migration.

The runner connects as the schema's owner role (never a superuser), so every table it
creates is owned by that role and the service's app role only gets the DML grants given
here; that is what keeps row-level security binding on the app role. A session advisory
lock serialises concurrent runners (several replicas starting at once); the bookkeeping
table ``lore_migrations.applied`` records what ran, with checksums, per schema.

Scripts run inside a transaction with ``search_path`` set to the target schema then
``public`` (where pgvector's types live), so statements that cannot run in a transaction
(``CREATE INDEX CONCURRENTLY``) do not belong in a migration.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from lore_migrations.discovery import Migration
from lore_migrations.errors import MigrationError

BOOKKEEPING_SCHEMA = "lore_migrations"
# One lock for every schema in the database: runners for different schemas also share the
# bookkeeping table, and migrations are rare enough that serialising them all costs nothing.
ADVISORY_LOCK_KEY = 0x6C6F7265_6D696772  # "lore" "migr"

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


@dataclass(frozen=True)
class MigrationReport:
    """What one run did: versions applied now, and versions found already applied."""

    schema: str
    applied: tuple[int, ...]
    skipped: tuple[int, ...]


def _identifier(name: str, what: str) -> str:
    if not _IDENTIFIER.match(name):
        raise MigrationError(f"{what} {name!r} is not a plain lower-case SQL identifier")
    return f'"{name}"'


def _check_sequence(schema: str, migrations: Sequence[Migration]) -> list[Migration]:
    ordered = sorted(migrations, key=lambda migration: migration.version)
    seen: set[int] = set()
    for migration in ordered:
        if migration.version in seen:
            raise MigrationError("duplicate version in the migration set", schema=schema, version=migration.version)
        seen.add(migration.version)
    return ordered


async def migrate(
    owner_dsn: str,
    schema: str,
    migrations: Sequence[Migration],
    app_role: str | None = "lore_app",
) -> MigrationReport:
    """Apply the pending ``migrations`` to ``schema`` as the owner and grant ``app_role`` DML on it.

    Idempotent: a second run applies nothing (and re-asserts the grants). Raises
    ``MigrationError`` when an applied migration's checksum changed or a script fails;
    migrations applied before the failure stay applied.
    """
    quoted_schema = _identifier(schema, "schema")
    if schema == BOOKKEEPING_SCHEMA:
        raise MigrationError(f"schema {schema!r} is reserved for the runner's bookkeeping")
    quoted_app = _identifier(app_role, "role") if app_role is not None else None
    ordered = _check_sequence(schema, migrations)

    connection = await asyncpg.connect(owner_dsn)
    try:
        await connection.execute("SELECT pg_advisory_lock($1)", ADVISORY_LOCK_KEY)
        try:
            if quoted_app is not None and not await connection.fetchval(
                "SELECT true FROM pg_roles WHERE rolname = $1", app_role
            ):
                raise MigrationError(f"app role {app_role!r} does not exist", schema=schema)
            await _ensure_bookkeeping(connection)
            await connection.execute(f"CREATE SCHEMA IF NOT EXISTS {quoted_schema}")
            recorded = {
                row["version"]: row["checksum"]
                for row in await connection.fetch(
                    f"SELECT version, checksum FROM {BOOKKEEPING_SCHEMA}.applied WHERE schema = $1", schema
                )
            }
            applied: list[int] = []
            skipped: list[int] = []
            for migration in ordered:
                if migration.version in recorded:
                    if recorded[migration.version] != migration.checksum:
                        raise MigrationError(
                            f"{migration.name!r} was changed after it was applied "
                            f"(checksum {recorded[migration.version][:12]}… in the database, "
                            f"{migration.checksum[:12]}… now); add a new migration instead of editing it",
                            schema=schema,
                            version=migration.version,
                        )
                    skipped.append(migration.version)
                    continue
                await _apply(connection, schema, quoted_schema, migration)
                applied.append(migration.version)
            if quoted_app is not None:
                await _grant(connection, quoted_schema, quoted_app)
        finally:
            await connection.execute("SELECT pg_advisory_unlock($1)", ADVISORY_LOCK_KEY)
    finally:
        await connection.close()
    return MigrationReport(schema=schema, applied=tuple(applied), skipped=tuple(skipped))


async def _ensure_bookkeeping(connection: asyncpg.Connection) -> None:
    await connection.execute(
        f"""
        CREATE SCHEMA IF NOT EXISTS {BOOKKEEPING_SCHEMA};
        CREATE TABLE IF NOT EXISTS {BOOKKEEPING_SCHEMA}.applied (
            schema     text        NOT NULL,
            version    integer     NOT NULL CHECK (version > 0),
            name       text        NOT NULL,
            checksum   text        NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (schema, version)
        );
        """
    )


async def _apply(connection: asyncpg.Connection, schema: str, quoted_schema: str, migration: Migration) -> None:
    try:
        async with connection.transaction():
            await connection.execute(f"SET LOCAL search_path TO {quoted_schema}, public")
            await connection.execute(migration.sql)
            await connection.execute(
                f"INSERT INTO {BOOKKEEPING_SCHEMA}.applied (schema, version, name, checksum) VALUES ($1, $2, $3, $4)",
                schema,
                migration.version,
                migration.name,
                migration.checksum,
            )
    except asyncpg.PostgresError as error:
        raise MigrationError(f"{migration.name!r} failed: {error}", schema=schema, version=migration.version) from error


async def _grant(connection: asyncpg.Connection, quoted_schema: str, quoted_app: str) -> None:
    """USAGE on the schema and DML on its tables and sequences, now and for tables created later.

    Deliberately no CREATE and no ownership: the app role must stay subject to RLS.
    ``ALTER DEFAULT PRIVILEGES`` covers objects this (owner) role creates later, e.g. by
    a migration run before the grants are re-asserted.
    """
    await connection.execute(
        f"""
        GRANT USAGE ON SCHEMA {quoted_schema} TO {quoted_app};
        GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {quoted_schema} TO {quoted_app};
        GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {quoted_schema} TO {quoted_app};
        ALTER DEFAULT PRIVILEGES IN SCHEMA {quoted_schema}
            GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {quoted_app};
        ALTER DEFAULT PRIVILEGES IN SCHEMA {quoted_schema}
            GRANT USAGE, SELECT ON SEQUENCES TO {quoted_app};
        """
    )
