"""pb2 <-> domain for the MemoryService, with validation that names the offending field.

Validation happens here, before any use case runs, so a malformed batch is refused as a
whole: nothing is written (the use cases never see a half-valid request).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from lore.common.v1 import provenance_pb2, scope_pb2
from lore.memory.v1 import memory_service_pb2 as pb
from lore_runtime import errors
from lore_runtime.proto_time import from_timestamp, to_timestamp
from lore_runtime.request_context import RequestContext
from lore_runtime.text_rules import check_id, check_text

from memory_svc.domain import limits
from memory_svc.domain.episode import MAX_REQUEST_ID_CHARS
from memory_svc.domain.model import (
    MemoryDraft,
    MemoryItem,
    MemoryStatus,
    MemoryType,
    Provenance,
    Scope,
    ScopeMatch,
    ScoredMemory,
)
from memory_svc.domain.salience import half_life_of
from memory_svc.usecases.manage_memories import UPDATABLE
from memory_svc.usecases.memory_ports import AccessRequest, MemoryOrder
from memory_svc.usecases.record_access import CLIENT_REASONS

_Value = TypeVar("_Value")

_TYPE_TO_PB = {kind: pb.MemoryType.Value(f"MEMORY_TYPE_{kind.name}") for kind in MemoryType}
_TYPE_FROM_PB = {value: kind for kind, value in _TYPE_TO_PB.items()}
_STATUS_TO_PB = {status: pb.MemoryStatus.Value(f"MEMORY_STATUS_{status.name}") for status in MemoryStatus}
_STATUS_FROM_PB = {value: status for status, value in _STATUS_TO_PB.items()}
_SOURCE_NAMES = {value: name for name, value in provenance_pb2.ProvenanceSource.items()}
# A dict, not ProvenanceSource.keys(): that builds a list of every name on each call.
_SOURCE_VALUES = dict(provenance_pb2.ProvenanceSource.items())
_SCOPE_MATCH_FROM_PB = {
    scope_pb2.SCOPE_MATCH_UNSPECIFIED: ScopeMatch.BROWSE,
    scope_pb2.SCOPE_MATCH_CONTEXT: ScopeMatch.CONTEXT,
}

_ORDER_FROM_PB = {
    pb.MEMORY_ORDER_UNSPECIFIED: MemoryOrder.NEWEST,
    pb.MEMORY_ORDER_NEWEST: MemoryOrder.NEWEST,
    pb.MEMORY_ORDER_SALIENCE: MemoryOrder.SALIENCE,
}
# Proto field mask paths → domain names (they coincide today; the map keeps the seam explicit).
_MASK_PATHS = {path: path for path in UPDATABLE}


def enum_from_pb(
    table: Mapping[int, _Value], value: int, field: str, pb_enum: Any, accepted: Iterable[int] | None = None
) -> _Value:
    """``table[value]``; an unknown value is refused, naming the ``accepted`` values (by default
    every key of ``table``) as ``pb_enum`` spells them."""
    try:
        return table[value]
    except KeyError:
        names = ", ".join(pb_enum.Name(v) for v in (table if accepted is None else accepted))
        raise errors.InvalidArgument(field, f"must be one of {names}") from None


def memory_type_from_pb(value: int, field: str) -> MemoryType:
    return enum_from_pb(_TYPE_FROM_PB, value, field, pb.MemoryType)


def scope_from_pb(scope: scope_pb2.Scope, field: str) -> Scope:
    for name in ("user_id", "agent_id", "team_id"):
        value = check_id(getattr(scope, name), f"{field}.{name}", limits.MAX_SCOPE_ID_CHARS)
        if value != value.strip():
            raise errors.InvalidArgument(f"{field}.{name}", "must not start or end with whitespace")
    return Scope(user_id=scope.user_id, agent_id=scope.agent_id, team_id=scope.team_id)


def scope_match_from_pb(value: int, field: str) -> ScopeMatch:
    """SCOPE_MATCH_UNSPECIFIED is the browse match (the default); an unknown value is refused."""
    return enum_from_pb(_SCOPE_MATCH_FROM_PB, value, field, scope_pb2.ScopeMatch)


def access_from_pb(request: Any, caller: RequestContext) -> AccessRequest:
    """Who records uses and why, from a RecordAccess or RecordEpisodeAccess request: a client's
    reason ("client" when unset), the session id cut to 256 characters, the caller's principal,
    and the request's id or else the caller's."""
    reason = request.reason or "client"
    if reason not in CLIENT_REASONS:
        raise errors.InvalidArgument("reason", f"must be one of {', '.join(CLIENT_REASONS)}")
    if len(request.request_id) > MAX_REQUEST_ID_CHARS:  # the access log's key column is bounded
        raise errors.InvalidArgument("request_id", f"at most {MAX_REQUEST_ID_CHARS} characters")
    return AccessRequest(reason, request.session_id[:256], caller.principal, request.request_id or caller.request_id)


def scope_to_pb(scope: Scope) -> scope_pb2.Scope:
    return scope_pb2.Scope(user_id=scope.user_id, agent_id=scope.agent_id, team_id=scope.team_id)


def metadata_from_pb(values: dict[str, str], field: str) -> dict[str, str]:
    if len(values) > limits.MAX_METADATA_ENTRIES:
        raise errors.InvalidArgument(field, f"at most {limits.MAX_METADATA_ENTRIES} entries")
    for key, value in values.items():
        if not key or len(key) > limits.MAX_METADATA_KEY_CHARS:
            raise errors.InvalidArgument(field, f"keys must have 1 to {limits.MAX_METADATA_KEY_CHARS} characters")
        if len(value) > limits.MAX_METADATA_VALUE_CHARS:
            raise errors.InvalidArgument(f"{field}[{key}]", f"at most {limits.MAX_METADATA_VALUE_CHARS} characters")
    return dict(values)


def speaker_from_pb(value: str, field: str) -> str:
    """A message's speaker: one line of at most ``MAX_SPEAKER_CHARS`` characters, trimmed ("" for none)."""
    name = unicodedata.normalize("NFC", value).strip()
    if len(name) > limits.MAX_SPEAKER_CHARS:
        raise errors.InvalidArgument(field, f"at most {limits.MAX_SPEAKER_CHARS} characters")
    if any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in name):
        raise errors.InvalidArgument(field, "must be one line without control characters")
    return name


