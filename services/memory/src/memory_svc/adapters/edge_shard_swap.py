"""Putting rebuilt qdrant-edge shards live, crash-safely (plain file system work, no engine).

Layout below ``root`` (``LORE_DATA_DIR/qdrant``)::

    lore_index.json, shard/       the live items store (at the root, where it has always been)
    episodes/                     the live episodes store
    items.reindex/, episodes.reindex/     rebuilds in progress (+ reindex_progress.json)
    items.previous/, episodes.previous/   the replaced stores, deleted once the swap is done
    reindex_swap.json             the swap marker

The swap is a list of renames (``MOVES``). The marker is written (and synced) before the first
one and removed after the last; each rename runs only when its source exists and its target does
not, so replaying the whole list is harmless. A crash anywhere in between leaves the marker, and
the next start-up replays the list before any store is opened (``finish_swap``).

A purge (``lore erasure purge``) swaps the same way (``COMPACTION``): its copies, without the
deleted points, are built in ``items.compact/`` and ``episodes.compact/`` under
``compaction_swap.json``. A copy is never resumed: one a crash left unfinished is deleted.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

ITEMS_REBUILD = "items.reindex"
EPISODES_REBUILD = "episodes.reindex"
EPISODES = "episodes"
PROGRESS_FILE = "reindex_progress.json"
MARKER = "reindex_swap.json"
PREVIOUS = ("items.previous", "episodes.previous")

ITEMS_COMPACT = "items.compact"
EPISODES_COMPACT = "episodes.compact"
COMPACTION_MARKER = "compaction_swap.json"


def _moves(items_dir: str, episodes_dir: str) -> tuple[tuple[str, str], ...]:
    return (
        ("shard", "items.previous/shard"),
        ("lore_index.json", "items.previous/lore_index.json"),
        (f"{items_dir}/shard", "shard"),
        (f"{items_dir}/lore_index.json", "lore_index.json"),
        (EPISODES, "episodes.previous"),
        (episodes_dir, EPISODES),
    )


MOVES: tuple[tuple[str, str], ...] = _moves(ITEMS_REBUILD, EPISODES_REBUILD)


@dataclass(frozen=True, slots=True)
class SwapPlan:
    """The marker and renames of one kind of swap."""

    marker: str
    moves: tuple[tuple[str, str], ...]


REINDEX = SwapPlan(MARKER, MOVES)
COMPACTION = SwapPlan(COMPACTION_MARKER, _moves(ITEMS_COMPACT, EPISODES_COMPACT))


def write_json_durably(file: Path, document: object) -> None:
    """Write to a temporary file, fsync it, rename it over ``file``, fsync the directory."""
    tmp = file.with_name(file.name + ".tmp")
    with tmp.open("w") as handle:
        json.dump(document, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, file)
    _sync_directory(file.parent)


def _sync_directory(directory: Path) -> None:
    handle = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _replay(root: Path, plan: SwapPlan) -> None:
    for source, target in plan.moves:
        src, dst = root / source, root / target
        if src.exists() and not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.rename(src, dst)
    _sync_directory(root)


def swap_directories(root: Path, plan: SwapPlan = REINDEX) -> None:
    """Replace the live shards by the rebuilt ones; both must be closed, the rebuilds complete."""
    _remove_previous(root)  # a replaced store from an earlier swap would block the renames
    write_json_durably(root / plan.marker, {"moves": plan.moves})
    _replay(root, plan)
    (root / plan.marker).unlink()
    _sync_directory(root)


def finish_swap(root: Path) -> bool:
    """At start-up, before opening a store: complete a swap a crash interrupted, then clear leftovers.
    Returns True when there was one to complete."""
    interrupted = False
    for plan in (REINDEX, COMPACTION):
        if (root / plan.marker).exists():
            interrupted = True
            _replay(root, plan)
            (root / plan.marker).unlink()
            _sync_directory(root)
    remove_leftovers(root)
    return interrupted


def remove_leftovers(root: Path) -> None:
    """Replaced stores and the progress files a finished swap leaves behind, and an unfinished purge
    copy (never a rebuild in progress)."""
    if (root / MARKER).exists() or (root / COMPACTION_MARKER).exists():
        return
    _remove_previous(root)
    if (root / ITEMS_REBUILD).exists() and not (root / ITEMS_REBUILD / "shard").exists():
        shutil.rmtree(root / ITEMS_REBUILD, ignore_errors=True)
    for name in (ITEMS_COMPACT, EPISODES_COMPACT):
        shutil.rmtree(root / name, ignore_errors=True)
    (root / EPISODES / PROGRESS_FILE).unlink(missing_ok=True)


def _remove_previous(root: Path) -> None:
    for name in PREVIOUS:
        shutil.rmtree(root / name, ignore_errors=True)
