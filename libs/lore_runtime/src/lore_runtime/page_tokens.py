"""Signed keyset page tokens: where a listing stopped, bound to its org and its filters.

A token is ``base64url(json) "." base64url(mac)``: the JSON holds the listing's kind, a fingerprint
of its filters and the position (the last item's sort values and id); the MAC (HMAC-SHA256, 16
bytes) covers the org too, so a token is only good for the listing and the org it came from.
Positions are not secrets and every call re-applies the caller's org and filters, so privacy never
rests on the MAC: it keeps tokens opaque (clients cannot craft positions or depend on the format)
and turns a corrupted or foreign token into a clear 400 naming the field.

Keys: the first signs, every one verifies, so a key rotates without breaking pages in flight.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from typing import Any

from lore_runtime.errors import InvalidArgument

MAX_TOKEN_CHARS = 2048
_MAC_BYTES = 16
# Signs when a deployment gives no key: still tamper-evident against accident, opaque to clients.
_FALLBACK_KEY = b"lore page tokens"


def fingerprint(*filters: Any) -> str:
    """A short, stable digest of a listing's filters (any JSON-serialisable values)."""
    described = json.dumps(filters, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(described.encode(), digest_size=8).hexdigest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PageTokens:
    def __init__(self, keys: Sequence[bytes | str] = ()) -> None:
        derived = [key.encode() if isinstance(key, str) else key for key in keys if key]
        self._keys = [hashlib.sha256(b"lore page tokens\x00" + key).digest() for key in derived] or [_FALLBACK_KEY]

    def _mac(self, key: bytes, org_id: str, body: bytes) -> bytes:
        return hmac.new(key, org_id.encode() + b"\x00" + body, hashlib.sha256).digest()[:_MAC_BYTES]

    def seal(self, org_id: str, kind: str, filters: str, position: Mapping[str, Any]) -> str:
        body = json.dumps({"k": kind, "f": filters, "p": dict(position)}, separators=(",", ":")).encode()
        return f"{_b64(body)}.{_b64(self._mac(self._keys[0], org_id, body))}"

    def open(self, token: str, org_id: str, kind: str, filters: str, field: str = "page_token") -> dict[str, Any]:
        """The position ``token`` holds; InvalidArgument naming ``field`` when it is not one this
        deployment issued for this org and listing, or was issued for other filters."""
        foreign = InvalidArgument(
            field, "is not a page token this service issued for this listing; start again without it"
        )
        if len(token) > MAX_TOKEN_CHARS or token.count(".") != 1:
            raise foreign
        body_text, mac_text = token.split(".")
        try:
            body, mac = _unb64(body_text), _unb64(mac_text)
            if not any(hmac.compare_digest(mac, self._mac(key, org_id, body)) for key in self._keys):
                raise foreign
            document = json.loads(body)
            token_kind, token_filters, position = document["k"], document["f"], document["p"]
        except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise foreign from None
        if token_kind != kind or not isinstance(position, dict):
            raise foreign
        if token_filters != filters:
            raise InvalidArgument(field, "was issued for other filters or another order; start again without it")
        return position


def page_tokens_for(settings: Any) -> PageTokens:
    """Tokens keyed by the service credential (``LORE_SERVICE_TOKEN``, and the previous one while it
    rotates), which every replica of a service shares; the fallback key where only mutual TLS is set."""
    service_tokens = settings.service_tokens
    return PageTokens(service_tokens.all() if service_tokens is not None else ())
