"""Every service's ``Clock`` port and the real clock (UTC); tests pass a fixed one instead.

Free of drivers, so domain and usecases may depend on it.
"""

from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)
