"""Fail fast while a store is known not to answer.

Every store call has a deadline (for Redis, ``LORE_REDIS_TIMEOUT_SECONDS``). Without this, each call
made during a stall waits out its own deadline, so a request that makes several pays it several
times. After one call times out (or cannot connect), ``Breaker`` is open for ``cooldown`` seconds:
callers check it and fail at once instead of asking the store. The first call after the cooldown
asks again; any success closes it.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class Breaker:
    def __init__(self, cooldown: float, clock: Callable[[], float] = time.monotonic) -> None:
        if cooldown < 0:
            raise ValueError("cooldown must not be negative")
        self.cooldown = cooldown
        self._clock = clock
        self._open_until = float("-inf")

    @property
    def open(self) -> bool:
        """True while a recent failure says the store is not answering."""
        return self._clock() < self._open_until

    def failed(self) -> bool:
        """Record a timeout or connection failure; True when this opens the breaker (log it once)."""
        was_open = self.open
        self._open_until = self._clock() + self.cooldown
        return not was_open

    def succeeded(self) -> None:
        self._open_until = float("-inf")
