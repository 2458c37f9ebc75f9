"""Authentication: ``Authorization: Bearer <api key>`` → the caller's org, principal and scopes.

API keys are random secrets stored only as SHA-256 digests in ``gateway.api_keys``. The
service role cannot read that table across tenants (row-level security); it resolves a
digest through ``gateway.resolve_api_key``, a SECURITY DEFINER function that returns at
most one live key. A plain digest is the right tool here: keys are long random strings,
not passwords, so a slow hash would add latency without adding safety. Resolutions are
cached for a few seconds so a burst of requests costs one query; a revoked key stops
working within that window.

The tenant is taken from the key, never from the request.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import asyncpg
from fastapi import Request
from lore_runtime import errors
from lore_runtime.request_context import RequestContext

ALL_SCOPES = (
    "memories:read",
    "memories:write",
    "observations:read",
    "observations:write",
    "sessions:read",
    "sessions:write",
    "subjects:forget",  # erasure (routes/subjects.py)
    "admin",
)


@dataclass(frozen=True, slots=True)
class Caller:
    org_id: str
    principal: str
    scopes: frozenset[str]
    credential: str = ""  # the API key's id: what rate limits count against

    def context(self, request_id: str) -> RequestContext:
        return RequestContext(org_id=self.org_id, principal=self.principal, request_id=request_id)

    def require(self, scope: str) -> None:
        if scope not in self.scopes and "admin" not in self.scopes:
            raise errors.PermissionDenied(
                f"this credential lacks the {scope} scope", reason="SCOPE_MISSING", metadata={"scope": scope}
            )


def digest(api_key: str) -> bytes:
    return hashlib.sha256(api_key.encode("utf-8")).digest()


class ApiKeyAuthenticator:
    def __init__(self, pool: asyncpg.Pool, *, cache_seconds: float = 10.0, cache_size: int = 10_000) -> None:
        self._pool = pool
        self._cache_seconds = cache_seconds
        self._cache_size = cache_size
        self._cache: dict[bytes, tuple[float, Caller | None]] = {}

    async def authenticate(self, authorization: str | None) -> Caller:
        token = _bearer_token(authorization)
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
        return caller

    async def _resolve(self, key: bytes) -> Caller | None:
        row = await self._pool.fetchrow("SELECT id, org_id, principal, scopes FROM gateway.resolve_api_key($1)", key)
        if row is None:
            return None
        return Caller(
            org_id=row["org_id"], principal=row["principal"], scopes=frozenset(row["scopes"]), credential=str(row["id"])
        )


def _bearer_token(authorization: str | None) -> str:
    if not authorization:
        raise errors.Unauthenticated(
            "missing Authorization header: send 'Bearer <api key>'", reason="MISSING_CREDENTIAL"
        )
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise errors.Unauthenticated(
            "the Authorization header must be 'Bearer <api key>'", reason="MALFORMED_CREDENTIAL"
        )
    if len(token) > 4096:
        raise errors.Unauthenticated("the credential is too long", reason="MALFORMED_CREDENTIAL")
    return token


async def authenticated(request: Request) -> Caller:
    """FastAPI dependency: the authenticated caller of this request."""
    authenticator: ApiKeyAuthenticator = request.app.state.container.authenticator
    caller = await authenticator.authenticate(request.headers.get("authorization"))
    request.state.caller = caller
    return caller


def authorized(scope: str, *more: str) -> Callable[[Request], Awaitable[Caller]]:
    """FastAPI dependency of a route that needs ``scope`` (and ``more``): the authenticated caller,
    once the scopes are checked and the request counted against the credential's rate limit of
    ``scope``, the route's first."""

    async def dependency(request: Request) -> Caller:
        caller = await authenticated(request)
        for needed in (scope, *more):
            caller.require(needed)
        await request.app.state.container.rate_limiter.admit(caller.credential or caller.principal, scope)
        return caller

    return dependency
