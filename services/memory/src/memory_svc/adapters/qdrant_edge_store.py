"""What every qdrant-edge store of the memory service shares: a shard directory with Lore's
embedding metadata beside it, payload indexes, a thread gate and the lifecycle.

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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import qdrant_edge as qe
from lore_runtime.errors import FailedPrecondition

from memory_svc.adapters.memory_payload import DENSE_VECTOR, SCROLL_PAGE, IndexMetadata, PayloadIndex, check_metadata

T = TypeVar("T")

METADATA_FILE = "lore_index.json"
SHARD_DIR = "shard"


def payload_schema(index: PayloadIndex) -> qe.PayloadSchemaType | qe.KeywordIndexParams:
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


class EdgeShardStore:
    """Base of the qdrant-edge adapters; subclasses name themselves (``label``) and give the
    shard's vector config and payload indexes."""

    label = "index"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        embedding_model: str,
        dimension: int,
        config: qe.EdgeConfig,
        payload_indexes: Sequence[PayloadIndex],
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
        self._shard = self._open_stored() if accept_stored and self._exists() else self._open_shard(config)
        try:
            self._ensure_payload_indexes(payload_indexes)
        except BaseException:
            self._shard.close()
            raise

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

    def _ensure_payload_indexes(self, indexes: Sequence[PayloadIndex]) -> None:
        present = set(self._shard.info().payload_schema)
        for index in indexes:
            if index.field not in present:
                self._shard.update(qe.UpdateOperation.create_field_index(index.field, payload_schema(index)))

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

    # ------------------------------------------------------------------ erasure

    def _delete_matching_sync(self, matching: qe.Filter) -> list[str]:
        """Erasure (``delete_scope``): delete every point ``matching`` selects (the caller puts the
        org condition in it); returns their ids (the ``id`` payload field)."""
        ids: list[str] = []
        offset = None
        while True:
            records, offset = self._shard.scroll(
                qe.ScrollRequest(
                    offset=offset, limit=SCROLL_PAGE, filter=matching, with_payload=["id"], with_vector=False
                )
            )
            ids += [str((record.payload or {}).get("id") or record.id) for record in records]
            if offset is None:
                break
        if ids:
            self._shard.update(qe.UpdateOperation.delete_points_by_filter(matching))
        return ids

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
                    qe.ScrollRequest(offset=offset, limit=SCROLL_PAGE, with_payload=True, with_vector=True)
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

    # ------------------------------------------------------------------ reindexing

    async def count_all(self) -> int:
        """Points of every organisation (reindexing is an operator job across the whole store)."""
        return int(await self._run(self._shard.count, qe.CountRequest(exact=True)))

    async def _payload_page(self, cursor: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
        """Payloads of every org in point-id order from ``cursor``, and the id the next page starts at."""
        request = qe.ScrollRequest(offset=cursor, limit=limit, with_payload=True, with_vector=False)
        records, after = await self._run(self._shard.scroll, request)
        return [record.payload or {} for record in records], None if after is None else str(after)

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
