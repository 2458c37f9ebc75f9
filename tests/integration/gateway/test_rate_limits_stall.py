# ruff: noqa: F811  (the stalling_redis fixture is imported, then a parameter)
"""The rate limiter on a Redis that stops answering: it still lets requests
through (fail open), but no longer makes each of them wait for Redis."""

from __future__ import annotations

import time
from contextlib import AsyncExitStack

import pytest
from gateway_svc.adapters.redis_rate_limits import RedisRateLimiter
from gateway_svc.domain.rate_limits import RateLimit
from lore_devstack import EmbeddedRedis
from lore_runtime.breaker import Breaker
from lore_runtime.errors import QuotaExceeded
from lore_runtime.stores import open_redis

from tests.fakes import FixedClock
from tests.stalling_redis import stalling_redis, stopped  # noqa: F401 (a fixture)

TIMEOUT = 0.5


async def timed_admit(limiter: RedisRateLimiter, credential: str) -> float:
    began = time.monotonic()
    await limiter.admit(credential, "sessions:read")  # no QuotaExceeded: let through
    return time.monotonic() - began


async def test_a_stalled_redis_costs_one_request_the_deadline_and_the_next_ones_nothing(
    stalling_redis: EmbeddedRedis,
) -> None:
    async with AsyncExitStack() as stack:
        client = await open_redis(stack, stalling_redis.url, timeout=TIMEOUT)
        clock = FixedClock()  # what the breaker's cooldown runs on
        breaker = Breaker(cooldown=TIMEOUT, clock=lambda: clock.now().timestamp())
        limiter = RedisRateLimiter(client, RateLimit(1, 1), {}, breaker=breaker)
        await limiter.admit("warm", "sessions:read")
        with stopped(stalling_redis):
            assert await timed_admit(limiter, "key-1") < TIMEOUT + 0.5
            # Over key-1's limit of 1 at once, but Redis cannot count: let through, without waiting.
            assert [await timed_admit(limiter, "key-1") < 0.05 for _ in range(5)] == [True] * 5
        clock.advance(seconds=TIMEOUT)  # the cooldown: then Redis is asked again, and counts
        await limiter.admit("key-2", "sessions:read")
        with pytest.raises(QuotaExceeded):
            await limiter.admit("key-2", "sessions:read")
