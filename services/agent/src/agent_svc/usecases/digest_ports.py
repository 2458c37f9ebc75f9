"""What the daily digest job needs: the scopes active on the day, and the memory service's
episodes and digests as that job sees them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol

from agent_svc.domain.digest import DayEpisode, Digest
from agent_svc.domain.transcript import Scope


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
