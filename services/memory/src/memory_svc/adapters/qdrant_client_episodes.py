"""The EpisodeIndex port over a Qdrant server, through ``qdrant_client.AsyncQdrantClient``
(collection ``episodes``).

Same payload, filters and paging as the qdrant-edge adapter (``episode_payload.py``). The
embedding model and dimension are stored in the collection's metadata and checked on every
open. qdrant-client's local mode (tests) ignores payload indexes and warns when asked for
one, so they are only created against a real server — where ``order_by`` needs the
``ended_at`` datetime index.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
from qdrant_client import models

from memory_svc.adapters.episode_payload import (
    DENSE_VECTOR,
    EPISODE_PAYLOAD_INDEXES,
    MAX_TIE_GROUP,
    AnyOf,
    AtLeast,
    EpisodeCondition,
    Match,
    TimeRange,
    base_conditions,
    dense_row,
    ended_exactly,
    episode_page,
    from_payload,
    salience_payload,
    thread_page,
    to_payload,
)
from memory_svc.adapters.memory_payload import maybe_point_id, point_id, query_row
from memory_svc.adapters.qdrant_client_common import ClientCollectionStore, translated
from memory_svc.domain.episode import Episode
from memory_svc.domain.model import Scope, ScopeMatch
from memory_svc.usecases.episode_ports import EpisodeCursor, EpisodePage, ThreadCursor, ThreadPage

DEFAULT_COLLECTION = "episodes"


def _condition(condition: EpisodeCondition) -> models.FieldCondition:
    if isinstance(condition, TimeRange):
        return models.FieldCondition(
            key=condition.key, range=models.DatetimeRange(gte=condition.gte, lt=condition.lt, lte=condition.lte)
        )
    if isinstance(condition, AtLeast):
        return models.FieldCondition(key=condition.key, range=models.Range(gte=condition.gte))
    if isinstance(condition, AnyOf):
        if len(condition.values) == 1:
            return models.FieldCondition(key=condition.key, match=models.MatchValue(value=condition.values[0]))
        return models.FieldCondition(key=condition.key, match=models.MatchAny(any=list(condition.values)))
    assert isinstance(condition, Match)
    return models.FieldCondition(key=condition.key, match=models.MatchValue(value=condition.value))


def _filter(conditions: Sequence[EpisodeCondition], *extra: Any) -> models.Filter:
    return models.Filter(must=[*(_condition(condition) for condition in conditions), *extra])


class QdrantClientEpisodeIndex(ClientCollectionStore):
    """``await QdrantClientEpisodeIndex.open(client, embedding_model=..., dimension=...)`` creates the
    collection if it is missing and checks its metadata. ``close()`` closes the client only if the
    index owns it (``owns_client=True``); share the memory index's client otherwise."""

    default_collection = DEFAULT_COLLECTION
    payload_index_list = EPISODE_PAYLOAD_INDEXES
    sparse = False

    async def read_page(self, cursor: str | None, limit: int) -> tuple[list[Episode], str | None]:
        """Episodes of every org in point-id order from ``cursor`` (reindexing), and the next cursor."""
        payloads, after = await self._payload_page(cursor, limit)
        return [from_payload(payload) for payload in payloads], after

    # ------------------------------------------------------------------ the port

    async def upsert(self, episode: Episode, vector: np.ndarray) -> None:
        point = models.PointStruct(
            id=point_id(episode.id),
            vector={DENSE_VECTOR: dense_row(vector, self.dimension)},
            payload=to_payload(episode),
        )
        async with translated("episode upsert"):
            # An existing point is only overwritten if it belongs to the same org.
            await self.client.upsert(
                self.collection,
                points=[point],
                update_filter=_filter([Match("org_id", episode.org_id)]),
                wait=True,
            )

    async def get(self, org_id: str, episode_id: str) -> Episode | None:
        key = maybe_point_id(episode_id)
        if key is None:
            return None
        async with translated("episode get"):
            records, _ = await self.client.scroll(
                self.collection,
                scroll_filter=_filter(base_conditions(org_id, Scope()), models.HasIdCondition(has_id=[key])),
                limit=1,
                with_payload=True,
                with_vectors=False,
            )
        return from_payload(records[0].payload or {}) if records else None

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
        async with translated("episode search"):
            response = await self.client.query_points(
                self.collection,
                query=query_row(vector, self.dimension),
                using=DENSE_VECTOR,
                query_filter=_filter(conditions),
                limit=k,
                with_payload=True,
                with_vectors=False,
            )
        return [(from_payload(point.payload or {}), float(point.score)) for point in response.points]

    async def get_many(self, org_id: str, episode_ids: Sequence[str]) -> list[Episode]:
        keys = sorted({key for key in map(maybe_point_id, episode_ids) if key is not None})
        if not keys:
            return []
        async with translated("episode get"):
            records, _ = await self.client.scroll(
                self.collection,
                scroll_filter=_filter(base_conditions(org_id, Scope()), models.HasIdCondition(has_id=list(keys))),
                limit=len(keys),
                with_payload=True,
                with_vectors=False,
            )
        return [from_payload(record.payload or {}) for record in records]

    async def update_salience(self, org_id: str, episodes: Sequence[Episode]) -> None:
        async with translated("episode salience"):
            for episode in episodes:
                # By filter, with the org in it: an id another org holds is never written.
                guard = _filter([Match("org_id", org_id)], models.HasIdCondition(has_id=[point_id(episode.id)]))
                await self.client.set_payload(self.collection, payload=salience_payload(episode), points=guard)

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

    async def delete_scope(self, org_id: str, scope: Scope) -> list[str]:
        return await self._delete_matching(_filter(base_conditions(org_id, scope)))

    def _readers(self, conditions: list[EpisodeCondition]) -> tuple[Any, Any]:
        async def older(extra: list[EpisodeCondition], limit: int) -> list[Episode]:
            async with translated("episode list"):
                records, _ = await self.client.scroll(
                    self.collection,
                    scroll_filter=_filter([*conditions, *extra]),
                    order_by=models.OrderBy(key="ended_at", direction=models.Direction.DESC),
                    limit=limit,
                    with_payload=True,
                    with_vectors=False,
                )
            return [from_payload(record.payload or {}) for record in records]

        async def tied(moment: datetime) -> list[Episode]:
            async with translated("episode list"):
                records, _ = await self.client.scroll(
                    self.collection,
                    scroll_filter=_filter([*conditions, ended_exactly(moment)]),
                    limit=MAX_TIE_GROUP,
                    with_payload=True,
                    with_vectors=False,
                )
            return [from_payload(record.payload or {}) for record in records]

        return older, tied
