"""The shapes the API answers, as small frozen dataclasses.

Why dataclasses rather than TypedDicts: a TypedDict is only a type-checker's view of a dict, so
``memory["memoryType"]`` stays camelCase, timestamps stay strings and a typo is a ``KeyError`` at
run time. A dataclass gives attribute access with Python names (``memory.memory_type``), parsed
``datetime``s, completion and immutability (results can be cached and shared safely), at the
cost of one conversion per answer (microseconds, next to a network call). Each is built by
``from_json`` (``JsonModel``: every field read by its type under its protobuf JSON name), which
reads the fields it knows and ignores the rest, so a newer gateway that adds fields (v1 changes
are additive) never breaks an older client; the whole answer stays available as ``raw`` for
fields not modelled here (deeper context manifests, confidence components …).
Enum values keep the API's full names (``"MEMORY_TYPE_FACT"``): that is what the server sends and
what the docs show, and a new value never fails to parse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from lore_client.json_model import Json, JsonModel, read_with, whole_document
from lore_client.json_model import parse_time as parse_time  # still importable from here

T = TypeVar("T")

_RAW = field(default_factory=dict, repr=False, compare=False, metadata=read_with(whole_document))


@dataclass(frozen=True, slots=True, kw_only=True)
class Scope(JsonModel):
    """Whose data: a user, an agent, a team (any may be empty)."""

    user_id: str = ""
    agent_id: str = ""
    team_id: str = ""

    def to_json(self) -> dict[str, str]:
        return {
            name: value
            for name, value in (("userId", self.user_id), ("agentId", self.agent_id), ("teamId", self.team_id))
            if value
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance(JsonModel):
    """Where a memory came from: the session and turns it was drawn from, by what, and (a
    message) who said it."""

    session_id: str = ""
    turn_ids: tuple[str, ...] = ()
    source: str = ""
    speaker: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Page(Generic[T]):
    """One page of a list route; ``next_page_token`` is empty on the last page."""

    items: tuple[T, ...]
    next_page_token: str = ""

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.items)

    @classmethod
    def from_json(cls, answer: dict[str, Any], key: str, parse: Callable[[dict[str, Any]], T]) -> Page[T]:
        """The page of a list answer: its items under ``key``, each read by ``parse``."""
        return cls(
            items=tuple(parse(item) for item in answer.get(key) or ()), next_page_token=answer.get("nextPageToken", "")
        )

    def __len__(self) -> int:
        return len(self.items)


@dataclass(frozen=True, slots=True, kw_only=True)
class Memory(JsonModel):
    id: str
    content: str
    memory_type: str
    scope: Scope
    importance: float
    status: str
    metadata: dict[str, str]
    entities: tuple[str, ...]
    created_at: datetime | None
    valid_at: datetime | None
    updated_at: datetime | None
    current_salience: float
    access_count: int
    # How salience fades (the salience half-life of the memory's type, in days; 0 from a gateway
    # older than the field), from the last access.
    half_life_days: float = 0.0
    last_accessed_at: datetime | None = None
    provenance: Provenance = Provenance()
    raw: Json = _RAW


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallResult(JsonModel):
    """One hit of ``search``: the memory and how it scored."""

    memory: Memory
    score: float
    similarity: float
    lexical_score: float
    salience: float
    importance: float
    recency: float
    raw: Json = _RAW


@dataclass(frozen=True, slots=True, kw_only=True)
class Session(JsonModel):
    id: str
    scope: Scope
    status: str
    end_reason: str
    started_at: datetime | None
    last_active_at: datetime | None
    ended_at: datetime | None
    turn_count: int
    reflected_turns: int
    metadata: dict[str, str]
    raw: Json = _RAW


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn(JsonModel):
    id: str
    session_id: str
    sequence: int
    role: str
    content: str
    created_at: datetime | None
    metadata: dict[str, str]
    idempotency_key: str
    speaker: str = ""
    raw: Json = _RAW


@dataclass(frozen=True, slots=True, kw_only=True)
class AssembledContext(JsonModel):
    """The context for the model: ``text`` to use as is; ``sections`` and ``manifest`` (every
    candidate, kept or not, with its score and reason) stay in the API's JSON."""

    text: str
    sections: tuple[Json, ...]
    manifest: tuple[Json, ...]
    fingerprint: str
    first_session: bool
    raw: Json = _RAW


