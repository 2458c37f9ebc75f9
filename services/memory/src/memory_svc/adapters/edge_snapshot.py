"""Copying a live qdrant-edge shard's directory for the maintenance child with its writes held only
for what changed during the copy (plain file system work, no engine).

The engine writes its files through memory maps and keeps the interpreter while it flushes (a
flush after 20k writes took 0.6 s, one with nothing to write 0.1-0.3 s), so the service never
flushes for a copy: a copy of the directory taken while no write runs is the state a killed
process would leave, which the engine recovers from on load (its write-ahead log is replayed over
the segments' last flushed state). Taking that copy is two passes:

1. ``precopy`` (writes go on): each file is synced (its dirty pages written back, which makes the
   kernel stamp the file's modification time again at its next write, mapped or not), its status
   read, and its data copied (holes stay holes). A file stamped less than ``MARGIN_NS`` before its
   sync began is *seen*: any later write changes its status.
2. ``catch_up`` (writes held, none running): each file is copied again only if it is new, its
   status changed or it was not seen; a file copied before is rewritten where its bytes differ
   (``MIB`` blocks), so the held pass costs what the writes during the copy touched. Files and
   directories gone from the live shard go from the copy.

This relies on the file system stamping memory-mapped writes after a write-back (``page_mkwrite``)
and on stamps from a clock no more than ``MARGIN_NS`` behind: true of the disk file systems in
``TRACKED_FILESYSTEMS``; on any other (tmpfs, network) ``precopy`` copies nothing and
``catch_up`` copies everything, as a copy with writes held throughout.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path

MIB = 1 << 20
# The kernel stamps writes from a coarse clock (one tick: 1-10 ms behind): far more than that.
MARGIN_NS = 50_000_000
TRACKED_FILESYSTEMS = frozenset({"ext4", "ext3", "xfs", "btrfs", "f2fs"})


@dataclass(frozen=True, slots=True)
class Seen:
    """A file's status when ``precopy`` synced and copied it."""

    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, status: os.stat_result) -> Seen:
        return cls(status.st_ino, status.st_size, status.st_mtime_ns)


# Per file (relative path) copied by ``precopy``: its status then, and whether a later write is sure
# to change it (False when the file was written too recently to tell).
Manifest = dict[str, tuple[Seen, bool]]


def filesystem_type(path: Path) -> str:
    """The type of the file system ``path`` is on (Linux: /proc/self/mountinfo), "" when unknown."""
    best, kind = -1, ""
    try:
        target = os.path.realpath(path)
        with open("/proc/self/mountinfo") as mounts:
            for line in mounts:
                fields = line.split()
                mount_point = fields[4].replace("\\040", " ")
                fs_type = fields[fields.index("-") + 1]
                inside = target == mount_point or target.startswith(mount_point.rstrip("/") + "/")
                if inside and len(mount_point) > best:
                    best, kind = len(mount_point), fs_type
    except (OSError, ValueError, IndexError):
        return ""
    return kind


def precopy(live: Path, target: Path) -> Manifest:
    """Copy ``live`` to ``target`` (replaced) while the engine goes on writing; the manifest says
    which files ``catch_up`` may keep. Nothing is copied on a file system not tracked."""
    shutil.rmtree(target, ignore_errors=True)
    manifest: Manifest = {}
    if filesystem_type(live) not in TRACKED_FILESYSTEMS:
        return manifest
    for directory, _, names in os.walk(live):
        relative = Path(directory).relative_to(live)
        (target / relative).mkdir(parents=True, exist_ok=True)
        for name in names:
            with contextlib.suppress(FileNotFoundError):  # the engine replaced or removed it: caught up later
                manifest[str(relative / name)] = _sync_and_copy(Path(directory, name), target / relative / name)
    return manifest


def catch_up(live: Path, target: Path, manifest: Manifest) -> int:
    """With no write running: make ``target`` byte for byte ``live``, copying only what may have
    changed since ``precopy``. Returns the bytes written."""
    written = 0
    present: set[str] = set()
    for directory, dirs, names in os.walk(live):
        relative = Path(directory).relative_to(live)
        (target / relative).mkdir(parents=True, exist_ok=True)
        present.update(str(relative / name) for name in dirs)
        for name in names:
            key = str(relative / name)
            present.add(key)
            source, copy = Path(directory, name), target / relative / name
            seen, trusted = manifest.get(key, (None, False))
            if trusted and Seen.of(os.stat(source)) == seen:
                continue
            written += _update(source, copy) if seen is not None and copy.exists() else _copy(source, copy)
    for directory, dirs, names in os.walk(target, topdown=False):
        relative = Path(directory).relative_to(target)
        for name in names:
            if str(relative / name) not in present:
                os.unlink(Path(directory, name))
        for name in dirs:
            if str(relative / name) not in present:
                shutil.rmtree(Path(directory, name))
    return written


