"""A Redis of the test's own that the test can freeze (SIGSTOP) and continue (SIGCONT): never the
machine's or the session's shared one. Import the fixture into the test module that needs it."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator

import pytest
from lore_devstack import EmbeddedRedis


@pytest.fixture(scope="module")
def stalling_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(tmp_path_factory.mktemp("stalling-redis"))
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server.pid, signal.SIGCONT)
        server.stop()


@contextlib.contextmanager
def stopped(server: EmbeddedRedis) -> Iterator[None]:
    """The server frozen: connections stay open, nothing is read or answered; what was sent runs on SIGCONT."""
    os.kill(server.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.pid, signal.SIGCONT)
