"""The embedded engine's background optimisation: a failure never stops the loop, and one that held
the service (qdrant-edge keeps the interpreter while it indexes) is a warning naming how long."""

from __future__ import annotations

import logging

from memory_svc.adapters.edge_maintenance import OptimizeRun
from memory_svc.bootstrap import SLOW_OPTIMIZE_SECONDS, log_optimize_runs, optimize_shards


class Shard:
    def __init__(self, label: str, *, fails: bool = False) -> None:
        self.label, self.fails, self.optimised = label, fails, 0

    async def optimize(self) -> bool:
        if self.fails:
            raise RuntimeError("disk full")
        self.optimised += 1
        return True


def ticking(*seconds: float):
    """A timer answering ``seconds`` in turn (each shard reads it before and after)."""
    values = iter(seconds)
    return lambda: next(values)


async def test_a_slow_optimisation_is_a_warning_with_its_duration(caplog) -> None:
    fast, slow = Shard("memories"), Shard("episodes")
    with caplog.at_level(logging.WARNING, logger="memory_svc.bootstrap"):
        await optimize_shards((fast, slow), timer=ticking(0.0, 0.2, 10.0, 10.0 + SLOW_OPTIMIZE_SECONDS + 14.5))

    assert (fast.optimised, slow.optimised) == (1, 1)
    [warning] = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert "held the memory service for 15.5 s" in warning.getMessage()
    assert (warning.shard, warning.seconds) == ("episodes", 15.5)


async def test_a_failed_optimisation_is_logged_and_the_other_shards_still_run(caplog) -> None:
    broken, healthy = Shard("memories", fails=True), Shard("episodes")
    with caplog.at_level(logging.WARNING, logger="memory_svc.bootstrap"):
        await optimize_shards((broken, healthy), timer=ticking(0.0, 1.0, 1.1))

    assert healthy.optimised == 1
    assert [record.getMessage() for record in caplog.records] == ["background Qdrant optimisation failed"]


async def test_a_child_run_logs_its_swap_and_a_long_swap_is_a_warning(caplog) -> None:
    quick = OptimizeRun("memory index", True, 40.0, 0.3, 0.2, 12)
    slow = OptimizeRun("episode index", True, 9.0, 0.1, SLOW_OPTIMIZE_SECONDS + 0.5, 0)
    untouched = OptimizeRun("episode index", False, 1.0, 0.1, 0.0, 0)
    with caplog.at_level(logging.INFO, logger="memory_svc.bootstrap"):
        log_optimize_runs([quick, None, untouched, slow, RuntimeError("child exited")])

    levels = [(record.levelno, getattr(record, "shard", None)) for record in caplog.records]
    assert levels == [(logging.INFO, "memory index"), (logging.WARNING, "episode index"), (logging.ERROR, None)]
    assert caplog.records[0].calls_held_seconds == 0.2
