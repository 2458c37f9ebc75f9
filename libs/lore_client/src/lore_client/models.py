"""The shapes the API answers, as small frozen dataclasses.

Why dataclasses rather than TypedDicts: a TypedDict is only a type-checker's view of a dict, so
``memory["memoryType"]`` stays camelCase, timestamps stay strings and a typo is a ``KeyError`` at
run time. A dataclass gives attribute access with Python names (``memory.memory_type``), parsed
``datetime``s, completion and immutability (results can be cached and shared safely), at the
cost of one conversion per answer (microseconds, next to a network call). Each is built by
``from_json``, which reads the fields it knows and ignores the rest, so a newer gateway that adds
fields (v1 changes are additive) never breaks an older client; the whole answer stays available
as ``raw`` for fields not modelled here (deeper context manifests, confidence components …).
Enum values keep the API's full names (``"MEMORY_TYPE_FACT"``): that is what the server sends and
what the docs show, and a new value never fails to parse.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

T = TypeVar("T")
Json = Mapping[str, Any]


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp of the proto3 JSON mapping. Python ≥ 3.11 reads the ``Z`` and cuts
    nanoseconds to microseconds itself (the regular expression this replaced took about a
    quarter of the time of parsing a search's results)."""
    if not value or not isinstance(value, str):
        return None
    return datetime.fromisoformat(value)


def _list(document: Json, name: str, build: Callable[[Json], T]) -> tuple[T, ...]:
    return tuple(build(item) for item in document.get(name) or ())


def _strings(document: Json, name: str) -> tuple[str, ...]:
    return tuple(str(item) for item in document.get(name) or ())


def _map(document: Json, name: str) -> dict[str, str]:
    return dict(document.get(name) or {})


