"""``lore up`` keeps the stack running: a service that dies after the stack was ready is started again.

Each restart waits a backoff — 1 s, doubling up to 30 s while the service keeps dying, back to
1 s once it has stayed up for a minute — and is announced on stderr and in the service's own log
(a JSON line like its own). Until ``stop`` is set a service is restarted however often it dies,
as a Deployment would; Ctrl-C still stops everything.

Before the stack is first ready nothing is restarted: ``lore up`` fails with the log tail of the
service that exited (a start-up crash is a configuration error, a port in use or a bug, which a
restart would only hide). That rule lives in ``up.py``; this module starts when the stack is up.

The embedded stores (Postgres, Valkey) are kept running the same way: one that died is started
again on the same socket, port and data, with a line on stderr (``keep_stores_running``); the
services reconnect by themselves and answer 503 meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from collections.abc import Awaitable, Callable, MutableSequence, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

FIRST_DELAY_SECONDS = 1.0
MAX_DELAY_SECONDS = 30.0
STABLE_AFTER_SECONDS = 60.0


@dataclass
class Backoff:
    """The delays before one service's restarts."""

    first: float = FIRST_DELAY_SECONDS
    limit: float = MAX_DELAY_SECONDS
    stable_after: float = STABLE_AFTER_SECONDS
    _next: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        self._next = self.first

    def delay(self, uptime: float) -> float:
        """The wait before restarting a service that ran ``uptime`` seconds before it died."""
        if uptime >= self.stable_after:
            self._next = self.first
        delay, self._next = self._next, min(self._next * 2, self.limit)
        return delay


class Supervised(Protocol):
    name: str
    log_path: Path
    exited: asyncio.Future[int]


C = TypeVar("C", bound=Supervised)


def describe_exit(status: int) -> str:
    """``asyncio``'s return code in words: negative means killed by that signal."""
    if status >= 0:
        return f"exited with status {status}"
    try:
        return f"was killed by {signal.Signals(-status).name}"
    except ValueError:
        return f"was killed by signal {-status}"


def announce(child: Supervised, status: int, delay: float, restarts: int) -> None:
    """On stderr and, as a JSON line like the service's own, at the end of its log."""
    message = f"{child.name} {describe_exit(status)}; restarting it in {delay:g} s (restart {restarts})"
    print(f"lore up: {message}", file=sys.stderr, flush=True)
    record = {
        "time": logging.Formatter().formatTime(logging.makeLogRecord({})),
        "level": "WARNING",
        "logger": "lore_cli.supervisor",
        "message": message,
        "service": child.name,
    }
    try:
        with open(child.log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
    except OSError:
        pass  # stderr has it


async def keep_running(
    children: MutableSequence[C],
    start: Callable[[str], Awaitable[C]],
    stop: asyncio.Event,
    *,
    backoff: Callable[[], Backoff] = Backoff,
) -> None:
    """Until ``stop`` is set, start again (with ``start(name)``) every child that exits. ``children``
    is updated in place, so whoever stops the stack stops the live processes."""
    loop = asyncio.get_running_loop()
    backoffs = {child.name: backoff() for child in children}
    started = {child.name: loop.time() for child in children}
    restarts = dict.fromkeys(started, 0)
    due: dict[str, float] = {}  # name -> when it is started again
    stopping = asyncio.ensure_future(stop.wait())
    try:
        while not stop.is_set():
            running = {child.exited: child for child in children if child.name not in due}
            wait = max(0.0, min(due.values()) - loop.time()) if due else None
            done, _ = await asyncio.wait([stopping, *running], timeout=wait, return_when=asyncio.FIRST_COMPLETED)
            if stop.is_set():
                return
            for exited in done:
                child = running[exited]
                delay = backoffs[child.name].delay(loop.time() - started[child.name])
                restarts[child.name] += 1
                announce(child, exited.result(), delay, restarts[child.name])
                due[child.name] = loop.time() + delay
            for name, when in list(due.items()):
                if when <= loop.time():
                    del due[name]
                    index = next(i for i, child in enumerate(children) if child.name == name)
                    children[index] = await start(name)
                    started[name] = loop.time()
    finally:
        stopping.cancel()


class Store(Protocol):
    """An embedded back end ``lore up`` started (lore_devstack's Postgres or Valkey)."""

    name: str

    @property
    def alive(self) -> bool: ...

    def restart(self) -> object: ...


STORE_CHECK_SECONDS = 1.0


async def keep_stores_running(
    stores: Sequence[Store],
    stop: asyncio.Event,
    *,
    check_seconds: float = STORE_CHECK_SECONDS,
    backoff: Callable[[], Backoff] = Backoff,
) -> None:
    """Until ``stop`` is set, start again every embedded store whose server died, announced on stderr.

    A store is not a child ``lore up`` can wait on (the postmaster detaches from ``pg_ctl``), so
    each is looked at every ``check_seconds``. A restart that fails (a killed postmaster's
    backends still hold its shared memory for a moment) is tried again after the backoff.
    """
    loop = asyncio.get_running_loop()
    backoffs = {store.name: backoff() for store in stores}
    started = dict.fromkeys(backoffs, loop.time())
    restarts = dict.fromkeys(backoffs, 0)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        while not stop.is_set():
            await asyncio.wait([stopping], timeout=check_seconds)
            for store in stores:
                if stop.is_set() or store.alive:
                    continue
                restarts[store.name] += 1
                _say(f"the embedded {store.name} died; starting it again (restart {restarts[store.name]})")
                try:
                    await asyncio.to_thread(store.restart)
                except Exception as error:  # any failure to start is retried, and said
                    delay = backoffs[store.name].delay(loop.time() - started[store.name])
                    _say(f"the embedded {store.name} did not start ({error}); trying again in {delay:g} s")
                    await asyncio.wait([stopping], timeout=delay)
                    continue
                started[store.name] = loop.time()
                _say(f"the embedded {store.name} is running again")
    finally:
        stopping.cancel()


def _say(message: str) -> None:
    print(f"lore up: {message}", file=sys.stderr, flush=True)
