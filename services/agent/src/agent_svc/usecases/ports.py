"""What the agent's use cases need from the outside world."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from agent_svc.domain.extraction import EngagementProposal, EpisodeDraft, ExtractedClaim, Extractor, Plan
from agent_svc.domain.jobs import Job
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


class Clock(Protocol):
    def now(self) -> datetime: ...


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
    kind: str  # fact | preference | commitment | opinion | decision | tool_interaction
    content: str
    importance: float
    valid_at: datetime
    turn_ids: tuple[str, ...]
    entities: tuple[str, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)


class Memories(MessageIndex, Protocol):
    async def remember(self, scope: Scope, session_id: str, items: Sequence[MemoryWrite]) -> list[str]:
        """Write the items (idempotent by key); returns their ids in order."""
        ...


@dataclass(frozen=True, slots=True)
class Evidence:
    turn_id: str
    memory_ids: tuple[str, ...]
    observed_at: datetime


class Beliefs(Protocol):
    async def observe(self, scope: Scope, claim: ExtractedClaim, evidence: Evidence, request_id: str) -> None:
        """Observations.Observe: the claim, with the turn and the memories as evidence."""
        ...


class Engagement(Protocol):
    async def propose(self, proposal: EngagementProposal, request_prefix: str) -> None:
        """Form the hypotheses (with their evidence) and add the unknowns, idempotently."""
        ...


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


class LanguageModel(Protocol):
    async def reply(self, messages: list[tuple[str, str]]) -> str: ...


class Episodes(Protocol):
    async def create(
        self, session: Session, draft: EpisodeDraft, message_count: int, started_at: datetime, ended_at: datetime
    ) -> str:
        """EpisodeService.CreateEpisode, once per session (a re-run returns the same episode id)."""
        ...
