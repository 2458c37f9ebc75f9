"""Working memory per session and session leases: one async function per use case.

Validation happens here, before a store is touched, and names the offending field in its
proto path form (``turn.content``, ``working_memory.summary``, ``update_mask``), so the
gateway can point at it.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta

from lore_runtime import errors
from lore_runtime.clock import Clock

from memory_svc.domain import working_memory as wm
from memory_svc.domain.working_memory import (
    EmotionReading,
    PendingSlot,
    Plan,
    SessionLease,
    ToolResult,
    Turn,
    WorkingMemory,
)
from memory_svc.usecases.working_memory_ports import SessionLeases, TurnsRead, WorkingMemoryStore


def _text(value: str, field: str, limit: int, *, required: bool = False) -> None:
    if required and not value.strip():
        raise errors.InvalidArgument(field, "is required")
    if len(value) > limit:
        raise errors.InvalidArgument(field, f"at most {limit} characters")


def validate_session_id(session_id: str, field: str = "session_id") -> None:
    _text(session_id, field, wm.MAX_SESSION_ID_CHARS, required=True)
    if session_id != session_id.strip() or not session_id.isprintable():
        raise errors.InvalidArgument(field, "must be printable and not start or end with whitespace")


def _metadata(values: dict[str, str], field: str) -> None:
    if len(values) > wm.MAX_METADATA_ENTRIES:
        raise errors.InvalidArgument(field, f"at most {wm.MAX_METADATA_ENTRIES} entries")
    for key, value in values.items():
        if not key or len(key) > wm.MAX_METADATA_KEY_CHARS:
            raise errors.InvalidArgument(field, f"keys must have 1 to {wm.MAX_METADATA_KEY_CHARS} characters")
        _text(value, f"{field}[{key}]", wm.MAX_METADATA_VALUE_CHARS)


def _tool_result(tool: ToolResult, field: str) -> None:
    _text(tool.tool_name, f"{field}.tool_name", wm.MAX_TOOL_NAME_CHARS, required=True)
    _text(tool.intent, f"{field}.intent", wm.MAX_TOOL_TEXT_CHARS)
    _text(tool.summary, f"{field}.summary", wm.MAX_TOOL_TEXT_CHARS)
    if len(tool.salient_fields) > wm.MAX_SALIENT_FIELDS:
        raise errors.InvalidArgument(f"{field}.salient_fields", f"at most {wm.MAX_SALIENT_FIELDS} paths")
    for index, path in enumerate(tool.salient_fields):
        _text(path, f"{field}.salient_fields[{index}]", wm.MAX_TOOL_NAME_CHARS, required=True)
    try:
        size = len(json.dumps(tool.result, separators=(",", ":"), allow_nan=False).encode())
    except (TypeError, ValueError):
        raise errors.InvalidArgument(f"{field}.result", "must be JSON (finite numbers only)") from None
    if size > wm.MAX_TOOL_RESULT_BYTES:
        raise errors.InvalidArgument(f"{field}.result", f"at most {wm.MAX_TOOL_RESULT_BYTES} bytes as JSON")


def validate_turn(turn: Turn, field: str = "turn") -> None:
    if turn.role is None:
        raise errors.InvalidArgument(f"{field}.role", "must be set")
    _text(turn.content, f"{field}.content", wm.MAX_TURN_CONTENT_CHARS, required=True)
    _text(turn.idempotency_key, f"{field}.idempotency_key", wm.MAX_IDEMPOTENCY_KEY_CHARS)
    _metadata(turn.metadata, f"{field}.metadata")
    if len(turn.tool_interactions) > wm.MAX_TOOL_INTERACTIONS:
        raise errors.InvalidArgument(f"{field}.tool_interactions", f"at most {wm.MAX_TOOL_INTERACTIONS}")
    for index, tool in enumerate(turn.tool_interactions):
        _tool_result(tool, f"{field}.tool_interactions[{index}]")


def _plan(plan: Plan | None, field: str) -> None:
    if plan is None:
        return
    for name in ("goal", "progress", "next_step"):
        _text(getattr(plan, name), f"{field}.{name}", wm.MAX_PLAN_FIELD_CHARS)


def _emotions(readings: Sequence[EmotionReading], field: str) -> None:
    for index, reading in enumerate(readings):
        path = f"{field}[{index}]"
        _text(reading.emotion, f"{path}.emotion", wm.MAX_EMOTION_LABEL_CHARS, required=True)
        if not -1.0 <= reading.valence <= 1.0:
            raise errors.InvalidArgument(f"{path}.valence", "must be between -1 and 1")
        if not 0.0 <= reading.intensity <= 1.0:
            raise errors.InvalidArgument(f"{path}.intensity", "must be between 0 and 1")
        _text(reading.turn_id, f"{path}.turn_id", wm.MAX_SESSION_ID_CHARS)


def _slots(slots: Sequence[PendingSlot], field: str) -> None:
    if len(slots) > wm.MAX_PENDING_SLOTS:
        raise errors.InvalidArgument(field, f"at most {wm.MAX_PENDING_SLOTS} slots")
    for index, slot in enumerate(slots):
        path = f"{field}[{index}]"
        _text(slot.name, f"{path}.name", wm.MAX_SLOT_NAME_CHARS, required=True)
        _text(slot.tool_name, f"{path}.tool_name", wm.MAX_TOOL_NAME_CHARS)
        _text(slot.prompt, f"{path}.prompt", wm.MAX_SLOT_PROMPT_CHARS)


def validate_mask(paths: Sequence[str], field: str = "update_mask") -> list[str]:
    """The distinct mask paths, in order; refuses an empty mask and any path not in UPDATABLE_PATHS."""
    if not paths:
        raise errors.InvalidArgument(field, f"name at least one path of: {', '.join(wm.UPDATABLE_PATHS)}")
    for path in paths:
        if path not in wm.UPDATABLE_PATHS:
            raise errors.InvalidArgument(
                field, f"unknown or read-only path {path!r}; updatable: {', '.join(wm.UPDATABLE_PATHS)}"
            )
    return list(dict.fromkeys(paths))


def validate_changes(changes: WorkingMemory, paths: Sequence[str], field: str = "working_memory") -> None:
    """Validate only what the mask names: fields outside it are ignored, as AIP-134 asks."""
    if "summary" in paths:
        _text(changes.summary, f"{field}.summary", wm.MAX_SUMMARY_CHARS)
    if "active_plan" in paths:
        _plan(changes.active_plan, f"{field}.active_plan")
    if "emotion_trajectory" in paths:
        _emotions(changes.emotion_trajectory, f"{field}.emotion_trajectory")
    if "pending_slots" in paths:
        _slots(changes.pending_slots, f"{field}.pending_slots")
    if "last_tool_result" in paths and changes.last_tool_result is not None:
        _tool_result(changes.last_tool_result, f"{field}.last_tool_result")
    if "context_fingerprint" in paths:
        _text(changes.context_fingerprint, f"{field}.context_fingerprint", wm.MAX_FINGERPRINT_CHARS)


def _ms(value: int, field: str, default: timedelta, low: timedelta, high: timedelta) -> timedelta:
    if value == 0:
        return default
    span = timedelta(milliseconds=value)
    if not low <= span <= high:
        low_ms, high_ms = low // timedelta(milliseconds=1), high // timedelta(milliseconds=1)
        raise errors.InvalidArgument(field, f"must be 0 (default) or between {low_ms} and {high_ms} ms")
    return span


# GetWorkingMemory's read mask (AIP-161): WorkingMemory's fields, and two fields of each recent turn.
READABLE_PATHS: tuple[str, ...] = tuple(field.name for field in dataclasses.fields(WorkingMemory))
TURN_KEY_PATHS = {"recent_turns.*.id": "id", "recent_turns.*.idempotency_key": "idempotency_key"}
_EMPTY = WorkingMemory(session_id="")


@dataclasses.dataclass(frozen=True, slots=True)
class LeaseToAcquire:
    """The lease AppendTurn takes before appending (AcquireSessionLease's terms; 0 ms TTL: the default)."""

    holder: str
    ttl_ms: int = 0
    wait_ms: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class ReadMask:
    """A validated read mask: the fields kept (None: all of them) and how the turns are read."""

    fields: frozenset[str] | None = None
    turns: TurnsRead = TurnsRead.ALL
    turn_keys: frozenset[str] = frozenset()

    def apply(self, memory: WorkingMemory) -> WorkingMemory:
        if self.fields is None:
            return memory
        cleared = {
            name: getattr(_EMPTY, name)
            for name in READABLE_PATHS
            if name not in self.fields and name not in ("session_id", "recent_turns")
        }
        if self.turns is TurnsRead.KEYS:
            cleared["recent_turns"] = tuple(
                Turn(role=None, content="", **{name: getattr(turn, name) for name in self.turn_keys})
                for turn in memory.recent_turns
            )
        elif self.turns is TurnsRead.NONE:
            cleared["recent_turns"] = ()
        return dataclasses.replace(memory, **cleared)


def validate_read_mask(paths: Sequence[str], field: str = "read_mask") -> ReadMask:
    """Empty: everything. Otherwise each path is a field of WorkingMemory or one of TURN_KEY_PATHS."""
    if not paths:
        return ReadMask()
    for path in paths:
        if path not in READABLE_PATHS and path not in TURN_KEY_PATHS:
            readable = ", ".join((*READABLE_PATHS, *TURN_KEY_PATHS))
            raise errors.InvalidArgument(field, f"unknown path {path!r}; readable: {readable}")
    if "recent_turns" in paths:
        return ReadMask(fields=frozenset(paths), turns=TurnsRead.ALL)
    keys = frozenset(TURN_KEY_PATHS[path] for path in paths if path in TURN_KEY_PATHS)
    return ReadMask(fields=frozenset(paths), turns=TurnsRead.KEYS if keys else TurnsRead.NONE, turn_keys=keys)


async def get_working_memory(
    org_id: str, session_id: str, *, store: WorkingMemoryStore, read_mask: Sequence[str] = ()
) -> WorkingMemory:
    """The session's working memory; an empty one when the session has none (never NOT_FOUND).
    ``read_mask``: the paths to return (empty: all); the store reads no turn the mask leaves out."""
    validate_session_id(session_id)
    mask = validate_read_mask(read_mask)
    memory = await store.get(org_id, session_id, turns=mask.turns) or WorkingMemory(session_id=session_id)
    return mask.apply(memory)


def validate_fencing_token(token: int | None) -> None:
    if token is not None and token <= 0:
        raise errors.InvalidArgument("fencing_token", "must be a token issued by AcquireSessionLease (positive)")


def _stamped(turn: Turn, session_id: str, now: datetime) -> Turn:
    """The turn as working memory keeps it: its own id, the session, said now unless it says when."""
    return dataclasses.replace(
        turn, id=str(uuid.uuid4()), session_id=session_id, sequence=0, created_at=turn.created_at or now
    )


async def append_turn(
    org_id: str,
    session_id: str,
    turn: Turn,
    *,
    store: WorkingMemoryStore,
    clock: Clock,
    max_turns: int = wm.DEFAULT_MAX_TURNS,
    ttl: timedelta = wm.DEFAULT_TTL,
    fencing_token: int | None = None,
    read_mask: Sequence[str] = (),
) -> WorkingMemory:
    """``read_mask``: what of the working memory after the write to return, as for ``get_working_memory``."""
    validate_session_id(session_id)
    validate_fencing_token(fencing_token)
    validate_turn(turn)
    mask = validate_read_mask(read_mask)
    now = clock.now()
    written = await store.append_turn(
        org_id,
        session_id,
        _stamped(turn, session_id, now),
        max_turns=max_turns,
        ttl=ttl,
        now=now,
        fencing_token=fencing_token,
        turns=mask.turns,
    )
    return mask.apply(written)


async def acquire_lease_and_append_turn(
    org_id: str,
    session_id: str,
    turn: Turn,
    lease: LeaseToAcquire,
    *,
    leases: SessionLeases,
    clock: Clock,
    max_turns: int = wm.DEFAULT_MAX_TURNS,
    ttl: timedelta = wm.DEFAULT_TTL,
    fencing_token: int | None = None,
    read_mask: Sequence[str] = (),
) -> tuple[SessionLease, WorkingMemory]:
    """AppendTurn with ``acquire_lease``: the session's lease, then the turn appended under it, in one
    atomic step (nothing is written when the lease stays busy). Everything is validated first."""
    validate_session_id(session_id)
    if fencing_token is not None:
        raise errors.InvalidArgument(
            "fencing_token", "must be unset with acquire_lease: the append is made under the lease it takes"
        )
    lease_ttl, wait = _lease_terms(lease.holder, lease.ttl_ms, lease.wait_ms, "acquire_lease.")
    validate_turn(turn)
    mask = validate_read_mask(read_mask)
    now = clock.now()
    granted, written = await leases.acquire_and_append(
        org_id,
        session_id,
        lease.holder,
        lease_ttl,
        wait,
        _stamped(turn, session_id, now),
        max_turns=max_turns,
        memory_ttl=ttl,
        now=now,
        turns=mask.turns,
    )
    return granted, mask.apply(written)


async def update_working_memory(
    org_id: str,
    session_id: str,
    changes: WorkingMemory,
    paths: Sequence[str],
    *,
    store: WorkingMemoryStore,
    clock: Clock,
    ttl: timedelta = wm.DEFAULT_TTL,
    fencing_token: int | None = None,
) -> WorkingMemory:
    validate_session_id(session_id)
    validate_fencing_token(fencing_token)
    distinct = validate_mask(paths)
    validate_changes(changes, distinct)
    if "emotion_trajectory" in distinct:
        changes = dataclasses.replace(changes, emotion_trajectory=tuple(changes.emotion_trajectory)[-wm.MAX_EMOTIONS :])
    return await store.update(
        org_id, session_id, changes, distinct, ttl=ttl, now=clock.now(), fencing_token=fencing_token
    )


async def clear_working_memory(org_id: str, session_id: str, *, store: WorkingMemoryStore) -> None:
    validate_session_id(session_id)
    await store.clear(org_id, session_id)


async def acquire_session_lease(
    org_id: str, session_id: str, holder: str, ttl_ms: int, wait_ms: int, *, leases: SessionLeases
) -> SessionLease:
    validate_session_id(session_id)
    ttl, wait = _lease_terms(holder, ttl_ms, wait_ms)
    return await leases.acquire(org_id, session_id, holder, ttl, wait)


def _lease_terms(holder: str, ttl_ms: int, wait_ms: int, prefix: str = "") -> tuple[timedelta, timedelta]:
    """The lease's TTL and wait, validated; ``prefix`` is the fields' path ("acquire_lease." in AppendTurn)."""
    _text(holder, f"{prefix}holder", wm.MAX_HOLDER_CHARS, required=True)
    ttl = _ms(ttl_ms, f"{prefix}ttl_ms", wm.DEFAULT_LEASE_TTL, wm.MIN_LEASE_TTL, wm.MAX_LEASE_TTL)
    if not 0 <= wait_ms <= wm.MAX_LEASE_WAIT // timedelta(milliseconds=1):
        raise errors.InvalidArgument(
            f"{prefix}wait_ms", f"must be between 0 and {wm.MAX_LEASE_WAIT // timedelta(milliseconds=1)}"
        )
    return ttl, timedelta(milliseconds=wait_ms)


async def release_session_lease(
    org_id: str, session_id: str, holder: str, fencing_token: int, *, leases: SessionLeases
) -> bool:
    validate_session_id(session_id)
    _text(holder, "holder", wm.MAX_HOLDER_CHARS, required=True)
    if fencing_token <= 0:
        raise errors.InvalidArgument("fencing_token", "must be the positive token AcquireSessionLease returned")
    return await leases.release(org_id, session_id, holder, fencing_token)
