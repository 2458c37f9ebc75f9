"""What the agent's use cases need from the outside world."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from agent_svc.domain.transcript import Scope, Session, Turn


class Transcript(Protocol):
    async def start(self, session: Session, request_id: str) -> Session: ...

    async def get(self, org_id: str, session_id: str) -> Session | None: ...

    async def list(
        self, org_id: str, scope: Scope, status: str | None, limit: int, after: tuple[datetime, str] | None
    ) -> list[Session]: ...

    async def end(self, org_id: str, session_id: str, reason: str, now: datetime) -> Session | None: ...

    async def append(self, org_id: str, session_id: str, turns: Sequence[Turn], now: datetime) -> list[Turn]: ...

    async def turns(self, org_id: str, session_id: str, limit: int, after_sequence: int) -> list[Turn]: ...


class Clock(Protocol):
    def now(self) -> datetime: ...
