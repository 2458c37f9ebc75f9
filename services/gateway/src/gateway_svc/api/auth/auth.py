"""Authentication: ``Authorization: Bearer <api key or JWT>`` → the caller's org, principal and scopes.

API keys are looked up in the gateway's store (``adapters/postgres_api_keys.py``, behind the
``ApiKeyVerifier`` port). A bearer token of three dot-separated parts is a JWT when JWT verification
is configured (``LORE_JWT_*``, see ``jwt_verifier.JwtVerifier``), else it is looked up as an API key
like any other.

The tenant is taken from the credential, never from the request.
"""

from __future__ import annotations

from collections.abc import Iterator

from fastapi import Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import iter_route_contexts
from lore_runtime import errors
from starlette.applications import Starlette
from starlette.routing import Match
from starlette.types import Scope

from gateway_svc.api.auth.jwt_verifier import JwtVerifier
from gateway_svc.domain.credentials import OPERATOR, Caller, bearer_token
from gateway_svc.usecases.ports import ApiKeyVerifier


class Authenticator:
    """A bearer token → its caller: a JWT when it has three dot-separated parts and JWT
    verification is configured, else an API key (a JWT-shaped token without JWT settings is
    looked up as an API key, and fails as one)."""

    def __init__(self, api_keys: ApiKeyVerifier, jwt_verifier: JwtVerifier | None = None) -> None:
        self.api_keys = api_keys
        self.jwt = jwt_verifier

    async def authenticate(self, authorization: str | None) -> Caller:
        token = bearer_token(authorization)
        if self.jwt is not None and token.count(".") == 2:
            return self.jwt.verify(token)
        return await self.api_keys.verify(token)


async def authenticated(request: Request) -> Caller:
    """FastAPI dependency: the authenticated caller of this request."""
    authenticator: Authenticator = request.app.state.container.authenticator
    caller = await authenticator.authenticate(request.headers.get("authorization"))
    request.state.caller = caller
    return caller


class Authorization:
    """FastAPI dependency of a route that needs ``scopes``: the authenticated caller, once ``check``
    passed and the request was counted against the credential's rate limit of the route's first
    scope. A ``whole_org`` route (and every ``admin`` one) acts on the organisation as a whole, so a
    credential pinned to one user (``user_pin``) may not use it.

    The Idempotency-Key middleware finds a route's ``Authorization`` (``guards_of``) and runs its
    ``check`` before it replays anything."""

    def __init__(self, scopes: tuple[str, ...], *, whole_org: bool) -> None:
        self.scopes = scopes
        self.whole_org = whole_org or bool({"admin", OPERATOR} & set(scopes))

    def check(self, caller: Caller) -> None:
        """PermissionDenied unless ``caller`` holds every scope and, on a whole-org route, is org-wide."""
        for needed in self.scopes:
            caller.require(needed)
        if self.whole_org and caller.user_id:
            raise errors.PermissionDenied(
                "this route acts on the whole organisation: a credential pinned to one user cannot use it",
                reason="USER_PINNED",
            )

    async def __call__(self, request: Request) -> Caller:
        caller = await authenticated(request)
        self.check(caller)
        try:
            await request.app.state.container.rate_limiter.admit(caller.credential or caller.principal, self.scopes[0])
        except errors.QuotaExceeded:
            request.app.state.metrics.rate_limited.labels(self.scopes[0]).inc()
            raise
        return caller


def authorized(scope: str, *more: str, org_wide: bool = False) -> Authorization:
    """The dependency of a route that needs ``scope`` (and ``more``); ``org_wide``: the route acts
    on the organisation as a whole (``Authorization``)."""
    return Authorization((scope, *more), whole_org=org_wide)


def guards_of(app: Starlette, scope: Scope) -> tuple[Authorization, ...] | None:
    """The ``Authorization`` dependencies of the route ``scope`` (an HTTP request) is for; ``None``
    when no route of ``app`` takes it or the route has none (it checks its caller itself, or not at
    all)."""
    for route in iter_route_contexts(app.routes):  # as the router tries them, included routers' too
        if route.matches(scope)[0] is Match.FULL:
            dependant = getattr(route, "dependant", None)
            found = tuple(_authorizations(dependant)) if isinstance(dependant, Dependant) else ()
            return found or None
    return None


def credentials_needed(app: Starlette) -> dict[tuple[str, str], tuple[str, ...]]:
    """(lower-case method, path) of every route that takes a credential -> the scopes it checks
    (none for one that only authenticates its caller): what the OpenAPI document's ``security`` says."""
    found: dict[tuple[str, str], tuple[str, ...]] = {}
    for route in iter_route_contexts(app.routes):
        dependant = getattr(route, "dependant", None)
        if not isinstance(dependant, Dependant) or not _authenticates(dependant):
            continue
        scopes = tuple(dict.fromkeys(scope for guard in _authorizations(dependant) for scope in guard.scopes))
        found.update({(method.lower(), route.path): scopes for method in route.methods or ()})
    return found


def _authenticates(dependant: Dependant) -> bool:
    return any(
        dependency.call is authenticated or isinstance(dependency.call, Authorization) or _authenticates(dependency)
        for dependency in dependant.dependencies
    )


def _authorizations(dependant: Dependant) -> Iterator[Authorization]:
    for dependency in dependant.dependencies:
        if isinstance(dependency.call, Authorization):
            yield dependency.call
        yield from _authorizations(dependency)
