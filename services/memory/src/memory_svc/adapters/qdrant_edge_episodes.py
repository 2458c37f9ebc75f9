"""The EpisodeIndex port over qdrant-edge: its own shard, beside the memory items' one.

Layout below ``path`` (bootstrap passes ``<data_dir>/qdrant/episodes``)::

    path/lore_index.json   embedding model + dimension (+ payload version) of the summary vectors
    path/shard/            the EdgeShard

Same conventions as ``qdrant_edge_index.py``: the metadata file is written before the shard
is created and checked on every open; the synchronous engine runs in worker threads
(``asyncio.to_thread``) behind a gate that keeps ``close()`` from releasing the shard under a
running call; one process per shard (a second one gets FailedPrecondition). Payload,
filters and paging are shared with the qdrant-client adapter (``episode_payload.py``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import qdrant_edge as qe

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
from memory_svc.adapters.qdrant_edge_store import EdgeShardStore
from memory_svc.domain.episode import Episode
from memory_svc.domain.model import Scope, ScopeMatch
from memory_svc.usecases.episode_ports import EpisodeCursor, EpisodePage, ThreadCursor, ThreadPage


def _condition(condition: EpisodeCondition) -> qe.FieldCondition:
    if isinstance(condition, TimeRange):
        return qe.FieldCondition(
            condition.key, range=qe.RangeDateTime(gte=condition.gte, lt=condition.lt, lte=condition.lte)
        )
    if isinstance(condition, AtLeast):
        return qe.FieldCondition(condition.key, range=qe.RangeFloat(gte=condition.gte))
    if isinstance(condition, AnyOf):
        if len(condition.values) == 1:
            return qe.FieldCondition(condition.key, match=qe.MatchValue(condition.values[0]))
        return qe.FieldCondition(condition.key, match=qe.MatchAny(list(condition.values)))
    assert isinstance(condition, Match)
    return qe.FieldCondition(condition.key, match=qe.MatchValue(condition.value))


def _filter(conditions: Sequence[EpisodeCondition], *extra: Any) -> qe.Filter:
    return qe.Filter(must=[*(_condition(condition) for condition in conditions), *extra])


class QdrantEdgeEpisodeIndex(EdgeShardStore):
    """``await QdrantEdgeEpisodeIndex.open(path, embedding_model=..., dimension=...)`` (or the
    synchronous constructor, at start-up) opens or creates the shard; ``close()`` at shutdown."""

    label = "episode index"

    def __init__(
        self, path: str | os.PathLike[str], *, embedding_model: str, dimension: int, accept_stored: bool = False
    ) -> None:
        config = qe.EdgeConfig(vectors={DENSE_VECTOR: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine)})
        # ended_at's datetime index is required: order_by refuses a field without a range index.
        super().__init__(
            path,
            embedding_model=embedding_model,
            dimension=dimension,
            config=config,
            payload_indexes=EPISODE_PAYLOAD_INDEXES,
            accept_stored=accept_stored,
        )

    @classmethod
    async def open(
        cls, path: str | os.PathLike[str], *, embedding_model: str, dimension: int, accept_stored: bool = False
    ) -> QdrantEdgeEpisodeIndex:
        return await asyncio.to_thread(
            lambda: cls(path, embedding_model=embedding_model, dimension=dimension, accept_stored=accept_stored)
        )

    async def read_page(self, cursor: str | None, limit: int) -> tuple[list[Episode], str | None]:
        """Episodes of every org in point-id order from ``cursor`` (reindexing), and the next cursor."""
        payloads, after = await self._payload_page(cursor, limit)
        return [from_payload(payload) for payload in payloads], after

    # ------------------------------------------------------------------ the port

    async def upsert(self, episode: Episode, vector: np.ndarray) -> None:
        row = dense_row(vector, self.dimension)
        await self._run(self._upsert_sync, episode, row)

    def _upsert_sync(self, episode: Episode, row: list[float]) -> None:
        point = qe.Point(point_id(episode.id), {DENSE_VECTOR: row}, to_payload(episode))
        # An existing point is only overwritten if it belongs to the same org.
        guard = _filter([Match("org_id", episode.org_id)])
        self._shard.update(qe.UpdateOperation.upsert_points([point], condition=guard))

    async def get(self, org_id: str, episode_id: str) -> Episode | None:
        key = maybe_point_id(episode_id)
        if key is None:
            return None
        request = qe.ScrollRequest(
            limit=1,
            filter=_filter(base_conditions(org_id, Scope()), qe.HasIdCondition({key})),
            with_payload=True,
            with_vector=False,
        )
        records, _ = await self._run(self._shard.scroll, request)
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
        request = qe.QueryRequest(
            limit=k,
            query=qe.Query.Nearest(query_row(vector, self.dimension), using=DENSE_VECTOR),
            filter=_filter(conditions),
            with_payload=True,
            with_vector=False,
        )
        hits = await self._run(self._shard.query, request)
        return [(from_payload(hit.payload or {}), float(hit.score)) for hit in hits]

    async def get_many(self, org_id: str, episode_ids: Sequence[str]) -> list[Episode]:
        keys = {key for key in map(maybe_point_id, episode_ids) if key is not None}
        if not keys:
            return []
        request = qe.ScrollRequest(
            limit=len(keys),
            filter=_filter(base_conditions(org_id, Scope()), qe.HasIdCondition(keys)),
            with_payload=True,
            with_vector=False,
        )
        records, _ = await self._run(self._shard.scroll, request)
        return [from_payload(record.payload or {}) for record in records]

    async def update_salience(self, org_id: str, episodes: Sequence[Episode]) -> None:
        await self._run(self._update_salience_sync, org_id, list(episodes))

    def _update_salience_sync(self, org_id: str, episodes: list[Episode]) -> None:
        for episode in episodes:
            # By filter, with the org in it: an id another org holds is never written.
            guard = _filter([Match("org_id", org_id)], qe.HasIdCondition({point_id(episode.id)}))
            self._shard.update(qe.UpdateOperation.set_payload_by_filter(guard, salience_payload(episode)))

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
        return await self._run(self._delete_matching_sync, _filter(base_conditions(org_id, scope)))

    def _readers(self, conditions: list[EpisodeCondition]) -> tuple[Any, Any]:
        async def older(extra: list[EpisodeCondition], limit: int) -> list[Episode]:
            request = qe.ScrollRequest(
                limit=limit,
                filter=_filter([*conditions, *extra]),
                order_by=qe.OrderBy("ended_at", qe.Direction.Desc),
                with_payload=True,
                with_vector=False,
            )
            records, _ = await self._run(self._shard.scroll, request)
            return [from_payload(record.payload or {}) for record in records]

        async def tied(moment: datetime) -> list[Episode]:
            request = qe.ScrollRequest(
                limit=MAX_TIE_GROUP,
                filter=_filter([*conditions, ended_exactly(moment)]),
                with_payload=True,
                with_vector=False,
            )
            records, _ = await self._run(self._shard.scroll, request)
            return [from_payload(record.payload or {}) for record in records]

        return older, tied
