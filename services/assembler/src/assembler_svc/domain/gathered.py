"""What the fan-out brings back from the memory and observations services, as plain values.

The adapters translate the services' messages into these; ``candidates.py`` turns them into
``Candidate``s. Nothing here knows a transport.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from lore_runtime.visibility import context_shows

from assembler_svc.domain.tool_results import ToolResult


@dataclass(frozen=True, slots=True)
class Scope:
    """Whose memory: any subset of user, agent and team (the org comes from the credential)."""

    user_id: str = ""
    agent_id: str = ""
    team_id: str = ""

    def shows(self, record: Scope) -> bool:
        """Whether a context for this scope may show a record of scope ``record`` — the context
        match (``lore.common.v1.SCOPE_MATCH_CONTEXT``, ARCHITECTURE.md §2): the record's user is
        this user or none (none only, when this scope names no user), its team likewise, and its
        agent this agent or none (any agent, when this scope names none). Another user's record
        never shows; the org's shared records (no user) show in every user's context."""
        return context_shows(self, record)

    def engages(self, engagement_agents: Collection[str]) -> bool:
        """Whether a context for this scope shows engagement state: only for the agents listed in
        ``LORE_ENGAGEMENT_AGENTS`` (docs/engagement.md); a scope without an agent never does."""
        return bool(self.agent_id) and self.agent_id in engagement_agents


@dataclass(frozen=True, slots=True)
class SessionState:
    """The parts of a session's working memory the context cites."""

    summary: str = ""
    plan: str = ""
    pending: tuple[str, ...] = ()
    mood: str = ""
    mood_valence: float = 0.0
    last_tool_result: ToolResult | None = None
    fingerprint: str = ""
    # The transcript ids of the turns working memory holds (the conversation the caller has).
    recent_turn_ids: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class RecalledMemory:
    id: str
    content: str
    memory_type: str  # lower case, without prefix: "fact", "preference", "message", …
    similarity: float
    salience: float
    importance: float
    valid_at: datetime | None = None
    vector: tuple[float, ...] | None = None
    entities: tuple[str, ...] = ()
    metadata: Mapping[str, str] = field(default_factory=dict)
    # Provenance: the session and the turns the memory was learnt from; a message's speaker by name
    # when the turn named one.
    session_id: str = ""
    turn_ids: tuple[str, ...] = ()
    speaker: str = ""

    @property
    def role(self) -> str:
        """A message's turn role ("user", "assistant") as the agent keeps it in the metadata; "" unknown."""
        return self.metadata.get("role", "").strip().lower()


@dataclass(frozen=True, slots=True)
class QueryVector:
    """The message's embedding as the memory service made it, with the model that made it: the
    belief search reuses it instead of embedding the same text again."""

    values: tuple[float, ...]
    model: str


@dataclass(frozen=True, slots=True)
class Recalled:
    memories: list[RecalledMemory]
    query_vector: QueryVector | None = None


@dataclass(frozen=True, slots=True)
class EpisodeDigest:
    id: str
    summary: str
    conversation_id: str
    ended_at: datetime | None
    salience: float
    importance: float
    outcomes: tuple[str, ...] = ()  # "decision: …", seed 001's outcomes and decisions
    similarity: float = 0.0  # to the message, when the episodes were searched by it


@dataclass(frozen=True, slots=True)
class ThreadDigest:
    episode_id: str
    conversation_id: str
    topic: str
    context: str
    ended_at: datetime | None


@dataclass(frozen=True, slots=True)
class Belief:
    """An active observation; ``similarity`` is 0 when it was listed rather than searched."""

    id: str
    summary: str
    kind: str  # lower case, without prefix: "operator_preference", "world_fact", …
    confidence: float
    freshness: float
    similarity: float = 0.0
    updated_at: datetime | None = None
    # Seed 004: how many sources back it and when one last did; about the scope's user or not.
    sources: int = 0
    last_supported_at: datetime | None = None
    about_user: bool = False
    vector: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True)
class Hypothesis:
    id: str
    statement: str
    confidence: float


@dataclass(frozen=True, slots=True)
class Unknown:
    id: str
    question: str
    why_it_matters: str = ""


@dataclass(frozen=True, slots=True)
class Finding:
    id: str
    statement: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class EngagementDigest:
    """The org's engagement state; ``first_session`` when the org has none yet. Findings newest first."""

    week_number: int = 1
    hypotheses: tuple[Hypothesis, ...] = ()
    unknowns: tuple[Unknown, ...] = ()
    first_session: bool = True
    findings: tuple[Finding, ...] = ()
