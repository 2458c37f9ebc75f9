"""What callers send: input dataclasses and the mapping to the proto3 JSON of ARCHITECTURE.md §6.

Enum arguments take the API's full names (``"MEMORY_TYPE_FACT"``) or short forms (``"fact"``,
``"FACT"``, ``"tool-interaction"``), mapped by ``enum_name``. Timestamps take a ``datetime``
(naive means UTC) or an RFC 3339 string. A scope is a ``Scope``, a mapping (``{"userId": …}`` or
``{"user_id": …}``) or a plain string, read as the user id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from lore_client.models import Scope

ScopeLike = Scope | Mapping[str, str] | str
TimeLike = datetime | str

MEMORY_TYPE = "MEMORY_TYPE"
MEMORY_STATUS = "MEMORY_STATUS"
MEMORY_ORDER = "MEMORY_ORDER"
TURN_ROLE = "TURN_ROLE"
SESSION_STATUS = "SESSION_STATUS"
OBSERVATION_KIND = "OBSERVATION_KIND"
SUBJECT_TYPE = "SUBJECT_TYPE"
OBSERVATION_STATUS = "OBSERVATION_STATUS"
EVIDENCE_STANCE = "EVIDENCE_STANCE"
SOURCE_TYPE = "SOURCE_TYPE"
SCOPE_MATCH = "SCOPE_MATCH"

_SCOPE_KEYS = {"userId": "userId", "user_id": "userId", "agentId": "agentId", "agent_id": "agentId"}
_SCOPE_KEYS |= {"teamId": "teamId", "team_id": "teamId"}


def enum_name(prefix: str, value: str) -> str:
    """``enum_name("MEMORY_TYPE", "fact") == "MEMORY_TYPE_FACT"``; a full name passes unchanged.
    Unknown names are not refused here: the gateway answers 400 naming the field."""
    name = value.strip().upper().replace("-", "_").replace(" ", "_")
    return name if name.startswith(prefix + "_") else f"{prefix}_{name}"


def enum_names(prefix: str, values: str | Sequence[str] | None) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    return [enum_name(prefix, value) for value in values]


def scope_json(scope: ScopeLike | None) -> dict[str, str]:
    if scope is None:
        return {}
    if isinstance(scope, Scope):
        return scope.to_json()
    if isinstance(scope, str):
        return {"userId": scope}
    document = {}
    for key, value in scope.items():
        if key not in _SCOPE_KEYS:
            raise ValueError(f"scope: unknown key {key!r} (userId, agentId, teamId)")
        if value:
            document[_SCOPE_KEYS[key]] = str(value)
    return document


def time_json(value: TimeLike | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def compact(document: Mapping[str, Any]) -> dict[str, Any]:
    """Drop fields left unset (``None``, empty strings, lists and maps): the proto3 defaults."""
    return {
        key: value
        for key, value in document.items()
        if value is not None and value != "" and value != [] and value != {}
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class NewMemory:
    """One memory for ``remember``. ``idempotency_key`` makes a retried write land once;
    ``session_id`` names the conversation a ``message`` was said in and ``speaker`` who said it
    (its provenance): Recall lifts the messages said next to a hit, in the session where the
    question landed, and those of the one speaker a question names."""

    content: str
    memory_type: str = "fact"
    scope: ScopeLike | None = None
    importance: float | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)
    valid_at: TimeLike | None = None
    idempotency_key: str = ""
    entities: Sequence[str] = ()
    session_id: str = ""
    speaker: str = ""

    def to_json(self, default_scope: ScopeLike | None = None) -> dict[str, Any]:
        return compact(
            {
                "content": self.content,
                "memoryType": enum_name(MEMORY_TYPE, self.memory_type),
                "scope": scope_json(self.scope if self.scope is not None else default_scope),
                "importance": self.importance,
                "metadata": dict(self.metadata),
                "validAt": time_json(self.valid_at),
                "idempotencyKey": self.idempotency_key,
                "entities": list(self.entities),
                "provenance": compact({"sessionId": self.session_id, "speaker": self.speaker}),
            }
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class NewTurn:
    """One historical turn for ``import_turns`` (``created_at``: when it was said; ``speaker``: who
    said it, by name, when known — a question naming them then finds the turn)."""

    content: str
    role: str = "user"
    created_at: TimeLike | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)
    idempotency_key: str = ""
    speaker: str = ""

    def to_json(self) -> dict[str, Any]:
        return compact(
            {
                "role": enum_name(TURN_ROLE, self.role),
                "content": self.content,
                "createdAt": time_json(self.created_at),
                "metadata": dict(self.metadata),
                "idempotencyKey": self.idempotency_key,
                "speaker": self.speaker,
            }
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class NewEvidence:
    """Evidence for ``observe`` / ``contradict``: where a belief comes from."""

    stance: str = "support"
    source_type: str = "message"
    source_id: str = ""
    excerpt: str = ""
    weight: float | None = None
    observed_at: TimeLike | None = None

    def to_json(self) -> dict[str, Any]:
        return compact(
            {
                "stance": enum_name(EVIDENCE_STANCE, self.stance),
                "weight": self.weight,
                "sourceType": enum_name(SOURCE_TYPE, self.source_type),
                "sourceId": self.source_id,
                "excerpt": self.excerpt,
                "observedAt": time_json(self.observed_at),
            }
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class NewHypothesisEvidence:
    """Evidence for an engagement hypothesis (a statement, not a source id)."""

    statement: str
    stance: str = "support"
    weight: float | None = None
    source: str = ""
    observed_at: TimeLike | None = None

    def to_json(self) -> dict[str, Any]:
        return compact(
            {
                "statement": self.statement,
                "stance": enum_name(EVIDENCE_STANCE, self.stance),
                "weight": self.weight,
                "source": self.source,
                "observedAt": time_json(self.observed_at),
            }
        )
