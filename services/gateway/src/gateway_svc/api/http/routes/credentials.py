"""What the caller's own credential is: ``GET /v1/whoami``.

A client (the memory browser, docs/browser.md) learns from it which scopes its key holds, and so
which actions to offer, and whether the key is pinned to one user, without trying each route and
reading 403s. It answers only about the credential that calls it: the org, principal, user and
scopes come from the credential, as on every route, and no other key can be named.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends

from gateway_svc.api.http.forwarding import declared_route, guard
from gateway_svc.api.openapi.schemas import named
from gateway_svc.domain.credentials import ALL_SCOPES, Caller

router = APIRouter()  # each route tagged as the route table says

_EXAMPLE = {"orgId": "acme", "principal": "tutor-app", "userId": "", "scopes": ["memories:read", "sessions:read"]}
_SCHEMA = {
    "type": "object",
    "title": "Whoami",
    "properties": {
        "orgId": {"type": "string", "description": "the organisation every request of this credential acts in"},
        "principal": {"type": "string", "description": "the key's principal, or the JWT's sub"},
        "userId": {"type": "string", "description": "the one user a pinned credential acts for; empty when org-wide"},
        "scopes": {
            "type": "array",
            "items": {"type": "string", "enum": list(ALL_SCOPES)},
            "description": "as granted; admin stands for every scope of the org except operator",
        },
    },
    "required": ["orgId", "principal", "userId", "scopes"],
    "additionalProperties": False,
}


@declared_route(
    router,
    "credentials.whoami",
    responses={200: {"content": {"application/json": {"schema": named("Whoami", _SCHEMA), "example": _EXAMPLE}}}},
    response_model=None,  # the schema is the named one above, not one FastAPI derives from the signature
)
async def whoami(caller: Caller = Depends(guard("credentials.whoami"))) -> dict[str, Any]:
    scopes = [scope for scope in ALL_SCOPES if scope in caller.scopes]
    return {"orgId": caller.org_id, "principal": caller.principal, "userId": caller.user_id, "scopes": scopes}
