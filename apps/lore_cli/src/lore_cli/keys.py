"""``lore keys create|list|revoke``: an org's API keys, administered as the schema owner.

Like ``lore migrate``, it connects as ``LORE_MIGRATIONS_DATABASE_URL``, else
``LORE_DATABASE_URL``; with neither, as the owner of the local stack's embedded Postgres
under ``LORE_DATA_DIR``. ``create`` prints the new key alone on stdout, once (it is stored only
as a digest), and what it made on stderr, so ``KEY=$(lore keys create …)`` works. ``list``
never shows a key, only what is kept about it. A revoked key stops working within the
gateways' key cache (``LORE_API_KEY_CACHE_SECONDS``, at most 10 s). ``create --user U`` makes a key
that acts for user U only, as a JWT carrying the user claim does (gateway_svc/api/auth/user_pin.py): the
key to hand an agent or an MCP server that serves one person.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import asyncpg
from gateway_svc.adapters.postgres_key_admin import ApiKey, KeyAdminError, create_api_key, list_api_keys, revoke_api_key

from lore_cli.backends import DevStackMissing

COLUMNS = ("ID", "NAME", "PRINCIPAL", "USER", "SCOPES", "CREATED", "LAST USED", "REVOKED")
# What ends a command with a message rather than a traceback: bad input, an unreachable or refusing database,
# no database configured where the embedded one is not installed.
FAILURES = (KeyAdminError, asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError, DevStackMissing)


@asynccontextmanager
async def owner_database_url(environ: Mapping[str, str]) -> AsyncIterator[str]:
    configured = environ.get("LORE_MIGRATIONS_DATABASE_URL") or environ.get("LORE_DATABASE_URL")
    if configured:
        yield configured
        return
    from lore_cli.backends import start_backends

    data_dir = Path(environ.get("LORE_DATA_DIR") or ".lore").resolve()
    async with AsyncExitStack() as stack:
        backends = await start_backends(environ, data_dir, stack, with_redis=False)
        yield backends.owner_database_url


async def create(
    environ: Mapping[str, str],
    *,
    org: str,
    principal: str,
    scopes: Sequence[str],
    name: str,
    user: str | None = None,
) -> int:
    try:
        async with owner_database_url(environ) as dsn:
            key, plaintext = await create_api_key(
                dsn, org_id=org, principal=principal, scopes=scopes, name=name, user_id=user
            )
    except FAILURES as error:
        return _failed("create", error)
    scope_list = ", ".join(key.scopes) or "none"
    pinned = f", acting only for user {key.user_id}" if key.user_id else ""
    print(
        f"lore keys create: key {key.id} for {key.principal} in org {key.org_id} (scopes: {scope_list}){pinned};"
        " it is shown once, keep it now",
        file=sys.stderr,
    )
    print(plaintext)
    return 0


async def list_keys(environ: Mapping[str, str], *, org: str) -> int:
    try:
        async with owner_database_url(environ) as dsn:
            keys = await list_api_keys(dsn, org)
    except FAILURES as error:
        return _failed("list", error)
    print(format_table(keys))
    return 0


async def revoke(environ: Mapping[str, str], key_id: str, *, org: str) -> int:
    try:
        parsed = uuid.UUID(key_id)
    except ValueError:
        return _failed("revoke", f"{key_id!r} is not a key id (a UUID, as `lore keys list` shows)")
    try:
        async with owner_database_url(environ) as dsn:
            key = await revoke_api_key(dsn, org, parsed)
    except FAILURES as error:
        return _failed("revoke", error)
    if key is None:
        return _failed("revoke", f"org {org} has no key {parsed}")
    print(f"lore keys revoke: key {key.id} revoked at {_time(key.revoked_at)}", file=sys.stderr)
    return 0


def format_table(keys: Sequence[ApiKey]) -> str:
    rows = [COLUMNS] + [
        (
            str(key.id),
            key.name or "-",
            key.principal,
            key.user_id or "-",
            ",".join(key.scopes) or "-",
            _time(key.created_at),
            _time(key.last_used_at),
            _time(key.revoked_at),
        )
        for key in keys
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(COLUMNS))]
    lines = ("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows)
    return "\n".join(line.rstrip() for line in lines)


def _time(value: datetime | None) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if value is not None else "-"


def _failed(command: str, error: object) -> int:
    print(f"lore keys {command}: {error}", file=sys.stderr)
    return 1
