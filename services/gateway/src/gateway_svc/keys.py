"""API key administration, done as the schema owner (``lore up``, and ``lore keys`` later).

Keys are stored only as SHA-256 digests (see ``auth``); the plaintext is shown once by
whoever created it. The development key of the local stack is the one key whose
plaintext Lore itself keeps (in ``LORE_DATA_DIR/dev-api-key``, mode 0600).
"""

from __future__ import annotations

import uuid

import asyncpg

from gateway_svc.auth import ALL_SCOPES, digest

DEV_ORG = "dev"
DEV_PRINCIPAL = "dev"
DEV_KEY_NAME = "development"


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
