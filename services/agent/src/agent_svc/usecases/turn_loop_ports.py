"""What a turn and the session around it need from the outside world: the turn loop's own store
(results, the reflection watermark, the session lock; adapters/postgres_turn_loop.py), the
assembler, the language model and the session's working memory."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from agent_svc.domain.extraction import Plan
from agent_svc.domain.transcript import Scope, Session, ToolInteraction, Turn
from agent_svc.domain.turn_loop import Assembled, KeptResult, Opaque, TurnResult


class TurnLoopStore(Protocol):
    async def result(self, org_id: str, turn_id: str) -> TurnResult | None: ...

    async def kept_result(self, org_id: str, turn_id: str) -> KeptResult | None:
        """The turn's kept result with the time it was kept; None when none is (any more)."""
        ...

    async def save_result(
        self, org_id: str, session_id: str, turn_id: str, result: TurnResult, now: datetime
    ) -> TurnResult: ...

    async def reflected_through(self, org_id: str, session_id: str) -> int: ...

    async def mark_reflected(self, org_id: str, session_id: str, sequence: int) -> None: ...

    async def idle_sessions(self, before: datetime, limit: int) -> list[tuple[str, str]]: ...

    def session_lock(self, session_id: str) -> AbstractAsyncContextManager[None]: ...


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

    async def acquire_lease_and_append(self, session_id: str, holder: str, turn: Turn) -> int | None:
        """``acquire_lease``, and ``turn`` appended to working memory under it, in one call: once the
        lease is granted, never without it. None (neither lease nor append) when the memory service
        cannot be reached; raises ABORTED as ``acquire_lease`` does, having written nothing."""
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
    async def assemble(self, session: Session, message: str, options: Opaque | None) -> Assembled:
        """AssembleContext for the message; ``options`` are the caller's AssembleOptions (None: none)."""
        ...

    async def prime(self, scope: Scope, initial_message: str) -> Opaque:
        """Prime for the scope (with the initial message, when not empty): the PrimeResponse as
        the assembler answered it, handed back to the caller unchanged."""
        ...


class LanguageModel(Protocol):
    async def reply(self, messages: list[tuple[str, str]]) -> str: ...
