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
import json
import os
import threading
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import qdrant_edge as qe
from lore_runtime.errors import FailedPrecondition

from memory_svc.adapters.episode_payload import (
    DENSE_VECTOR,
    EPISODE_PAYLOAD_INDEXES,
    MAX_TIE_GROUP,
    AtLeast,
    EpisodeCondition,
    Match,
    TimeRange,
    base_conditions,
    dense_row,
    ended_exactly,
    episode_page,
    from_payload,
    thread_page,
    to_payload,
)
from memory_svc.adapters.memory_payload import IndexMetadata, PayloadIndex, check_metadata, maybe_point_id, point_id
from memory_svc.domain.episode import Episode
from memory_svc.domain.model import Scope
from memory_svc.usecases.episode_ports import EpisodeCursor, EpisodePage, ThreadCursor, ThreadPage

T = TypeVar("T")

METADATA_FILE = "lore_index.json"
SHARD_DIR = "shard"


def _schema(index: PayloadIndex) -> qe.PayloadSchemaType | qe.KeywordIndexParams:
    if index.kind == "tenant":
        return qe.KeywordIndexParams(is_tenant=True)
    return {
        "keyword": qe.PayloadSchemaType.Keyword,
        "datetime": qe.PayloadSchemaType.Datetime,
        "float": qe.PayloadSchemaType.Float,
        "integer": qe.PayloadSchemaType.Integer,
    }[index.kind]


def _condition(condition: EpisodeCondition) -> qe.FieldCondition:
    if isinstance(condition, TimeRange):
        return qe.FieldCondition(
            condition.key, range=qe.RangeDateTime(gte=condition.gte, lt=condition.lt, lte=condition.lte)
        )
    if isinstance(condition, AtLeast):
        return qe.FieldCondition(condition.key, range=qe.RangeFloat(gte=condition.gte))
    assert isinstance(condition, Match)
    return qe.FieldCondition(condition.key, match=qe.MatchValue(condition.value))


def _filter(conditions: Sequence[EpisodeCondition], *extra: Any) -> qe.Filter:
    return qe.Filter(must=[*(_condition(condition) for condition in conditions), *extra])


def _read_metadata(file: Path) -> IndexMetadata | None:
    try:
        return IndexMetadata.from_dict(json.loads(file.read_text()))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise FailedPrecondition(
            f"cannot read {file}: {error}; run `lore reindex` to rebuild the episode index",
            reason="EMBEDDING_MODEL_UNKNOWN",
        ) from error


def _write_metadata(file: Path, metadata: IndexMetadata) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    tmp = file.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(metadata.as_dict(), indent=2) + "\n")
    with tmp.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(tmp, file)


class QdrantEdgeEpisodeIndex:
    """``await QdrantEdgeEpisodeIndex.open(path, embedding_model=..., dimension=...)`` (or the
    synchronous constructor, at start-up) opens or creates the shard; ``close()`` at shutdown."""

    def __init__(self, path: str | os.PathLike[str], *, embedding_model: str, dimension: int) -> None:
        if dimension <= 0:
            raise ValueError("dimension must be positive")
        self.path = Path(path)
        self.metadata = IndexMetadata(embedding_model, dimension)
        self.dimension = dimension
        self._gate = threading.Condition()
        self._active = 0
        self._closed = False
        self._shard = self._open_shard()
        try:
            self._ensure_payload_indexes()
        except BaseException:
            self._shard.close()
            raise

    @classmethod
    async def open(
        cls, path: str | os.PathLike[str], *, embedding_model: str, dimension: int
    ) -> QdrantEdgeEpisodeIndex:
        return await asyncio.to_thread(lambda: cls(path, embedding_model=embedding_model, dimension=dimension))

    # ------------------------------------------------------------------ opening

    def _config(self) -> qe.EdgeConfig:
        return qe.EdgeConfig(
            vectors={DENSE_VECTOR: qe.EdgeVectorParams(size=self.dimension, distance=qe.Distance.Cosine)}
        )

    def _open_shard(self) -> qe.EdgeShard:
        shard_dir = self.path / SHARD_DIR
        meta_file = self.path / METADATA_FILE
        exists = (shard_dir / "edge_config.json").exists() or (shard_dir / "segments").exists()
        if not exists:
            _write_metadata(meta_file, self.metadata)
            return qe.EdgeShard.create(str(shard_dir), self._config())
        check_metadata(f"episode index {self.path}", _read_metadata(meta_file), self.metadata)
        try:
            return qe.EdgeShard.load(str(shard_dir), self._config())
        except Exception as error:  # the bindings raise a bare Exception("Service runtime error: ...")
            text = str(error)
            if "WAL" in text and ("WouldBlock" in text or "lock" in text.lower()):
                raise FailedPrecondition(
                    f"episode index {self.path} is open in another process; qdrant-edge allows one process "
                    "per store (go through the memory service's RPCs)",
                    reason="STORE_LOCKED",
                    metadata={"store": str(self.path)},
                ) from error
            if "incompatible" in text.lower():
                raise FailedPrecondition(
                    f"episode index {self.path} does not match the configured vectors ({text}); run `lore reindex`",
                    reason="EMBEDDING_MODEL_MISMATCH",
                    metadata={"store": str(self.path)},
                ) from error
            raise

    def _ensure_payload_indexes(self) -> None:
        # ended_at's datetime index is required: order_by refuses a field without a range index.
        present = set(self._shard.info().payload_schema)
        for index in EPISODE_PAYLOAD_INDEXES:
            if index.field not in present:
                self._shard.update(qe.UpdateOperation.create_field_index(index.field, _schema(index)))

    # ------------------------------------------------------------------ thread gate

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        with self._gate:
            if self._closed:
                raise FailedPrecondition("the episode index is closed", reason="STORE_CLOSED")
            self._active += 1
        try:
            return fn(*args)
        finally:
            with self._gate:
                self._active -= 1
                self._gate.notify_all()

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(self._call, fn, *args)

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
    ) -> EpisodePage:
        conditions = base_conditions(org_id, scope, ended_after=ended_after, min_salience=min_salience)
        older, tied = self._readers(conditions)
        return await episode_page(older, tied, page_size, cursor)

    async def list_open_threads(
        self, org_id: str, scope: Scope, page_size: int, cursor: ThreadCursor | None = None
    ) -> ThreadPage:
        older, tied = self._readers(base_conditions(org_id, scope, open_threads_only=True))
        return await thread_page(older, tied, page_size, cursor)

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

    # ------------------------------------------------------------------ lifecycle

    async def flush(self) -> None:
        await self._run(self._shard.flush)

    async def optimize(self) -> bool:
        """Merge segments and build indexes; for a background task only."""
        return bool(await self._run(self._shard.optimize))

    async def close(self) -> None:
        """Wait for running calls, flush and release the shard."""
        await asyncio.to_thread(self._close_sync)

    def _close_sync(self) -> None:
        with self._gate:
            if self._closed:
                return
            self._closed = True
            self._gate.wait_for(lambda: self._active == 0)
        self._shard.flush()
        self._shard.close()
