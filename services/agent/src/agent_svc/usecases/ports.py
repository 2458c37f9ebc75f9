"""What the agent's use cases need from the outside world."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Protocol

from agent_svc.domain.digest import DayEpisode, Digest
from agent_svc.domain.engagement import ActiveHypothesis, EngagementView
from agent_svc.domain.extraction import EpisodeDraft, ExtractedClaim, Extractor, Plan
from agent_svc.domain.jobs import Job, QueueCounts
from agent_svc.domain.thread_closure import OpenThreadRef
from agent_svc.domain.transcript import Appended, Scope, Session, ToolInteraction, Turn
from agent_svc.domain.turn_loop import Assembled, TurnResult

__all__ = ["Extractor"]


class Transcript(Protocol):
    async def start(self, session: Session, request_id: str) -> Session: ...

    async def get(self, org_id: str, session_id: str) -> Session | None: ...

    async def list(
        self, org_id: str, scope: Scope, status: str | None, limit: int, after: tuple[datetime, str] | None
    ) -> list[Session]: ...

    async def end(
        self,
        org_id: str,
        session_id: str,
        reason: str,
        now: datetime,
        then: Callable[[Session], Sequence[Job]] = ...,
    ) -> Session | None:
        """End an active session, queueing the jobs ``then`` names in the same transaction."""
        ...

    async def append(
        self,
        org_id: str,
        session_id: str,
        turns: Sequence[Turn],
        now: datetime,
        then: Callable[[Appended], Sequence[Job]] = ...,
    ) -> Appended:
        """Append turns, queueing the jobs ``then`` names in the same transaction."""
        ...

    async def turns(self, org_id: str, session_id: str, limit: int, after_sequence: int) -> list[Turn]: ...

    async def turn(self, org_id: str, turn_id: str) -> Turn | None: ...


class TurnLoopStore(Protocol):
    async def result(self, org_id: str, turn_id: str) -> TurnResult | None: ...

    async def save_result(
        self, org_id: str, session_id: str, turn_id: str, result: TurnResult, now: datetime
    ) -> TurnResult: ...

    async def reflected_through(self, org_id: str, session_id: str) -> int: ...

    async def mark_reflected(self, org_id: str, session_id: str, sequence: int) -> None: ...

    async def idle_sessions(self, before: datetime, limit: int) -> list[tuple[str, str]]: ...

    def session_lock(self, session_id: str) -> AbstractAsyncContextManager[None]: ...


class MessageIndex(Protocol):
    """Long-term memory of the conversation's messages (the memory service's Remember)."""

    async def index(self, scope: Scope, session_id: str, turns: Sequence[Turn]) -> None:
        """Write each turn as a ``message`` memory, valid at the turn's time, with its metadata;
        idempotent per turn (a retry writes nothing twice)."""
        ...


@dataclass(frozen=True, slots=True)
class MemoryWrite:
    """One long-term memory reflection writes; ``key`` makes a re-run land on the same item."""

    key: str
    kind: str  # message | fact | preference | commitment | opinion | decision | tool_interaction
    content: str
    importance: float
    valid_at: datetime
    turn_ids: tuple[str, ...]
    entities: tuple[str, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)
    source: str = "reflection"  # reflection | live (a live turn's own message) | import

    @classmethod
    def message(cls, turn: Turn) -> MemoryWrite:
        """The turn itself as a ``message`` memory: valid when it was said, with its metadata,
        keyed by the turn so every retry lands on the same item."""
        return cls(
            key=f"turn:{turn.id}",
            kind="message",
            content=turn.content,
            importance=0.5,
            valid_at=turn.created_at,
            turn_ids=(turn.id,),
            metadata=dict(turn.metadata),
            source=turn.source,
        )


class Memories(MessageIndex, Protocol):
    async def remember(self, scope: Scope, session_id: str, items: Sequence[MemoryWrite]) -> list[str]:
        """Write the items (idempotent by key); returns their ids in order."""
        ...

    async def supersede(self, memory_ids: Sequence[str]) -> int:
        """A later statement replaced what these memories said: each current fact or preference among
        them becomes ``superseded`` (kept, never recalled by default); messages and the rest stay as
        they are. Idempotent; returns how many changed."""
        ...

    async def complete_commitments(self, scope: Scope, contents: Sequence[str]) -> int:
        """The scope's current (active or warm) commitments whose content is exactly one of
        ``contents`` become ``completed`` (kept, listed, never recalled by default). Only the
        memories of exactly this scope's ids (browse match). Idempotent; returns how many changed."""
        ...


