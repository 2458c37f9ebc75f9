"""Sessions and turns as plain values, and the rules of the transcript's text.

A turn's content is normalised before anything stores it: Unicode NFC (the same words always
compare and index the same), control characters removed except line breaks and tabs, surrounding
whitespace trimmed, at most ``MAX_CONTENT_CHARS`` characters. Ids are deterministic where a retry
must land once: a session started with a request id, a turn with an idempotency key.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from lore_runtime.errors import AlreadyExists, InvalidArgument

ROLES = ("user", "assistant", "system", "tool")
STATUSES = ("active", "ended")
END_REASONS = ("requested", "idle")
MAX_CONTENT_CHARS = 16_000
MAX_METADATA_ENTRIES = 32
MAX_METADATA_CHARS = 512
MAX_ID_CHARS = 128
MAX_SPEAKER_CHARS = 100
_NAMESPACE = uuid.UUID("8f0f6c1e-4d55-4c59-9a63-2f3c5b6d7e80")
_KEPT_CONTROLS = {"\n", "\t"}
MAX_TOOL_INTERACTIONS = 8
MAX_TOOL_TEXT_CHARS = 1_000
MAX_TOOL_RESULT_BYTES = 16_384
MAX_SALIENT_FIELDS = 16


@dataclass(frozen=True, slots=True)
class Scope:
    user_id: str = ""
    agent_id: str = ""
    team_id: str = ""


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    org_id: str
    scope: Scope
    status: str
    started_at: datetime
    last_active_at: datetime
    ended_at: datetime | None = None
    end_reason: str = ""
    turn_count: int = 0
    metadata: Mapping[str, str] = field(default_factory=dict)
    reflected_through: int = 0  # the last sequence reflection has read


@dataclass(frozen=True, slots=True)
class ToolInteraction:
    """A tool call made during a turn: what was asked, the structured result, a short summary.
    ``result`` is a JSON object; ``salient_fields`` are dotted paths into it."""

    tool_name: str
    intent: str = ""
    result: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""
    salient_fields: tuple[str, ...] = ()
    occurred_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Turn:
    id: str
    session_id: str
    sequence: int
    role: str
    content: str
    created_at: datetime
    metadata: Mapping[str, str] = field(default_factory=dict)
    idempotency_key: str = ""
    tool_interactions: tuple[ToolInteraction, ...] = ()
    source: str = "live"  # live (ProcessTurn) | import (ImportTurns)
    speaker: str = ""  # who said it, by name, when the caller said so

    def said_by_name(self) -> str:
        """The words as the turn's message memory keeps them: prefixed with the speaker's name when
        known ("Noor: …"), so a question naming the speaker finds them."""
        return f"{self.speaker}: {self.content}" if self.speaker else self.content


@dataclass(frozen=True, slots=True)
class TurnDraft:
    """A turn as a client sends it (lore.common.v1.Turn), not yet checked. ImportTurns reads its
    ``created_at`` (when it was said), ProcessTurn its tool interactions; each checks the rest."""

    role: str  # "" when the client left it unspecified
    content: str
    created_at: datetime | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)
    idempotency_key: str = ""
    tool_interactions: tuple[ToolInteraction, ...] = ()
    speaker: str = ""


@dataclass(frozen=True, slots=True)
class Appended:
    """What an append stored: every turn asked for (a replayed key gives the stored turn), how
    many were new, and whether the session took turns at all (it exists and has not ended)."""

    turns: list[Turn]
    created: int
    accepted: bool = True


def automatic_key(role: str, created_at: datetime, content: str) -> str:
    """The idempotency key of an imported turn that came without one: the same turn said at the
    same time by the same role is the same turn, so a re-import writes nothing twice."""
    digest = hashlib.sha256(f"{role}\x00{created_at.isoformat()}\x00{content}".encode()).hexdigest()
    return f"auto:{digest[:40]}"


def normalise_content(text: str, field_name: str = "turn.content") -> str:
    if len(text) > MAX_CONTENT_CHARS:  # the text as sent, as the API document counts it
        raise InvalidArgument(field_name, f"at most {MAX_CONTENT_CHARS} characters")
    cleaned = "".join(
        char
        for char in unicodedata.normalize("NFC", text)
        if char in _KEPT_CONTROLS or unicodedata.category(char) not in ("Cc", "Cf", "Cs")
    ).strip()
    if not cleaned:
        raise InvalidArgument(field_name, "must not be empty")
    if len(cleaned) > MAX_CONTENT_CHARS:
        raise InvalidArgument(field_name, f"at most {MAX_CONTENT_CHARS} characters")
    return cleaned


def speaker_name(value: str, field_name: str) -> str:
    """A speaker's name: one line of at most ``MAX_SPEAKER_CHARS`` characters, trimmed ("" for none)."""
    name = unicodedata.normalize("NFC", value).strip()
    if len(name) > MAX_SPEAKER_CHARS:
        raise InvalidArgument(field_name, f"at most {MAX_SPEAKER_CHARS} characters")
    if any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in name):
        raise InvalidArgument(field_name, "must be one line without control characters")
    return name


