"""Observations and their evidence (ARCHITECTURE.md §4), as plain values."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from lore_runtime.visibility import context_shows

KINDS = ("operator_preference", "project_state", "world_fact", "self_model", "relationship_fact", "tooling_state")
SUBJECT_TYPES = ("entity", "project", "tool", "agent", "global")
STATUSES = ("active", "stale", "superseded", "invalidated")
STANCES = ("support", "contradict", "context")
SOURCE_TYPES = ("memory_item", "message", "episode", "entity")
# A current belief is active or stale: one per (org, agent, user, team, canonical key).
CURRENT_STATUSES = ("active", "stale")

# How long a belief of each kind stays fresh without new support (its revalidation cadence).
REVALIDATION_CADENCE: dict[str, timedelta] = {
    "operator_preference": timedelta(days=30),
    "project_state": timedelta(days=7),
    "world_fact": timedelta(days=90),
    "self_model": timedelta(days=14),
    "relationship_fact": timedelta(days=60),
    "tooling_state": timedelta(days=3),
}


@dataclass(frozen=True, slots=True)
class ConfidenceComponents:
    source_count: int = 0
    source_diversity: float = 0.0
    support_weight: float = 0.0
    contradiction_weight: float = 0.0
    recency_weight: float = 0.0
    operator_confirmed_boost: float = 0.0


@dataclass(frozen=True, slots=True)
class EvidenceDraft:
    stance: str
    weight: float
    source_type: str
    source_id: str
    excerpt: str
    observed_at: datetime
    operator_confirmed: bool = False


@dataclass(frozen=True, slots=True)
class Evidence:
    id: str
    observation_id: str
    stance: str
    weight: float
    source_type: str
    source_id: str
    excerpt: str
    observed_at: datetime
    operator_confirmed: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class BeliefScope:
    """Whose belief it is: what the agent believes for a user (and team); no user is the org's."""

    agent_id: str = ""
    user_id: str = ""
    team_id: str = ""

    def shows(self, belief: BeliefScope) -> bool:
        """Whether a context for this scope may show a belief of scope ``belief`` (ARCHITECTURE.md §2):
        its user is this user or none (none only, when this scope names no user), its team likewise,
        its agent this agent or none (any agent, when this scope names none)."""
        return context_shows(self, belief)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A belief as an extractor or client proposes it, already validated."""

    kind: str
    subject_type: str
    subject_id: str
    slot: str
    summary: str
    detail: str
    tags: tuple[str, ...]
    evidence: tuple[EvidenceDraft, ...]


@dataclass(frozen=True, slots=True)
class Observation:
    id: str
    org_id: str
    agent_id: str
    kind: str
    subject_type: str
    subject_id: str
    slot: str
    canonical_key: str
    summary: str
    detail: str
    tags: tuple[str, ...]
    confidence: float
    components: ConfidenceComponents
    freshness: float
    last_supported_at: datetime | None
    revalidation_due_at: datetime
    status: str
    supersedes_observation_id: str | None
    created_at: datetime
    updated_at: datetime
    evidence: tuple[Evidence, ...] = field(default=())
    user_id: str = ""
    team_id: str = ""
    # Recorded before beliefs had a scope and not attributable: never shown in a context.
    unattributed: bool = False

    @property
    def scope(self) -> BeliefScope:
        return BeliefScope(self.agent_id, self.user_id, self.team_id)
