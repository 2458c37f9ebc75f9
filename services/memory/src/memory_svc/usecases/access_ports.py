"""The access log port: which memories and episodes were used, for salience and for audit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True)
class AccessRequest:
    """Who records uses of memories or episodes and why: the same for each one a call names."""

    reason: str
    session_id: str
    principal: str
    request_id: str

    def entry(self, memory_id: str, user_id: str, accessed_at: datetime, kind: str = "memory") -> Access:
        """The access log's entry for one use of ``memory_id`` (an episode's id with ``kind="episode"``)."""
        return Access(
            memory_id, user_id, self.session_id, self.reason, self.principal, self.request_id, accessed_at, kind
        )


@dataclass(frozen=True, slots=True)
class Access:
    memory_id: str  # the memory item's id, or the episode's (``kind``)
    user_id: str
    session_id: str
    reason: str
    principal: str
    request_id: str
    accessed_at: datetime
    kind: str = "memory"  # or "episode": RecordEpisodeAccess logs episodes' uses here too


class AccessLog(Protocol):
    async def record(self, org_id: str, accesses: Sequence[Access]) -> list[str]:
        """Writes the accesses; returns the memory ids newly recorded (a replayed request id records nothing)."""
        ...

    async def count(self, org_id: str, memory_id: str) -> int: ...

    async def forget(self, org_id: str, *, memory_ids: Sequence[str] = (), user_id: str = "") -> int:
        """Erasure: deletes the accesses of these memories or of this user; returns how many."""
        ...
