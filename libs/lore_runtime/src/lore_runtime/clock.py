"""The real clock (UTC), for every service's ``Clock`` port; tests pass a fixed one instead."""

from datetime import UTC, datetime


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)
