"""The embedded swap's renames: a crash after any of them is completed by the next start-up."""

from pathlib import Path

import pytest
from memory_svc.adapters import edge_shard_swap as swap


def layout(root: Path) -> dict[str, str]:
    return {str(path.relative_to(root)): path.read_text() for path in sorted(root.rglob("*")) if path.is_file()}


def before_swap(root: Path) -> None:
    files = {
        "lore_index.json": "old items meta",
        "shard/segment": "old items",
        "episodes/lore_index.json": "old episodes meta",
        "episodes/shard/segment": "old episodes",
        "items.reindex/lore_index.json": "new items meta",
        "items.reindex/shard/segment": "new items",
        f"items.reindex/{swap.PROGRESS_FILE}": "{}",
        "episodes.reindex/lore_index.json": "new episodes meta",
        "episodes.reindex/shard/segment": "new episodes",
        f"episodes.reindex/{swap.PROGRESS_FILE}": "{}",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


AFTER = {
    "episodes/lore_index.json": "new episodes meta",
    "episodes/shard/segment": "new episodes",
    "lore_index.json": "new items meta",
    "shard/segment": "new items",
}


def test_a_swap_leaves_only_the_new_stores(tmp_path: Path) -> None:
    before_swap(tmp_path)
    swap.swap_directories(tmp_path)
    swap.remove_leftovers(tmp_path)
    assert layout(tmp_path) == AFTER


@pytest.mark.parametrize("renamed", range(len(swap.MOVES) + 1))
def test_a_crash_after_any_rename_is_completed_at_start_up(tmp_path: Path, renamed: int) -> None:
    before_swap(tmp_path)
    swap.write_json_durably(tmp_path / swap.MARKER, {})
    for source, target in swap.MOVES[:renamed]:
        (tmp_path / target).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / source).rename(tmp_path / target)

    assert swap.finish_swap(tmp_path) is True
    assert layout(tmp_path) == AFTER
    assert swap.finish_swap(tmp_path) is False  # nothing left to do
    assert layout(tmp_path) == AFTER


def test_start_up_without_a_marker_keeps_a_rebuild_in_progress(tmp_path: Path) -> None:
    before_swap(tmp_path)
    assert swap.finish_swap(tmp_path) is False
    assert (tmp_path / "items.reindex/shard/segment").exists()
    assert (tmp_path / "shard/segment").read_text() == "old items"
