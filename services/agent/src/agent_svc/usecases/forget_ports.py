"""What forgetting needs of the other services: the user's memories searched and archived, the
user's beliefs searched and invalidated (memory and observations services), and a session's
working-memory summary read and rewritten."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from agent_svc.domain.transcript import Scope


@dataclass(frozen=True, slots=True)
class Reason:
    """Why something is forgotten: ``by`` is the forgetting turn's id (``request:<id>`` for a call),
    ``session_id`` the session it was said in (empty for a call)."""

    by: str
    session_id: str
    at: datetime


@dataclass(frozen=True, slots=True)
class FoundMemory:
    id: str
    kind: str  # message | fact | preference | ... (the memory type in lower case)
    text: str
    similarity: float  # dense cosine to the query
    user_id: str
    turn_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FoundBelief:
    id: str
    text: str
    similarity: float
    user_id: str
    source_ids: frozenset[str]  # the turns and memories its evidence cites


class Forgetting(Protocol):
    async def search_memories(self, scope: Scope, query: str, limit: int) -> list[FoundMemory]:
        """The memories whose user is ``scope.user_id`` (any agent or team), nearest ``query`` first,
        in every status a reader could still meet (current, superseded, completed); never archived ones."""
        ...

    async def archive(self, memory_id: str, reason: Reason) -> bool:
        """The memory becomes archived with ``reason`` in its metadata; False when it is gone."""
        ...

    async def rewrite(self, memory_id: str, content: str, reason: Reason) -> bool:
        """The memory's content becomes ``content``, ``reason`` in its metadata; False when it is gone."""
        ...

    async def search_beliefs(self, scope: Scope, query: str, limit: int) -> list[FoundBelief]:
        """The current beliefs a context for ``scope`` may show (the user's and the org's), nearest first."""
        ...

    async def invalidate(self, belief_id: str, reason: Reason, request_id: str) -> bool:
        """The belief becomes invalidated, the reason recorded as contradicting evidence; False when it
        is no longer current."""
        ...

    async def summary(self, session_id: str) -> str:
        """The session's working-memory summary ("" when none)."""
        ...

    async def rewrite_summary(self, session_id: str, summary: str) -> None: ...