@dataclass(frozen=True, slots=True)
class Evidence:
    turn_id: str
    memory_ids: tuple[str, ...]
    observed_at: datetime


class Observations(Protocol):
    async def observe(self, scope: Scope, claim: ExtractedClaim, evidence: Evidence, request_id: str) -> list[str]:
        """Observations.Observe: the claim, with the turn and the memories as evidence. Returns, when the
        claim superseded the slot's earlier belief, the memories that were that belief's evidence."""
        ...


class Engagement(Protocol):
    """The org's engagement state (observations EngagementService). A full list or a closed
    hypothesis raises the service's error (QuotaExceeded, FailedPrecondition)."""

    async def state(self) -> EngagementView:
        """The active hypotheses and the open unknowns' questions."""
        ...

    async def form(self, statement: str, request_id: str) -> ActiveHypothesis:
        """Form a hypothesis without evidence; a replayed request id returns the one it formed."""
        ...

    async def add_evidence(
        self, hypothesis_id: str, statement: str, supports: bool, source: str, request_id: str
    ) -> ActiveHypothesis:
        """One evidence line (a replayed request id adds nothing); the hypothesis as it now stands."""
        ...

    async def promote(self, hypothesis_id: str, source: str) -> None: ...

    async def archive(self, hypothesis_id: str, note: str) -> None: ...

    async def add_unknown(self, question: str, why_it_matters: str, request_id: str) -> None: ...


@dataclass(frozen=True, slots=True)
class EmotionPoint:
    label: str
    valence: float
    intensity: float
    turn_id: str
    observed_at: datetime


class WorkingMemory(Protocol):
    async def acquire_lease(self, session_id: str, holder: str) -> int | None:
        """The session's lease (waiting while another turn holds it): its fencing token, or None
        when the memory service cannot be reached (the transcript's row lock still orders turns).
        Raises ABORTED when another turn held it for too long."""
        ...

    async def release_lease(self, session_id: str, holder: str) -> None:
        """Release a lease this process acquired for ``holder`` (it remembers the fencing token)."""
        ...

    async def append_turn(self, session_id: str, turn: Turn, fencing_token: int | None) -> None: ...

    async def set_last_tool_result(self, session_id: str, tool: ToolInteraction) -> None: ...

    async def reflect(self, session_id: str, summary: str, plan: Plan | None, emotions: Sequence[EmotionPoint]) -> None:
        """Replace the rolling summary, the plan (when given) and the emotion trajectory."""
        ...


class ContextAssembler(Protocol):
    async def assemble(self, session: Session, message: str, options: bytes) -> Assembled:
        """AssembleContext for the message; ``options`` are the caller's AssembleOptions, opaque."""
        ...

    async def prime(self, scope: Scope, initial_message: str) -> bytes:
        """Prime for the scope (with the initial message, when not empty): the PrimeResponse as
        the assembler answered it, opaque, handed back to the caller unchanged."""
        ...


class LanguageModel(Protocol):
    async def reply(self, messages: list[tuple[str, str]]) -> str: ...


class Episodes(Protocol):
    async def create(
        self, session: Session, draft: EpisodeDraft, message_count: int, started_at: datetime, ended_at: datetime
    ) -> str:
        """EpisodeService.CreateEpisode, once per session (a re-run returns the same episode id)."""
        ...

    async def open_threads(self, scope: Scope, limit: int) -> list[OpenThreadRef]:
        """EpisodeService.ListOpenThreads: open and blocked threads of the episodes of exactly this
        scope's ids (browse match), newest episode first, at most ``limit``."""
        ...

    async def resolve_thread(self, episode_id: str, index: int, resolution: str) -> None:
        """EpisodeService.ResolveThread; idempotent. A thread or episode gone since is no error."""
        ...


@dataclass(frozen=True, slots=True)
class Erasure:
    """One ForgetSubject request: the job's state, then the tombstone (ids and counts, no content)."""

    id: str
    org_id: str
    subject: Scope
    principal: str
    status: str  # pending | running | completed | dead_lettered
    requested_at: datetime
    completed_at: datetime | None = None
    counts: dict[str, int] = field(default_factory=dict)


