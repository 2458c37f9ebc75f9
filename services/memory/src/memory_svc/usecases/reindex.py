"""Reindex: re-embed every item and episode of the store (all organisations) with the configured
model into new collections, page by page, then swap them in.

Resumable: after each page the new collection is flushed and the cursor recorded, so a crash or
a cancelled call continues after the last recorded page (a page written but not recorded is
written again with the same ids: nothing is duplicated). Writes to the store are refused while
the copy runs (``REINDEX_RUNNING``), so the copy never misses one; one reindex runs at a time.
The texts embedded are exactly those of Remember/UpdateMemory (``embed_items``) and
CreateEpisode (``embed_episodes``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from lore_embeddings import Embedder
from lore_runtime.errors import FailedPrecondition
from opentelemetry import trace

from memory_svc.usecases.episodes import embed_episodes
from memory_svc.usecases.guarded_stores import VectorState
from memory_svc.usecases.maintenance_ports import Rebuild, RebuildProgress, VectorStores
from memory_svc.usecases.remember import embed_items

log = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)

PAGE_SIZE = 256


@dataclass(frozen=True, slots=True)
class ReindexStep:
    """One progress report: ``phase`` is "items", "episodes", "swap" or "done"."""

    phase: str
    done: int
    total: int
    model: str
    dimension: int


async def reindex(
    *,
    stores: VectorStores,
    state: VectorState,
    embedder: Embedder,
    force: bool,
    page_size: int = PAGE_SIZE,
) -> AsyncIterator[ReindexStep]:
    """Progress steps, phases in order and counts never decreasing, ending with "done" (whose counts
    are the points re-embedded by this run and earlier interrupted ones). Without ``force`` and with
    the stored vectors already of the configured model, there is nothing to do: "done" with zeros."""
    if state.running:
        raise FailedPrecondition("a reindex is already running; wait for it to finish", reason="REINDEX_RUNNING")
    state.running = True
    model, dimension = embedder.model_name, embedder.dimension

    def step(phase: str, done: int, total: int) -> ReindexStep:
        return ReindexStep(phase, done, total, model, dimension)

    try:
        if not force and not state.stale:
            yield step("done", 0, 0)
            return
        with tracer.start_as_current_span("memory.reindex") as span:
            span.set_attribute("lore.model", model)
            copied = 0
            for rebuild in await stores.rebuilds():
                async for progress in _copy(rebuild, embedder, page_size):
                    yield step(rebuild.kind, progress.done, progress.total)
                    copied_here = progress.done
                copied += copied_here
                span.set_attribute(f"lore.{rebuild.kind}", copied_here)
            yield step("swap", 0, 1)
            await stores.swap()
            state.stale.clear()
            yield step("swap", 1, 1)
            log.info("reindex finished", extra={"model": model, "dimension": dimension, "points": copied})
            yield step("done", copied, copied)
    finally:
        state.running = False


@dataclass(frozen=True, slots=True)
class _Copied:
    done: int
    total: int


async def _copy(rebuild: Rebuild, embedder: Embedder, page_size: int) -> AsyncIterator[_Copied]:
    total = await rebuild.total()
    progress = await rebuild.progress()
    yield _Copied(progress.done, max(total, progress.done))
    while not progress.complete:
        records, after = await rebuild.read(progress.cursor, page_size)
        if records:
            vectors, sparse = await _embed(rebuild.kind, records, embedder)
            await rebuild.write(records, vectors, sparse)
        progress = RebuildProgress(after, progress.done + len(records), complete=after is None)
        await rebuild.checkpoint(progress)
        yield _Copied(progress.done, max(total, progress.done))


async def _embed(kind: str, records: Sequence[Any], embedder: Embedder) -> tuple[Any, Any]:
    if kind == "items":
        return await embed_items(records, embedder)
    return await embed_episodes(records, embedder), None
