"""What the episode and thread use cases need of the memory service's EpisodeService."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from agent_svc.domain.extraction import EpisodeDraft
from agent_svc.domain.thread_closure import OpenThreadRef
from agent_svc.domain.transcript import Scope, Session


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
