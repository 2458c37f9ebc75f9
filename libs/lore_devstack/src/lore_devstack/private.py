"""Files and directories only their owner can read: how the embedded servers keep their data.

A store's directory is 0700 and every file in it 0600 (owner bits kept, group and other bits
cleared), whatever an older version or another tool left there; the servers themselves run with
the umask ``OWNER_ONLY`` so what they write later is born that way. Secrets (passwords) are files
of one line, created 0600.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

OWNER_ONLY = 0o077  # the umask: no bit for group or others


def tighten_tree(root: Path) -> None:
    """``root`` and every directory under it 0700, every file owner-only; symbolic links are not followed."""
    _tighten(root)
    for directory, subdirectories, files in os.walk(root):
        for name in (*subdirectories, *files):
            _tighten(Path(directory) / name)


def _tighten(path: Path) -> None:
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:  # a server removed it meanwhile (a temporary file, a socket)
        return
    if stat.S_ISLNK(mode):
        return
    wanted = 0o700 if stat.S_ISDIR(mode) else stat.S_IMODE(mode) & 0o700
    if stat.S_IMODE(mode) != wanted:
        with contextlib.suppress(FileNotFoundError):
            path.chmod(wanted)


def private_directory(path: Path) -> Path:
    """``path`` created if missing (parents too) and tightened: 0700, its files owner-only."""
    path.mkdir(parents=True, exist_ok=True)
    tighten_tree(path)
    return path


@contextlib.contextmanager
def owner_only_umask() -> Iterator[None]:
    """The process umask ``OWNER_ONLY`` while a server starts, so the files it creates are its owner's alone."""
    previous = os.umask(OWNER_ONLY)
    try:
        yield
    finally:
        os.umask(previous)


def kept_secret(path: Path) -> str:
    """The secret stored in ``path``, generated (URL-safe, 0600) on first use."""
    try:
        stored = path.read_text().strip()
    except FileNotFoundError:
        stored = ""
    if stored:
        path.chmod(0o600)
        return stored
    value = secrets.token_urlsafe(32)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(value + "\n")
    path.chmod(0o600)  # a file that existed keeps its mode through O_CREAT
    return value
