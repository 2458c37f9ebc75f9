# ruff: noqa: F811  (the stalling_redis fixture is imported, then a parameter)
"""Faults on a running local stack (`./lore up`): a Redis that stops answering, and a
service that dies.

The stack runs on a Redis of the test's own (an embedded Valkey, never the machine's), so the test
can freeze it (SIGSTOP) and continue it (SIGCONT); its services check their dependencies every half
second, so ``/v1/status`` notices within the stall. One stack serves both tests of the module.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil
import pytest
from lore_devstack import EmbeddedRedis, free_port

from tests.e2e.test_local_stack import DEV_KEY, ROOT, Stack, start_stack
from tests.polling import eventually
from tests.stalling_redis import stalling_redis, stopped  # noqa: F401 (a fixture)

pytestmark = pytest.mark.e2e

REDIS_TIMEOUT = 1.0  # LORE_REDIS_TIMEOUT_SECONDS, the default
STALL_SECONDS = 4.0
# A turn touches Redis through the gateway's rate limiter, its lease, its working-memory writes and
# the assembler's reads: during a stall each gives up after the deadline, most of them at once.
TURN_BOUND_SECONDS = 3 * REDIS_TIMEOUT + 1.0
RESUMED_WITHIN_SECONDS = 2.0
SERVICES = ("MEMORY", "OBSERVATIONS", "ASSEMBLER", "AGENT", "GATEWAY")


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, stalling_redis: EmbeddedRedis) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("lore-faults")
    overrides = {"LORE_REDIS_URL": stalling_redis.url, "LORE_DEPENDENCY_CHECK_SECONDS": "0.5"}
    running = start_stack(data_dir, data_dir.parent / "lore-up-faults.log", overrides)
    yield running
    if running.process.poll() is None:
        running.stop()


@dataclass(frozen=True)
class Outcome:
    started: float
    seconds: float
    status: int
    retry_after: str | None
    body: str


class Traffic:
    """Turns on one session, from ``lanes`` clients one after the other, until stopped."""

    def __init__(self, http: httpx.AsyncClient, session_id: str) -> None:
        self.http, self.session_id, self.outcomes = http, session_id, []
        self._stop = asyncio.Event()
        self._lanes: list[asyncio.Task[None]] = []

    def start(self, lanes: int = 2) -> None:
        self._lanes = [asyncio.create_task(self._lane(lane)) for lane in range(lanes)]

    async def turn(self, key: str) -> Outcome:
        started = time.monotonic()
        answer = await self.http.post(
            f"/v1/sessions/{self.session_id}/turns",
            json={"turn": {"role": "TURN_ROLE_USER", "content": f"I like tea ({key}).", "idempotencyKey": key}},
        )
        return Outcome(
            started, time.monotonic() - started, answer.status_code, answer.headers.get("retry-after"), answer.text
        )

    async def _lane(self, lane: int) -> None:
        number = 0
        while not self._stop.is_set():
            self.outcomes.append(await self.turn(f"lane-{lane}-{number}"))
            number += 1
            await asyncio.sleep(0.1)  # the pace of the traffic, not a wait

    async def stop(self) -> list[Outcome]:
        self._stop.set()
        await asyncio.gather(*self._lanes)
        return sorted(self.outcomes, key=lambda outcome: outcome.started)


async def memory_status(http: httpx.AsyncClient) -> str:
    return (await http.get("/v1/status")).json()["services"]["memory"]


async def stall(redis: EmbeddedRedis, http: httpx.AsyncClient) -> list[str]:
    """The fault: Redis stopped for STALL_SECONDS, memory's status read every 0.2 s meanwhile."""
    statuses = []
    with stopped(redis):
        stalled_at = time.monotonic()
        while time.monotonic() - stalled_at < STALL_SECONDS:
            statuses.append(await memory_status(http))
            await asyncio.sleep(0.2)  # the stall lasts STALL_SECONDS: a fault's length, not a wait
    return statuses


