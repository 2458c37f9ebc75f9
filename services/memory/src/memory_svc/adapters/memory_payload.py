"""What both Qdrant adapters share: the point payload of a MemoryItem, the filter
conditions of a search, the payload indexes, and the collection's embedding metadata.

Kept free of either driver so that qdrant-edge and qdrant-client store byte-identical
payloads and filter identically; each engine only translates the neutral conditions
(``qdrant_engine.py``) and ``PayloadIndex`` values into its own classes.

Payload layout (one Qdrant point per item; point id = the item's UUID):

    id, org_id, content, memory_type, status, importance, access_count, current_salience,
    user_id, agent_id, team_id          -- top level, "" when unset, so they are indexable
    metadata: {str: str}                -- returned as given
    provenance: {session_id, turn_ids[], source_type, consolidated_into, consolidated_from[], session_ids[],
                 speaker}
    entities: [str]
    write_digest                        -- what the keyed write asked for (domain.idempotency)
    created_at, valid_at, last_accessed_at  -- RFC 3339, UTC, microseconds, fixed width
                                               ("YYYY-MM-DDTHH:MM:SS.ffffffZ"), datetime-indexed
                                               for range filters (RangeDateTime / DatetimeRange)
    updated_at                          -- the same form, only once a write changed the item

The payload version lives in the collection metadata (``lore_payload_version``), not in
each point: qdrant-edge's Python bindings pay ~9 us per payload key on every Point.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from lore_runtime.errors import FailedPrecondition
from lore_runtime.timestamps import parse_stored, stored_text

from memory_svc.adapters.qdrant_engine import AnyCondition, Condition, DatetimeRange, FloatRange, PayloadIndex
from memory_svc.domain.conversation import Said
from memory_svc.domain.lexical import SparseVector
from memory_svc.domain.model import MemoryItem, MemoryStatus, MemoryType, Provenance, Scope, ScopeMatch
from memory_svc.usecases.memory_ports import AccessRefresh, AccessTarget, SearchFilter

DENSE_VECTOR = "dense"
SPARSE_VECTOR = "bm25"  # BM25 term weights of memory_svc.domain.lexical (IDF applied by Qdrant)
PAYLOAD_VERSION = 1

SCOPE_FIELDS = ("user_id", "agent_id", "team_id")
TIMESTAMP_FIELDS = ("created_at", "valid_at", "last_accessed_at")


# --------------------------------------------------------------------------- payload


# The canonical form (lower-case 8-4-4-4-12 hex): such an id is its own point id, without a UUID
# parsed and printed again (listings order every item by it).
_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def point_id(item_id: str) -> str:
    """The Qdrant point id of an item id: its canonical UUID string (ValueError if not a UUID)."""
    if isinstance(item_id, str) and _CANONICAL.fullmatch(item_id):
        return item_id
    return str(uuid.UUID(item_id))


def maybe_point_id(item_id: str) -> str | None:
    """Like ``point_id`` but None for a string that is not a UUID (such an item cannot exist)."""
    try:
        return point_id(item_id)
    except ValueError:
        return None


def format_timestamp(value: datetime) -> str:
    """The fixed-width stored form (``lore_runtime.timestamps.stored_text``): four-digit year, always."""
    return stored_text(value)


def parse_timestamp(value: str) -> datetime:
    """A stored time as aware UTC, the older unpadded or naive forms included (``timestamp_repair``
    rewrites those)."""
    return parse_stored(value)


def to_payload(item: MemoryItem) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": item.id,
        "org_id": item.org_id,
        "content": item.content,
        "memory_type": str(item.memory_type),
        "status": str(item.status),
        "importance": float(item.importance),
        "access_count": int(item.access_count),
        "current_salience": float(item.current_salience),
        "user_id": item.scope.user_id,
        "agent_id": item.scope.agent_id,
        "team_id": item.scope.team_id,
        "metadata": {str(key): str(value) for key, value in item.metadata.items()},
        "write_digest": item.write_digest,
        "provenance": {
            "session_id": item.provenance.session_id,
            "turn_ids": list(item.provenance.turn_ids),
            "source_type": item.provenance.source_type,
            "consolidated_into": item.provenance.consolidated_into,
            "consolidated_from": list(item.provenance.consolidated_from),
            "session_ids": list(item.provenance.session_ids),
            "speaker": item.provenance.speaker,
        },
        "entities": list(item.entities),
    }
    for name in TIMESTAMP_FIELDS:
        payload[name] = format_timestamp(getattr(item, name))
    if item.updated_at is not None:
        payload["updated_at"] = format_timestamp(item.updated_at)
    return payload


# Member by stored value: a dict lookup, ~0.5 us less than the enum's call (listings decode many).
_MEMORY_TYPES: dict[str, MemoryType] = {member.value: member for member in MemoryType}
_STATUSES: dict[str, MemoryStatus] = {member.value: member for member in MemoryStatus}


def from_payload(payload: Mapping[str, Any]) -> MemoryItem:
    """The item of a stored payload. Written for speed (a listing decodes a hundred per call):
    positional scope, ``map`` for the lists, a dict for the enums (an unknown value still raises
    the enum's ValueError)."""
    get = payload.get
    provenance = get("provenance") or {}
    metadata = get("metadata")
    memory_type = payload["memory_type"]
    status = payload["status"]
    updated_at = get("updated_at")
    return MemoryItem(
        id=str(payload["id"]),
        org_id=str(payload["org_id"]),
        content=str(payload["content"]),
        memory_type=_MEMORY_TYPES.get(memory_type) or MemoryType(memory_type),
        scope=Scope(str(get("user_id") or ""), str(get("agent_id") or ""), str(get("team_id") or "")),
        importance=float(payload["importance"]),
        status=_STATUSES.get(status) or MemoryStatus(status),
        metadata={str(key): str(value) for key, value in metadata.items()} if metadata else {},
        write_digest=str(get("write_digest") or ""),
        provenance=Provenance(
            str(provenance.get("session_id") or ""),
            tuple(map(str, provenance.get("turn_ids") or ())),
            str(provenance.get("source_type") or ""),
            str(provenance.get("consolidated_into") or ""),
            tuple(map(str, provenance.get("consolidated_from") or ())),
            tuple(map(str, provenance.get("session_ids") or ())),
            str(provenance.get("speaker") or ""),
        ),
        entities=tuple(map(str, get("entities") or ())),
        created_at=parse_timestamp(payload["created_at"]),
        valid_at=parse_timestamp(payload["valid_at"]),
        last_accessed_at=parse_timestamp(payload["last_accessed_at"]),
        access_count=int(get("access_count", 0)),
        current_salience=float(get("current_salience", 1.0)),
        updated_at=parse_timestamp(updated_at) if updated_at else None,
    )


def dense_rows(items: Sequence[MemoryItem], vectors: np.ndarray, dimension: int) -> list[list[float]]:
    """The vectors as plain float lists, after checking there is one row of ``dimension`` per item."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim != 2 or array.shape != (len(items), dimension):
        raise ValueError(f"expected vectors of shape ({len(items)}, {dimension}), got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("vectors must be finite")
    return array.tolist()


def query_row(vector: np.ndarray, dimension: int) -> list[float]:
    array = np.asarray(vector, dtype=np.float32).reshape(-1)
    if array.shape != (dimension,):
        raise ValueError(f"expected a query vector of dimension {dimension}, got {array.shape}")
    return array.tolist()


# --------------------------------------------------------------------------- filters


def search_conditions(
    org_id: str,
    scope: Scope,
    memory_types: Sequence[MemoryType] = (),
    filters: SearchFilter | None = None,
    scope_match: ScopeMatch = ScopeMatch.BROWSE,
) -> list[AnyCondition]:
    """The ``must`` conditions of a recall: the org always, the scope (the values each scope field may
    hold, ``Scope.allowed_values``: "" is stored for an unset id, so "no user" is a keyword like any
    other), the types, then (when ``filters`` is given) the statuses, the ``valid_at`` range and the
    materialised salience."""
    if not org_id:
        raise ValueError("org_id is required on every memory index query")
    conditions: list[AnyCondition] = [Condition("org_id", (org_id,))]
    conditions += [Condition(name, values) for name, values in scope.allowed_values(scope_match).items()]
    if memory_types:
        conditions.append(Condition("memory_type", tuple(dict.fromkeys(str(kind) for kind in memory_types))))
    if filters is not None:
        if filters.statuses:
            conditions.append(Condition("status", tuple(dict.fromkeys(str(status) for status in filters.statuses))))
        if filters.valid_after is not None or filters.valid_before is not None:
            conditions.append(
                DatetimeRange(
                    "valid_at",
                    gte=format_timestamp(filters.valid_after) if filters.valid_after is not None else None,
                    lt=format_timestamp(filters.valid_before) if filters.valid_before is not None else None,
                )
            )
        if filters.min_salience is not None:
            conditions.append(FloatRange("current_salience", float(filters.min_salience)))
    return conditions


def sparse_rows(items: Sequence[MemoryItem], sparse: Sequence[SparseVector] | None) -> list[SparseVector | None]:
    """One sparse vector (or None: nothing to store) per item, after checking the counts match."""
    if sparse is None:
        return [None] * len(items)
    if len(sparse) != len(items):
        raise ValueError(f"expected {len(items)} sparse vectors, got {len(sparse)}")
    return [vector if vector else None for vector in sparse]


def org_condition(org_id: str) -> Condition:
    return search_conditions(org_id, Scope())[0]


# What recording a use reads of an item (``AccessTarget``), and the fields its flush writes.
TARGET_FIELDS = ("id", "memory_type", *SCOPE_FIELDS)
ACCESS_FIELDS = ("access_count", "last_accessed_at", "current_salience")


def target_from_payload(payload: Mapping[str, Any]) -> AccessTarget:
    """The ``AccessTarget`` of the item of ``payload`` (``TARGET_FIELDS`` of it)."""
    get = payload.get
    memory_type = payload["memory_type"]
    return AccessTarget(
        str(payload["id"]),
        Scope(str(get("user_id") or ""), str(get("agent_id") or ""), str(get("team_id") or "")),
        _MEMORY_TYPES.get(memory_type) or MemoryType(memory_type),
    )


def access_payload(refresh: AccessRefresh) -> dict[str, Any]:
    """The stored form of an item's access fields (``ACCESS_FIELDS``), as ``to_payload`` writes them."""
    return {
        "access_count": int(refresh.access_count),
        "last_accessed_at": format_timestamp(refresh.last_accessed_at),
        "current_salience": float(refresh.current_salience),
    }


# --------------------------------------------------------------------------- payload indexes

# Where a message was said (``conversation.Said``): the fields read for it, not the whole payload.
SESSION_KEY = "provenance.session_id"
SPEAKER_KEY = "provenance.speaker"
SAID_FIELDS = ("id", "memory_type", SESSION_KEY, SPEAKER_KEY, "valid_at", "created_at")


def said_from_payload(payload: Mapping[str, Any]) -> Said | None:
    """Where the item of ``payload`` (``SAID_FIELDS`` of it) was said; None unless a message of a session."""
    provenance = payload.get("provenance") or {}
    session_id = provenance.get("session_id") or ""
    if payload.get("memory_type") != str(MemoryType.MESSAGE) or not session_id:
        return None
    return Said(
        str(payload["id"]),
        str(session_id),
        parse_timestamp(payload["valid_at"]),
        parse_timestamp(payload["created_at"]),
        str(provenance.get("speaker") or ""),
    )


PAYLOAD_INDEXES: tuple[PayloadIndex, ...] = (
    PayloadIndex("org_id", "tenant"),
    PayloadIndex("user_id", "keyword"),
    PayloadIndex("agent_id", "keyword"),
    PayloadIndex("team_id", "keyword"),
    PayloadIndex("memory_type", "keyword"),
    PayloadIndex("status", "keyword"),
    PayloadIndex("entities", "keyword"),
    PayloadIndex("created_at", "datetime"),
    PayloadIndex("valid_at", "datetime"),
    PayloadIndex("last_accessed_at", "datetime"),
    PayloadIndex("current_salience", "float"),
    PayloadIndex("importance", "float"),
    PayloadIndex(SESSION_KEY, "keyword"),
)


# --------------------------------------------------------------------------- collection metadata


@dataclass(frozen=True, slots=True)
class IndexMetadata:
    """What a collection's vectors mean: written at creation, checked at every open."""

    embedding_model: str
    dimension: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "lore_embedding_model": self.embedding_model,
            "lore_dimension": self.dimension,
            "lore_payload_version": PAYLOAD_VERSION,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> IndexMetadata | None:
        if not data or "lore_embedding_model" not in data or "lore_dimension" not in data:
            return None
        return cls(str(data["lore_embedding_model"]), int(data["lore_dimension"]))


def check_metadata(where: str, stored: IndexMetadata | None, wanted: IndexMetadata) -> None:
    """Raise FailedPrecondition unless the stored model and dimension are the configured ones."""
    if stored is None:
        raise FailedPrecondition(
            f"{where} has no embedding model metadata; run `lore reindex` to rebuild it "
            f"with {wanted.embedding_model} ({wanted.dimension}-d)",
            reason="EMBEDDING_MODEL_UNKNOWN",
            metadata={
                "store": where,
                "configured_model": wanted.embedding_model,
                "configured_dimension": str(wanted.dimension),
            },
        )
    if stored != wanted:
        raise FailedPrecondition(
            f"{where} holds vectors of {stored.embedding_model} ({stored.dimension}-d) but the service is "
            f"configured for {wanted.embedding_model} ({wanted.dimension}-d); run `lore reindex` to re-embed, "
            "or configure the original model",
            reason="EMBEDDING_MODEL_MISMATCH",
            metadata={
                "store": where,
                "stored_model": stored.embedding_model,
                "stored_dimension": str(stored.dimension),
                "configured_model": wanted.embedding_model,
                "configured_dimension": str(wanted.dimension),
            },
        )


def order_like(ids: Sequence[str], items: Sequence[MemoryItem]) -> list[MemoryItem]:
    """``items`` in the order of ``ids`` (as the port's ``get`` returns them), missing ones skipped."""
    by_point = {point_id(item.id): item for item in items}
    found = []
    for id_ in ids:
        key = maybe_point_id(id_)
        if key is not None and key in by_point:
            found.append(by_point[key])
    return found


# Organisations a scheduled job can enumerate in one facet call (ARCHITECTURE §2: one org at a time).
MAX_ORGS = 100_000


def catalog_conditions(
    org_id: str,
    scope: Scope,
    memory_types: Sequence[MemoryType],
    statuses: Sequence[MemoryStatus],
    scope_match: ScopeMatch = ScopeMatch.BROWSE,
) -> list[AnyCondition]:
    """The conditions of a listing or an erasure: org, scope, types and (when given) statuses.
    Erasure, export and consolidation keep the default browse match."""
    return search_conditions(org_id, scope, memory_types, SearchFilter(statuses=tuple(statuses)), scope_match)
