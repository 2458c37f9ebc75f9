"""What reflection takes out of a conversation, as plain values, and the port that does it.

Two extractors implement ``Extractor``: the deterministic rule-based one (the default; no model
needed) and the OpenAI-compatible chat client, which falls back to the rules whenever the model
is absent, slow or answers something that does not validate. Reflection (``usecases``) turns
these values into Remember, Observe, working-memory and engagement calls; nothing here knows
about gRPC or stores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

# Long-term memory types reflection writes (a subset of the memory service's types).
MEMORY_KINDS = ("fact", "preference", "commitment", "opinion", "decision")
# Observation kinds (the observations service's ObservationKind, lower case, no prefix).
CLAIM_KINDS = (
    "operator_preference",
    "project_state",
    "world_fact",
    "self_model",
    "relationship_fact",
    "tooling_state",
)
# Whom a claim is about: the conversation's user, the agent itself, a named project or tool.
SUBJECT_TYPES = ("user", "agent", "project", "tool")
OWNERS = ("user", "assistant")
THREAD_STATUSES = ("open", "blocked", "resolved")


@dataclass(frozen=True, slots=True)
class Utterance:
    """One turn as extraction sees it."""

    role: str  # user | assistant | system | tool
    content: str
    turn_id: str = ""
    # When it was said: relative times in what it yields ("next Friday") are resolved against it.
    said_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class ExtractedMemory:
    """A memory worth keeping, phrased to stand alone (``"The user is vegetarian."``)."""

    kind: str  # one of MEMORY_KINDS
    content: str
    speaker: str  # who said it: user | assistant
    importance: float = 0.5  # 0..1
    entities: tuple[str, ...] = ()
    # Commitments: who promised, and by when as said ("Friday", "tomorrow"), else "".
    owner: str = ""
    deadline: str = ""


@dataclass(frozen=True, slots=True)
class ExtractedClaim:
    """Something the agent should now believe, for Observations.Observe.

    ``slot`` names the attribute (``diet``, ``database``); with the kind and the subject it makes
    the observation's canonical key, so a later claim on the same slot supports, contradicts or
    supersedes this one. ``summary`` states what is now true, a denial included ("The user is no
    longer vegetarian."); ``excerpt`` is the speaker's own words that support it.
    """

    kind: str  # one of CLAIM_KINDS
    subject_type: str  # one of SUBJECT_TYPES
    subject_id: str  # "" for the user or agent of the scope; the name of a project or tool
    slot: str
    summary: str
    excerpt: str
    contradicts: bool = False  # the turn denies the slot's current value ("I'm not vegetarian any more")


@dataclass(frozen=True, slots=True)
class Emotion:
    label: str  # e.g. "frustrated", "pleased", "anxious", "curious"
    valence: float  # -1..1
    intensity: float  # 0..1


@dataclass(frozen=True, slots=True)
class Plan:
    goal: str
    progress: str = ""
    next_step: str = ""


@dataclass(frozen=True, slots=True)
class TurnReflection:
    """What one turn (read with the turns before it) adds to memory."""

    memories: tuple[ExtractedMemory, ...] = ()
    claims: tuple[ExtractedClaim, ...] = ()
    emotion: Emotion | None = None
    plan: Plan | None = None
    # The rolling summary of the conversation so far, extractive, at most ~600 characters.
    summary: str = ""


@dataclass(frozen=True, slots=True)
class Outcome:
    type: str  # decision | resolution | learning
    content: str


@dataclass(frozen=True, slots=True)
class Thread:
    topic: str
    status: str = "open"  # one of THREAD_STATUSES
    context: str = ""


@dataclass(frozen=True, slots=True)
class ActionItem:
    owner: str  # user | assistant
    task: str
    deadline: str = ""


@dataclass(frozen=True, slots=True)
class UserState:
    mood: str = ""
    confidence: str = ""  # low | medium | high, as the user came across
    focus: str = ""


@dataclass(frozen=True, slots=True)
class EpisodeDraft:
    """A finished conversation, for EpisodeService.CreateEpisode (counts and times are added by
    the caller, who knows the session)."""

    summary: str
    key_topics: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    user_state: UserState = field(default_factory=UserState)
    outcomes: tuple[Outcome, ...] = ()
    open_threads: tuple[Thread, ...] = ()
    decisions: tuple[str, ...] = ()
    action_items: tuple[ActionItem, ...] = ()
    next_session_questions: tuple[str, ...] = ()
    importance: float = 0.5


@dataclass(frozen=True, slots=True)
class EvidenceLine:
    statement: str
    supports: bool = True
    turn_id: str = ""


@dataclass(frozen=True, slots=True)
class HypothesisProposal:
    statement: str
    evidence: tuple[EvidenceLine, ...] = ()


@dataclass(frozen=True, slots=True)
class EngagementProposal:
    """What the conversation suggests about the engagement: hypotheses with evidence, unknowns."""

    hypotheses: tuple[HypothesisProposal, ...] = ()
    unknowns: tuple[str, ...] = ()


class Extractor(Protocol):
    """Reads conversations. Implementations never raise on odd text: nothing found is empty."""

    async def reflect(self, turn: Utterance, earlier: Sequence[Utterance]) -> TurnReflection:
        """What ``turn`` adds, reading ``earlier`` (oldest first, a bounded window) for context."""
        ...

    async def summarise(self, turns: Sequence[Utterance]) -> EpisodeDraft:
        """The episode of a whole conversation (oldest first)."""
        ...

    async def engagement(self, turns: Sequence[Utterance]) -> EngagementProposal:
        """Hypotheses and unknowns the turns suggest (oldest first)."""
        ...
