"""Working memory of one session, and the session lease. Pure: no I/O, no drivers.

Working memory is the short-lived, per-session scratchpad the assembler reads every turn:
the most recent turns (bounded), a rolling summary, the active plan, the emotion
trajectory (last five readings), tool slots still to fill, the last tool result, the turn
count and the fingerprint of the last assembled context. It expires after a TTL that
every write renews.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

# How many turns working memory keeps (the service setting may choose 1..MAX_TURNS_LIMIT).
DEFAULT_MAX_TURNS = 20
MAX_TURNS_LIMIT = 200
DEFAULT_TTL = timedelta(hours=24)
MIN_TTL = timedelta(minutes=1)
MAX_TTL = timedelta(days=30)

MAX_SESSION_ID_CHARS = 128
MAX_TURN_CONTENT_CHARS = 16_000
MAX_SUMMARY_CHARS = 16_000
MAX_PLAN_FIELD_CHARS = 2_000
MAX_EMOTIONS = 5
MAX_EMOTION_LABEL_CHARS = 64
MAX_PENDING_SLOTS = 32
MAX_SLOT_NAME_CHARS = 128
MAX_SLOT_PROMPT_CHARS = 2_000
MAX_TOOL_NAME_CHARS = 128
MAX_TOOL_TEXT_CHARS = 2_000
MAX_TOOL_RESULT_BYTES = 64 * 1024
MAX_SALIENT_FIELDS = 32
MAX_TOOL_INTERACTIONS = 16
MAX_FINGERPRINT_CHARS = 256
MAX_IDEMPOTENCY_KEY_CHARS = 256
MAX_METADATA_ENTRIES = 32
MAX_METADATA_KEY_CHARS = 64
MAX_METADATA_VALUE_CHARS = 1_024

# Session leases: ttl_ms 0 means the default; wait_ms 0 means "fail at once when busy".
DEFAULT_LEASE_TTL = timedelta(seconds=30)
MIN_LEASE_TTL = timedelta(milliseconds=10)
MAX_LEASE_TTL = timedelta(minutes=10)
MAX_LEASE_WAIT = timedelta(seconds=30)
MAX_HOLDER_CHARS = 128

# The paths of WorkingMemory an UpdateWorkingMemory mask may name. Recent turns and the turn
# count change only through AppendTurn; timestamps are the server's.
UPDATABLE_PATHS: tuple[str, ...] = (
    "summary",
    "active_plan",
    "emotion_trajectory",
    "pending_slots",
    "last_tool_result",
    "context_fingerprint",
)


class TurnRole(enum.StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


@dataclass(frozen=True, slots=True)
class Plan:
    goal: str = ""
    progress: str = ""
    next_step: str = ""


@dataclass(frozen=True, slots=True)
class EmotionReading:
    emotion: str
    valence: float = 0.0
    intensity: float = 0.0
    turn_id: str = ""
    observed_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class PendingSlot:
    name: str
    tool_name: str = ""
    prompt: str = ""


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A tool call and its structured result (``result`` is JSON-able: str, number, bool, None, list, dict)."""

    tool_name: str
    intent: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    summary: str = ""
    salient_fields: tuple[str, ...] = ()
    occurred_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of the conversation. ``id``, ``sequence`` and ``created_at`` (by default) are the server's."""

    role: TurnRole | None
    content: str
    id: str = ""
    session_id: str = ""
    sequence: int = 0
    created_at: datetime | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    idempotency_key: str = ""
    tool_interactions: tuple[ToolResult, ...] = ()


@dataclass(frozen=True, slots=True)
class WorkingMemory:
    session_id: str
    recent_turns: tuple[Turn, ...] = ()
    summary: str = ""
    active_plan: Plan | None = None
    emotion_trajectory: tuple[EmotionReading, ...] = ()
    pending_slots: tuple[PendingSlot, ...] = ()
    last_tool_result: ToolResult | None = None
    turn_count: int = 0
    context_fingerprint: str = ""
    updated_at: datetime | None = None
    expires_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class SessionLease:
    session_id: str
    holder: str
    fencing_token: int
    expires_at: datetime


def apply_mask(current: WorkingMemory, changes: WorkingMemory, paths: Sequence[str]) -> WorkingMemory:
    """``current`` with the fields named by ``paths`` (all in UPDATABLE_PATHS) taken from ``changes``."""
    values = {path: getattr(changes, path) for path in paths}
    if "emotion_trajectory" in values:
        values["emotion_trajectory"] = tuple(values["emotion_trajectory"])[-MAX_EMOTIONS:]
    return dataclasses.replace(current, **values)


def append(current: WorkingMemory, turn: Turn, max_turns: int) -> WorkingMemory:
    """``current`` with ``turn`` appended as the next in sequence, keeping the last ``max_turns``."""
    sequence = current.turn_count + 1
    numbered = dataclasses.replace(turn, sequence=sequence)
    return dataclasses.replace(
        current, recent_turns=(*current.recent_turns, numbered)[-max_turns:], turn_count=sequence
    )
