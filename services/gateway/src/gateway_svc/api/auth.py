"""Authentication: ``Authorization: Bearer <api key or JWT>`` → the caller's org, principal and scopes.

API keys are looked up in the gateway's store (``adapters/postgres_api_keys.py``, behind the
``ApiKeyVerifier`` port). A bearer token of three dot-separated parts is a JWT when JWT verification
is configured (``LORE_JWT_*``, see ``jwt_verifier.JwtVerifier``), else it is looked up as an API key
like any other.

The tenant is taken from the credential, never from the request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import Request
from lore_runtime import errors

from gateway_svc.api.jwt_verifier import JwtVerifier
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
