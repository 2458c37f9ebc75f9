# ruff: noqa: F811  (the stalling_redis fixture is imported, then a parameter)
"""The working-memory and lease adapters on a Redis that stops answering.

The Redis here is the test's own embedded server, never a shared one: it is frozen with SIGSTOP
(what a stalled or swapping host looks like: connections open, nothing answered; what was sent
runs when it continues), or made to hold scripts with ``CLIENT PAUSE WRITE`` (a script that runs
a moment late, its caller still connected).
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import timedelta

import pytest
import redis.asyncio as redis
from lore_devstack import EmbeddedRedis
from lore_runtime import errors
from lore_runtime.breaker import Breaker
from lore_runtime.stores import open_redis
from memory_svc.adapters.redis_calls import RedisCalls
from memory_svc.adapters.redis_session_leases import RedisSessionLeases
from memory_svc.adapters.redis_working_memory import RedisWorkingMemoryStore

from tests.fakes import FixedClock
from tests.polling import eventually
from tests.stalling_redis import stalling_redis, stopped  # noqa: F401 (a fixture)

TIMEOUT = 0.5  # the client's deadline (LORE_REDIS_TIMEOUT_SECONDS)
SLACK = 0.5
TTL = timedelta(seconds=30)  # what the agent asks for: far longer than any of these tests


@dataclass
class Adapters:
    store: RedisWorkingMemoryStore
    leases: RedisSessionLeases
    admin: redis.Redis  # a client of its own, without the adapters' breaker
    clock: FixedClock  # what the adapters' breaker cools down on


@pytest.fixture
async def adapters(stalling_redis: EmbeddedRedis) -> AsyncIterator[Adapters]:
    async with AsyncExitStack() as stack:
        client = await open_redis(stack, stalling_redis.url, timeout=TIMEOUT)
        admin = await open_redis(stack, stalling_redis.url, timeout=5.0)
        clock = FixedClock()
        calls = RedisCalls(TIMEOUT, Breaker(cooldown=TIMEOUT, clock=lambda: clock.now().timestamp()))
        yield Adapters(
            RedisWorkingMemoryStore(client, calls=calls), RedisSessionLeases(client, calls=calls), admin, clock
        )
        await admin.execute_command("CLIENT", "UNPAUSE")


async def unavailable(call) -> tuple[errors.DependencyUnavailable, float]:
    began = time.monotonic()
    with pytest.raises(errors.DependencyUnavailable) as raised:
        await call
    return raised.value, time.monotonic() - began


async def outlasting_the_caller() -> None:
    """The fault's shape: Redis stays stopped a moment after its caller gave up, so what the caller
    sent runs only past the caller's deadline."""
    await asyncio.sleep(0.3)


async def ran_what_was_queued(adapters: Adapters) -> None:
    """Redis has run what it read before it was continued: what was queued on a connection was readable
    at once, so by the second of two round trips on another connection it has been read and run."""
    for _ in range(2):
        assert await adapters.admin.ping()


async def test_calls_to_a_stalled_redis_answer_unavailable_within_the_deadline_then_fail_fast(
    adapters: Adapters, stalling_redis: EmbeddedRedis, org_id: str
) -> None:
    await adapters.store.get(org_id, "s-1")  # a pooled connection, open before the stall
    with stopped(stalling_redis):
        first, took = await unavailable(adapters.store.get(org_id, "s-1"))
        assert took < TIMEOUT + SLACK
        assert first.reason == "REDIS_UNAVAILABLE"
        assert first.metadata == {"store": "redis", "retry_after_seconds": "1"}
        assert "127.0.0.1" not in first.message  # the address goes to the log, not to callers
        # The next calls do not each wait out the deadline again.
        _, took = await unavailable(adapters.leases.acquire(org_id, "s-1", "turn-1", TTL, timedelta(0)))
        assert took < 0.1
    adapters.clock.advance(seconds=TIMEOUT)  # the cooldown: then Redis is asked again
    assert await adapters.store.get(org_id, "s-1") is None


