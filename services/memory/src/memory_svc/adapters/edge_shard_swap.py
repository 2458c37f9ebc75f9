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

A purge (``lore erasure purge``) run in the service's process
(``LORE_QDRANT_OPTIMIZE_IN_CHILD=false``) swaps the same way (``COMPACTION``): its copies, without
the deleted points, are built in ``items.compact/`` and ``episodes.compact/`` under
``compaction_swap.json``. A copy is never resumed: one a crash left unfinished is deleted.

An optimisation (``edge_maintenance.py``), and a purge run the same way (the default), swaps one
store at a time, inside the store's own directory (``root`` for the items, ``root/episodes``)::

    shard.optimizing/    a copy of the live shard, optimised by a child process, the writes
                         made since the copy replayed into it
    shard.compacting/    a purge's fresh shard, the copy's points without its deleted ones,
                         built by the child and renamed over ``shard.optimizing/``
    shard.previous/      the replaced shard, deleted once the swap is done
    optimize_swap.json   the swap marker (``OPTIMIZATION``)

The store completes an interrupted swap before it opens its shard (``finish_optimization_swap``);
a copy without a marker is unfinished and deleted: the live shard holds every write anyway (the
copy only received them a second time).
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

OPTIMIZING = "shard.optimizing"
COMPACTING = "shard.compacting"
OPTIMIZED_PREVIOUS = "shard.previous"
OPTIMIZATION_MARKER = "optimize_swap.json"


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
OPTIMIZATION = SwapPlan(OPTIMIZATION_MARKER, (("shard", OPTIMIZED_PREVIOUS), (OPTIMIZING, "shard")))


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


def swap_optimized(store_dir: Path, optimized: Path) -> None:
    """Put the optimised copy (closed, complete) in place of the store's shard (closed); the
    replaced one is left in ``shard.previous`` (``remove_optimization_leftovers``)."""
    assert optimized == store_dir / OPTIMIZING, optimized
    if not (optimized / "edge_config.json").exists():
        raise FileNotFoundError(f"no optimised shard at {optimized}")
    shutil.rmtree(store_dir / OPTIMIZED_PREVIOUS, ignore_errors=True)
    write_json_durably(store_dir / OPTIMIZATION_MARKER, {"moves": OPTIMIZATION.moves})
    _replay(store_dir, OPTIMIZATION)
    (store_dir / OPTIMIZATION_MARKER).unlink()
    _sync_directory(store_dir)


def finish_optimization_swap(store_dir: Path) -> bool:
    """Before a store opens its shard: complete an optimisation swap a crash interrupted. Returns
    True when there was one."""
    interrupted = (store_dir / OPTIMIZATION_MARKER).exists()
    if interrupted:
        _replay(store_dir, OPTIMIZATION)
        (store_dir / OPTIMIZATION_MARKER).unlink()
        _sync_directory(store_dir)
    return interrupted


def remove_optimization_leftovers(store_dir: Path) -> None:
    """Once the store holds its shard (and with it the lock no other process gets): an unfinished
    copy (a purge's fresh shard included) and a replaced shard."""
    for name in (OPTIMIZING, COMPACTING, OPTIMIZED_PREVIOUS):
        if (store_dir / name).exists():
            shutil.rmtree(store_dir / name, ignore_errors=True)
