"""The embedded (qdrant-edge) items and episodes stores of the memory service: opened at start-up
even when their vectors come from another embedding model (reads work, vector work is refused
until ``lore reindex``), rebuilt beside the live shards and swapped in (``edge_shard_swap.py``).

qdrant-edge allows one process per shard, so all of this runs inside the memory service, which
keeps serving: a rebuild writes to ``<root>/items.reindex`` and ``<root>/episodes.reindex``,
recording its progress in ``reindex_progress.json`` after each flushed page.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
from pathlib import Path
from typing import Any

from lore_runtime.errors import FailedPrecondition

from memory_svc.adapters.collection_rebuild import (
    STALE_REASONS,
    CollectionRebuild,
    open_live,
    progress_as_dict,
    progress_from_dict,
)
from memory_svc.adapters.edge_maintenance import Observer, OptimizeRun, optimize_in_child
from memory_svc.adapters.edge_shard_swap import (
    COMPACTION,
    EPISODES,
    EPISODES_COMPACT,
    EPISODES_REBUILD,
    ITEMS_COMPACT,
    ITEMS_REBUILD,
    PROGRESS_FILE,
    finish_swap,
    remove_leftovers,
    swap_directories,
    write_json_durably,
)
from memory_svc.adapters.qdrant_edge_episodes import QdrantEdgeEpisodeIndex
from memory_svc.adapters.qdrant_edge_index import QdrantEdgeMemoryIndex
from memory_svc.adapters.qdrant_edge_store import SHARD_DIR
from memory_svc.usecases.guarded_stores import GuardedEpisodeIndex, GuardedMemoryIndex, VectorState
from memory_svc.usecases.maintenance_ports import PurgedStore, RebuildProgress

log = logging.getLogger(__name__)


class JsonProgress:
    """A rebuild's progress in a small JSON file inside its directory."""

    def __init__(self, file: Path) -> None:
        self.file = file

    async def load(self) -> RebuildProgress:
        try:
            return progress_from_dict(await asyncio.to_thread(_read_json, self.file))
        except (FileNotFoundError, ValueError):
            return RebuildProgress()

    async def save(self, progress: RebuildProgress) -> None:
        await asyncio.to_thread(write_json_durably, self.file, progress_as_dict(progress))


def _read_json(file: Path) -> Any:
    return json.loads(file.read_text())


async def open_target(store_class: Any, path: Path, *, embedding_model: str, dimension: int) -> Any:
    """The rebuild's new store: resumed when an interrupted run left one of this model, else created afresh."""
    try:
        return await store_class.open(path, embedding_model=embedding_model, dimension=dimension)
    except FailedPrecondition as error:
        if error.reason not in STALE_REASONS:
            raise
        await asyncio.to_thread(shutil.rmtree, path)  # another model's leftovers: start over
        return await store_class.open(path, embedding_model=embedding_model, dimension=dimension)


