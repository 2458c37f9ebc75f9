"""Opaque page tokens: an offset bound to the filters it was issued for."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import asdict
from typing import Any

from lore_runtime.errors import InvalidArgument

MAX_OFFSET = 100_000


# Filters added after tokens were first issued, with the value that means "not used": left out of the
# fingerprint when unused, so a token issued before they existed still continues its listing.
_ADDED_FILTERS = {"user_id": "", "team_id": "", "context": False}


def _fingerprint(filters: Any) -> str:
    described = {name: value for name, value in asdict(filters).items() if _ADDED_FILTERS.get(name, object()) != value}
    return hashlib.blake2b(json.dumps(described, sort_keys=True).encode(), digest_size=8).hexdigest()


def encode_offset(offset: int, filters: Any) -> str:
    payload = json.dumps({"o": offset, "f": _fingerprint(filters)}).encode()
    return base64.urlsafe_b64encode(payload).decode().rstrip("=")


def decode_offset(token: str, filters: Any, field: str = "page_token") -> int:
    if not token:
        return 0
    try:
        payload = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        offset, fingerprint = int(payload["o"]), str(payload["f"])
    except (ValueError, KeyError, TypeError) as error:
        raise InvalidArgument(field, "not a token this service issued") from error
    if fingerprint != _fingerprint(filters):
        raise InvalidArgument(field, "issued for other filters")
    if not 0 <= offset <= MAX_OFFSET:
        raise InvalidArgument(field, f"pages go at most {MAX_OFFSET} deep")
    return offset
