"""Waiting for background work in integration tests (jobs, reflection, episodes): poll a probe
until it answers something truthy, within a deadline."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def eventually(
    probe: Callable[[], Awaitable[T | None] | T | None],
    timeout: float = 30.0,
    what: str = "the background work did not finish in time",
) -> T:
    """The first truthy answer of ``probe`` (a plain or an async callable)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found: Any = probe()
        if inspect.isawaitable(found):
            found = await found
        if found:
            return found
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.2)
