"""API key administration, done as the schema owner (``lore up`` and ``lore keys``).

Keys are stored only as SHA-256 digests (see ``auth``); the plaintext is shown once by
whoever created it: ``lore_`` and 32 random bytes (256 bits), URL-safe base64. The
development key of the local stack is the one key whose plaintext Lore itself keeps (in
``LORE_DATA_DIR/dev-api-key``, mode 0600).
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime

import asyncpg

from gateway_svc.domain.credentials import (
    ALL_SCOPES,
    MAX_PRINCIPAL_LENGTH,
    MAX_USER_ID_LENGTH,
    OPERATOR,
    ORG_ID,
    digest,
)

DEV_ORG = "dev"
DEV_PRINCIPAL = "dev"
DEV_KEY_NAME = "development"
KEY_PREFIX = "lore_"


class KeyAdminError(ValueError):
    """A key cannot be created or changed as asked; the message says why."""


@dataclass(frozen=True, slots=True)
class ApiKey:
    """What is kept about a key: everything but the key itself."""

    id: uuid.UUID
    org_id: str
    principal: str
    user_id: str  # the one user the key acts for (gateway_svc.api.auth.user_pin); "": org-wide
    name: str
    scopes: tuple[str, ...]
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


# The columns read are the fields of ApiKey, named alike.
_COLUMNS = ", ".join(field.name for field in fields(ApiKey))


def _api_key(row: asyncpg.Record) -> ApiKey:
    return ApiKey(**{**dict(row.items()), "scopes": tuple(row["scopes"])})


def new_api_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def _check_org(org_id: str) -> None:
    if not ORG_ID.fullmatch(org_id):
        raise KeyAdminError(f"{org_id!r} is not an org id (letters, digits and ._:@/-, at most 128)")


def _check_user(user_id: str, scopes: Sequence[str]) -> None:
    """A pinned key's user follows a Scope's userId rule; store-wide work is never one user's."""
    if not 1 <= len(user_id) <= MAX_USER_ID_LENGTH or user_id != user_id.strip():
        raise KeyAdminError(
            f"{user_id!r} is not a user id (1 to {MAX_USER_ID_LENGTH} characters, no white space at either end)"
        )
    if OPERATOR in scopes:
        raise KeyAdminError(f"a key pinned to a user cannot hold the {OPERATOR} scope: it acts on the whole store")


async def create_api_key(
    owner_dsn: str,
    *,
    org_id: str,
    principal: str,
    scopes: Sequence[str],
    name: str = "",
    user_id: str | None = None,
) -> tuple[ApiKey, str]:
    """A new key of ``org_id`` for ``principal``: what is stored, and the plaintext (shown once).
    With ``user_id``, the key acts for that user only, as a JWT carrying the user claim does."""
    _check_org(org_id)
    if not 1 <= len(principal) <= MAX_PRINCIPAL_LENGTH:
        raise KeyAdminError(f"a principal has 1 to {MAX_PRINCIPAL_LENGTH} characters")
    unknown = sorted(set(scopes) - set(ALL_SCOPES))
    if unknown:
        raise KeyAdminError(f"unknown scopes {', '.join(unknown)} (known: {', '.join(ALL_SCOPES)})")
    if user_id is not None:
        _check_user(user_id, scopes)
    plaintext = new_api_key()
    connection = await asyncpg.connect(owner_dsn)
    try:
        row = await connection.fetchrow(
            f"""
            INSERT INTO gateway.api_keys (id, org_id, principal, name, key_hash, scopes, user_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            RETURNING {_COLUMNS}
            """,
            uuid.uuid4(),
            org_id,
            principal,
            name,
            digest(plaintext),
            sorted(set(scopes), key=ALL_SCOPES.index),
            user_id or "",
        )
    finally:
        await connection.close()
    return _api_key(row), plaintext


async def list_api_keys(owner_dsn: str, org_id: str) -> list[ApiKey]:
    """Every key of ``org_id``, revoked ones included, newest first."""
    _check_org(org_id)
    connection = await asyncpg.connect(owner_dsn)
    try:
        rows = await connection.fetch(
            f"SELECT {_COLUMNS} FROM gateway.api_keys WHERE org_id = $1 ORDER BY created_at DESC, id", org_id
        )
    finally:
        await connection.close()
    return [_api_key(row) for row in rows]


async def revoke_api_key(owner_dsn: str, org_id: str, key_id: uuid.UUID) -> ApiKey | None:
    """Revoke a key of ``org_id`` (idempotent: a revoked key keeps its first revocation time);
    None when ``org_id`` has no such key. Gateways stop accepting it within their key cache's
    lifetime (``LORE_API_KEY_CACHE_SECONDS``, at most 10 s)."""
    _check_org(org_id)
    connection = await asyncpg.connect(owner_dsn)
    try:
        row = await connection.fetchrow(
            f"""
            UPDATE gateway.api_keys SET revoked_at = coalesce(revoked_at, now())
            WHERE id = $1 AND org_id = $2
            RETURNING {_COLUMNS}
            """,
            key_id,
            org_id,
        )
    finally:
        await connection.close()
    return _api_key(row) if row is not None else None


async def ensure_development_key(owner_dsn: str, api_key: str) -> None:
    """Make ``api_key`` the one live development key of org ``dev``, with every scope.

    Idempotent; a development key that was replaced (``LORE_DEV_API_KEY`` changed) is revoked.
    """
    key_hash = digest(api_key)
    connection = await asyncpg.connect(owner_dsn)
    try:
        async with connection.transaction():
            await connection.execute(
                """
                INSERT INTO gateway.api_keys (id, org_id, principal, name, key_hash, scopes)
                VALUES ($1, $2, $3, $4, $5, $6)
                ON CONFLICT (key_hash) DO UPDATE SET revoked_at = NULL, scopes = EXCLUDED.scopes
                """,
                uuid.uuid4(),
                DEV_ORG,
                DEV_PRINCIPAL,
                DEV_KEY_NAME,
                key_hash,
                list(ALL_SCOPES),
            )
            await connection.execute(
                """
                UPDATE gateway.api_keys SET revoked_at = now()
                WHERE org_id = $1 AND name = $2 AND key_hash <> $3 AND revoked_at IS NULL
                """,
                DEV_ORG,
                DEV_KEY_NAME,
                key_hash,
            )
    finally:
        await connection.close()
