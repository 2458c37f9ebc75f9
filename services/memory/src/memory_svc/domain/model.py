"""The memory service's domain: memory items and their scope. Pure: no I/O, no drivers."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime

from lore_runtime.visibility import context_values


class MemoryType(enum.StrEnum):
    FACT = "fact"
    PREFERENCE = "preference"
    SKILL = "skill"
    INSIGHT = "insight"
    COMMITMENT = "commitment"
    OPINION = "opinion"
    DECISION = "decision"
    MESSAGE = "message"
    TOOL_INTERACTION = "tool_interaction"
    SESSION_SUMMARY = "session_summary"
    DAILY_DIGEST = "daily_digest"


class MemoryStatus(enum.StrEnum):
    ACTIVE = "active"
    WARM = "warm"
    CONSOLIDATED = "consolidated"
    ARCHIVED = "archived"
    SUPERSEDED = "superseded"
    COMPLETED = "completed"  # a commitment kept; only commitments complete


class ScopeMatch(enum.StrEnum):
    """How a read's scope selects records (``lore.common.v1.ScopeMatch``)."""

    # Records whose ids equal each id the scope sets; an unset id matches anything.
    BROWSE = "browse"
    # What a context for the scope may show (ARCHITECTURE.md §2): never another user's records.
    CONTEXT = "context"


@dataclass(frozen=True, slots=True)
class Scope:
    """Whose memory it is; an empty scope is memory shared by the whole org."""

    user_id: str = ""
    agent_id: str = ""
    team_id: str = ""

    def as_filter(self) -> dict[str, str]:
        """The scope fields that are set: a recall matches items that share all of them."""
        return {
            name: value
            for name, value in (("user_id", self.user_id), ("agent_id", self.agent_id), ("team_id", self.team_id))
            if value
        }

    def allowed_values(self, match: ScopeMatch = ScopeMatch.BROWSE) -> dict[str, tuple[str, ...]]:
        """Per scope field, the values a record's field (``""`` when unset) may hold for this scope,
        read with ``match``, to select the record; a field left out is unconstrained.

        BROWSE: each set id exactly (``as_filter``). CONTEXT: the scope's user or no user — only
        no user when the scope names none; the same for the team; the scope's agent or no agent
        when it names one, any agent when it does not.
        """
        if match is ScopeMatch.BROWSE:
            return {name: (value,) for name, value in self.as_filter().items()}
        return context_values(self)

    def selects(self, record: Scope, match: ScopeMatch = ScopeMatch.BROWSE) -> bool:
        """Whether a record of scope ``record`` is selected by this scope read with ``match``."""
        return all(getattr(record, name) in values for name, values in self.allowed_values(match).items())


@dataclass(frozen=True, slots=True)
class Provenance:
    session_id: str = ""
    turn_ids: tuple[str, ...] = ()
    source_type: str = ""
    consolidated_into: str = ""
    consolidated_from: tuple[str, ...] = ()
    session_ids: tuple[str, ...] = ()
    speaker: str = ""  # who said it (a message's speaker), when its writer knows


@dataclass(frozen=True, slots=True)
class MemoryItem:
    id: str
    org_id: str
    content: str
    memory_type: MemoryType
    scope: Scope
    importance: float
    status: MemoryStatus
    metadata: dict[str, str]
    provenance: Provenance
    entities: tuple[str, ...]
    created_at: datetime
    valid_at: datetime
    last_accessed_at: datetime
    access_count: int = 0
    current_salience: float = 1.0
    # What the keyed write that created the item asked for (domain.idempotency): a replay of the key
    # is compared with it, not with the item as later updates left it. "" for items written before.
    write_digest: str = ""
    # When a write last changed it (an update, an archive, a restatement folded in); None until one
    # did, and then ``created_at`` stands. Reads, decay and consolidation's salience do not move it.
    updated_at: datetime | None = None

    @property
    def changed_at(self) -> datetime:
        return self.updated_at or self.created_at


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """A memory as a client asks for it, validated, before it has an id or a vector."""

    content: str
    memory_type: MemoryType
    scope: Scope
    importance: float | None = None
    valid_at: datetime | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    idempotency_key: str = ""
    provenance: Provenance = Provenance()
    entities: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    item: MemoryItem
    score: float
    similarity: float
    salience: float
    lexical_score: float = 0.0
