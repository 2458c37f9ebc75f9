"""The maintenance copy's two passes (adapters/edge_snapshot.py): whatever is written while the first
pass copies, through a memory map or not, the held pass makes the copy byte for byte the live
directory, and it rewrites only what changed."""

from __future__ import annotations

import mmap
import os
import time
from pathlib import Path

import pytest
from memory_svc.adapters import edge_snapshot
from memory_svc.adapters.edge_snapshot import catch_up, precopy, warm

HOUR_NS = 3600 * 10**9


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file's bytes and every directory (None) under ``root``."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        found[str(path.relative_to(root))] = path.read_bytes() if path.is_file() else None
    return found


def aged(root: Path) -> None:
    """Stamp every file an hour back, as files the engine wrote long before a copy."""
    past = time.time_ns() - HOUR_NS
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(past, past))


def live_shard(root: Path) -> Path:
    live = root / "shard"
    (live / "segments" / "a").mkdir(parents=True)
    (live / "segments" / "gone").mkdir(parents=True)
    (live / "wal").mkdir()
    (live / "segments" / "a" / "vectors.dat").write_bytes(os.urandom(3 * edge_snapshot.MIB + 17))
    (live / "segments" / "a" / "flags.dat").write_bytes(b"\0" * 4096)
    (live / "segments" / "a" / "segment.json").write_text('{"version": 1}')
    (live / "segments" / "gone" / "old.dat").write_bytes(b"old")
    (live / "edge_config.json").write_text("{}")
    with (live / "wal" / "open-1").open("wb") as wal:  # preallocated and mostly a hole, as the engine's
        wal.truncate(8 * edge_snapshot.MIB)
        wal.write(b"entry-1")
    return live


def test_writes_during_the_copy_are_caught_up_and_nothing_else_is_rewritten(tmp_path: Path) -> None:
    live, copy = live_shard(tmp_path), tmp_path / "shard.optimizing"
    flags = (live / "segments" / "a" / "flags.dat").open("r+b")
    mapped = mmap.mmap(flags.fileno(), 0)
    try:
        mapped[0:1] = b"\1"  # a dirty mapped page before the copy...
        aged(live)
        manifest = precopy(live, copy)

        mapped[1:2] = b"\2"  # ...written again after it: no new fault unless the copy synced it
        with (live / "wal" / "open-1").open("r+b") as wal:  # appended in place
            wal.seek(7)
            wal.write(b"entry-2")
        (live / "segments" / "a" / "segment.json.tmp").write_text('{"version": 2}')
        os.replace(live / "segments" / "a" / "segment.json.tmp", live / "segments" / "a" / "segment.json")
        (live / "segments" / "b").mkdir()
        (live / "segments" / "b" / "new.dat").write_bytes(b"new segment")
        (live / "segments" / "gone" / "old.dat").unlink()
        (live / "segments" / "gone").rmdir()

        copied = catch_up(live, copy, manifest)
    finally:
        mapped.close()
        flags.close()

    assert tree(copy) == tree(live)
    # the flag page, the write-ahead log's first block, the replaced and the new file; not the vectors
    assert copied <= 2 * edge_snapshot.MIB + 64
    assert (copy / "wal" / "open-1").stat().st_blocks * 512 <= edge_snapshot.MIB  # holes stay holes


def test_a_file_written_just_before_its_copy_is_copied_again(tmp_path: Path) -> None:
    live, copy = tmp_path / "shard", tmp_path / "shard.optimizing"
    live.mkdir()
    (live / "segment.json").write_text('{"version": 1}')
    manifest = precopy(live, copy)  # written a moment ago: a write after it might keep its stamp
    assert manifest["segment.json"][1] is False
    (copy / "segment.json").write_text('{"version": 0}')  # what a missed write would leave

    catch_up(live, copy, manifest)

    assert tree(copy) == tree(live)


def test_on_a_file_system_that_does_not_stamp_mapped_writes_everything_is_copied_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live, copy = live_shard(tmp_path), tmp_path / "shard.optimizing"
    monkeypatch.setattr(edge_snapshot, "filesystem_type", lambda path: "tmpfs")

    assert precopy(live, copy) == {}
    assert not copy.exists()
    catch_up(live, copy, {})

    assert tree(copy) == tree(live)


def test_the_file_system_of_a_path_is_found() -> None:
    assert edge_snapshot.filesystem_type(Path("/proc/self")) == "proc"


def test_warm_reads_the_data_but_not_the_holes(tmp_path: Path) -> None:
    live = live_shard(tmp_path)
    data = 3 * edge_snapshot.MIB + 17 + 4096 + len('{"version": 1}') + 3 + 2
    assert data <= warm(live) < data + edge_snapshot.MIB
