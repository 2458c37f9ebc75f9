"""A hand-written fake of the EpisodeIndex port, for unit tests of the episode use cases.

The reference semantics, written the obvious way (sort everything, cut after the cursor);
tests/integration/memory/test_episode_index_contract.py runs the same assertions against
it and both Qdrant adapters so they cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

import numpy as np
from memory_svc.domain.episode import Episode, open_threads_of
from memory_svc.domain.model import Scope, ScopeMatch
from memory_svc.usecases.episode_ports import EpisodeCursor, EpisodePage, ThreadCursor, ThreadPage

# What ``update_salience`` writes; the rest of a stored episode is kept.
SALIENCE_FIELDS = ("access_count", "last_accessed_at", "current_salience")


class InMemoryEpisodeIndex:
    def __init__(self) -> None:
        self._episodes: dict[str, tuple[Episode, np.ndarray]] = {}
        self.upserts = 0
        self.salience_writes = 0

    async def upsert(self, episode: Episode, vector: np.ndarray) -> None:
        existing = self._episodes.get(episode.id)
        if existing is not None and existing[0].org_id != episode.org_id:
            return  # another org's point id: never overwritten (the adapters' org guard)
        self._episodes[episode.id] = (episode, np.asarray(vector, dtype=np.float32).reshape(-1))
        self.upserts += 1

    async def get(self, org_id: str, episode_id: str) -> Episode | None:
        found = self._episodes.get(episode_id)
        return found[0] if found is not None and found[0].org_id == org_id else None

    def _matching(self, org_id: str, scope: Scope, scope_match: ScopeMatch = ScopeMatch.BROWSE) -> list[Episode]:
        episodes = [
            episode
            for episode, _ in self._episodes.values()
            if episode.org_id == org_id and scope.selects(episode.scope, scope_match)
        ]
        return sorted(episodes, key=lambda episode: (episode.ended_at, episode.id), reverse=True)

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
        episodes = [
            episode
            for episode in self._matching(org_id, scope, scope_match)
            if (ended_after is None or episode.ended_at >= ended_after)
            and (min_salience is None or episode.current_salience >= min_salience)
            and (cursor is None or (episode.ended_at, episode.id) < (cursor.ended_at, cursor.episode_id))
        ]
        page = episodes[:page_size]
        more = len(episodes) > page_size
        return EpisodePage(page, EpisodeCursor(page[-1].ended_at, page[-1].id) if more and page else None)

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
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        hits = [
            (episode, _cosine(query, self._episodes[episode.id][1]))
            for episode in self._matching(org_id, scope, scope_match)
            if min_salience is None or episode.current_salience >= min_salience
        ]
        return sorted(hits, key=lambda hit: hit[1], reverse=True)[: max(k, 0)]

    async def get_many(self, org_id: str, episode_ids: Sequence[str]) -> list[Episode]:
        found = (self._episodes.get(episode_id) for episode_id in dict.fromkeys(episode_ids))
        return [entry[0] for entry in found if entry is not None and entry[0].org_id == org_id]

    async def update_salience(self, org_id: str, episodes: Sequence[Episode]) -> None:
        for episode in episodes:
            stored = self._episodes.get(episode.id)
            if stored is None or stored[0].org_id != org_id:
                continue  # the adapters' org guard
            fields = {name: getattr(episode, name) for name in SALIENCE_FIELDS}
            self._episodes[episode.id] = (replace(stored[0], **fields), stored[1])
        self.salience_writes += len(episodes)

    async def list_open_threads(
        self,
        org_id: str,
        scope: Scope,
        page_size: int,
        cursor: ThreadCursor | None = None,
        *,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> ThreadPage:
        threads = [
            thread for episode in self._matching(org_id, scope, scope_match) for thread in open_threads_of(episode)
        ]
        if cursor is not None:
            position = (cursor.ended_at, cursor.episode_id, -cursor.thread_index)
            threads = [thread for thread in threads if (thread.ended_at, thread.episode_id, -thread.index) < position]
        page = threads[:page_size]
        more = len(threads) > page_size
        last = page[-1] if page else None
        return ThreadPage(
            page, ThreadCursor(last.ended_at, last.episode_id, last.index) if more and last is not None else None
        )

    async def delete(self, org_id: str, episode_id: str) -> bool:
        if await self.get(org_id, episode_id) is None:
            return False
        del self._episodes[episode_id]
        return True

    async def delete_scope(self, org_id: str, scope: Scope) -> list[str]:
        doomed = [episode.id for episode in self._matching(org_id, scope)]
        for episode_id in doomed:
            del self._episodes[episode_id]
        return doomed


def _cosine(left: np.ndarray, right: np.ndarray) -> float:
    norms = float(np.linalg.norm(left) * np.linalg.norm(right))
    return float(np.dot(left, right) / norms) if norms else 0.0
