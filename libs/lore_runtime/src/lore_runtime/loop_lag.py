"""How late a service's event loop runs what is due: a task asks to be woken every ``interval`` and
records how much later than that it was woken, on the service's Prometheus registry.

A lag is time every call on the loop waited: a handler that computes without awaiting, a library
that keeps the interpreter (qdrant-edge opening a shard), a thread that holds the GIL. The histogram
``lore_event_loop_lag_seconds`` gives its distribution, ``lore_event_loop_lag_max_seconds`` the
largest since the process started. A loop blocked outright records nothing until it runs again,
then one lag as long as the block. ``lore_runtime.service`` starts it in every gRPC service.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

from prometheus_client import CollectorRegistry, Gauge, Histogram

LAG = "lore_event_loop_lag_seconds"
LAG_MAX = "lore_event_loop_lag_max_seconds"
# From 1 ms (an idle loop's jitter) to 30 s (a shard opened on a busy machine).
LAG_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
INTERVAL_SECONDS = 0.1


class EventLoopLag:
    """``start()`` on the loop to watch; ``await stop()`` at shutdown. ``clock`` and ``sleep`` are
    the loop's by default (``time.monotonic`` is the clock ``asyncio`` schedules by); tests pass
    their own."""

    def __init__(
        self,
        registry: CollectorRegistry,
        *,
        interval: float = INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.interval = interval
        self._clock = clock
        self._sleep = sleep
        self.largest = 0.0
        self.histogram = Histogram(
            LAG,
            f"How much later than asked the event loop woke a task that sleeps {interval:g} s at a time",
            buckets=LAG_BUCKETS,
            registry=registry,
        )
        self._largest = Gauge(LAG_MAX, "The largest event-loop lag since the process started", registry=registry)
        self._task: asyncio.Task[None] | None = None

    def record(self, lag: float) -> None:
        self.histogram.observe(lag)
        if lag > self.largest:
            self.largest = lag
            self._largest.set(lag)

    async def run(self) -> None:
        """Sleep ``interval``, record how late the wake-up was; forever."""
        while True:
            due = self._clock() + self.interval
            await self._sleep(self.interval)
            self.record(max(0.0, self._clock() - due))

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.run(), name="event-loop-lag")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
