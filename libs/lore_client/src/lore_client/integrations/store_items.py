"""A LangGraph store item as a Lore memory, and back: pure functions, no I/O, no LangGraph import.

**Whose memory.** A namespace starts with the Lore scope it lives in, as (kind, id) pairs:
``("users", "u-1", "memories")`` is user ``u-1``'s; ``("users", "u-1", "agents", "aria", "notes")``
is what agent ``aria`` keeps about ``u-1``; ``("teams", "t-9", "docs")`` is team ``t-9``'s. The
pairs are read from the start while the label is ``users``, ``agents`` or ``teams`` not seen yet
and an id follows; the labels after them only sort items inside the scope. A namespace naming no
pair (``("memories", "u-1")``) names nobody's memory and is refused: an org-wide credential would
otherwise write into the organisation's shared memory, which every user's context may show.

**Storage.** One memory per (namespace, key): its ``content`` is the text to find it by (the
value's indexed fields, LangGraph's ``$`` — the whole value as JSON — by default); its metadata
holds the namespace, the key and the exact value as JSON (in 1,024-character pieces, the memory
service's limit per metadata value), and ``langgraph.item`` what the store keeps about the item
when there is any: ``{"index": false}`` for an item not to be found by meaning, ``ttl`` (minutes)
and ``expires`` (seconds since the epoch) for one that expires, ``updated`` for one whose expiry a
read moved (the item's update time stays the put's). Metadata is never embedded, so the value comes
back exactly.
Its ``idempotency_key`` is derived from (namespace, key), so the memory service gives the item a
deterministic id (a UUIDv5 of org, scope and key; ``memory_svc.domain.ids``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from lore_client.models import Memory

SCOPE_KINDS = {"users": "userId", "agents": "agentId", "teams": "teamId"}
NAMESPACE_KEY = "langgraph.namespace"
KEY_KEY = "langgraph.key"
VALUE_KEY = "langgraph.value."
ITEM_KEY = "langgraph.item"
# The memory service's limits (memory_svc.domain.limits): 32 metadata entries of 1,024 characters.
METADATA_VALUE_CHARS = 1_024
VALUE_PIECES = 29  # 32 less the namespace, the key and the item's own entry
MAX_CONTENT_CHARS = 16_000


class UnmappableNamespace(ValueError):
    """A namespace that names no Lore scope."""


def scope_of(path: Sequence[str]) -> tuple[dict[str, str], int]:
    """The scope the leading (kind, id) pairs of ``path`` name, and how many labels they take.
    A ``*`` (a wildcard of ``list_namespaces``) is no id: the pairs stop before it."""
    scope: dict[str, str] = {}
    used = 0
    while used + 1 < len(path):
        field = SCOPE_KINDS.get(path[used])
        if field is None or field in scope or path[used + 1] == "*":
            break
        scope[field] = path[used + 1]
        used += 2
    return scope, used


def scope_of_namespace(namespace: Sequence[str]) -> dict[str, str]:
    """The scope of an item's namespace; raises ``UnmappableNamespace`` when it names none."""
    scope, _ = scope_of(namespace)
    if not scope:
        raise UnmappableNamespace(
            f"namespace {tuple(namespace)!r} names no Lore scope: start it with ('users', <user id>), "
            "('agents', <agent id>) or ('teams', <team id>), e.g. ('users', 'u-1', 'memories')"
        )
    return scope


