"""pb2 -> domain for ``lore org import``: exported memories and episodes back into stored records.

Unlike Remember and CreateEpisode, every stored field is taken as given (id, status, salience,
access count, timestamps, provenance): an import restores records, it does not create them.
Every record of a batch is validated before any is written; errors name the field in proto path
form (``memories[3].importance``), so the CLI can point at the line of the file.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from datetime import datetime

from google.protobuf.message import Message
from lore.common.v1 import provenance_pb2
from lore.memory.v1 import episode_service_pb2 as episode_pb
from lore.memory.v1 import memory_service_pb2 as pb
from lore_runtime import errors
from lore_runtime.proto_time import from_timestamp

from memory_svc.api import episode_convert
from memory_svc.api.memory_convert import memory_type_from_pb, metadata_from_pb, scope_from_pb, speaker_from_pb
from memory_svc.domain import limits
from memory_svc.domain.episode import Episode, draft_content
from memory_svc.domain.model import MemoryItem, MemoryStatus, Provenance

# Records per import call: the size of one line batch of `lore org import`.
MAX_IMPORT_BATCH = 500
MAX_PROVENANCE_IDS = 1_000

_STATUS_FROM_PB = {pb.MemoryStatus.Value(f"MEMORY_STATUS_{status.name}"): status for status in MemoryStatus}
_SOURCE_NAMES = {value: name for name, value in provenance_pb2.ProvenanceSource.items()}


def record_id(value: str, field: str) -> str:
    """A record id as stored: a canonical (lower-case, hyphenated) UUID."""
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        raise errors.InvalidArgument(field, "must be a UUID") from None
    if str(parsed) != value:
        raise errors.InvalidArgument(field, f"must be in canonical form ({parsed})")
    return value


def _required_time(message: Message, name: str, field: str) -> datetime:
    found = from_timestamp(message, name, f"{field}.{name}")
    if found is None:
        raise errors.InvalidArgument(f"{field}.{name}", "is required")
    return found


def _fraction(value: float, field: str) -> float:
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise errors.InvalidArgument(field, "must be between 0 and 1")
    return value


def _salience(value: float, field: str) -> float:
    if not (math.isfinite(value) and value >= 0.0):
        raise errors.InvalidArgument(field, "must be a non-negative number")
    return value


def _count(value: int, field: str) -> int:
    if value < 0:
        raise errors.InvalidArgument(field, "must not be negative")
    return value


def _ids(values: Sequence[str], field: str) -> tuple[str, ...]:
    if len(values) > MAX_PROVENANCE_IDS:
        raise errors.InvalidArgument(field, f"at most {MAX_PROVENANCE_IDS} ids")
    return tuple(values)


def _unique(ids: Sequence[str], field: str) -> None:
    seen: dict[str, int] = {}
    for position, value in enumerate(ids):
        if value in seen:
            raise errors.InvalidArgument(f"{field}[{position}].id", f"repeats {field}[{seen[value]}]")
        seen[value] = position


def _batch(size: int, field: str) -> None:
    if not size:
        raise errors.InvalidArgument(field, "at least one record is required")
    if size > MAX_IMPORT_BATCH:
        raise errors.InvalidArgument(field, f"at most {MAX_IMPORT_BATCH} records per call")


def memory_from_pb(memory: pb.Memory, org_id: str, field: str) -> MemoryItem:
    """An exported memory as the caller's org will store it."""
    if not memory.content.strip():
        raise errors.InvalidArgument(f"{field}.content", "must not be empty")
    if len(memory.content) > limits.MAX_CONTENT_CHARS:
        raise errors.InvalidArgument(f"{field}.content", f"at most {limits.MAX_CONTENT_CHARS} characters")
    if memory.status not in _STATUS_FROM_PB:
        names = ", ".join(pb.MemoryStatus.Name(value) for value in _STATUS_FROM_PB)
        raise errors.InvalidArgument(f"{field}.status", f"must be one of {names}")
    if len(memory.entities) > limits.MAX_ENTITIES:
        raise errors.InvalidArgument(f"{field}.entities", f"at most {limits.MAX_ENTITIES} entities")
    if memory.provenance.source not in _SOURCE_NAMES:
        raise errors.InvalidArgument(f"{field}.provenance.source", "is not a known provenance source")
    source = _SOURCE_NAMES[memory.provenance.source]
    provenance = memory.provenance
    consolidated_into = provenance.consolidated_into
    if consolidated_into:
        record_id(consolidated_into, f"{field}.provenance.consolidated_into")
    return MemoryItem(
        id=record_id(memory.id, f"{field}.id"),
        org_id=org_id,
        content=memory.content,
        memory_type=memory_type_from_pb(memory.memory_type, f"{field}.memory_type"),
        scope=scope_from_pb(memory.scope, f"{field}.scope"),
        importance=_fraction(memory.importance, f"{field}.importance"),
        status=_STATUS_FROM_PB[memory.status],
        metadata=metadata_from_pb(dict(memory.metadata), f"{field}.metadata"),
        provenance=Provenance(
            session_id=provenance.session_id,
            turn_ids=_ids(provenance.turn_ids, f"{field}.provenance.turn_ids"),
            source_type=""
            if source == "PROVENANCE_SOURCE_UNSPECIFIED"
            else source.removeprefix("PROVENANCE_SOURCE_").lower(),
            consolidated_into=consolidated_into,
            consolidated_from=tuple(
                record_id(value, f"{field}.provenance.consolidated_from[{position}]")
                for position, value in enumerate(_ids(provenance.consolidated_from, f"{field}.provenance"))
            ),
            session_ids=_ids(provenance.session_ids, f"{field}.provenance.session_ids"),
            speaker=speaker_from_pb(provenance.speaker, f"{field}.provenance.speaker"),
        ),
        entities=tuple(memory.entities),
        created_at=_required_time(memory, "created_at", field),
        valid_at=_required_time(memory, "valid_at", field),
        last_accessed_at=_required_time(memory, "last_accessed_at", field),
        access_count=_count(memory.access_count, f"{field}.access_count"),
        current_salience=_salience(memory.current_salience, f"{field}.current_salience"),
        updated_at=_update_time(memory, field),
    )


