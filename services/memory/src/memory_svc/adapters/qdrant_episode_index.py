"""The EpisodeIndex port over Qdrant, for both engines: every query is built here from the
neutral requests of ``qdrant_engine.py``; the engine's base class only makes the calls
(``QdrantClientEpisodeIndex`` in ``qdrant_client_episodes.py``, ``QdrantEdgeEpisodeIndex`` in
``qdrant_edge_episodes.py``).

Payload, conditions, payload indexes and paging: ``episode_payload.py``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from memory_svc.adapters.episode_payload import (
    DENSE_VECTOR,
    EPISODE_PAYLOAD_INDEXES,
    MAX_TIE_GROUP,
    EpisodeCondition,
    base_conditions,
    dense_row,
    ended_exactly,
    episode_page,
    from_payload,
    org_match,
    salience_payload,
    thread_page,
    to_payload,
)
from memory_svc.adapters.memory_payload import maybe_point_id, point_id, query_row
from memory_svc.adapters.qdrant_engine import Groups, Nearest, NewPoint, PayloadWrite, QdrantEngine, Scroll, where
from memory_svc.domain.episode import Episode
from memory_svc.domain.model import Scope, ScopeMatch
from memory_svc.usecases.episode_ports import EpisodeCursor, EpisodePage, ThreadCursor, ThreadPage


class QdrantEpisodeIndex(QdrantEngine):
    """The port; a concrete class adds an engine (``ClientCollectionStore`` or ``EdgeShardStore``)."""

    label = "episode index"
    # ended_at's datetime index is required: order_by refuses a field without a range index.
    payload_index_list = EPISODE_PAYLOAD_INDEXES
    sparse = False
    record = staticmethod(from_payload)
    dimension: int

    # ------------------------------------------------------------------ the port

    async def upsert(self, episode: Episode, vector: np.ndarray) -> None:
        row = dense_row(vector, self.dimension)

        def groups() -> Groups:
            point = NewPoint(point_id(episode.id), {DENSE_VECTOR: row}, to_payload(episode))
            # An existing point is only overwritten if it belongs to the same org.
            return [(where([org_match(episode.org_id)]), [point])]

        await self._upsert(groups, what="episode upsert")

    async def get(self, org_id: str, episode_id: str) -> Episode | None:
        key = maybe_point_id(episode_id)
        if key is None:
            return None
        page, _ = await self._scroll(Scroll("episode get", where(base_conditions(org_id, Scope()), [key]), 1))
        return from_payload(page[0].payload) if page else None

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
        conditions = base_conditions(
            org_id, scope, ended_after=ended_after, min_salience=min_salience, scope_match=scope_match
        )
        older, tied = self._readers(conditions)
        return await episode_page(older, tied, page_size, cursor)

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
        conditions = base_conditions(org_id, scope, min_salience=min_salience, scope_match=scope_match)
        if k <= 0:
            return []
        # Episodes are few per scope and k is small: the payloads come with the hits.
        row = query_row(vector, self.dimension)
        hits = await self._nearest(Nearest("episode search", DENSE_VECTOR, row, where(conditions), k, payload=True))
        return [(from_payload(hit.payload), hit.score) for hit in hits]

    async def get_many(self, org_id: str, episode_ids: Sequence[str]) -> list[Episode]:
        keys = sorted({key for key in map(maybe_point_id, episode_ids) if key is not None})
        if not keys:
            return []
        matching = where(base_conditions(org_id, Scope()), keys)
        page, _ = await self._scroll(Scroll("episode get", matching, len(keys)))
        return [from_payload(point.payload) for point in page]

    async def update_salience(self, org_id: str, episodes: Sequence[Episode]) -> None:
        def writes() -> Iterator[PayloadWrite]:
            for episode in episodes:
                # By filter, with the org in it: an id another org holds is never written.
                yield PayloadWrite(org_id, point_id(episode.id), salience_payload(episode))

        await self._set_payloads(writes, what="episode salience")

    async def list_open_threads(
        self,
        org_id: str,
        scope: Scope,
        page_size: int,
        cursor: ThreadCursor | None = None,
        *,
        scope_match: ScopeMatch = ScopeMatch.BROWSE,
    ) -> ThreadPage:
        older, tied = self._readers(base_conditions(org_id, scope, open_threads_only=True, scope_match=scope_match))
        return await thread_page(older, tied, page_size, cursor)

    async def delete(self, org_id: str, episode_id: str) -> bool:
        key = maybe_point_id(episode_id)
        if key is None:
            return False
        return bool(await self._delete_matching(where(base_conditions(org_id, Scope()), [key])))

    async def delete_scope(self, org_id: str, scope: Scope) -> list[str]:
        return await self._delete_matching(where(base_conditions(org_id, scope)))

    def _readers(self, conditions: list[EpisodeCondition]) -> tuple[Any, Any]:
        async def older(extra: list[EpisodeCondition], limit: int) -> list[Episode]:
            matching = where([*conditions, *extra])
            page, _ = await self._scroll(Scroll("episode list", matching, limit, descending="ended_at"))
            return [from_payload(point.payload) for point in page]

        async def tied(moment: datetime) -> list[Episode]:
            matching = where([*conditions, ended_exactly(moment)])
            page, _ = await self._scroll(Scroll("episode list", matching, MAX_TIE_GROUP))
            return [from_payload(point.payload) for point in page]

        return older, tied
