"""What the use cases need of the conversation as the agent stores it: its sessions and turns
(implemented in adapters/postgres_transcript.py): sessions, the turn loop, reflection, episodes and
imports read and write it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Protocol

from agent_svc.domain.jobs import Job
from agent_svc.domain.transcript import Appended, Scope, Session, Turn


class Transcript(Protocol):
    async def start(self, session: Session, request_id: str, requester: str = "") -> Session:
        """Store ``session``; a request id ``requester`` already used returns the session it started
        (request ids are unique per org and requester)."""
        ...

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