def idempotency_key(namespace: Sequence[str], key: str) -> str:
    """The same (namespace, key) always writes the same memory id."""
    path = "\x1f".join((*namespace, "\x1e", key))
    return "langgraph:" + hashlib.sha256(path.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class StoredItem:
    """An item as the store answers it (LangGraph's ``Item`` fields), with its memory's id."""

    memory_id: str
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created_at: datetime | None
    updated_at: datetime | None
    content: str = ""
    metadata: Mapping[str, str] | None = None
    indexed: bool = True
    ttl: float | None = None  # minutes
    expires: float | None = None  # seconds since the epoch

    def expired(self, now: float) -> bool:
        return self.expires is not None and self.expires <= now


def item_entry(*, indexed: bool, ttl: float | None, now: float, updated: datetime | None = None) -> str | None:
    """The ``langgraph.item`` entry of an item (``None``: nothing to keep)."""
    entry: dict[str, Any] = {}
    if not indexed:
        entry["index"] = False
    if ttl is not None:
        entry |= {"ttl": ttl, "expires": round(now + ttl * 60, 3)}
        if updated is not None:
            entry["updated"] = updated.astimezone(UTC).isoformat()
    return json.dumps(entry, separators=(",", ":")) if entry else None


def encode(
    namespace: Sequence[str],
    key: str,
    value: Mapping[str, Any],
    texts_of: Callable[[dict[str, Any]], list[str]],
    entry: str | None = None,
) -> tuple[str, dict[str, str]]:
    """The ``content`` and ``metadata`` of the memory holding ``value``; ``texts_of`` gives the
    value's indexed texts (the whole value as JSON when there are none); ``entry`` the item's
    ``langgraph.item`` (``item_entry``). Raises ``ValueError`` naming the limit a value exceeds."""
    if not isinstance(value, Mapping):
        raise ValueError(f"value: a store value is a mapping (a JSON object), not {type(value).__name__}")
    try:
        document = json.dumps(dict(value), ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise ValueError(f"value: must be JSON-serialisable ({error})") from None
    pieces = [document[start : start + METADATA_VALUE_CHARS] for start in range(0, len(document), METADATA_VALUE_CHARS)]
    if len(pieces) > VALUE_PIECES:
        raise ValueError(
            f"value: {len(document):,} characters of JSON; a Lore memory keeps at most "
            f"{VALUE_PIECES * METADATA_VALUE_CHARS:,} in its metadata"
        )
    joined = ".".join(namespace)
    for name, text in (("namespace", joined), ("key", key)):
        if len(text) > METADATA_VALUE_CHARS:
            raise ValueError(f"{name}: at most {METADATA_VALUE_CHARS:,} characters, got {len(text):,}")
    content = "\n".join(text for text in texts_of(dict(value)) if text.strip()) or json.dumps(
        dict(value), sort_keys=True, ensure_ascii=False
    )
    if len(content) > MAX_CONTENT_CHARS:
        raise ValueError(
            f"value: its indexed text has {len(content):,} characters; a Lore memory holds at most "
            f"{MAX_CONTENT_CHARS:,} (index fewer fields)"
        )
    metadata = {NAMESPACE_KEY: joined, KEY_KEY: key}
    metadata |= {f"{VALUE_KEY}{position}": piece for position, piece in enumerate(pieces)}
    if entry is not None:
        metadata[ITEM_KEY] = entry
    return content, metadata


def decode(memory: Memory) -> StoredItem | None:
    """The store item ``memory`` holds; ``None`` for any other memory of the scope."""
    metadata = memory.metadata
    if NAMESPACE_KEY not in metadata or KEY_KEY not in metadata:
        return None
    pieces = []
    while f"{VALUE_KEY}{len(pieces)}" in metadata:
        pieces.append(metadata[f"{VALUE_KEY}{len(pieces)}"])
    try:
        value = json.loads("".join(pieces))
    except ValueError:
        return None  # someone else's metadata under our names: not an item of this store
    if not isinstance(value, dict):
        return None
    try:
        entry = json.loads(metadata.get(ITEM_KEY) or "{}")
        ttl, expires = entry.get("ttl"), entry.get("expires")
        updated = datetime.fromisoformat(entry["updated"]) if "updated" in entry else None
    except (ValueError, TypeError, AttributeError):
        return None
    return StoredItem(
        memory_id=memory.id,
        namespace=tuple(metadata[NAMESPACE_KEY].split(".")),
        key=metadata[KEY_KEY],
        value=value,
        created_at=memory.created_at,
        updated_at=updated or memory.updated_at or memory.created_at,
        content=memory.content,
        metadata=dict(metadata),
        indexed=entry.get("index", True) is not False,
        ttl=float(ttl) if ttl is not None else None,
        expires=float(expires) if expires is not None else None,
    )


# -- what reads select: LangGraph's own semantics (langgraph.store.memory) -------------------------


def under(namespace: Sequence[str], prefix: Sequence[str]) -> bool:
    return tuple(namespace[: len(prefix)]) == tuple(prefix)


def matches_filter(value: Mapping[str, Any], conditions: Mapping[str, Any] | None) -> bool:
    """``filter`` of a search: each field equals, or satisfies its ``$eq``/``$ne``/``$gt``/``$gte``/
    ``$lt``/``$lte`` operators; a nested mapping compares nested fields."""
    return all(_compare(value.get(name), wanted) for name, wanted in (conditions or {}).items())


def _compare(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(name.startswith("$") for name in wanted):
            return all(_apply(actual, operator, operand) for operator, operand in wanted.items())
        return isinstance(actual, Mapping) and all(_compare(actual.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(wanted)
            and all(_compare(a, w) for a, w in zip(actual, wanted, strict=True))
        )
    return actual == wanted


_ORDERED = {
    "$gt": lambda a, b: a > b,
    "$gte": lambda a, b: a >= b,
    "$lt": lambda a, b: a < b,
    "$lte": lambda a, b: a <= b,
}


def _apply(actual: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return actual == operand
    if operator == "$ne":
        return actual != operand
    if operator not in _ORDERED:
        raise ValueError(f"filter: unsupported operator {operator!r} ($eq, $ne, $gt, $gte, $lt, $lte)")
    try:
        return _ORDERED[operator](float(actual), float(operand))
    except (TypeError, ValueError):
        return False  # a missing or non-numeric field does not satisfy a comparison


def matches_path(namespace: Sequence[str], match_type: str, path: Sequence[str]) -> bool:
    """A ``list_namespaces`` condition: ``path`` (``*`` matching any label) at the start
    (``prefix``) or the end (``suffix``) of ``namespace``."""
    if len(namespace) < len(path):
        return False
    if match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"match_type: {match_type!r} is neither 'prefix' nor 'suffix'")
    return all(wanted in ("*", label) for label, wanted in pairs)