def warm(directory: Path) -> int:
    """Read every file's data under ``directory`` into the page cache (the engine evicts a shard's
    pages when it closes it, and opening it cold takes several times longer). Returns the bytes."""
    total = 0
    for folder, _, names in os.walk(directory):
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                fd = os.open(Path(folder, name), os.O_RDONLY)
                try:
                    for start, end in _data_regions(fd, os.fstat(fd).st_size):
                        for offset in range(start, end, MIB):
                            total += len(os.pread(fd, min(MIB, end - offset), offset))
                finally:
                    os.close(fd)
    return total


def sync(directory: Path) -> None:
    """Write back every file's dirty pages under ``directory``, and every folder's entries (from
    this thread, the interpreter free). Before a swap, for the live shard: the engine's own flush,
    when it closes the shard, then finds little to write; for the copy: it is on disk before the
    swap's marker says it is the store, whatever power is lost after."""
    for folder, _, names in os.walk(directory):
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                fd = os.open(Path(folder, name), os.O_RDONLY)
                try:
                    os.fdatasync(fd)
                finally:
                    os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def _sync_and_copy(source: Path, copy: Path) -> tuple[Seen, bool]:
    fd = os.open(source, os.O_RDONLY)
    try:
        began = time.time_ns()
        os.fdatasync(fd)
        status = os.fstat(fd)
        _copy_from(fd, status, copy)
    finally:
        os.close(fd)
    return Seen.of(status), status.st_mtime_ns < began - MARGIN_NS


def _copy(source: Path, copy: Path) -> int:
    fd = os.open(source, os.O_RDONLY)
    try:
        return _copy_from(fd, os.fstat(fd), copy)
    finally:
        os.close(fd)


def _copy_from(fd: int, status: os.stat_result, copy: Path) -> int:
    """The data of ``fd`` into a new ``copy`` (holes stay holes), its size and mode."""
    with contextlib.suppress(FileNotFoundError):
        copy.unlink()
    out = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, stat.S_IMODE(status.st_mode))
    written = 0
    try:
        for start, end in _data_regions(fd, status.st_size):
            offset = start
            while offset < end:
                moved = _move(fd, out, offset, end - offset)
                if moved == 0:
                    break  # the source shrank meanwhile: the held pass copies it again
                offset += moved
                written += moved
        os.ftruncate(out, status.st_size)
    finally:
        os.close(out)
    return written


def _move(fd: int, out: int, offset: int, count: int) -> int:
    try:
        return os.copy_file_range(fd, out, min(count, 64 * MIB), offset, offset)
    except OSError as error:
        if error.errno not in (errno.EXDEV, errno.ENOSYS, errno.EOPNOTSUPP, errno.EINVAL):
            raise
        return os.pwrite(out, os.pread(fd, min(count, MIB), offset), offset)


def _update(source: Path, copy: Path) -> int:
    """Rewrite the blocks of ``copy`` that differ from ``source`` (the same file, copied earlier)."""
    written = 0
    src = os.open(source, os.O_RDONLY)
    try:
        dst = os.open(copy, os.O_RDWR)
        try:
            size = os.fstat(src).st_size
            for offset in range(0, size, MIB):
                length = min(MIB, size - offset)
                if _hole(src, offset, length) and _hole(dst, offset, length):
                    continue
                data = os.pread(src, length, offset)
                if os.pread(dst, length, offset) != data:
                    os.pwrite(dst, data, offset)
                    written += length
            os.ftruncate(dst, size)
        finally:
            os.close(dst)
    finally:
        os.close(src)
    return written


def _hole(fd: int, offset: int, length: int) -> bool:
    """Whether ``[offset, offset + length)`` of ``fd`` holds no data (False when it cannot tell)."""
    try:
        return os.lseek(fd, offset, os.SEEK_DATA) >= offset + length
    except OSError as error:
        return error.errno == errno.ENXIO  # no data after offset


def _data_regions(fd: int, size: int) -> list[tuple[int, int]]:
    """``[start, end)`` of each run of data in ``fd`` (the whole file when holes cannot be told)."""
    regions: list[tuple[int, int]] = []
    offset = 0
    try:
        while offset < size:
            try:
                start = os.lseek(fd, offset, os.SEEK_DATA)
            except OSError as error:
                if error.errno == errno.ENXIO:
                    break
                raise
            end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
            regions.append((start, end))
            offset = end
    except OSError:
        return [(0, size)] if size else []
    return regions