_RAW = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Scope:
    """Whose data: a user, an agent, a team (any may be empty)."""

    user_id: str = ""
    agent_id: str = ""
    team_id: str = ""

    @classmethod
    def from_json(cls, document: Json | None) -> Scope:
        document = document or {}
        return cls(
            user_id=document.get("userId", ""), agent_id=document.get("agentId", ""), team_id=document.get("teamId", "")
        )

    def to_json(self) -> dict[str, str]:
        return {
            name: value
            for name, value in (("userId", self.user_id), ("agentId", self.agent_id), ("teamId", self.team_id))
            if value
        }


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
class Memory:
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
    raw: Json = _RAW

    @classmethod
    def from_json(cls, d: Json) -> Memory:
        return cls(
            id=d.get("id", ""),
            content=d.get("content", ""),
            memory_type=d.get("memoryType", ""),
            scope=Scope.from_json(d.get("scope")),
            importance=float(d.get("importance", 0.0)),
            status=d.get("status", ""),
            metadata=_map(d, "metadata"),
            entities=_strings(d, "entities"),
            created_at=parse_time(d.get("createdAt")),
            valid_at=parse_time(d.get("validAt")),
            updated_at=parse_time(d.get("updatedAt")),
            current_salience=float(d.get("currentSalience", 0.0)),
            access_count=int(d.get("accessCount", 0)),
            raw=d,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class RecallResult:
    """One hit of ``search``: the memory and how it scored."""

    memory: Memory
    score: float
    similarity: float
    lexical_score: float
    salience: float
    importance: float
    recency: float
    raw: Json = _RAW

    @classmethod
    def from_json(cls, d: Json) -> RecallResult:
        return cls(
            memory=Memory.from_json(d.get("memory") or {}),
            score=float(d.get("score", 0.0)),
            similarity=float(d.get("similarity", 0.0)),
            lexical_score=float(d.get("lexicalScore", 0.0)),
            salience=float(d.get("salience", 0.0)),
            importance=float(d.get("importance", 0.0)),
            recency=float(d.get("recency", 0.0)),
            raw=d,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Session:
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

    @classmethod
    def from_json(cls, d: Json) -> Session:
        return cls(
            id=d.get("id", ""),
            scope=Scope.from_json(d.get("scope")),
            status=d.get("status", ""),
            end_reason=d.get("endReason", ""),
            started_at=parse_time(d.get("startedAt")),
            last_active_at=parse_time(d.get("lastActiveAt")),
            ended_at=parse_time(d.get("endedAt")),
            turn_count=int(d.get("turnCount", 0)),
            reflected_turns=int(d.get("reflectedTurns", 0)),
            metadata=_map(d, "metadata"),
            raw=d,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn:
    id: str
    session_id: str
    sequence: int
    role: str
    content: str
    created_at: datetime | None
    metadata: dict[str, str]
    idempotency_key: str
    raw: Json = _RAW

    @classmethod
    def from_json(cls, d: Json) -> Turn:
        return cls(
            id=d.get("id", ""),
            session_id=d.get("sessionId", ""),
            sequence=int(d.get("sequence", 0)),
            role=d.get("role", ""),
            content=d.get("content", ""),
            created_at=parse_time(d.get("createdAt")),
            metadata=_map(d, "metadata"),
            idempotency_key=d.get("idempotencyKey", ""),
            raw=d,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class AssembledContext:
    """The context for the model: ``text`` to use as is; ``sections`` and ``manifest`` (every
    candidate, kept or not, with its score and reason) stay in the API's JSON."""

    text: str
    sections: tuple[Json, ...]
    manifest: tuple[Json, ...]
    fingerprint: str
    first_session: bool
    raw: Json = _RAW

    @classmethod
    def from_json(cls, d: Json | None) -> AssembledContext:
        d = d or {}
        return cls(
            text=d.get("text", ""),
            sections=tuple(d.get("sections") or ()),
            manifest=tuple(d.get("manifest") or ()),
            fingerprint=d.get("fingerprint", ""),
            first_session=bool(d.get("firstSession", False)),
            raw=d,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnResult:
    """What ``process_turn`` answers: the stored turn, the context, and the reply when a model
    is configured (``reply`` empty and ``reply_turn`` ``None`` otherwise)."""

    turn: Turn
    reply: str
    context: AssembledContext
    reply_turn: Turn | None
    raw: Json = _RAW

    @classmethod
    def from_json(cls, d: Json) -> TurnResult:
        reply_turn = d.get("replyTurn")
        return cls(
            turn=Turn.from_json(d.get("turn") or {}),
            reply=d.get("reply", ""),
            context=AssembledContext.from_json(d.get("context")),
            reply_turn=Turn.from_json(reply_turn) if reply_turn and reply_turn.get("id") else None,
            raw=d,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportResult:
    imported: int
    skipped: int

    @classmethod
    def from_json(cls, d: Json) -> ImportResult:
        return cls(imported=int(d.get("imported", 0)), skipped=int(d.get("skipped", 0)))


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenThread:
    topic: str
    status: str
    context: str

    @classmethod
    def from_json(cls, d: Json | None) -> OpenThread:
        d = d or {}
        return cls(topic=d.get("topic", ""), status=d.get("status", ""), context=d.get("context", ""))


@dataclass(frozen=True, slots=True, kw_only=True)
class Episode:
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

    @classmethod
    def from_json(cls, d: Json) -> Episode:
        return cls(
            id=d.get("id", ""),
            conversation_id=d.get("conversationId", ""),
            scope=Scope.from_json(d.get("scope")),
            summary=d.get("summary", ""),
            key_topics=_strings(d, "keyTopics"),
            open_threads=_list(d, "openThreads", OpenThread.from_json),
            decisions=_strings(d, "decisions"),
            message_count=int(d.get("messageCount", 0)),
            started_at=parse_time(d.get("startedAt")),
            ended_at=parse_time(d.get("endedAt")),
            importance=float(d.get("importance", 0.0)),
            raw=d,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeThread:
    episode_id: str
    conversation_id: str
    thread: OpenThread
    ended_at: datetime | None

    @classmethod
    def from_json(cls, d: Json) -> EpisodeThread:
        return cls(
            episode_id=d.get("episodeId", ""),
            conversation_id=d.get("conversationId", ""),
            thread=OpenThread.from_json(d.get("thread")),
            ended_at=parse_time(d.get("endedAt")),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PrimedItem:
    source: str
    id: str
    text: str
    score: float
    occurred_at: datetime | None
    metadata: dict[str, str]

    @classmethod
    def from_json(cls, d: Json) -> PrimedItem:
        return cls(
            source=d.get("source", ""),
            id=d.get("id", ""),
            text=d.get("text", ""),
            score=float(d.get("score", 0.0)),
            occurred_at=parse_time(d.get("occurredAt")),
            metadata=_map(d, "metadata"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Prime:
    """ "What I remember" at the start of a conversation; ``formatted_context`` is ready to use."""

    recent_context: tuple[PrimedItem, ...]
    open_threads: tuple[PrimedItem, ...]
    salient_facts: tuple[PrimedItem, ...]
    observations: tuple[PrimedItem, ...]
    entities: tuple[str, ...]
    formatted_context: str
    manifest: tuple[Json, ...]
    raw: Json = _RAW

    @classmethod
    def from_json(cls, d: Json) -> Prime:
        return cls(
            recent_context=_list(d, "recentContext", PrimedItem.from_json),
            open_threads=_list(d, "openThreads", PrimedItem.from_json),
            salient_facts=_list(d, "salientFacts", PrimedItem.from_json),
            observations=_list(d, "observations", PrimedItem.from_json),
            entities=_strings(d, "entities"),
            formatted_context=d.get("formattedContext", ""),
            manifest=tuple(d.get("manifest") or ()),
            raw=d,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    id: str
    stance: str
    weight: float
    source_type: str
    source_id: str
    excerpt: str
    observed_at: datetime | None
    operator_confirmed: bool

    @classmethod
    def from_json(cls, d: Json) -> Evidence:
        return cls(
            id=d.get("id", ""),
            stance=d.get("stance", ""),
            weight=float(d.get("weight", 0.0)),
            source_type=d.get("sourceType", ""),
            source_id=d.get("sourceId", ""),
            excerpt=d.get("excerpt", ""),
            observed_at=parse_time(d.get("observedAt")),
            operator_confirmed=bool(d.get("operatorConfirmed", False)),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Observation:
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

    @classmethod
    def from_json(cls, d: Json) -> Observation:
        return cls(
            id=d.get("id", ""),
            agent_id=d.get("agentId", ""),
            scope=Scope.from_json(d.get("scope")),
            unattributed=bool(d.get("unattributed", False)),
            kind=d.get("kind", ""),
            subject_type=d.get("subjectType", ""),
            subject_id=d.get("subjectId", ""),
            slot=d.get("slot", ""),
            canonical_key=d.get("canonicalKey", ""),
            summary=d.get("summary", ""),
            detail=d.get("detail", ""),
            tags=_strings(d, "tags"),
            confidence=float(d.get("confidence", 0.0)),
            freshness=float(d.get("freshness", 0.0)),
            status=d.get("status", ""),
            supersedes_observation_id=d.get("supersedesObservationId", ""),
            created_at=parse_time(d.get("createdAt")),
            updated_at=parse_time(d.get("updatedAt")),
            evidence=_list(d, "evidence", Evidence.from_json),
            raw=d,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ObserveResult:
    """The observation after ``observe``/``contradict`` and what happened to it
    (``OBSERVE_OUTCOME_CREATED``, ``_SUPPORTED``, ``_CONTRADICTED``, ``_SUPERSEDED``)."""

    observation: Observation
    outcome: str

    @classmethod
    def from_json(cls, d: Json) -> ObserveResult:
        return cls(observation=Observation.from_json(d.get("observation") or {}), outcome=d.get("outcome", ""))


@dataclass(frozen=True, slots=True, kw_only=True)
class ObservationHit:
    observation: Observation
    score: float
    similarity: float
    lexical_score: float

    @classmethod
    def from_json(cls, d: Json) -> ObservationHit:
        return cls(
            observation=Observation.from_json(d.get("observation") or {}),
            score=float(d.get("score", 0.0)),
            similarity=float(d.get("similarity", 0.0)),
            lexical_score=float(d.get("lexicalScore", 0.0)),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Hypothesis:
    id: str
    statement: str
    confidence: float
    status: str
    evidence: tuple[Json, ...]
    revisions: tuple[Json, ...]
    archive_note: str
    finding_id: str
    raw: Json = _RAW

    @classmethod
    def from_json(cls, d: Json) -> Hypothesis:
        return cls(
            id=d.get("id", ""),
            statement=d.get("statement", ""),
            confidence=float(d.get("confidence", 0.0)),
            status=d.get("status", ""),
            evidence=tuple(d.get("evidence") or ()),
            revisions=tuple(d.get("revisions") or ()),
            archive_note=d.get("archiveNote", ""),
            finding_id=d.get("findingId", ""),
            raw=d,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    id: str
    statement: str
    source: str
    hypothesis_id: str
    recorded_at: datetime | None

    @classmethod
    def from_json(cls, d: Json) -> Finding:
        return cls(
            id=d.get("id", ""),
            statement=d.get("statement", ""),
            source=d.get("source", ""),
            hypothesis_id=d.get("hypothesisId", ""),
            recorded_at=parse_time(d.get("recordedAt")),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Unknown:
    id: str
    question: str
    why_it_matters: str
    status: str
    resolution: str

    @classmethod
    def from_json(cls, d: Json) -> Unknown:
        return cls(
            id=d.get("id", ""),
            question=d.get("question", ""),
            why_it_matters=d.get("whyItMatters", ""),
            status=d.get("status", ""),
            resolution=d.get("resolution", ""),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Engagement:
    week_number: int
    first_session: bool
    hypotheses: tuple[Hypothesis, ...]
    unknowns: tuple[Unknown, ...]
    findings: tuple[Finding, ...]

    @classmethod
    def from_json(cls, d: Json) -> Engagement:
        return cls(
            week_number=int(d.get("weekNumber", 0)),
            first_session=bool(d.get("firstSession", False)),
            hypotheses=_list(d, "hypotheses", Hypothesis.from_json),
            unknowns=_list(d, "unknowns", Unknown.from_json),
            findings=_list(d, "findings", Finding.from_json),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ErasureJob:
    id: str
    status: str
    requested_at: datetime | None
    completed_at: datetime | None
    counts: dict[str, int]

    @classmethod
    def from_json(cls, d: Json) -> ErasureJob:
        return cls(
            id=d.get("id", ""),
            status=d.get("status", ""),
            requested_at=parse_time(d.get("requestedAt")),
            completed_at=parse_time(d.get("completedAt")),
            counts={str(k): int(v) for k, v in (d.get("counts") or {}).items()},
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Status:
    """``GET /v1/status``: ``SERVING`` only when every service is."""

    status: str
    services: dict[str, str]

    @property
    def serving(self) -> bool:
        return self.status == "SERVING"

    @classmethod
    def from_json(cls, d: Json) -> Status:
        return cls(status=d.get("status", ""), services=dict(d.get("services") or {}))


@dataclass(frozen=True, slots=True, kw_only=True)
class JobKindStats:
    kind: str
    queued: int
    running: int
    retrying: int
    dead: int
    oldest_queued_seconds: float

    @classmethod
    def from_json(cls, d: Json) -> JobKindStats:
        return cls(
            kind=d.get("kind", ""),
            queued=int(d.get("queued", 0)),
            running=int(d.get("running", 0)),
            retrying=int(d.get("retrying", 0)),
            dead=int(d.get("dead", 0)),
            oldest_queued_seconds=float(d.get("oldestQueuedSeconds", 0.0)),
        )
