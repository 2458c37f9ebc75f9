"""Who is calling: the tenant and principal of the current request, and the one user the
credential acts for when it is pinned to one.

The gateway derives them from the credential and sends them to internal services in
gRPC metadata; a server interceptor reads them into a context variable that use cases
read, and client interceptors forward them on every onward call. A request body never
chooses its tenant, and the metadata counts only from a caller holding the service
credential (lore_runtime/service_auth.py, checked before it is read).
"""

from __future__ import annotations

import contextvars
import re
import urllib.parse
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from lore_runtime import errors

ORG_ID_KEY = "x-lore-org-id"
PRINCIPAL_KEY = "x-lore-principal"
REQUEST_ID_KEY = "x-request-id"
# The user a pinned credential acts for (absent for an org-wide one), percent-encoded: metadata
# values are ASCII and a user id need not be.
USER_KEY = "x-lore-user"
MAX_USER_CHARS = 128

# Identifiers we accept in metadata: printable, bounded, no separators that could be
# smuggled into keys or log lines.
_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$")


@dataclass(frozen=True, slots=True)
class RequestContext:
    org_id: str
    principal: str
    request_id: str = ""
    # The one user the credential acts for; "" for an org-wide credential.
    user_id: str = ""

    def metadata(self) -> tuple[tuple[str, str], ...]:
        pairs = [(ORG_ID_KEY, self.org_id), (PRINCIPAL_KEY, self.principal)]
        if self.request_id:
            pairs.append((REQUEST_ID_KEY, self.request_id))
        if self.user_id:
            pairs.append((USER_KEY, urllib.parse.quote(self.user_id, safe="")))
        return tuple(pairs)


_current: contextvars.ContextVar[RequestContext | None] = contextvars.ContextVar("lore_request_context", default=None)


def current() -> RequestContext:
    """The caller of the request being served; raises if there is none."""
    context = _current.get()
    if context is None:
        raise errors.Unauthenticated(
            "no tenant in this call: internal calls must carry org and principal metadata",
            reason="MISSING_TENANT",
        )
    return context


def current_or_none() -> RequestContext | None:
    return _current.get()


@contextmanager
def bound(context: RequestContext) -> Iterator[RequestContext]:
    """Run a block as ``context`` (scheduled jobs act as a system principal this way)."""
    token = _current.set(context)
    try:
        yield context
    finally:
        _current.reset(token)


def from_metadata(metadata: Iterable[tuple[str, str | bytes]] | None) -> RequestContext:
    """Read and validate the caller's identity from gRPC invocation metadata."""
    values: dict[str, str] = {}
    for key, value in metadata or ():
        if isinstance(value, bytes):
            continue
        values.setdefault(key.lower(), value)
    org_id = values.get(ORG_ID_KEY, "")
    principal = values.get(PRINCIPAL_KEY, "")
    missing = [key for key, value in ((ORG_ID_KEY, org_id), (PRINCIPAL_KEY, principal)) if not value]
    if missing:
        raise errors.Unauthenticated(
            f"missing {' and '.join(missing)} metadata: internal calls must name their tenant and principal",
            reason="MISSING_TENANT",
            metadata={"missing": ",".join(missing)},
        )
    for key, value in ((ORG_ID_KEY, org_id), (PRINCIPAL_KEY, principal)):
        if not _ID_PATTERN.match(value):
            raise errors.Unauthenticated(f"malformed {key} metadata", reason="MALFORMED_TENANT", metadata={"key": key})
    request_id = values.get(REQUEST_ID_KEY, "")[:128]
    user_id = _pinned_user(values.get(USER_KEY, ""))
    return RequestContext(org_id=org_id, principal=principal, request_id=request_id, user_id=user_id)


def _pinned_user(encoded: str) -> str:
    try:
        user_id = urllib.parse.unquote(encoded, errors="strict")
    except UnicodeDecodeError:
        user_id = None
    if user_id is None or len(user_id) > MAX_USER_CHARS:
        raise errors.Unauthenticated(
            f"malformed {USER_KEY} metadata", reason="MALFORMED_TENANT", metadata={"key": USER_KEY}
        )
    return user_id