def _reply_turn(document: Json, json_name: str) -> Turn | None:
    """An answer without a reply may still carry an empty turn (no id): that is no reply turn."""
    turn = document.get(json_name)
    return Turn.from_json(turn) if turn and turn.get("id") else None


@dataclass(frozen=True, slots=True, kw_only=True)
class ForgottenItem(JsonModel):
    """A memory a request to forget archived, or a belief it invalidated (``type`` "belief")."""

    id: str
    type: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnResult(JsonModel):
    """What ``process_turn`` answers: the stored turn, the context, and the reply when a model
    is configured (``reply`` empty and ``reply_turn`` ``None`` otherwise). When the user's turn
    asked to forget something ("forget what I said about my address"), ``forget_status`` says
    what that came to (``FORGET_STATUS_FORGOTTEN``, ``…_NOTHING_MATCHED``, ``…_AMBIGUOUS``) and
    ``forgotten`` lists what was archived or invalidated; ``FORGET_STATUS_UNSPECIFIED`` otherwise.
    ``reply_status`` says why ``reply`` is empty when a model is configured (``REPLY_STATUS_TIMED_OUT``,
    ``…_UNAVAILABLE``, ``…_EMPTY``) or that it was ``REPLY_STATUS_GENERATED``."""

    turn: Turn
    reply: str
    context: AssembledContext
    reply_turn: Turn | None = field(metadata=read_with(_reply_turn))
    forgotten: tuple[ForgottenItem, ...] = ()
    forget_status: str = ""
    reply_status: str = ""
    raw: Json = _RAW


def _kept_context(document: Json, json_name: str) -> AssembledContext | None:
    """The context only when the answer has one (a turn without one leaves it out)."""
    context = document.get(json_name)
    return AssembledContext.from_json(context) if context else None


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnContext(JsonModel):
    """What ``get_turn_context`` answers: the context assembled for a turn, with its manifest
    (``context.manifest``, ``context.sections``), while the turn's result is kept. ``status`` is
    ``TURN_CONTEXT_STATUS_AVAILABLE`` (``context`` set), ``…_EXPIRED`` (past the retention; ``reason``
    ``RETENTION``) or ``…_NONE`` (``reason``: ``ASSISTANT_TURN``, ``IMPORTED_TURN``, ``NOT_ASSEMBLED``,
    ``NOT_KEPT``); ``message`` says why for a reader. ``expires_at``: when the kept result passes,
    or passed, the retention (``None`` when results are kept forever)."""

    status: str
    reason: str
    message: str
    turn: Turn
    context: AssembledContext | None = field(metadata=read_with(_kept_context))
    assembled_at: datetime | None
    expires_at: datetime | None
    raw: Json = _RAW

    @property
    def available(self) -> bool:
        return self.status == "TURN_CONTEXT_STATUS_AVAILABLE"


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportResult(JsonModel):
    imported: int
    skipped: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenThread(JsonModel):
    topic: str
    status: str
    context: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Episode(JsonModel):
    id: str
    conversation_id: str
    scope: Scope
    summary: str
    key_topics: tuple[str, ...]
    open_threads: tuple[OpenThread, ...]
    decisions: tuple[str, ...]
    message_count: int
    started_at: datetime | None
    ended_at: datetime | None
    importance: float
    raw: Json = _RAW


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeThread(JsonModel):
    episode_id: str
    conversation_id: str
    thread: OpenThread
    ended_at: datetime | None


