"""Idempotency records, whatever keeps them: whose keys they are, the claim a request holds on its key,
the record another request left, and the fingerprint a repeat must match (``api/http/idempotency.py`` has
the rules)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from gateway_svc.domain.credentials import Caller

HEADER = "Idempotency-Key"


@dataclass(frozen=True, slots=True)
class Namespace:
    """Whose keys these are: the caller's org, principal and the user its credential is pinned to
    (``""`` for an org-wide credential). The same key in another namespace is another key. The
    credential itself is not part of it, so a rotated key (or a fresh token) of the same principal and
    user finds its records."""

    org_id: str
    principal: str
    user_id: str = ""

    @classmethod
    def of(cls, caller: Caller) -> Namespace:
        return cls(caller.org_id, caller.principal, caller.user_id)


@dataclass(frozen=True, slots=True)
class Claim:
    """A key this request holds in progress: what ``complete`` and ``release`` act on."""

    namespace: Namespace
    key: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    request_hash: bytes
    state: str  # in_progress | completed
    status_code: int | None
    content_type: str | None
    body: bytes | None


def request_hash(method: str, path: str, query: bytes, body: bytes) -> bytes:
    """SHA-256 of the request, each part length-prefixed so no two requests share an encoding."""
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode("utf-8", "surrogateescape"), query, body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.digest()
