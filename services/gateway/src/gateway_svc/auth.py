"""Authentication: ``Authorization: Bearer <api key or JWT>`` → the caller's org, principal and scopes.

API keys are random secrets stored only as SHA-256 digests in ``gateway.api_keys``. The
service role cannot read that table across tenants (row-level security); it resolves a
digest through ``gateway.resolve_api_key``, a SECURITY DEFINER function that returns at
most one live key. A plain digest is the right tool here: keys are long random strings,
not passwords, so a slow hash would add latency without adding safety. Resolutions are
cached for a few seconds (``LORE_API_KEY_CACHE_SECONDS``, at most 10) so a burst of requests
costs one query; a revoked key stops working within that window. ``last_used_at`` is written at
most once a minute per key, never once per request.

A bearer token of three dot-separated parts is a JWT when JWT verification is configured
(``LORE_JWT_*``, see ``JwtVerifier``), else it is looked up as an API key like any other.

The tenant is taken from the credential, never from the request.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
from fastapi import Request
from lore_runtime import errors
from lore_runtime.request_context import RequestContext
from lore_runtime.stores import POSTGRES_UNAVAILABLE, tenant_transaction

log = logging.getLogger(__name__)

ALL_SCOPES = (
    "memories:read",
    "memories:write",
    "observations:read",
    "observations:write",
    "sessions:read",
    "sessions:write",
    "subjects:forget",  # erasure (routes/subjects.py)
    "admin",
    "operator",  # store-wide operations (reindex): not implied by admin, never from a JWT
)
# Acts beyond the caller's org: only keys made by whoever holds the database owner role
# (`lore keys create --scope operator`, `lore up`'s dev key) carry it.
OPERATOR = "operator"
# What gateway.api_keys accepts as an org id (its CHECK): a JWT's org claim must match it too.
ORG_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$")
# What the services accept as a user id in a Scope (memory_svc.api.memory_convert.scope_from_pb).
MAX_USER_ID_LENGTH = 128
MAX_PRINCIPAL_LENGTH = 128


@dataclass(frozen=True, slots=True)
class Caller:
    org_id: str
    principal: str
    scopes: frozenset[str]
    credential: str = ""  # the API key's id, or jwt:<sub>: what rate limits count against
    # The one user this credential may act for (a JWT's user claim); "" for an org-wide credential.
    user_id: str = ""

    def context(self, request_id: str) -> RequestContext:
        return RequestContext(org_id=self.org_id, principal=self.principal, request_id=request_id)

    def require(self, scope: str) -> None:
        # admin stands for every scope of its own org, not for the store-wide operator one.
        if scope not in self.scopes and ("admin" not in self.scopes or scope == OPERATOR):
            raise errors.PermissionDenied(
                f"this credential lacks the {scope} scope", reason="SCOPE_MISSING", metadata={"scope": scope}
            )


def digest(api_key: str) -> bytes:
    return hashlib.sha256(api_key.encode("utf-8")).digest()


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
        return await self.verify(_bearer_token(authorization))

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
        row = await self._pool.fetchrow("SELECT id, org_id, principal, scopes FROM gateway.resolve_api_key($1)", key)
        if row is None:
            return None
        return Caller(
            org_id=row["org_id"], principal=row["principal"], scopes=frozenset(row["scopes"]), credential=str(row["id"])
        )


JWT_ALGORITHMS = ("HS256", "RS256")
_PEM_PUBLIC_KEY = re.compile(r"-----BEGIN ((?:RSA )?)PUBLIC KEY-----.+?-----END \1PUBLIC KEY-----", re.DOTALL)


def rs256_public_keys(pem: str) -> list[RSAPublicKey]:
    """Every RSA public key in ``pem`` (``PUBLIC KEY`` or ``RSA PUBLIC KEY`` blocks, 2048 bits or more)."""
    blocks = [match.group(0) for match in _PEM_PUBLIC_KEY.finditer(pem)]
    if not blocks:
        raise ValueError("no PEM public key found (expected -----BEGIN PUBLIC KEY----- blocks)")
    keys = []
    for number, block in enumerate(blocks, start=1):
        try:
            key = serialization.load_pem_public_key(block.encode("ascii"))
        except (ValueError, UnicodeEncodeError):
            raise ValueError(f"public key {number} is not a valid PEM public key") from None
        if not isinstance(key, RSAPublicKey):
            raise ValueError(f"public key {number} is not an RSA key (RS256 needs one)")
        if key.key_size < 2048:
            raise ValueError(f"public key {number} has {key.key_size} bits; RS256 keys need at least 2048")
        keys.append(key)
    return keys


class JwtVerifier:
    """Bearer JWTs signed with the configured HS256 secret or one of the configured RS256 public keys.

    The token's ``alg`` header only chooses among the configured algorithms: ``none``, any other
    algorithm and any algorithm without a configured key are refused before anything else is
    read. ``exp`` and ``sub`` are required, ``aud`` must name the configured audience and ``iss``
    the configured issuer (when one is set), with ``leeway_seconds`` of clock skew. The caller's
    org is the ``org_claim`` claim, its principal ``sub``, its scopes those of ``scope`` (a
    space-separated string) and ``scopes`` (a list) that Lore knows; unknown scopes are ignored.
    A token carrying the ``user_claim`` claim is pinned to that user (``gateway_svc.user_pin``).
    """

    def __init__(
        self,
        *,
        audience: str,
        hs256_secret: str | None = None,
        rs256_keys: Sequence[RSAPublicKey] = (),
        issuer: str | None = None,
        org_claim: str = "org_id",
        user_claim: str = "user_id",
        leeway_seconds: float = 30.0,
    ) -> None:
        self._keys: dict[str, list[Any]] = {}
        if hs256_secret:
            self._keys["HS256"] = [hs256_secret.encode("utf-8")]
        if rs256_keys:
            self._keys["RS256"] = list(rs256_keys)
        if not self._keys:
            raise ValueError("JWT verification needs an HS256 secret or RS256 public keys")
        if not audience:
            raise ValueError("JWT verification needs an audience")
        self._audience = audience
        self._issuer = issuer or None
        self._org_claim = org_claim
        self._user_claim = user_claim
        self._leeway = leeway_seconds
        self._required = ["exp", "sub", *(["iss"] if self._issuer else [])]

    def verify(self, token: str) -> Caller:
        try:
            algorithm = jwt.get_unverified_header(token).get("alg")
        except jwt.PyJWTError:
            raise _token_error("the bearer token is not a well-formed JWT") from None
        keys = self._keys.get(algorithm) if isinstance(algorithm, str) else None
        if not keys:
            accepted = ", ".join(self._keys)
            raise _token_error(f"tokens signed with {algorithm!r} are not accepted (accepted: {accepted})")
        return self._caller(self._decode(token, algorithm, keys))

    def _decode(self, token: str, algorithm: str, keys: list[Any]) -> dict[str, Any]:
        for index, key in enumerate(keys):
            try:
                return jwt.decode(
                    token,
                    key,
                    algorithms=[algorithm],
                    audience=self._audience,
                    issuer=self._issuer,
                    leeway=self._leeway,
                    options={"require": self._required},
                )
            except jwt.InvalidSignatureError:
                if index == len(keys) - 1:
                    raise _token_error("the token's signature does not verify") from None
            except jwt.ExpiredSignatureError:
                raise _token_error("the token has expired", reason="TOKEN_EXPIRED") from None
            except jwt.InvalidAudienceError:
                raise _token_error("the token is meant for another audience", reason="WRONG_AUDIENCE") from None
            except jwt.MissingRequiredClaimError as error:
                raise _missing_claim(error.claim) from None
            except jwt.InvalidIssuerError:
                raise _token_error("the token's issuer is not accepted", claim="iss") from None
            except jwt.PyJWTError as error:
                raise _token_error(f"the token is not valid: {error}") from None
        raise AssertionError("unreachable: the last key either verifies or raises")

    def _caller(self, claims: dict[str, Any]) -> Caller:
        subject = claims["sub"]  # required, and a string (PyJWT checks both)
        if not subject:
            raise _missing_claim("sub")
        if len(subject) > MAX_PRINCIPAL_LENGTH:
            raise _token_error(f"the sub claim is longer than {MAX_PRINCIPAL_LENGTH} characters", claim="sub")
        org_id = claims.get(self._org_claim)
        if org_id is None or org_id == "":
            raise _missing_claim(self._org_claim)
        if not isinstance(org_id, str) or not ORG_ID.match(org_id):
            raise _token_error(f"the {self._org_claim} claim is not a valid org id", claim=self._org_claim)
        return Caller(
            org_id=org_id,
            principal=subject,
            scopes=_token_scopes(claims),
            credential=f"jwt:{subject}",
            user_id=self._pinned_user(claims),
        )

    def _pinned_user(self, claims: dict[str, Any]) -> str:
        user_id = claims.get(self._user_claim)
        if user_id is None:
            return ""
        if (
            not isinstance(user_id, str)
            or not user_id
            or len(user_id) > MAX_USER_ID_LENGTH
            or user_id != user_id.strip()
        ):
            raise _token_error(f"the {self._user_claim} claim is not a valid user id", claim=self._user_claim)
        return user_id


def _token_scopes(claims: dict[str, Any]) -> frozenset[str]:
    names: list[str] = []
    scope = claims.get("scope")
    if isinstance(scope, str):
        names.extend(scope.split())
    elif scope is not None:
        raise _token_error("the scope claim must be a space-separated string", claim="scope")
    scopes = claims.get("scopes")
    if isinstance(scopes, list) and all(isinstance(name, str) for name in scopes):
        names.extend(scopes)
    elif scopes is not None:
        raise _token_error("the scopes claim must be a list of strings", claim="scopes")
    # An identity provider shared by tenants must not mint store-wide power: operator is for API keys only.
    return frozenset(names).intersection(ALL_SCOPES) - {OPERATOR}


def _token_error(message: str, *, reason: str = "INVALID_TOKEN", claim: str = "") -> errors.Unauthenticated:
    return errors.Unauthenticated(message, reason=reason, metadata={"claim": claim} if claim else None)


def _missing_claim(claim: str) -> errors.Unauthenticated:
    return _token_error(f"the token has no {claim} claim", reason="MISSING_CLAIM", claim=claim)


class Authenticator:
    """A bearer token → its caller: a JWT when it has three dot-separated parts and JWT
    verification is configured, else an API key (a JWT-shaped token without JWT settings is
    looked up as an API key, and fails as one)."""

    def __init__(self, api_keys: ApiKeyAuthenticator, jwt_verifier: JwtVerifier | None = None) -> None:
        self.api_keys = api_keys
        self.jwt = jwt_verifier

    async def authenticate(self, authorization: str | None) -> Caller:
        token = _bearer_token(authorization)
        if self.jwt is not None and token.count(".") == 2:
            return self.jwt.verify(token)
        return await self.api_keys.verify(token)


def _bearer_token(authorization: str | None) -> str:
    if not authorization:
        raise errors.Unauthenticated(
            "missing Authorization header: send 'Bearer <api key or JWT>'", reason="MISSING_CREDENTIAL"
        )
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise errors.Unauthenticated(
            "the Authorization header must be 'Bearer <api key or JWT>'", reason="MALFORMED_CREDENTIAL"
        )
    if len(token) > 4096:
        raise errors.Unauthenticated("the credential is too long", reason="MALFORMED_CREDENTIAL")
    return token


async def authenticated(request: Request) -> Caller:
    """FastAPI dependency: the authenticated caller of this request."""
    authenticator: Authenticator = request.app.state.container.authenticator
    caller = await authenticator.authenticate(request.headers.get("authorization"))
    request.state.caller = caller
    return caller


def authorized(scope: str, *more: str, org_wide: bool = False) -> Callable[[Request], Awaitable[Caller]]:
    """FastAPI dependency of a route that needs ``scope`` (and ``more``): the authenticated caller,
    once the scopes are checked and the request counted against the credential's rate limit of
    ``scope``, the route's first. An ``org_wide`` route (and every ``admin`` one) acts on the
    organisation as a whole, so a credential pinned to one user (``user_pin``) may not use it."""
    whole_org = org_wide or bool({"admin", OPERATOR} & {scope, *more})

    async def dependency(request: Request) -> Caller:
        caller = await authenticated(request)
        for needed in (scope, *more):
            caller.require(needed)
        if whole_org and caller.user_id:
            raise errors.PermissionDenied(
                "this route acts on the whole organisation: a credential pinned to one user cannot use it",
                reason="USER_PINNED",
            )
        try:
            await request.app.state.container.rate_limiter.admit(caller.credential or caller.principal, scope)
        except errors.QuotaExceeded:
            request.app.state.metrics.rate_limited.labels(scope).inc()
            raise
        return caller

    return dependency
