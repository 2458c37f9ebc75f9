"""Idempotency records, whatever keeps them: the claim a request holds on its key, the record another
request left, and the fingerprint a repeat must match (``api/idempotency.py`` has the rules)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

HEADER = "Idempotency-Key"


@dataclass(frozen=True, slots=True)
class Claim:
    """A key this request holds in progress: what ``complete`` and ``release`` act on."""

    org_id: str
    principal: str
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
