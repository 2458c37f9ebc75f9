"""An embedded Postgres of the test's own that the test can kill as a crash would (SIGKILL of the
postmaster) and start again on the same data directory: never the session's shared one.

Its address (a Unix socket) stays the same across the restart, so the pools of the services under
test reconnect to it by themselves once it is back."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from pathlib import Path

import psutil
from lore_devstack import EmbeddedPostgres


class DyingPostgres:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self._server = EmbeddedPostgres(self.data_dir)

    def start(self) -> str:
        """Start the server (again) and return its superuser DSN."""
        return self._server.start()

    def kill(self) -> None:
        """SIGKILL the postmaster, then wait until its backends have noticed and exited too (a new
        postmaster refuses to start while one of them still holds the old shared memory)."""
        postmaster = psutil.Process(int((self.data_dir / "postmaster.pid").read_text().split()[0]))
        backends = postmaster.children(recursive=True)
        postmaster.send_signal(signal.SIGKILL)
        postmaster.wait(timeout=10)
        _, alive = psutil.wait_procs(backends, timeout=10)
        for process in alive:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        self._server.stop()  # forgets the dead server: the next start() starts a new one

    def stop(self) -> None:
        self._server.stop()


@contextlib.contextmanager
def killed(server: DyingPostgres) -> Iterator[None]:
    """Postgres dead for the block (as after a crash), started again on the way out."""
    server.kill()
    try:
        yield
    finally:
        server.start()
