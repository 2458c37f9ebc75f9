"""What the episode use cases need from storage (implemented in adapters/*_episodes.py).

Order: every listing is newest first by ``ended_at``, ties broken by episode id (descending),
a total order, so keyset cursors page without duplicates or gaps even while episodes are added.
A cursor is the position of the last thing returned; the next page starts strictly after it.
The use cases turn cursors into opaque page tokens; adapters never see a token.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

import numpy as np

from memory_svc.domain.episode import Episode, EpisodeThread
from memory_svc.domain.model import Scope, ScopeMatch


@dataclass(frozen=True, slots=True)
class EpisodeCursor:
    """After the episode ``episode_id`` that ended at ``ended_at``."""

    ended_at: datetime
    episode_id: str


@dataclass(frozen=True, slots=True)
class ThreadCursor:
    """After thread ``thread_index`` of episode ``episode_id`` (which ended at ``ended_at``)."""

    ended_at: datetime
    episode_id: str
    thread_index: int


@dataclass(frozen=True, slots=True)
class EpisodePage:
    episodes: list[Episode]
    next_cursor: EpisodeCursor | None


@dataclass(frozen=True, slots=True)
class ThreadPage:
    threads: list[EpisodeThread]
    next_cursor: ThreadCursor | None


class EpisodeIndex(Protocol):
    """Episodes with the dense vector of their summary, always filtered by org."""

    async def upsert(self, episode: Episode, vector: np.ndarray) -> None:
        """Write ``episode`` (a one-dimensional ``vector``). An existing point of another org is
        never overwritten."""
        ...

    async def get(self, org_id: str, episode_id: str) -> Episode | None:
        """The episode, or None when it does not exist or belongs to another org."""
        ...

    async def list(
        self,
        org_id: str,
        scope: Scope,
        page_size: int,
        cursor: EpisodeCursor | None = None,
        *,
        ended_after: datetime | None = None,
        min_salience: float | None = None,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> EpisodePage:
        """Episodes of ``org_id`` that ``scope`` selects (read with ``scope_match``: by default those
        sharing every set field of ``scope``), newest first; ``ended_after``
        keeps ``ended_at >= ended_after``, ``min_salience`` keeps ``current_salience >= min_salience``.
        ``next_cursor`` is None on the last page."""
        ...

    async def search(
        self,
        org_id: str,
        scope: Scope,
        vector: np.ndarray,
        k: int,
        *,
        min_salience: float | None = None,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> list[tuple[Episode, float]]:
        """Up to ``k`` episodes of ``org_id`` that ``scope`` selects (read with ``scope_match``, as in
        ``list``), nearest to ``vector`` first, each with the cosine of its summary vector to it;
        ``min_salience`` keeps ``current_salience >= min_salience`` (the stored value)."""
        ...

    async def get_many(self, org_id: str, episode_ids: Sequence[str]) -> list[Episode]:
        """The episodes of ``org_id`` among ``episode_ids`` (in any order); ids of another org,
        unknown or malformed ones are left out."""
        ...

    async def update_salience(self, org_id: str, episodes: Sequence[Episode]) -> None:
        """Write only ``access_count``, ``last_accessed_at`` and ``current_salience`` of each of
        ``episodes`` (the rest of the stored episode, and its vector, are kept). An episode
        ``org_id`` does not hold is never written."""
        ...

    async def list_open_threads(
        self,
        org_id: str,
        scope: Scope,
        page_size: int,
        cursor: ThreadCursor | None = None,
        *,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> ThreadPage:
        """Open and blocked threads of the episodes ``list`` would select, newest episode first, then in the
        order the episode lists them. ``next_cursor`` is None on the last page."""
        ...

    async def delete(self, org_id: str, episode_id: str) -> bool:
        """Delete the episode ``org_id`` holds with this id; False when there is none (a malformed id,
        another org's, gone already)."""
        ...

    async def delete_scope(self, org_id: str, scope: Scope) -> list[str]:
        """Erasure (ARCHITECTURE.md §2): delete every episode of ``org_id`` sharing every set field
        of ``scope`` (browse; callers refuse an empty scope); returns their ids."""
        ...