@dataclass(frozen=True, slots=True, kw_only=True)
class PrimedItem(JsonModel):
    source: str
    id: str
    text: str
    score: float
    occurred_at: datetime | None
    metadata: dict[str, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class Prime(JsonModel):
    """ "What I remember" at the start of a conversation; ``formatted_context`` is ready to use."""

    recent_context: tuple[PrimedItem, ...]
    open_threads: tuple[PrimedItem, ...]
    salient_facts: tuple[PrimedItem, ...]
    observations: tuple[PrimedItem, ...]
    entities: tuple[str, ...]
    formatted_context: str
    manifest: tuple[Json, ...]
    raw: Json = _RAW


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfileLine(JsonModel):
    """One line of a user profile: ``kind`` is "caller" (the caller's own text), "belief", "fact" or
    "preference"; ``source_id`` the belief's or memory's id ("" for a caller line)."""

    text: str
    kind: str
    source_id: str
    confidence: float
    updated_at: datetime | None


@dataclass(frozen=True, slots=True, kw_only=True)
class UserProfile(JsonModel):
    """What Lore has learnt about a user, newest truth only; ``text`` is the context's user-profile
    section ("" when nothing is known), ``tokens`` its count."""

    lines: tuple[ProfileLine, ...]
    text: str
    tokens: int
    raw: Json = _RAW


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence(JsonModel):
    id: str
    stance: str
    weight: float
    source_type: str
    source_id: str
    excerpt: str
    observed_at: datetime | None
    operator_confirmed: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Observation(JsonModel):
    """A belief with its confidence and evidence (``raw["confidenceComponents"]`` explains the score).

    ``scope`` is whose belief it is (its user and team; empty: the organisation's; ``scope.agent_id``
    is ``agent_id``); ``unattributed`` marks a belief recorded before beliefs had a scope: listed
    by ``query_observations``, never shown in a context."""

    id: str
    agent_id: str
    scope: Scope
    unattributed: bool
    kind: str
    subject_type: str
    subject_id: str
    slot: str
    canonical_key: str
    summary: str
    detail: str
    tags: tuple[str, ...]
    confidence: float
    freshness: float
    status: str
    supersedes_observation_id: str
    created_at: datetime | None
    updated_at: datetime | None
    evidence: tuple[Evidence, ...]
    raw: Json = _RAW


@dataclass(frozen=True, slots=True, kw_only=True)
class ObserveResult(JsonModel):
    """The observation after ``observe``/``contradict`` and what happened to it
    (``OBSERVE_OUTCOME_CREATED``, ``_SUPPORTED``, ``_CONTRADICTED``, ``_SUPERSEDED``)."""

    observation: Observation
    outcome: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ObservationHit(JsonModel):
    observation: Observation
    score: float
    similarity: float
    lexical_score: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Hypothesis(JsonModel):
    id: str
    statement: str
    confidence: float
    status: str
    evidence: tuple[Json, ...]
    revisions: tuple[Json, ...]
    archive_note: str
    finding_id: str
    raw: Json = _RAW


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding(JsonModel):
    id: str
    statement: str
    source: str
    hypothesis_id: str
    recorded_at: datetime | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Unknown(JsonModel):
    id: str
    question: str
    why_it_matters: str
    status: str
    resolution: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Engagement(JsonModel):
    week_number: int
    first_session: bool
    hypotheses: tuple[Hypothesis, ...]
    unknowns: tuple[Unknown, ...]
    findings: tuple[Finding, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ForgetResult(JsonModel):
    """What ``forget_about`` answers: what was archived (memories) and invalidated (beliefs), and
    ``status`` (``FORGET_STATUS_FORGOTTEN`` or ``FORGET_STATUS_NOTHING_MATCHED``)."""

    forgotten: tuple[ForgottenItem, ...]
    status: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ErasureJob(JsonModel):
    id: str
    status: str
    requested_at: datetime | None
    completed_at: datetime | None
    counts: dict[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class Status(JsonModel):
    """``GET /v1/status``: ``SERVING`` only when every service is."""

    status: str
    services: dict[str, str]

    @property
    def serving(self) -> bool:
        return self.status == "SERVING"


@dataclass(frozen=True, slots=True, kw_only=True)
class JobKindStats(JsonModel):
    kind: str
    queued: int
    running: int
    retrying: int
    dead: int
    oldest_queued_seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Job(JsonModel):
    """A background job as the queue holds it (``list_jobs``): ``state`` is ``queued``,
    ``running``, ``retrying`` or ``dead``; what it serves (``session_id`` and ``through_sequence``
    for reflect and episode jobs, ``erasure_id`` for erase) and its last error, when logged."""

    id: str
    kind: str
    state: str
    attempts: int
    last_error: str
    last_error_at: datetime | None
    session_id: str
    through_sequence: int
    erasure_id: str
    created_at: datetime | None
    updated_at: datetime | None
    next_attempt_at: datetime | None