def bounded_id(value: str, field_name: str) -> str:
    if len(value) > MAX_ID_CHARS:
        raise InvalidArgument(field_name, f"at most {MAX_ID_CHARS} characters")
    if any(unicodedata.category(char) == "Cc" for char in value):
        raise InvalidArgument(field_name, "must not contain control characters")
    return value.strip()


def validate_metadata(metadata: Mapping[str, str], field_name: str = "metadata") -> dict[str, str]:
    if len(metadata) > MAX_METADATA_ENTRIES:
        raise InvalidArgument(field_name, f"at most {MAX_METADATA_ENTRIES} entries")
    for key, value in metadata.items():
        if not key or len(key) > 64 or len(value) > MAX_METADATA_CHARS:
            raise InvalidArgument(
                f"{field_name}.{key[:64]}", f"keys 1..64 characters, values at most {MAX_METADATA_CHARS}"
            )
    return dict(metadata)


def repeats(given: Turn, stored: Turn, *, timed: bool = False) -> bool:
    """Whether ``given`` is the turn ``stored`` already holds under its idempotency key: the same
    role, words, speaker, metadata and tool interactions (and time, when ``timed``: an import that
    said when). A key replays its first turn; another turn under it is refused (``key_reused``)."""
    return (
        given.role == stored.role
        and given.content == stored.content
        and given.speaker == stored.speaker
        and dict(given.metadata) == dict(stored.metadata)
        and given.tool_interactions == stored.tool_interactions
        and (not timed or given.created_at == stored.created_at)
    )


def key_reused(field_name: str, stored: Turn) -> AlreadyExists:
    return AlreadyExists(
        f"{field_name}: this key already stored turn {stored.id} with another role, content, speaker, metadata, "
        "tool interactions or time; a key replays its first turn and never overwrites it (use a new key)",
        reason="IDEMPOTENCY_KEY_REUSED",
        metadata={"field": field_name, "id": stored.id},
    )


def requester_of(principal: str, user_id: str) -> str:
    """Whose request ids a request id is among: the caller's principal and the user its credential
    is pinned to ("" when org-wide), as a digest. Two callers' equal request ids are two requests."""
    return hashlib.sha256(f"{principal}\x00{user_id}".encode()).hexdigest()[:32]


def session_id_for(org_id: str, request_id: str, requester: str = "") -> str:
    """A new random id, or the same id for every retry of one request by one requester."""
    if not request_id:
        return str(uuid.uuid4())
    name = f"session\x00{org_id}\x00{request_id}" + (f"\x00{requester}" if requester else "")
    return str(uuid.uuid5(_NAMESPACE, name))


def turn_id_for(session_id: str, idempotency_key: str) -> str:
    return (
        str(uuid.uuid5(_NAMESPACE, f"turn\x00{session_id}\x00{idempotency_key}"))
        if idempotency_key
        else str(uuid.uuid4())
    )


def validate_tool_interactions(
    tools: tuple[ToolInteraction, ...], field_name: str = "turn.tool_interactions"
) -> tuple[ToolInteraction, ...]:
    """Bounded tool interactions: a name, short texts, a JSON result of at most 16 KiB."""
    if len(tools) > MAX_TOOL_INTERACTIONS:
        raise InvalidArgument(field_name, f"at most {MAX_TOOL_INTERACTIONS} per turn")
    for index, tool in enumerate(tools):
        where = f"{field_name}[{index}]"
        if not tool.tool_name.strip() or len(tool.tool_name) > 64:
            raise InvalidArgument(f"{where}.tool_name", "1..64 characters")
        for name in ("intent", "summary"):
            if len(getattr(tool, name)) > MAX_TOOL_TEXT_CHARS:
                raise InvalidArgument(f"{where}.{name}", f"at most {MAX_TOOL_TEXT_CHARS} characters")
        if len(json.dumps(dict(tool.result), default=str)) > MAX_TOOL_RESULT_BYTES:
            raise InvalidArgument(f"{where}.result", f"at most {MAX_TOOL_RESULT_BYTES} bytes of JSON")
        if len(tool.salient_fields) > MAX_SALIENT_FIELDS or any(len(path) > 128 for path in tool.salient_fields):
            raise InvalidArgument(f"{where}.salient_fields", f"at most {MAX_SALIENT_FIELDS} paths of 128 characters")
    return tools