class ErasureStore(Protocol):
    async def request(self, erasure: Erasure, request_id: str, then: Callable[[Erasure], Sequence[Job]]) -> Erasure:
        """Insert the pending erasure and queue the jobs ``then`` names, in one transaction; a
        request id already used in the org returns that erasure and queues nothing."""
        ...

    async def get(self, org_id: str, erasure_id: str) -> Erasure | None:
        """The erasure; ``dead_lettered`` while its job sits in the queue's dead-letter state."""
        ...

    async def requeue(self, erasure: Erasure, jobs: Sequence[Job]) -> None:
        """Queue ``jobs`` again (a dead-lettered erasure asked for once more)."""
        ...

    async def mark_running(self, org_id: str, erasure_id: str) -> Erasure | None: ...

    async def subject_sessions(self, org_id: str, subject: Scope) -> list[str]:
        """Ids of every session whose scope has the subject's given ids."""
        ...

    async def turn_ids(self, org_id: str, session_ids: Sequence[str]) -> list[str]: ...

    async def record(self, org_id: str, erasure_id: str, counts: dict[str, int]) -> None:
        """Merge ``counts`` into the erasure's (a key keeps the larger of the two: a re-run that
        finds nothing left never lowers what the first run removed)."""
        ...

    async def forget_shown(self, org_id: str, erasure_id: str, observation_ids: Sequence[str]) -> None:
        """Delete the org's stored turn results whose context showed any of ``observation_ids``
        (erased beliefs others' contexts may have shown), recording the count."""
        ...

    async def delete_transcript(self, org_id: str, erasure_id: str, session_ids: Sequence[str]) -> None:
        """Delete the sessions with their turns, turn results and the jobs still waiting (or
        dead-lettered) for them, recording the counts in the same transaction."""
        ...

    async def complete(self, org_id: str, erasure_id: str, now: datetime) -> Erasure: ...


class SubjectEraser(Protocol):
    """The erasure's calls to the other services; each is idempotent (by request id or by nature)."""

    async def memory_ids(self, subject: Scope) -> list[str]:
        """Ids of the subject's long-term memories (every type and status)."""
        ...

    async def forget_memories(self, subject: Scope, session_ids: Sequence[str], request_id: str) -> dict[str, int]:
        """MemoryService.ForgetSubject: memories, episodes, access records, working memories."""
        ...

    async def erase_observations(
        self, subject_type: str, subject_id: str, source_ids: Sequence[str], request_id: str, *, user_id: str = ""
    ) -> ErasedObservations:
        """ObservationService.EraseSubject: beliefs about the subject, evidence citing the sources,
        beliefs left without support and, with ``user_id``, every belief scoped to that user whatever
        it is about."""
        ...

    async def request_purge(self) -> None:
        """MemoryService.PurgeErased, deferred: the memory service rewrites its stores' files soon."""
        ...


@dataclass(frozen=True, slots=True)
class ErasedObservations:
    """One EraseSubject answer: its counts, and the erased observations not scoped to the erased user."""

    counts: dict[str, int]
    shared_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StoredDigest:
    id: str
    day: date
    status: str  # active | warm | archived


class ActiveScopes(Protocol):
    async def active_scopes(self, start: datetime, end: datetime) -> list[tuple[str, Scope]]:
        """(org, scope) of every session active between ``start`` and ``end``, across orgs (the
        digest job runs as a system principal)."""
        ...


class Timeline(Protocol):
    """The memory service as the digest job sees it; each call acts as the given org."""

    async def episodes(self, org_id: str, scope: Scope, start: datetime, end: datetime) -> list[DayEpisode]:
        """The episodes of exactly ``scope`` that ended in [start, end): never another scope's (the
        digest is that scope's memory, shown in its contexts)."""
        ...

    async def write_digest(self, org_id: str, scope: Scope, digest: Digest) -> None:
        """A ``daily_digest`` memory, one per scope and day (a rewrite lands on the same item)."""
        ...

    async def digests(self, org_id: str, scope: Scope) -> list[StoredDigest]:
        """The scope's digests that are still active or warm."""
        ...

    async def set_status(self, org_id: str, digest_id: str, status: str) -> None: ...


class JobQueueAdmin(Protocol):
    async def counts(self, org_id: str) -> list[QueueCounts]:
        """The org's background jobs by kind and state (every kind, zeros included)."""
        ...

    async def retry_dead(self, org_id: str, kinds: Sequence[str]) -> tuple[int, int]:
        """Queue the org's dead jobs of ``kinds`` again with fresh attempts: (requeued, left dead
        because the same job is already waiting or running)."""
        ...