def entities_from_pb(values: Sequence[str], field: str) -> tuple[str, ...]:
    """At most ``MAX_ENTITIES`` names of at most ``MAX_ENTITY_CHARS`` characters each, canonical:
    trimmed, lower case, de-duplicated, blanks dropped."""
    if len(values) > limits.MAX_ENTITIES:
        raise errors.InvalidArgument(field, f"at most {limits.MAX_ENTITIES} entities")
    for index, entity in enumerate(values):
        check_text(entity, f"{field}[{index}]", limits.MAX_ENTITY_CHARS)
    return tuple(dict.fromkeys(entity.strip().lower() for entity in values if entity.strip()))


def draft_from_pb(item: pb.MemoryInput, field: str) -> MemoryDraft:
    content = item.content.strip()
    if not content:
        raise errors.InvalidArgument(f"{field}.content", "must not be empty")
    if len(item.content) > limits.MAX_CONTENT_CHARS:
        raise errors.InvalidArgument(f"{field}.content", f"at most {limits.MAX_CONTENT_CHARS} characters")
    importance = item.importance if item.HasField("importance") else None
    if importance is not None and not 0.0 <= importance <= 1.0:
        raise errors.InvalidArgument(f"{field}.importance", "must be between 0 and 1")
    if len(item.idempotency_key) > limits.MAX_IDEMPOTENCY_KEY_CHARS:
        raise errors.InvalidArgument(
            f"{field}.idempotency_key", f"at most {limits.MAX_IDEMPOTENCY_KEY_CHARS} characters"
        )
    return MemoryDraft(
        content=content,
        memory_type=memory_type_from_pb(item.memory_type, f"{field}.memory_type"),
        scope=scope_from_pb(item.scope, f"{field}.scope"),
        importance=importance,
        valid_at=from_timestamp(item, "valid_at", f"{field}.valid_at"),
        metadata=metadata_from_pb(dict(item.metadata), f"{field}.metadata"),
        idempotency_key=item.idempotency_key,
        provenance=Provenance(
            session_id=item.provenance.session_id,
            turn_ids=tuple(item.provenance.turn_ids),
            source_type=_SOURCE_NAMES.get(item.provenance.source, "").removeprefix("PROVENANCE_SOURCE_").lower(),
            speaker=speaker_from_pb(item.provenance.speaker, f"{field}.provenance.speaker"),
        ),
        entities=entities_from_pb(item.entities, f"{field}.entities"),
    )


