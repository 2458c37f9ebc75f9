"""The qdrant-edge engine: a shard directory with Lore's embedding metadata beside it, payload
indexes, a thread gate, the lifecycle, and the translation of the engine-neutral requests
(``qdrant_engine.py``) into qdrant-edge calls.

The engine is synchronous and allows one process per shard. Calls run in worker threads
(``_run``) through a gate so ``close()`` waits for them; ``optimize()`` is for background
tasks only (one at a time). The model metadata lives in ``lore_index.json`` next to
``shard/`` so a mismatch is found before the shard is opened (it names ``lore reindex``).
With ``accept_stored`` a mismatched shard is opened as it is (its own vector config), so the
service can serve reads until ``lore reindex`` rebuilds it.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Self, TypeVar

import qdrant_edge as qe
from lore_runtime.errors import FailedPrecondition

from memory_svc.adapters import qdrant_engine as neutral
from memory_svc.adapters.memory_payload import DENSE_VECTOR, SPARSE_VECTOR, IndexMetadata, check_metadata
from memory_svc.domain.lexical import SparseVector

T = TypeVar("T")

METADATA_FILE = "lore_index.json"
SHARD_DIR = "shard"
UPSERT_BATCH = 1024


def _condition(condition: neutral.AnyCondition) -> qe.FieldCondition:
    if isinstance(condition, neutral.DatetimeRange):
        return qe.FieldCondition(
            condition.key, range=qe.RangeDateTime(gte=condition.gte, lt=condition.lt, lte=condition.lte)
        )
    if isinstance(condition, neutral.FloatRange):
        return qe.FieldCondition(
            condition.key, range=qe.RangeFloat(gte=condition.gte, lt=condition.lt, lte=condition.lte)
        )
    if len(condition.values) == 1:
        return qe.FieldCondition(condition.key, match=qe.MatchValue(condition.values[0]))
    return qe.FieldCondition(condition.key, match=qe.MatchAny(list(condition.values)))


def _filter(matching: neutral.Where) -> qe.Filter:
    must: list[Any] = [_condition(condition) for condition in matching.conditions]
    if matching.ids is not None:
        must.append(qe.HasIdCondition(set(matching.ids)))
    return qe.Filter(must=must)


def _vector(row: neutral.Vector) -> list[float] | qe.SparseVector:
    if isinstance(row, SparseVector):
        return qe.SparseVector(list(row.indices), list(row.values))
    return row


def payload_schema(index: neutral.PayloadIndex) -> qe.PayloadSchemaType | qe.KeywordIndexParams:
    if index.kind == "tenant":
        return qe.KeywordIndexParams(is_tenant=True)
    return {
        "keyword": qe.PayloadSchemaType.Keyword,
        "datetime": qe.PayloadSchemaType.Datetime,
        "float": qe.PayloadSchemaType.Float,
        "integer": qe.PayloadSchemaType.Integer,
    }[index.kind]


def _read_metadata(file: Path, label: str) -> IndexMetadata | None:
    try:
        return IndexMetadata.from_dict(json.loads(file.read_text()))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise FailedPrecondition(
            f"cannot read {file}: {error}; run `lore reindex` to rebuild the {label}",
            reason="EMBEDDING_MODEL_UNKNOWN",
        ) from error


def _read_metadata_or_none(file: Path) -> IndexMetadata | None:
    try:
        return _read_metadata(file, "index")
    except FailedPrecondition:
        return None


def _write_metadata(file: Path, metadata: IndexMetadata) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    tmp = file.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(metadata.as_dict(), indent=2) + "\n")
    with tmp.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(tmp, file)


class EdgeShardStore(neutral.QdrantEngine):
    """Base of the qdrant-edge adapters: one shard with a dense vector (and, when ``sparse``, the
    BM25 vector) and the declared payload indexes (``QdrantEngine``); a subclass may pass its own
    ``config`` and ``payload_indexes`` instead.

    ``Subclass(path, embedding_model=..., dimension=...)`` opens (or creates) the shard
    synchronously — meant for start-up; ``await Subclass.open(...)`` does the same in a worker
    thread. Call ``optimize()`` from a background task and ``close()`` at shutdown.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        embedding_model: str,
        dimension: int,
        config: qe.EdgeConfig | None = None,
        payload_indexes: Sequence[neutral.PayloadIndex] | None = None,
        accept_stored: bool = False,
    ) -> None:
        if dimension <= 0:
            raise ValueError("dimension must be positive")
        self.path = Path(path)
        self.metadata = IndexMetadata(embedding_model, dimension)
        self.dimension = dimension
        self._gate = threading.Condition()
        self._active = 0
        self._closed = False
        self._optimizing = threading.Lock()
        if accept_stored and self._exists():
            self._shard = self._open_stored()
        else:
            self._shard = self._open_shard(config or self._config())
        try:
            self._ensure_payload_indexes(self.payload_index_list if payload_indexes is None else payload_indexes)
        except BaseException:
            self._shard.close()
            raise

    def _config(self) -> qe.EdgeConfig:
        sparse = {SPARSE_VECTOR: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)} if self.sparse else None
        return qe.EdgeConfig(
            vectors={DENSE_VECTOR: qe.EdgeVectorParams(size=self.dimension, distance=qe.Distance.Cosine)},
            sparse_vectors=sparse,
        )

    def _exists(self) -> bool:
        shard_dir = self.path / SHARD_DIR
        return (shard_dir / "edge_config.json").exists() or (shard_dir / "segments").exists()

    def _open_stored(self) -> qe.EdgeShard:
        """Open an existing shard with the vectors it holds, whatever the configured model: the
        metadata (and dimension) become the stored ones, "unknown" when the file is missing."""
        config_file = self.path / SHARD_DIR / "edge_config.json"
        try:
            self.dimension = int(json.loads(config_file.read_text())["vectors"][DENSE_VECTOR]["size"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise FailedPrecondition(
                f"cannot read the vector config of {self.label} {self.path}: {error}", reason="EMBEDDING_MODEL_UNKNOWN"
            ) from error
        stored = _read_metadata_or_none(self.path / METADATA_FILE)
        self.metadata = IndexMetadata(stored.embedding_model if stored else "unknown", self.dimension)
        return self._load(None)

    def _open_shard(self, config: qe.EdgeConfig) -> qe.EdgeShard:
        shard_dir = self.path / SHARD_DIR
        meta_file = self.path / METADATA_FILE
        if not self._exists():
            _write_metadata(meta_file, self.metadata)
            return qe.EdgeShard.create(str(shard_dir), config)
        check_metadata(f"{self.label} {self.path}", _read_metadata(meta_file, self.label), self.metadata)
        # The full config: load() checks it and writes it back to disk.
        return self._load(config)

    def _load(self, config: qe.EdgeConfig | None) -> qe.EdgeShard:
        try:
            return qe.EdgeShard.load(str(self.path / SHARD_DIR), config)
        except Exception as error:  # the bindings raise a bare Exception("Service runtime error: ...")
            text = str(error)
            if "WAL" in text and ("WouldBlock" in text or "lock" in text.lower()):
                raise FailedPrecondition(
                    f"{self.label} {self.path} is open in another process; qdrant-edge allows one process "
                    "per store (go through the memory service's RPCs)",
                    reason="STORE_LOCKED",
                    metadata={"store": str(self.path)},
                ) from error
            if "incompatible" in text.lower():
                raise FailedPrecondition(
                    f"{self.label} {self.path} does not match the configured vectors ({text}); run `lore reindex`",
                    reason="EMBEDDING_MODEL_MISMATCH",
                    metadata={"store": str(self.path)},
                ) from error
            raise

    def _ensure_payload_indexes(self, indexes: Sequence[neutral.PayloadIndex]) -> None:
        present = set(self._shard.info().payload_schema)
        for index in indexes:
            if index.field not in present:
                self._shard.update(qe.UpdateOperation.create_field_index(index.field, payload_schema(index)))

    @classmethod
    async def open(cls, path: str | os.PathLike[str], **options: Any) -> Self:
        """The constructor in a worker thread (it reads and may create files)."""
        return await asyncio.to_thread(lambda: cls(path, **options))

    # ------------------------------------------------------------------ thread gate

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        with self._gate:
            if self._closed:
                raise FailedPrecondition(f"the {self.label} is closed", reason="STORE_CLOSED")
            self._active += 1
        try:
            return fn(*args)
        finally:
            with self._gate:
                self._active -= 1
                self._gate.notify_all()

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(self._call, fn, *args)

    # ------------------------------------------------------------------ the engine calls

    async def _scroll(self, request: neutral.Scroll) -> tuple[list[neutral.Stored], str | None]:
        order = request.descending
        scroll = qe.ScrollRequest(
            offset=request.offset,
            limit=request.limit,
            filter=None if request.matching is None else _filter(request.matching),
            order_by=None if order is None else qe.OrderBy(order, direction=qe.Direction.Desc),
            with_payload=list(request.payload) if isinstance(request.payload, tuple) else request.payload,
            with_vector=False if request.vector is None else [request.vector],
        )
        records, after = await self._run(self._shard.scroll, scroll)
        name = request.vector
        stored = [
            neutral.Stored(record.id, record.payload or {}, None if name is None else (record.vector or {})[name])
            for record in records
        ]
        return stored, None if after is None else str(after)

    async def _nearest(self, request: neutral.Nearest) -> list[neutral.Hit]:
        query = qe.QueryRequest(
            limit=request.limit,
            query=qe.Query.Nearest(_vector(request.query), using=request.using),
            filter=_filter(request.matching),
            with_payload=request.payload,
            with_vector=False,
        )
        hits = await self._run(self._shard.query, query)
        # The bindings build a payload dict on every read of ``payload``: only when asked for.
        return [
            neutral.Hit(str(hit.id), float(hit.score), hit.payload or {} if request.payload else {}) for hit in hits
        ]

    async def _count(self, matching: neutral.Where | None) -> int:
        request = qe.CountRequest(exact=True, filter=None if matching is None else _filter(matching))
        return int(await self._run(self._shard.count, request))

    async def _facet(self, key: str, limit: int, *, what: str) -> list[str]:
        response = await self._run(self._shard.facet, qe.FacetRequest(key=key, limit=limit, exact=True))
        return [str(hit.value) for hit in response.hits]

    async def _upsert(self, groups: Callable[[], neutral.Groups], *, what: str) -> None:
        # Points are built in the worker thread: the bindings take ~10 us per payload key, which
        # would otherwise block the event loop for ~0.2 ms per item.
        await self._run(self._upsert_sync, groups)

    def _upsert_sync(self, groups: Callable[[], neutral.Groups]) -> None:
        for guard, points in groups():
            built = [
                qe.Point(point.id, {name: _vector(row) for name, row in point.vectors.items()}, point.payload)
                for point in points
            ]
            for start in range(0, len(built), UPSERT_BATCH):
                batch = built[start : start + UPSERT_BATCH]
                self._shard.update(qe.UpdateOperation.upsert_points(batch, condition=_filter(guard)))

    async def _set_payloads(self, writes: Callable[[], Iterable[neutral.PayloadWrite]], *, what: str) -> None:
        await self._run(self._set_payloads_sync, writes)

    def _set_payloads_sync(self, writes: Callable[[], Iterable[neutral.PayloadWrite]]) -> None:
        for write in writes():
            if write.by_id:
                # ~0.1 ms an item instead of ~1.1 ms for a write under a filter.
                self._shard.update(qe.UpdateOperation.set_payload([write.point], write.payload))
            else:
                guard = _filter(neutral.org_point(write.org_id, write.point))
                self._shard.update(qe.UpdateOperation.set_payload_by_filter(guard, write.payload))

    async def _delete(self, matching: neutral.Where, *, what: str) -> None:
        await self._run(self._shard.update, qe.UpdateOperation.delete_points_by_filter(_filter(matching)))

    # ------------------------------------------------------------------ purge

    def copy_from_sync(self, source_dir: Path) -> int:
        """Every point of the closed shard at ``source_dir``, vectors and payload as stored, into this
        (new, empty) one, flushed: the copy has no trace of points deleted there, neither in its
        segments nor in its write-ahead log (a purge). Returns the points copied."""
        source = qe.EdgeShard.load(str(source_dir), None)
        copied, offset = 0, None
        try:
            while True:
                records, offset = source.scroll(
                    qe.ScrollRequest(offset=offset, limit=neutral.SCROLL_PAGE, with_payload=True, with_vector=True)
                )
                if records:
                    points = [qe.Point(record.id, record.vector, record.payload) for record in records]
                    self._shard.update(qe.UpdateOperation.upsert_points(points))
                    copied += len(records)
                if offset is None:
                    break
        finally:
            source.close()
        self._shard.flush()
        return copied

    # ------------------------------------------------------------------ lifecycle

    async def optimize(self) -> bool:
        """Merge segments and build the HNSW and payload indexes; for a background task only.

        Blocks its worker thread until the optimisers are done (tens of seconds at 50k+
        points); searches keep being answered meanwhile. Returns False if nothing was to do
        or another optimisation is already running.
        """
        return await self._run(self._optimize_sync)

    def _optimize_sync(self) -> bool:
        if not self._optimizing.acquire(blocking=False):
            return False
        try:
            return bool(self._shard.optimize())
        finally:
            self._optimizing.release()

    async def flush(self) -> None:
        await self._run(self._shard.flush)

    async def close(self) -> None:
        """Wait for running calls (an ``optimize()`` included), flush and release the shard."""
        await asyncio.to_thread(self._close_sync)

    def _close_sync(self) -> None:
        with self._gate:
            if self._closed:
                return
            self._closed = True
            self._gate.wait_for(lambda: self._active == 0)
        self._shard.flush()
        self._shard.close()