async def test_a_stalled_redis_neither_hangs_turns_nor_locks_the_session_once_it_resumes(
    stack: Stack, stalling_redis: EmbeddedRedis
) -> None:
    headers = {"Authorization": f"Bearer {DEV_KEY}"}
    async with httpx.AsyncClient(base_url=stack.url, headers=headers, timeout=60) as http:
        created = await http.post("/v1/sessions", json={"scope": {"userId": "stall-user", "agentId": "aria"}})
        traffic = Traffic(http, created.json()["session"]["id"])
        assert (await traffic.turn("warm")).status == 200
        traffic.start()
        await eventually(lambda: len(traffic.outcomes) >= 2, what="turns flowing before the stall")
        stalled_at = time.monotonic()
        statuses = await stall(stalling_redis, http)
        resumed_at = time.monotonic()

        def resumed() -> bool:  # both lanes had turns since, enough to see how soon turns came back
            return len([o for o in traffic.outcomes if o.started >= resumed_at]) >= 4

        await eventually(resumed, what="turns after Redis resumed")
        outcomes = await traffic.stop()

        report = "\n".join(
            f"{o.started - stalled_at:+6.2f}s {o.seconds:5.2f}s {o.status} {o.body[:120]}" for o in outcomes
        )
        assert "NOT_SERVING" in statuses, statuses  # /v1/status names the service whose store stalled
        during = [o for o in outcomes if o.started + o.seconds > stalled_at and o.started < resumed_at]
        assert len(during) >= 2, report
        for outcome in outcomes:
            assert outcome.seconds < TURN_BOUND_SECONDS, report  # nothing hangs for the stall
            assert outcome.status in (200, 503), report  # never 409 SESSION_BUSY, never another 5xx
            if outcome.status == 503:
                assert outcome.retry_after, report
        after = [o for o in outcomes if o.started >= resumed_at]
        assert [o.status for o in after] == [200] * len(after), report
        assert any(o.started + o.seconds <= resumed_at + RESUMED_WITHIN_SECONDS for o in after), report

        async def serving() -> bool:
            return await memory_status(http) == "SERVING"

        await eventually(serving, timeout=10, what="memory did not report SERVING again")


def service_process(stack: Stack, name: str) -> psutil.Process:
    children = psutil.Process(stack.process.pid).children()
    return next(child for child in children if f"{name}_svc" in " ".join(child.cmdline()))


async def test_a_killed_service_is_started_again_and_the_stack_keeps_running(stack: Stack) -> None:
    killed = service_process(stack, "memory")
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=10)
    headers = {"Authorization": f"Bearer {DEV_KEY}"}
    async with httpx.AsyncClient(base_url=stack.url, headers=headers, timeout=30) as http:
        down = await http.get("/v1/memories", params={"userId": "restart-user"})
        assert down.status_code == 503 and down.headers.get("retry-after"), down.text

        async def memories_answer() -> bool:
            return (await http.get("/v1/memories", params={"userId": "restart-user"})).status_code == 200

        await eventually(memories_answer, timeout=90, what="the memory service did not come back")
        assert stack.process.poll() is None  # the stack kept running
        assert service_process(stack, "memory").pid != killed.pid

        async def all_serving() -> bool:  # the agent and assembler see memory again at their next check
            return (await http.get("/v1/status")).status_code == 200

        await eventually(all_serving, timeout=10, what="/v1/status did not report every service SERVING again")
    announced = "memory was killed by SIGKILL; restarting it in 1 s (restart 1)"
    assert f"lore up: {announced}" in stack.log.read_text()
    service_log = Path(stack.env["LORE_DATA_DIR"]) / "logs" / "memory.log"
    logged = [json.loads(line) for line in service_log.read_text().splitlines() if announced in line]
    assert logged and logged[0]["level"] == "WARNING"


async def test_a_service_that_dies_before_the_stack_is_ready_fails_lore_up_with_its_log_tail(
    tmp_path: Path, pg_dsns, redis_url: str
) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    env.update({f"LORE_{name}_ADDR": f"127.0.0.1:{free_port()}" for name in SERVICES})
    env.update(
        LORE_DATA_DIR=str(tmp_path / "data"),
        LORE_DEV_API_KEY=DEV_KEY,
        LORE_DATABASE_URL=pg_dsns.app_dsn,
        LORE_MIGRATIONS_DATABASE_URL=pg_dsns.owner_dsn,
        LORE_REDIS_URL=redis_url,
        LORE_CONSOLIDATION_THRESHOLD="2",  # only the memory service reads it: it refuses to start
    )
    process = await asyncio.create_subprocess_exec(
        str(ROOT / "lore"), "up", env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=180)
    text = output.decode()
    assert process.returncode == 1, text
    assert "lore up: memory exited with status 2; its log ends with:" in text
    assert "LORE_CONSOLIDATION_THRESHOLD" in text  # the tail says why
    assert "restarting" not in text