def drafts_from_pb(request: pb.RememberRequest) -> list[MemoryDraft]:
    if not request.memories:
        raise errors.InvalidArgument("memories", "at least one memory is required")
    if len(request.memories) > limits.MAX_BATCH:
        raise errors.InvalidArgument("memories", f"at most {limits.MAX_BATCH} memories per call")
    return [draft_from_pb(item, f"memories[{index}]") for index, item in enumerate(request.memories)]


def memory_types_from_pb(values: Sequence[int], field: str) -> list[MemoryType]:
    return [memory_type_from_pb(value, f"{field}[{index}]") for index, value in enumerate(values)]


def recall_filters_from_pb(request: pb.RecallRequest) -> dict[str, Any]:
    """The keyword filters of ``usecases.recall.recall``: statuses, min_salience, valid_after/before."""
    statuses = [
        enum_from_pb(_STATUS_FROM_PB, value, f"statuses[{position}]", pb.MemoryStatus)
        for position, value in enumerate(request.statuses)
    ]
    min_salience = request.min_salience if request.HasField("min_salience") else None
    if min_salience is not None and not (math.isfinite(min_salience) and min_salience >= 0):
        raise errors.InvalidArgument("min_salience", "must be a non-negative number")
    valid_after = from_timestamp(request, "valid_after")
    valid_before = from_timestamp(request, "valid_before")
    if valid_after is not None and valid_before is not None and valid_after >= valid_before:
        raise errors.InvalidArgument("valid_before", "must be later than valid_after")
    return {
        "statuses": statuses,
        "min_salience": min_salience,
        "valid_after": valid_after,
        "valid_before": valid_before,
    }


def memory_to_pb(item: MemoryItem, half_lives: Mapping[MemoryType, float] | None = None) -> pb.Memory:
    """``half_lives``: the deployment's per-type overrides (LORE_HALF_LIFE_DAYS), for ``half_life_days``."""
    source_type = item.provenance.source_type
    source = _SOURCE_VALUES.get(f"PROVENANCE_SOURCE_{source_type.upper()}", 0) if source_type else 0
    return pb.Memory(
        id=item.id,
        content=item.content,
        memory_type=_TYPE_TO_PB[item.memory_type],
        scope=scope_to_pb(item.scope),
        importance=item.importance,
        status=_STATUS_TO_PB[item.status],
        metadata=item.metadata,
        provenance=provenance_pb2.Provenance(
            session_id=item.provenance.session_id,
            turn_ids=item.provenance.turn_ids,
            source=source,
            consolidated_into=item.provenance.consolidated_into,
            consolidated_from=item.provenance.consolidated_from,
            session_ids=item.provenance.session_ids,
            speaker=item.provenance.speaker,
        ),
        entities=item.entities,
        created_at=to_timestamp(item.created_at),
        valid_at=to_timestamp(item.valid_at),
        current_salience=item.current_salience,
        access_count=item.access_count,
        last_accessed_at=to_timestamp(item.last_accessed_at),
        updated_at=to_timestamp(item.changed_at),
        half_life_days=half_life_of(item.memory_type, half_lives),
    )


