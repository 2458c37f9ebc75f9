"""A pending purge kept as a file beside the embedded stores, so a purge asked for before a restart
still runs after it (the file is written and synced before the request is answered)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)


class FileFlag:
    def __init__(self, file: Path) -> None:
        self.file = Path(file)

    def is_set(self) -> bool:
        return self.file.exists()

    def set(self) -> None:
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            with self.file.open("w") as handle:
                os.fsync(handle.fileno())
        except OSError:  # the request still runs in this process; only a restart would forget it
            log.exception("cannot record the pending purge in %s", self.file)

    def clear(self) -> None:
        self.file.unlink(missing_ok=True)
