"""What ForgetSubject needs: the erasure's own record beside the transcript, and the other
services' erasure calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from agent_svc.domain.jobs import Job
from agent_svc.domain.transcript import Scope

# The reason every service's fence refuses a write for a subject being erased with (409, ABORTED).
SUBJECT_ERASING = "SUBJECT_ERASING"


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
    async def request(
        self, erasure: Erasure, request_id: str, then: Callable[[Erasure], Sequence[Job]], requester: str = ""
    ) -> Erasure:
        """Insert the pending erasure and queue the jobs ``then`` names, in one transaction; a
        request id the same requester (``transcript.requester_of``) already used in the org returns
        that erasure and queues nothing. Another requester's equal id is another request."""
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

    async def erasing(self, org_id: str, scope: Scope) -> bool:
        """Whether an unfinished erasure covers ``scope`` (each id it names equals the scope's): the
        fence. Postgres refuses a new session, turn or turn result under it by itself."""
        ...

    async def running_session_jobs(self, org_id: str, session_ids: Sequence[str]) -> int:
        """How many reflect or episode jobs of the sessions are running now."""
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


class ErasureFence(Protocol):
    """What a background job asks before it writes for a session: is its subject being erased?"""

    async def erasing(self, org_id: str, scope: Scope) -> bool: ...


class SubjectEraser(Protocol):
    """The erasure's calls to the other services; each is idempotent (by request id or by nature)."""

    async def fence(self, subject: Scope, erasure_id: str) -> None:
        """FenceSubject on the memory and observations services: until lifted, they refuse every write
        for the subject (ABORTED, SUBJECT_ERASING), once the writes under way are done."""
        ...

    async def lift_fence(self, erasure_id: str) -> None:
        """LiftSubjectFence on both services."""
        ...

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
