"""API keys resolved for requests: ``Authorization: Bearer <api key>`` → its caller.

API keys are random secrets stored only as SHA-256 digests in ``gateway.api_keys``. The
service role cannot read that table across tenants (row-level security); it resolves a
digest through ``gateway.resolve_api_key``, a SECURITY DEFINER function that returns at
most one live key, with the user it is pinned to if any (``lore keys create --user``). A plain
digest is the right tool here: keys are long random strings, not passwords, so a slow hash would
add latency without adding safety. Resolutions are cached for a few seconds
(``LORE_API_KEY_CACHE_SECONDS``, at most 10) so a burst of requests costs one query; a revoked key
stops working within that window. ``last_used_at`` is written at
most once a minute per key, never once per request. Both are ``cachetools.TTLCache``s timed by the
injected ``Clock`` (tests advance a fake one): an entry lapses at its age, and a full cache drops
the lapsed and then the oldest entries, not everything at once.

Postgres down: the lookup raises ``DependencyUnavailable`` (reason ``POSTGRES_UNAVAILABLE``), a 503
with ``Retry-After``; a key resolved within the cache window still works meanwhile. Nothing is cached
from a failed lookup, so the key works again as soon as Postgres answers.
"""

from __future__ import annotations

import logging
from typing import cast

import asyncpg
from cachetools import TTLCache
from lore_runtime import errors
from lore_runtime.clock import Clock, SystemClock, seconds_of
from lore_runtime.stores import POSTGRES_UNAVAILABLE, postgres_calls, tenant_transaction

from gateway_svc.domain.credentials import Caller, bearer_token, digest

log = logging.getLogger(__name__)

_UNCACHED = object()  # a cached ``None`` is an answer: the key is not valid


class ApiKeyAuthenticator:
    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        clock: Clock | None = None,
        cache_seconds: float = 10.0,
        cache_size: int = 10_000,
        touch_interval_seconds: float = 60.0,
    ) -> None:
        self._pool = pool
        timer = seconds_of(clock or SystemClock())
        self._cache: TTLCache[bytes, Caller | None] = TTLCache(cache_size, ttl=cache_seconds, timer=timer)
        # Key ids whose last_used_at this process wrote within the touch interval.
        self._touched: TTLCache[str, bool] = TTLCache(cache_size, ttl=touch_interval_seconds, timer=timer)

    async def authenticate(self, authorization: str | None) -> Caller:
        return await self.verify(bearer_token(authorization))

    async def verify(self, token: str) -> Caller:
        key = digest(token)
        cached = self._cache.get(key, _UNCACHED)
        if cached is _UNCACHED:
            caller = self._cache[key] = await self._resolve(key)
        else:
            caller = cast("Caller | None", cached)
        if caller is None:
            raise errors.Unauthenticated("the API key is not valid", reason="INVALID_API_KEY")
        if caller.credential not in self._touched:
            self._touched[caller.credential] = True
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
            user_id=row["user_id"],  # a key pinned to one user acts as a pinned JWT does (api/auth/user_pin.py)
        )
