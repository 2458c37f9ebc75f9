"""Waiting in tests: poll a probe for the condition a test waits on, never sleep a fixed time.

The one place where tests sleep (``tests/contracts/test_no_fixed_sleeps.py`` keeps it so):

- ``eventually(probe)`` / ``eventually_sync(probe)``: the first truthy answer of ``probe``, asked every
  ``interval`` seconds until ``timeout``; past it, an ``AssertionError`` naming ``what`` was awaited and
  the last answer seen.
- ``holds_for(probe, seconds)``: ``probe`` stays truthy for the whole window (for "nothing more
  arrives" checks), asked every ``interval``; the first falsy answer fails at once.
- ``settled(probe, quiet)``: ``probe``'s answer once two asked ``quiet`` seconds apart agree (work
  behind an answer has landed, whatever it is).

Timeouts are generous (a loaded 2-core machine can be slow by seconds) and intervals short, so a test
waits only as long as its condition takes. A probe that raises one of ``ignoring`` counts as "not yet"
(a server that is not listening yet); any other exception, an assertion included, stops the wait.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

TIMEOUT = 30.0
INTERVAL = 0.05
_UNSET = object()


def _timed_out(what: str, timeout: float, last: Any) -> AssertionError:
    return AssertionError(f"{what}: not within {timeout:g} s (last seen: {last!r})")


async def _ask(probe: Callable[[], Any], ignoring: tuple[type[BaseException], ...]) -> Any:
    try:
        found = probe()
        if inspect.isawaitable(found):
            found = await found
    except ignoring as error:
        return error
    return found


async def eventually(
    probe: Callable[[], Awaitable[T | None] | T | None],
    timeout: float = TIMEOUT,
    what: str = "the awaited condition",
    *,
    interval: float = INTERVAL,
    ignoring: tuple[type[BaseException], ...] = (),
) -> T:
    """The first truthy answer of ``probe`` (a plain or an async callable)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = await _ask(probe, ignoring)
        if found and not isinstance(found, ignoring):
            return found
        if loop.time() >= deadline:
            raise _timed_out(what, timeout, found)
        await asyncio.sleep(interval)


def eventually_sync(
    probe: Callable[[], T | None],
    timeout: float = TIMEOUT,
    what: str = "the awaited condition",
    *,
    interval: float = INTERVAL,
    ignoring: tuple[type[BaseException], ...] = (),
) -> T:
    """``eventually`` for code without an event loop (fixtures of threads and subprocesses)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            found: Any = probe()
        except ignoring as error:
            found = error
        if found and not isinstance(found, ignoring):
            return found
        if time.monotonic() >= deadline:
            raise _timed_out(what, timeout, found)
        time.sleep(interval)


async def holds_for(
    probe: Callable[[], Awaitable[Any] | Any],
    seconds: float,
    what: str = "the condition",
    *,
    interval: float = INTERVAL,
) -> None:
    """``probe`` answers truthy throughout the next ``seconds``, asked every ``interval``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        found = await _ask(probe, ())
        if not found:
            raise AssertionError(f"{what} stopped holding (last seen: {found!r})")
        if loop.time() >= deadline:
            return
        await asyncio.sleep(interval)


async def settled(
    probe: Callable[[], Awaitable[T] | T],
    quiet: float = 0.3,
    timeout: float = TIMEOUT,
    what: str = "the answer",
) -> T:
    """``probe``'s answer once it stopped changing: equal twice in a row, ``quiet`` seconds apart."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    previous: Any = _UNSET
    while True:
        found = await _ask(probe, ())
        if previous is not _UNSET and found == previous:
            return found
        if loop.time() >= deadline:
            raise _timed_out(f"{what} settled", timeout, found)
        previous = found
        await asyncio.sleep(quiet)
