"""Every service's ``Clock`` port and the real clock (UTC); tests pass a fixed one instead.

Free of drivers, so domain and usecases may depend on it.
"""

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


def seconds_of(clock: Clock) -> Callable[[], float]:
    """``clock`` as a timer in seconds (a float), as ``cachetools.TTLCache`` takes one."""
    return lambda: clock.now().timestamp()
