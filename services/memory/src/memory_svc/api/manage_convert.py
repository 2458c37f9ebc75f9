"""pb2 -> arguments of the memory-management use cases, validated field by field."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC

from lore.memory.v1 import memory_service_pb2 as pb
from lore_runtime import errors

from memory_svc.api.convert import metadata_from_pb
from memory_svc.domain import limits
from memory_svc.domain.model import MemoryStatus
from memory_svc.usecases.manage_memories import UPDATABLE
from memory_svc.usecases.memory_ports import MemoryOrder

_STATUS_FROM_PB = {pb.MemoryStatus.Value(f"MEMORY_STATUS_{status.name}"): status for status in MemoryStatus}
_ORDER_FROM_PB = {
    pb.MEMORY_ORDER_UNSPECIFIED: MemoryOrder.NEWEST,
    pb.MEMORY_ORDER_NEWEST: MemoryOrder.NEWEST,
    pb.MEMORY_ORDER_SALIENCE: MemoryOrder.SALIENCE,
}
# Proto field mask paths → domain names (they coincide today; the map keeps the seam explicit).
_MASK_PATHS = {path: path for path in UPDATABLE}


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
            if len(memory.entities) > limits.MAX_ENTITIES:
                raise errors.InvalidArgument("memory.entities", f"at most {limits.MAX_ENTITIES} entities")
            changes["entities"] = tuple(dict.fromkeys(e.strip().lower() for e in memory.entities if e.strip()))
        elif path == "valid_at":
            if not memory.HasField("valid_at"):
                raise errors.InvalidArgument("memory.valid_at", "is required when named in update_mask")
            changes["valid_at"] = memory.valid_at.ToDatetime(tzinfo=UTC)
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