class EdgeVectorStores:
    """``await EdgeVectorStores.open(root, embedding_model=..., dimension=...)``; ``items`` and
    ``episodes`` are the guarded live stores the use cases get; ``close()`` at shutdown.
    ``in_child`` (``LORE_QDRANT_OPTIMIZE_IN_CHILD``): a purge compacts in a child process at
    ``niceness``, as the optimisation does, rather than in this process with every call held."""

    def __init__(
        self,
        root: Path,
        embedding_model: str,
        dimension: int,
        items: Any,
        episodes: Any,
        state: VectorState,
        *,
        in_child: bool = True,
        niceness: int = 10,
    ) -> None:
        self.root = root
        self.model = embedding_model
        self.dimension = dimension
        self.state = state
        self.in_child = in_child
        self.niceness = niceness
        self.items = GuardedMemoryIndex(items, self.state)
        self.episodes = GuardedEpisodeIndex(episodes, self.state)
        self._targets: tuple[QdrantEdgeMemoryIndex, QdrantEdgeEpisodeIndex] | None = None
        self._compacting = asyncio.Lock()

    @classmethod
    async def open(
        cls, root: str | Path, *, embedding_model: str, dimension: int, in_child: bool = True, niceness: int = 10
    ) -> EdgeVectorStores:
        root = Path(root)
        root.mkdir(parents=True, exist_ok=True)
        if await asyncio.to_thread(finish_swap, root):
            log.warning("completed a reindex swap that a crash had interrupted", extra={"store": str(root)})
        state = VectorState()
        model = {"embedding_model": embedding_model, "dimension": dimension}
        items = await open_live(QdrantEdgeMemoryIndex, root, state, **model)
        try:
            episodes = await open_live(QdrantEdgeEpisodeIndex, root / EPISODES, state, **model)
        except BaseException:
            await items.close()
            raise
        return cls(root, embedding_model, dimension, items, episodes, state, in_child=in_child, niceness=niceness)

    def shards(self) -> tuple[Any, ...]:
        """The live shards (for the background optimisation), whichever a swap has put in place."""
        return (self.items.store, self.episodes.store)

    async def optimize(
        self, *, niceness: int = 10, observe: Observer | None = None
    ) -> list[OptimizeRun | Exception | None]:
        """Each live shard optimised in a child process and swapped in (``edge_maintenance.py``);
        per shard its run, None when nothing was written since the last one, or the error (the
        shard as it was). Nothing while a reindex runs (its rebuilt shards replace these) and
        never beside a purge's compaction or another optimisation."""
        if self.state.running or self._targets is not None:
            return []
        results: list[OptimizeRun | Exception | None] = []
        async with self._compacting:
            for store in self.shards():
                try:
                    results.append(await optimize_in_child(store, niceness=niceness, observe=observe))
                except Exception as error:  # the next run retries; the live shard is whole
                    results.append(error)
        return results

    async def rebuilds(self) -> tuple[CollectionRebuild, CollectionRebuild]:
        async with self._compacting:  # a purge or an optimisation under way: read the live stores after it
            pass
        if self._targets is None:
            model = {"embedding_model": self.model, "dimension": self.dimension}
            items = await open_target(QdrantEdgeMemoryIndex, self.root / ITEMS_REBUILD, **model)
            try:
                episodes = await open_target(QdrantEdgeEpisodeIndex, self.root / EPISODES_REBUILD, **model)
            except BaseException:
                await items.close()
                raise
            self._targets = (items, episodes)
        items, episodes = self._targets
        return (
            CollectionRebuild("items", self.items.store, items, JsonProgress(items.path / PROGRESS_FILE)),
            CollectionRebuild("episodes", self.episodes.store, episodes, JsonProgress(episodes.path / PROGRESS_FILE)),
        )

    async def swap(self) -> None:
        """Close the rebuilt shards, then, with new calls paused: close the live ones (calls in flight
        finish first: the stores' thread gate), rename the directories, open the new shards live."""
        assert self._targets is not None, "swap() follows rebuilds()"
        targets, self._targets = self._targets, None
        for target in targets:
            await target.close()
        model = {"embedding_model": self.model, "dimension": self.dimension}
        async with self.items.paused(), self.episodes.paused():
            await self.items.store.close()
            await self.episodes.store.close()
            await asyncio.to_thread(swap_directories, self.root)
            self.items.store = await QdrantEdgeMemoryIndex.open(self.root, **model)
            self.episodes.store = await QdrantEdgeEpisodeIndex.open(self.root / EPISODES, **model)
        self.state.stale.clear()
        await asyncio.to_thread(remove_leftovers, self.root)

    async def compact(self, *, observe: Observer | None = None) -> list[PurgedStore]:
        """A purge: each shard rewritten without its deleted points (fresh segments and write-ahead
        log) and swapped in; the old directories are deleted. By default a child process does it
        over a copy, one shard at a time (``edge_maintenance.py``, ``observe`` told its steps):
        calls wait only for each swap, writes for the snapshot and the journal's tail. In this
        process (``in_child`` false) both live shards are closed and memory calls wait for the
        copies (~1 s per 10,000 points). Not while a reindex runs (its swap drops deleted points
        just the same) or the vectors are another model's (``lore reindex`` first); never beside
        an optimisation."""
        async with self._compacting:
            if self.state.running or self._targets is not None or self.state.stale:
                why = "the vectors are another model's: `lore reindex` (which drops deleted points too) first"
                if self.state.running or self._targets is not None:
                    why = "a reindex is running; its swap drops deleted points too"
                return [PurgedStore(f"qdrant.{name}", "skipped", detail=why) for name in ("items", "episodes")]
            if self.in_child:
                kept = await self._compact_in_child(observe)
            else:
                kept = await self._compact_here()
        names = ("items", "episodes")
        return [PurgedStore(f"qdrant.{name}", "compacted", kept=count) for name, count in zip(names, kept, strict=True)]

    async def _compact_in_child(self, observe: Observer | None) -> list[int]:
        kept = []
        for store in self.shards():
            run = await optimize_in_child(store, compact=True, niceness=self.niceness, observe=observe)
            assert run is not None and run.kept is not None, "a compaction always swaps"
            log.info(
                "purge: %s compacted in a child process in %.1f s; writes waited %.2f s, every call %.2f s",
                run.label,
                run.seconds,
                run.writes_held_seconds,
                run.calls_held_seconds,
                extra={
                    "shard": run.label,
                    "seconds": round(run.seconds, 1),
                    "writes_held_seconds": round(run.writes_held_seconds, 3),
                    "snapshot_held_seconds": round(run.snapshot_held_seconds, 3),
                    "calls_held_seconds": round(run.calls_held_seconds, 3),
                    "journaled": run.journaled,
                    "kept": run.kept,
                },
            )
            kept.append(run.kept)
        return kept

    async def _compact_here(self) -> tuple[int, int]:
        model = {"embedding_model": self.model, "dimension": self.dimension}
        async with self.items.paused(), self.episodes.paused():
            await self.items.store.close()  # calls in flight finish first (the stores' thread gate)
            await self.episodes.store.close()
            try:
                return await asyncio.to_thread(_compact_directories, self.root, model)
            finally:
                # Whatever happened, the directories are made whole (an interrupted swap completed)
                # before the live stores open again, so an opening never creates an empty shard.
                await asyncio.to_thread(finish_swap, self.root)
                self.items.store = await QdrantEdgeMemoryIndex.open(self.root, **model)
                self.episodes.store = await QdrantEdgeEpisodeIndex.open(self.root / EPISODES, **model)

    async def close(self) -> None:
        for store in (*(self._targets or ()), self.items.store, self.episodes.store):
            await store.close()
        self._targets = None


def _compact_directories(root: Path, model: dict[str, Any]) -> tuple[int, int]:
    """Copy both closed live shards into fresh ones beside them, then swap them in (crash-safe)."""
    remove_leftovers(root)  # an unfinished copy of an earlier run
    counts = []
    for store_class, live, copy in (
        (QdrantEdgeMemoryIndex, root / SHARD_DIR, root / ITEMS_COMPACT),
        (QdrantEdgeEpisodeIndex, root / EPISODES / SHARD_DIR, root / EPISODES_COMPACT),
    ):
        target = store_class(copy, **model)
        try:
            counts.append(target.copy_from_sync(live))
        finally:
            target._close_sync()
    swap_directories(root, COMPACTION)
    remove_leftovers(root)
    return counts[0], counts[1]
