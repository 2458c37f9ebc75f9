"""Who a request acts as: the scopes Lore knows, the caller a credential resolves to, the bearer
token of an ``Authorization`` header, and the digest an API key is stored as.

The tenant is taken from the credential, never from the request.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from lore_runtime import errors
from lore_runtime.request_context import RequestContext

ALL_SCOPES = (
    "memories:read",
    "memories:write",
    "observations:read",
    "observations:write",
    "sessions:read",
    "sessions:write",
    "subjects:forget",  # erasure (api/http/routes/subjects.py)
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
    # The one user this credential may act for (a JWT's user claim, a pinned API key's user); "" for
    # an org-wide credential.
    user_id: str = ""

    def context(self, request_id: str) -> RequestContext:
        return RequestContext(org_id=self.org_id, principal=self.principal, request_id=request_id, user_id=self.user_id)

    def require(self, scope: str) -> None:
        # admin stands for every scope of its own org, not for the store-wide operator one.
        if scope not in self.scopes and ("admin" not in self.scopes or scope == OPERATOR):
            raise errors.PermissionDenied(
                f"this credential lacks the {scope} scope", reason="SCOPE_MISSING", metadata={"scope": scope}
            )


def digest(api_key: str) -> bytes:
    return hashlib.sha256(api_key.encode("utf-8")).digest()


def bearer_token(authorization: str | None) -> str:
    """The token of an ``Authorization: Bearer <token>`` header's value."""
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
