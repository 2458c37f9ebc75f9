"""Create the Lore database and its two roles on a freshly started (or reused) cluster.

Services never connect as a superuser: migrations run as ``lore_owner`` (owns the
database and every schema, so it can create tables) and request paths run as
``lore_app`` (NOBYPASSRLS, owns nothing), so row-level security policies actually apply
to them; table owners and superusers bypass RLS. Everything is idempotent, so ``lore up``
and every test session can call it on a cluster that already has some or all of it.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from urllib.parse import quote, urlsplit, urlunsplit

import asyncpg

OWNER_ROLE = "lore_owner"
APP_ROLE = "lore_app"

# Development defaults only: the embedded cluster trusts local connections anyway.
# Anything beyond a laptop passes its own (generated, stored per data dir) passwords.
DEV_OWNER_PASSWORD = "lore-owner-dev"
DEV_APP_PASSWORD = "lore-app-dev"

# Both roles log in and nothing more; the owner's power comes from owning the database.
ROLE_ATTRIBUTES = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_PREPARE_LOCK = 0x6C6F7265_00000001  # "lore" + 1: serialises concurrent prepare_database() calls


@dataclass(frozen=True)
class DatabaseUrls:
    """DSNs for one database: superuser (extensions, tests), owner (migrations), app (services)."""

    superuser_dsn: str
    owner_dsn: str
    app_dsn: str


def with_credentials(dsn: str, *, user: str, password: str | None, database: str) -> str:
    """``dsn`` with another user, password and database, keeping host/port/socket and options.

    Works for TCP URIs and for unix-socket URIs (``postgresql://u:@/db?host=/dir``), which
    is what pgserver hands out, so derived DSNs keep the form asyncpg already accepted.
    """
    parts = urlsplit(dsn)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ValueError(f"expected a postgresql:// URI, got scheme {parts.scheme!r}")
    credentials = quote(user, safe="")
    if password is not None:
        credentials += ":" + quote(password, safe="")
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    if parts.port is not None:
        host += f":{parts.port}"
    netloc = f"{credentials}@{host}"
    return urlunsplit((parts.scheme, netloc, "/" + quote(database, safe=""), parts.query, parts.fragment))


def _quote_identifier(name: str) -> str:
    if not _IDENTIFIER.match(name):
        raise ValueError(f"{name!r} is not a plain lower-case SQL identifier")
    return f'"{name}"'


async def _ensure_role(connection: asyncpg.Connection, role: str, password: str, attributes: str) -> None:
    """Create ``role`` if missing, then (re)assert its attributes and password either way."""
    literal = await connection.fetchval("SELECT quote_literal($1)", password)
    exists = await connection.fetchval("SELECT true FROM pg_roles WHERE rolname = $1", role)
    verb = "ALTER" if exists else "CREATE"
    await connection.execute(f"{verb} ROLE {_quote_identifier(role)} WITH {attributes} PASSWORD {literal}")


@asynccontextmanager
async def _holding_prepare_lock(dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A connection to ``dsn`` holding the advisory lock that serialises ``prepare_database`` calls."""
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute("SELECT pg_advisory_lock($1)", _PREPARE_LOCK)
        try:
            yield connection
        finally:
            await connection.execute("SELECT pg_advisory_unlock($1)", _PREPARE_LOCK)
    finally:
        await connection.close()


async def prepare_database(
    superuser_dsn: str,
    database: str = "lore",
    owner_password: str | None = None,
    app_password: str | None = None,
) -> DatabaseUrls:
    """Ensure roles ``lore_owner``/``lore_app``, ``database`` owned by lore_owner, and pgvector in it.

    The returned ``superuser_dsn`` points at ``database`` (not at the maintenance database
    given as input).
    """
    owner_password = DEV_OWNER_PASSWORD if owner_password is None else owner_password
    app_password = DEV_APP_PASSWORD if app_password is None else app_password
    db = _quote_identifier(database)
    owner, app = _quote_identifier(OWNER_ROLE), _quote_identifier(APP_ROLE)

    async with _holding_prepare_lock(superuser_dsn) as connection:
        await _ensure_role(connection, OWNER_ROLE, owner_password, ROLE_ATTRIBUTES)
        await _ensure_role(connection, APP_ROLE, app_password, ROLE_ATTRIBUTES)
        if not await connection.fetchval("SELECT true FROM pg_database WHERE datname = $1", database):
            # CREATE DATABASE cannot run inside a transaction; asyncpg's execute() does not open one.
            await connection.execute(f"CREATE DATABASE {db} OWNER {owner} ENCODING 'UTF8' TEMPLATE template0")
        else:
            await connection.execute(f"ALTER DATABASE {db} OWNER TO {owner}")
        await connection.execute(f"GRANT CONNECT, TEMPORARY ON DATABASE {db} TO {app}")

    urls = DatabaseUrls(
        superuser_dsn=_retarget(superuser_dsn, database),
        owner_dsn=with_credentials(superuser_dsn, user=OWNER_ROLE, password=owner_password, database=database),
        app_dsn=with_credentials(superuser_dsn, user=APP_ROLE, password=app_password, database=database),
    )

    # Advisory locks are per database, so this one guards the new database's setup.
    async with _holding_prepare_lock(urls.superuser_dsn) as connection:
        # Extensions need a superuser (pgvector is not marked trusted); the schemas stay the owner's.
        await connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
        await connection.execute(f"ALTER SCHEMA public OWNER TO {owner}")
        # Only the owner creates objects; the app role reaches tables through explicit grants.
        await connection.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        # `lore erasure purge` (as the owner) ends with a checkpoint and a WAL switch, so the
        # erased rows leave the write-ahead log soon (docs/operations.md, "Erasure and purge").
        if await connection.fetchval("SELECT true FROM pg_roles WHERE rolname = 'pg_checkpoint'"):
            await connection.execute(f"GRANT pg_checkpoint TO {owner}")
        await connection.execute(f"GRANT EXECUTE ON FUNCTION pg_switch_wal() TO {owner}")
    return urls


def _retarget(dsn: str, database: str) -> str:
    """``dsn`` pointed at another database, with its user and password untouched."""
    parts = urlsplit(dsn)
    return urlunsplit((parts.scheme, parts.netloc, "/" + quote(database, safe=""), parts.query, parts.fragment))
