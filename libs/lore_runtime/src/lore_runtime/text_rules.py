"""The one rule for the text of every request: what any string may hold, and what an id may hold.

- **Every string** (content, names, keys and values of maps, ids): valid Unicode, so no unpaired
  surrogate (JSON can spell one, ``"\\ud800"``; nothing can encode or store it), no NUL (U+0000:
  Postgres refuses it, and it is never meaningful text), and at most ``MAX_TEXT_CHARS`` characters
  unless a field sets a tighter limit.
- **Every id** (a field named ``id``, ``*_id`` or ``*_ids``, and idempotency keys: user, agent,
  team, session, request ids, …) besides: no control character (line breaks and tabs included), no
  format character (the bidirectional embeddings, overrides and isolates U+202A–U+202E and
  U+2066–U+2069, the marks U+200E/U+200F/U+061C, zero-width characters, U+FEFF), no line or paragraph
  separator, and at most ``MAX_ID_CHARS`` characters. An id is compared, keyed and printed in logs
  and tables: one that reads differently from what it is (reversed by a bidi override, split by a
  newline) is refused rather than stored.

Each check returns the rule a value breaks (``None`` when it keeps them all); ``check_*`` raise
``InvalidArgument`` naming the field. ``json_problem`` applies the every-string rule to a parsed JSON
document, keys included. Pure: no I/O, no protobuf (``request_text`` walks messages with it).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from lore_runtime.errors import InvalidArgument

MAX_TEXT_CHARS = 65_536
MAX_ID_CHARS = 256

SURROGATE_RULE = "must be valid Unicode (no unpaired surrogate)"
# The ids a belief may name as its subject or agent (the observations service's keys): the agent
# service and the assembler hold what they pass on to it to the same rule.
OBSERVABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@/-]{0,127}$")
OBSERVABLE_ID_RULE = "1..128 characters of [A-Za-z0-9._@/-], starting alphanumeric"
NUL_RULE = "must not contain U+0000 (NUL)"
ID_CHARACTERS_RULE = (
    "must not contain control, format or bidirectional characters "
    "(line breaks, tabs, U+200B–U+200F, U+202A–U+202E, U+2066–U+2069, U+FEFF, …)"
)
# Cc: C0/C1 controls (NUL, tab, newline, DEL, …); Cf: format (bidi marks, embeddings, overrides,
# isolates, zero-width characters, BOM); Cs: surrogates; Zl/Zp: U+2028/U+2029.
_REFUSED_IN_IDS = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))


def longer_than(limit: int) -> str:
    return f"at most {limit} characters"


def text_problem(value: str, max_chars: int = MAX_TEXT_CHARS) -> str | None:
    """The every-string rule ``value`` breaks, or ``None``."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return SURROGATE_RULE
    if "\x00" in value:
        return NUL_RULE
    if len(value) > max_chars:
        return longer_than(max_chars)
    return None


def id_problem(value: str, max_chars: int = MAX_ID_CHARS) -> str | None:
    """The rule the id ``value`` breaks (the every-string rule first), or ``None``."""
    found = text_problem(value, max_chars)
    if found is not None:
        return found
    # isprintable() is False for every refused category (and for a few allowed ones: it only
    # decides whether to look closer).
    if not value.isprintable() and any(unicodedata.category(char) in _REFUSED_IN_IDS for char in value):
        return ID_CHARACTERS_RULE
    return None


def check_text(value: str, field: str, max_chars: int = MAX_TEXT_CHARS) -> str:
    """``value``, or ``InvalidArgument`` naming ``field`` and the rule it breaks."""
    found = text_problem(value, max_chars)
    if found is not None:
        raise InvalidArgument(field, found)
    return value


def check_id(value: str, field: str, max_chars: int = MAX_ID_CHARS) -> str:
    """``value``, or ``InvalidArgument`` naming ``field`` and the id rule it breaks."""
    found = id_problem(value, max_chars)
    if found is not None:
        raise InvalidArgument(field, found)
    return value


def is_id_name(name: str) -> bool:
    """Whether a field (proto or JSON name) holds ids: ``id``, ``*_id``/``*Id``, ``*_ids``/``*Ids``,
    ``idempotency_key``/``idempotencyKey``."""
    return name == "id" or name.endswith(("_id", "_ids", "Id", "Ids")) or name in ("idempotency_key", "idempotencyKey")


def json_problem(document: Any, path: str = "") -> tuple[str, str] | None:
    """The first string of a parsed JSON value (object keys included) that breaks the every-string
    rule's characters (surrogates, NUL), as (the field's path as written, the rule); ``None`` if none.

    Lengths are left to the fields' own limits (a JSON document has no field types here). A bad key
    is reported on the object holding it, so the path never carries the bad text itself."""
    stack: list[tuple[Any, str]] = [(document, path)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            found = text_problem(value, len(value))
            if found is not None:
                return where or "body", found
        elif isinstance(value, dict):
            for key in value:
                found = text_problem(key, len(key))
                if found is not None:
                    return where or "body", f"a key {found}"
            stack.extend((item, f"{where}.{key}" if where else key) for key, item in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{index}]") for index, item in reversed(list(enumerate(value))))
    return None


def check_agent_id(value: str, field: str = "agent_id") -> str:
    """``value`` when it is empty or an ``OBSERVABLE_ID``, else ``InvalidArgument`` naming ``field``."""
    if value and not OBSERVABLE_ID.fullmatch(value):
        raise InvalidArgument(field, f"must be empty or {OBSERVABLE_ID_RULE}")
    return value
