"""Tests wait for conditions, not for fixed times (tests/contracts/sleeps.py finds the sleeps).

A fixed sleep stands in for a condition and fails on a loaded machine or wastes time on an idle
one. A test waits through ``tests/polling.py`` (``eventually``, ``eventually_sync``, ``holds_for``,
``settled``: it polls the condition) or advances a fake clock (``tests.fakes.FixedClock``). The only
other sleeps are the deliberate delays listed below, each a fault or a pace that the test injects,
named by file and function. The rule runs on planted sources too, so a checker that stopped seeing
a sleep would fail here.
"""

from __future__ import annotations

from pathlib import Path

from tests.contracts.sleeps import Sleep, fixed_sleeps, fixed_sleeps_in

ROOT = Path(__file__).resolve().parents[2]
WAIT_HELPER = "tests/polling.py"

# (file, function) -> the delay it injects on purpose.
DELIBERATE: dict[tuple[str, str], str] = {
    ("tests/fakes_assembler.py", "Misbehaviour.enter"): "a source that hangs past its deadline",
    ("tests/fakes_working_memory.py", "InMemorySessionLeases.acquire"): "the fake's own wait for a held lease",
    ("tests/fakes_working_memory.py", "InMemorySessionLeases.acquire_and_append"): "the same, in one call",
    ("tests/integration/agent/test_model_extractor.py", "ChatStub.handle"): "a model that answers late",
    (
        "tests/integration/agent/test_transcript_contract.py",
        "test_the_session_lock_lets_one_holder_in_at_a_time.hold",
    ): "a holder that keeps the lock a moment",
    ("tests/integration/gateway/test_body_timeout.py", "_trickle"): "a client that sends its body slowly",
    ("tests/integration/memory/test_redis_stall.py", "outlasting_the_caller"): "a stall that outlasts its caller",
    (
        "tests/integration/memory/test_working_memory_contract.py",
        "test_concurrent_takers_append_one_at_a_time_in_lease_order.one",
    ): "a holder that keeps the lease a moment",
    ("tests/integration/model/conftest.py", "FaultProxy._answer"): "a model that answers late",
    ("tests/integration/runtime/test_interceptors.py", "ProbeServicer.GetMemory"): "a handler past its deadline",
    ("tests/integration/runtime/test_load_balancing.py", "calls_reaching_a_replica_added_later"): "traffic's pace",
    ("tests/integration/runtime/test_scheduled_jobs.py", "_job.work"): "a job that runs a while",
    ("tests/unit/runtime/test_metrics.py", "ProbeServicer.Reindex"): "a stream whose messages come apart",
    ("tests/e2e/test_stack_faults.py", "Traffic._lane"): "traffic's pace",
    ("tests/e2e/test_stack_faults.py", "stall"): "a Redis stalled for a set time",
}


def violations(found: list[Sleep], deliberate: dict[tuple[str, str], str]) -> list[str]:
    return [
        str(sleep) for sleep in found if sleep.path != WAIT_HELPER and (sleep.path, sleep.function) not in deliberate
    ]


def test_tests_sleep_only_in_the_wait_helper_and_in_deliberate_delays() -> None:
    found = fixed_sleeps(ROOT)
    assert {sleep.path for sleep in found} >= {WAIT_HELPER}, "the checker no longer sees the helper's sleeps"
    assert violations(found, DELIBERATE) == [], "wait for the condition with tests/polling.py (see its docstring)"


def test_every_deliberate_delay_is_still_there() -> None:
    """An entry whose sleep is gone is removed, so the list cannot hide a new sleep later."""
    present = {(sleep.path, sleep.function) for sleep in fixed_sleeps(ROOT)}
    assert sorted(set(DELIBERATE) - present) == []


# --- the test of the test: planted sleeps, each caught; yields and fakes' stand-ins are not sleeps.

PLANTED = """
import asyncio
import time
import anyio
import asyncio as aio
from time import sleep as nap
from trio import sleep


async def test_waits_a_while():
    await asyncio.sleep(0.3)


def test_sync():
    time.sleep(1)


class Fixture:
    async def method(self):
        await anyio.sleep(0.1)

    async def nested(self):
        async def inner():
            await aio.sleep(2)
        await inner()


def renamed():
    nap(0.5)
    sleep(0.2)
"""

CLEAN = """
import asyncio


async def test_yields():
    await asyncio.sleep(0)


class Recorder:
    async def sleep(self, seconds):
        self.asked.append(seconds)


async def waits_on_an_event(event):
    await asyncio.wait_for(event.wait(), 5)
"""


def test_every_planted_sleep_is_found_with_its_function() -> None:
    found = fixed_sleeps_in(PLANTED, "tests/planted.py")
    assert [(sleep.line, sleep.function) for sleep in found] == [
        (11, "test_waits_a_while"),
        (15, "test_sync"),
        (20, "Fixture.method"),
        (24, "Fixture.nested.inner"),
        (29, "renamed"),
        (30, "renamed"),
    ]
    assert violations(found, DELIBERATE) == [str(sleep) for sleep in found]


def test_a_yield_or_a_stand_in_named_sleep_is_not_a_fixed_sleep() -> None:
    assert fixed_sleeps_in(CLEAN, "tests/clean.py") == []


def test_a_listed_deliberate_delay_and_the_wait_helper_pass() -> None:
    found = fixed_sleeps_in(PLANTED, "tests/planted.py")
    listed = {("tests/planted.py", sleep.function): "planted" for sleep in found}
    assert violations(found, listed) == []
    assert violations(fixed_sleeps_in(PLANTED, WAIT_HELPER), {}) == []
