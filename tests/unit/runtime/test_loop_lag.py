"""The event-loop lag monitor (lore_runtime.loop_lag): each wake-up's lateness in the histogram, the
largest in the gauge; on an injected clock, then once on the real loop of a service's registry."""

from __future__ import annotations

import time

import pytest
from lore_runtime.loop_lag import LAG, LAG_MAX, EventLoopLag
from lore_runtime.metrics import ServiceMetrics
from prometheus_client import CollectorRegistry

from tests.polling import eventually


class ScriptedLoop:
    """A clock and a sleep: each sleep advances the clock by what was asked plus the next scripted
    lateness; once the script is spent, the sleep raises ``Spent``."""

    class Spent(Exception):
        pass

    def __init__(self, *late: float) -> None:
        self.now = 100.0
        self.late = list(late)
        self.asked: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if not self.late:
            raise self.Spent
        self.asked.append(seconds)
        self.now += seconds + self.late.pop(0)


def hold_the_loop(seconds: float) -> None:
    """Compute without awaiting for ``seconds``: the block being measured, as a handler that never
    awaits would hold the loop."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def sample(registry: CollectorRegistry, name: str, **labels: str) -> float:
    value = registry.get_sample_value(name, labels)
    assert value is not None, f"{name}{labels} is not on the page"
    return value


async def test_each_wake_up_is_recorded_as_late_as_it_was() -> None:
    registry = CollectorRegistry()
    loop = ScriptedLoop(0.0004, 0.3, 0.02)
    monitor = EventLoopLag(registry, interval=0.05, clock=loop.clock, sleep=loop.sleep)

    with pytest.raises(ScriptedLoop.Spent):
        await monitor.run()

    assert loop.asked == [0.05, 0.05, 0.05]
    assert sample(registry, f"{LAG}_count") == 3
    assert sample(registry, f"{LAG}_sum") == pytest.approx(0.3204)
    assert sample(registry, f"{LAG}_bucket", le="0.001") == 1
    assert sample(registry, f"{LAG}_bucket", le="0.25") == 2  # the 0.3 s one is above it
    assert sample(registry, LAG_MAX) == pytest.approx(0.3)


async def test_the_gauge_keeps_the_largest_lag_not_the_last() -> None:
    registry = CollectorRegistry()
    loop = ScriptedLoop(1.5, 0.01, 0.0)
    monitor = EventLoopLag(registry, clock=loop.clock, sleep=loop.sleep)

    with pytest.raises(ScriptedLoop.Spent):
        await monitor.run()

    assert sample(registry, LAG_MAX) == pytest.approx(1.5)
    assert monitor.largest == pytest.approx(1.5)


async def test_a_blocked_loop_shows_as_one_lag_as_long_as_the_block() -> None:
    metrics = ServiceMetrics()
    metrics.loop_lag.start()
    try:
        await eventually(lambda: metrics.registry.get_sample_value(f"{LAG}_count"), timeout=10, what="no wake-up")
        hold_the_loop(0.3)
        await eventually(lambda: metrics.loop_lag.largest >= 0.2, timeout=10, what="the block was not recorded")
    finally:
        await metrics.loop_lag.stop()

    assert (
        sample(metrics.registry, f"{LAG}_bucket", le="+Inf") - sample(metrics.registry, f"{LAG}_bucket", le="0.1") >= 1
    )
    assert sample(metrics.registry, LAG_MAX) == pytest.approx(metrics.loop_lag.largest)