def _update_time(memory: pb.Memory, field: str) -> datetime | None:
    """The exported update time, kept when a write changed the memory after it was created (an
    export of a memory never changed says its creation time, or nothing)."""
    updated = from_timestamp(memory, "updated_at", f"{field}.updated_at")
    created = _required_time(memory, "created_at", field)
    return updated if updated is not None and updated > created else None


def memories_from_pb(request: pb.ImportMemoriesRequest, org_id: str) -> list[MemoryItem]:
    _batch(len(request.memories), "memories")
    items = [memory_from_pb(memory, org_id, f"memories[{index}]") for index, memory in enumerate(request.memories)]
    _unique([item.id for item in items], "memories")
    return items


def episode_from_pb(episode: episode_pb.Episode, org_id: str, field: str) -> Episode:
    """An exported episode as the caller's org will store it (the draft's limits, then every stored field)."""
    for name in ("started_at", "ended_at"):
        if not episode.HasField(name):
            raise errors.InvalidArgument(f"{field}.{name}", "is required")
    draft = episode_convert.draft_from_pb(episode, field)
    return Episode(
        id=record_id(episode.id, f"{field}.id"),
        org_id=org_id,
        **draft_content(draft),
        started_at=draft.started_at,  # type: ignore[arg-type]  # required above
        ended_at=draft.ended_at,  # type: ignore[arg-type]
        importance=_fraction(episode.importance, f"{field}.importance"),
        created_at=_required_time(episode, "created_at", field),
        last_accessed_at=_required_time(episode, "last_accessed_at", field),
        access_count=_count(episode.access_count, f"{field}.access_count"),
        current_salience=_salience(episode.current_salience, f"{field}.current_salience"),
        metadata=dict(draft.metadata),
    )


def episodes_from_pb(request: episode_pb.ImportEpisodesRequest, org_id: str) -> list[Episode]:
    _batch(len(request.episodes), "episodes")
    episodes = [episode_from_pb(item, org_id, f"episodes[{index}]") for index, item in enumerate(request.episodes)]
    _unique([episode.id for episode in episodes], "episodes")
    return episodes
