"""What the episode and thread use cases need of the memory service's EpisodeService."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from agent_svc.domain.extraction import EpisodeDraft
from agent_svc.domain.thread_closure import OpenThreadRef
from agent_svc.domain.transcript import Scope, Session


@dataclass(frozen=True, slots=True)
class StoredEpisode:
    """An episode as forgetting reads it: what it says, in one text (summary, decisions, outcomes,
    threads, action items, next-session questions), and the topics of its resolved threads."""

    id: str
    conversation_id: str
    says: str
    resolved: frozenset[str] = frozenset()


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

    async def of_user(self, user_id: str, limit: int) -> list[StoredEpisode]:
        """EpisodeService.ListEpisodes: the episodes whose scope names this user (any agent or team;
        never the organisation's shared ones), newest first, at most ``limit``."""
        ...

    async def rewrite(self, episode_id: str, draft: EpisodeDraft, message_count: int, forgotten_by: str) -> None:
        """EpisodeService.RewriteEpisode: the episode says what ``draft`` says (its metadata gains
        ``forgotten_by``); an episode gone since is no error."""
        ...

    async def delete(self, episode_id: str) -> bool:
        """EpisodeService.DeleteEpisode: False when it was gone already."""
        ...
