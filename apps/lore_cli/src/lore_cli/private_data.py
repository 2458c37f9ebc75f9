"""The local stack's data directory is its owner's: other local accounts read nothing in it.

``LORE_DATA_DIR`` is 0711: others may pass through it (the embedded Postgres runs as its own
system account when ``lore up`` runs as root, and must reach its cluster) but not list it. Every
directory under it is 0700 and every file owner-only (group and other bits cleared), whatever an
older version left there: ``secure_data_dir`` tightens the whole tree on every start. What the
stack writes afterwards is born that way, since ``lore up`` and its children run with the umask
``OWNER_ONLY``.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

OWNER_ONLY = 0o077  # the umask of `lore up` and everything it starts
DATA_DIR_MODE = 0o711  # traverse only, for the server account of the embedded Postgres


def secure_data_dir(data_dir: Path) -> None:
    """Create ``data_dir`` if needed and tighten it: itself 0711, directories below 0700, files owner-only."""
    data_dir.mkdir(parents=True, exist_ok=True)
    for directory, subdirectories, files in os.walk(data_dir):
        for name in (*subdirectories, *files):
            _owner_only(Path(directory) / name)
    data_dir.chmod(DATA_DIR_MODE)


def _owner_only(path: Path) -> None:
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:  # a server removed it meanwhile
        return
    if stat.S_ISLNK(mode):  # never follow a link out of the tree
        return
    wanted = 0o700 if stat.S_ISDIR(mode) else stat.S_IMODE(mode) & 0o700
    if stat.S_IMODE(mode) != wanted:
        with contextlib.suppress(FileNotFoundError):
            path.chmod(wanted)
