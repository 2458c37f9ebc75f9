"""API keys resolved for requests: ``Authorization: Bearer <api key>`` → its caller.

API keys are random secrets stored only as SHA-256 digests in ``gateway.api_keys``. The
service role cannot read that table across tenants (row-level security); it resolves a
digest through ``gateway.resolve_api_key``, a SECURITY DEFINER function that returns at
most one live key, with the user it is pinned to if any (``lore keys create --user``). A plain
digest is the right tool here: keys are long random strings, not passwords, so a slow hash would
add latency without adding safety. Resolutions are cached for a few seconds
(``LORE_API_KEY_CACHE_SECONDS``, at most 10) so a burst of requests costs one query; a revoked key
stops working within that window. ``last_used_at`` is written at
most once a minute per key, never once per request.

Postgres down: the lookup raises ``DependencyUnavailable`` (reason ``POSTGRES_UNAVAILABLE``), a 503
with ``Retry-After``; a key resolved within the cache window still works meanwhile. Nothing is cached
from a failed lookup, so the key works again as soon as Postgres answers.
"""

from __future__ import annotations

import logging
import time

import asyncpg
from lore_runtime import errors
from lore_runtime.stores import POSTGRES_UNAVAILABLE, postgres_calls, tenant_transaction

from gateway_svc.domain.credentials import Caller, bearer_token, digest

log = logging.getLogger(__name__)


class ApiKeyAuthenticator:
    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        cache_seconds: float = 10.0,
        cache_size: int = 10_000,
        touch_interval_seconds: float = 60.0,
    ) -> None:
        self._pool = pool
        self._cache_seconds = cache_seconds
        self._cache_size = cache_size
        self._cache: dict[bytes, tuple[float, Caller | None]] = {}
        self._touch_interval = touch_interval_seconds
        self._touched: dict[str, float] = {}  # key id -> when this process last wrote last_used_at

    async def authenticate(self, authorization: str | None) -> Caller:
        return await self.verify(bearer_token(authorization))

    async def verify(self, token: str) -> Caller:
        key = digest(token)
        now = time.monotonic()
        cached = self._cache.get(key)
        if cached is not None and cached[0] > now:
            caller = cached[1]
        else:
            caller = await self._resolve(key)
            if len(self._cache) >= self._cache_size:
                self._cache.clear()
            self._cache[key] = (now + self._cache_seconds, caller)
        if caller is None:
            raise errors.Unauthenticated("the API key is not valid", reason="INVALID_API_KEY")
        last = self._touched.get(caller.credential)
        if last is None or now - last >= self._touch_interval:
            if len(self._touched) >= self._cache_size:
                self._touched.clear()
            self._touched[caller.credential] = now
            await self._touch(caller)
        return caller

    async def _touch(self, caller: Caller) -> None:
        """Record the key's use: at most one write a minute per key, also across replicas."""
        try:
            async with tenant_transaction(self._pool, caller.org_id) as connection:
                await connection.execute(
                    """
                    UPDATE gateway.api_keys SET last_used_at = now()
                    WHERE id = $1 AND org_id = $2
                      AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
                    """,
                    caller.credential,
                    caller.org_id,
                )
        except (asyncpg.PostgresError, errors.DependencyUnavailable, *POSTGRES_UNAVAILABLE) as error:
            # Bookkeeping only: the request itself was authenticated.
            log.warning("could not record the use of API key %s: %s", caller.credential, error)

    async def _resolve(self, key: bytes) -> Caller | None:
        async with postgres_calls():
            row = await self._pool.fetchrow(
                "SELECT id, org_id, principal, scopes, user_id FROM gateway.resolve_api_key($1)", key
            )
        if row is None:
            return None
        return Caller(
            org_id=row["org_id"],
            principal=row["principal"],
            scopes=frozenset(row["scopes"]),
            credential=str(row["id"]),
            user_id=row["user_id"],  # a key pinned to one user acts as a pinned JWT does (api/user_pin.py)
        )
