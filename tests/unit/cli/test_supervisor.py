"""``lore up``'s restarts (lore_cli/supervisor.py) with stand-in children: futures that "exit"."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

from lore_cli.supervisor import Backoff, describe_exit, keep_running

from tests.polling import eventually


def test_the_delay_doubles_up_to_the_limit_and_starts_over_once_a_service_stayed_up() -> None:
    backoff = Backoff(first=1.0, limit=30.0, stable_after=60.0)
    assert [backoff.delay(uptime=2.0) for _ in range(7)] == [1, 2, 4, 8, 16, 30, 30]
    assert backoff.delay(uptime=61.0) == 1
    assert backoff.delay(uptime=0.5) == 2


def test_an_exit_is_described_with_its_signal() -> None:
    assert describe_exit(-9) == "was killed by SIGKILL"
    assert describe_exit(1) == "exited with status 1"


@dataclass
class StandIn:
    name: str
    log_path: Path
    exited: asyncio.Future[int] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


async def until(condition) -> float:
    """Seconds until ``condition()`` holds."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    await eventually(condition, what="the supervisor acting", interval=0.01)
    return loop.time() - began


async def test_a_dead_child_is_started_again_after_its_backoff_and_announced(tmp_path: Path, capsys) -> None:
    memory, gateway = StandIn("memory", tmp_path / "memory.log"), StandIn("gateway", tmp_path / "gateway.log")
    children = [memory, gateway]
    started: list[StandIn] = []

    async def start(name: str) -> StandIn:
        child = StandIn(name, tmp_path / f"{name}.log")
        started.append(child)
        return child

    stop = asyncio.Event()
    running = asyncio.create_task(keep_running(children, start, stop, backoff=lambda: Backoff(first=0.3)))
    memory.exited.set_result(-9)
    assert await until(lambda: len(started) == 1) >= 0.25  # after the backoff, not at once
    assert [child.name for child in started] == ["memory"] and children == [started[0], gateway]
    started[0].exited.set_result(1)  # dies again at once: the delay doubles
    assert await until(lambda: len(started) == 2) >= 0.55
    assert children == [started[1], gateway]
    stop.set()
    await asyncio.wait_for(running, timeout=1)

    err = capsys.readouterr().err
    assert "lore up: memory was killed by SIGKILL; restarting it in 0.3 s (restart 1)" in err
    assert "lore up: memory exited with status 1; restarting it in 0.6 s (restart 2)" in err
    logged = [json.loads(line) for line in (tmp_path / "memory.log").read_text().splitlines()]
    assert [record["level"] for record in logged] == ["WARNING", "WARNING"]
    assert logged[0]["service"] == "memory" and "killed by SIGKILL" in logged[0]["message"]


async def test_stop_during_a_backoff_starts_nothing(tmp_path: Path) -> None:
    child = StandIn("memory", tmp_path / "memory.log")
    started: list[str] = []

    async def start(name: str) -> StandIn:
        started.append(name)
        return StandIn(name, tmp_path / f"{name}.log")

    stop = asyncio.Event()
    running = asyncio.create_task(keep_running([child], start, stop, backoff=lambda: Backoff(first=5.0)))
    child.exited.set_result(-9)
    await until(lambda: child.log_path.exists() and "restarting" in child.log_path.read_text())  # in its backoff
    stop.set()
    await asyncio.wait_for(running, timeout=1)
    assert started == []