def recall_result_to_pb(
    hit: ScoredMemory,
    recency: float,
    embedding: np.ndarray | None = None,
    half_lives: Mapping[MemoryType, float] | None = None,
) -> pb.RecallResult:
    return pb.RecallResult(
        embedding=embedding.tolist() if embedding is not None else (),
        recency=recency,
        memory=memory_to_pb(hit.item, half_lives),
        score=hit.score,
        similarity=hit.similarity,
        lexical_score=hit.lexical_score,
        salience=hit.salience,
        importance=hit.item.importance,
    )


# --- the memory-management RPCs (GetMemory, ListMemories, UpdateMemory, RunConsolidation)


def statuses_from_pb(values: Sequence[int], field: str) -> list[MemoryStatus]:
    found = []
    for position, value in enumerate(values):
        if value not in _STATUS_FROM_PB:
            raise errors.InvalidArgument(f"{field}[{position}]", "is not a memory status")
        found.append(_STATUS_FROM_PB[value])
    return found


def order_from_pb(value: int) -> MemoryOrder:
    if value not in _ORDER_FROM_PB:
        raise errors.InvalidArgument("order_by", "is not a memory order")
    return _ORDER_FROM_PB[value]


def id_from_pb(value: str, field: str) -> str:
    if not value:
        raise errors.InvalidArgument(field, "is required")
    if len(value) > 64:
        raise errors.InvalidArgument(field, "at most 64 characters")
    return value


def update_from_pb(request: pb.UpdateMemoryRequest) -> tuple[dict[str, object], list[str]]:
    """The changes and the domain mask of an UpdateMemory request."""
    mask = list(dict.fromkeys(request.update_mask.paths))
    memory = request.memory
    changes: dict[str, object] = {}
    for path in mask:
        if path not in _MASK_PATHS:
            raise errors.InvalidArgument(
                "update_mask", f"{path!r} cannot be updated; updatable: {', '.join(UPDATABLE)}"
            )
        if path == "content":
            content = memory.content.strip()
            if not content:
                raise errors.InvalidArgument("memory.content", "must not be empty")
            if len(memory.content) > limits.MAX_CONTENT_CHARS:
                raise errors.InvalidArgument("memory.content", f"at most {limits.MAX_CONTENT_CHARS} characters")
            changes["content"] = content
        elif path == "importance":
            if not 0.0 <= memory.importance <= 1.0:
                raise errors.InvalidArgument("memory.importance", "must be between 0 and 1")
            changes["importance"] = memory.importance
        elif path == "status":
            if memory.status not in _STATUS_FROM_PB:
                raise errors.InvalidArgument("memory.status", "is not a memory status")
            changes["status"] = _STATUS_FROM_PB[memory.status]
        elif path == "metadata":
            changes["metadata"] = metadata_from_pb(dict(memory.metadata), "memory.metadata")
        elif path == "entities":
            changes["entities"] = entities_from_pb(memory.entities, "memory.entities")
        elif path == "valid_at":
            if not memory.HasField("valid_at"):
                raise errors.InvalidArgument("memory.valid_at", "is required when named in update_mask")
            changes["valid_at"] = from_timestamp(memory, "valid_at", "memory.valid_at")
    return changes, [_MASK_PATHS[path] for path in mask]


def threshold_from_pb(request: pb.RunConsolidationRequest, default: float) -> float:
    """The cosine threshold of a consolidation run: the request's, else the service's setting."""
    if not request.HasField("threshold"):
        return default
    value = request.threshold
    if not (math.isfinite(value) and limits.MIN_CONSOLIDATION_THRESHOLD <= value < 1.0):
        raise errors.InvalidArgument(
            "threshold", f"must be in [{limits.MIN_CONSOLIDATION_THRESHOLD}, 1): lower would fold distinct memories"
        )
    return value
