"""What the agent's use cases need from the outside world."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from agent_svc.domain.transcript import Appended, Scope, Session, Turn


class Transcript(Protocol):
    async def start(self, session: Session, request_id: str) -> Session: ...

    async def get(self, org_id: str, session_id: str) -> Session | None: ...

    async def list(
        self, org_id: str, scope: Scope, status: str | None, limit: int, after: tuple[datetime, str] | None
    ) -> list[Session]: ...

    async def end(self, org_id: str, session_id: str, reason: str, now: datetime) -> Session | None: ...

    async def append(self, org_id: str, session_id: str, turns: Sequence[Turn], now: datetime) -> Appended: ...

    async def turns(self, org_id: str, session_id: str, limit: int, after_sequence: int) -> list[Turn]: ...


class Clock(Protocol):
    def now(self) -> datetime: ...


class MessageIndex(Protocol):
    """Long-term memory of the conversation's messages (the memory service's Remember)."""

    async def index(self, scope: Scope, session_id: str, turns: Sequence[Turn]) -> None:
        """Write each turn as a ``message`` memory, valid at the turn's time, with its metadata;
        idempotent per turn (a retry writes nothing twice)."""
        ...