async def test_a_lease_asked_for_during_a_stall_does_not_hold_the_session_once_redis_resumes(
    adapters: Adapters, stalling_redis: EmbeddedRedis, org_id: str
) -> None:
    await adapters.store.get(org_id, "warm")
    with stopped(stalling_redis):
        _, took = await unavailable(adapters.leases.acquire(org_id, "s-1", "gave-up", TTL, timedelta(seconds=5)))
        assert took < TIMEOUT + SLACK
        await outlasting_the_caller()
    adapters.clock.advance(seconds=TIMEOUT)  # past the breaker's cooldown
    lease = await adapters.leases.acquire(org_id, "s-1", "next-turn", TTL, timedelta(0))
    assert lease.holder == "next-turn"


async def test_a_lease_script_that_runs_after_its_caller_gave_up_grants_nothing(
    adapters: Adapters, stalling_redis: EmbeddedRedis, org_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = adapters.leases._redis
    read_time = client.time

    async def time_then_stall():
        answer = await read_time()
        os.kill(stalling_redis.pid, signal.SIGSTOP)  # the script is sent to a server that no longer reads
        return answer

    monkeypatch.setattr(client, "time", time_then_stall)
    try:
        _, took = await unavailable(adapters.leases.acquire(org_id, "s-1", "gave-up", TTL, timedelta(0)))
        assert took < TIMEOUT + SLACK
        await outlasting_the_caller()
    finally:
        os.kill(stalling_redis.pid, signal.SIGCONT)  # the queued script runs now, past its deadline
    monkeypatch.undo()
    lease_key, _ = adapters.leases.keys(org_id, "s-1")
    await ran_what_was_queued(adapters)
    adapters.clock.advance(seconds=TIMEOUT)  # past the breaker's cooldown
    assert await adapters.admin.get(lease_key) is None
    lease = await adapters.leases.acquire(org_id, "s-1", "next-turn", TTL, timedelta(0))
    assert lease.holder == "next-turn"


async def test_a_cancelled_acquisition_releases_the_lease_its_script_was_granted(
    adapters: Adapters, org_id: str
) -> None:
    pause = TIMEOUT * 600  # ms: the script is held, then granted within its caller's deadline
    await adapters.admin.execute_command("CLIENT", "PAUSE", str(int(pause)), "WRITE")
    acquiring = asyncio.create_task(adapters.leases.acquire(org_id, "s-1", "cancelled", TTL, timedelta(0)))

    async def held() -> bool:  # the script reached Redis, which holds it (a paused client counts as blocked)
        return (await adapters.admin.info("clients"))["blocked_clients"] >= 1

    await eventually(held, what="the acquisition's script held by the pause")
    acquiring.cancel()
    with pytest.raises(asyncio.CancelledError):
        await acquiring
    lease = await adapters.leases.acquire(org_id, "s-1", "next-turn", TTL, timedelta(seconds=2))
    assert lease.holder == "next-turn"
    assert lease.fencing_token > 0


async def test_a_release_that_redis_did_not_answer_is_retried_once_it_resumes(
    adapters: Adapters, stalling_redis: EmbeddedRedis, org_id: str
) -> None:
    lease = await adapters.leases.acquire(org_id, "s-1", "turn-1", TTL, timedelta(0))
    await adapters.leases._redis.connection_pool.disconnect()  # the release needs a new connection: never sent
    with stopped(stalling_redis):
        _, took = await unavailable(adapters.leases.release(org_id, "s-1", "turn-1", lease.fencing_token))
        assert took < TIMEOUT + SLACK
        await outlasting_the_caller()
    adapters.clock.advance(seconds=TIMEOUT)  # past the breaker's cooldown
    began = time.monotonic()
    following = await adapters.leases.acquire(org_id, "s-1", "turn-2", TTL, timedelta(seconds=3))
    assert following.holder == "turn-2"
    assert time.monotonic() - began < 2 * TIMEOUT + SLACK
