"""Failed authentications counted per client address in Redis (``api/auth/auth_failures.py`` says when
and why): a GCRA bucket like the per-credential rate limits (``redis_rate_limits``).

A process remembers which addresses failed lately, and only asks Redis about those: clients
that never fail cost no extra round trip, and each replica lets an address one attempt past the
limit at most before it asks (a ``cachetools.TTLCache`` timed by the injected ``Clock``: an address is
forgotten once its bucket has drained). When Redis cannot be reached or stalls, nothing is refused (logged
once), and for a cooldown Redis is not asked at all (``lore_runtime.breaker``), as for the rate limits.
"""

from __future__ import annotations

import logging
import math

import redis.asyncio as redis
from cachetools import TTLCache
from lore_runtime.breaker import Breaker
from lore_runtime.clock import Clock, SystemClock, seconds_of
from lore_runtime.stores import REDIS_TIMEOUT_SECONDS

from gateway_svc.adapters.redis_rate_limits import GCRA
from gateway_svc.domain.rate_limits import RateLimit

log = logging.getLogger(__name__)

KEY_PREFIX = "lore:gateway:authfail"
REDIS_UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError, OSError)

# KEYS[1]: the bucket; ARGV: emission interval (µs), burst tolerance (µs). Returns µs until one more
# failure would be admitted (0: now). Reads only: a refused request is not a failure.
PEEK = """
local now = redis.call('TIME')
local now_us = tonumber(now[1]) * 1000000 + tonumber(now[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now_us)
if tat < now_us then tat = now_us end
local allowed_at = tat + tonumber(ARGV[1]) - tonumber(ARGV[2])
if allowed_at > now_us then return allowed_at - now_us end
return 0
"""


class AuthFailureLimiter:
    def __init__(
        self,
        client: redis.Redis | None,
        limit: RateLimit,
        *,
        breaker: Breaker | None = None,
        clock: Clock | None = None,
        remember_size: int = 10_000,
    ) -> None:
        self._peek = client.register_script(PEEK) if client is not None else None
        self._count = client.register_script(GCRA) if client is not None else None
        self._limit = limit
        self._breaker = breaker or Breaker(cooldown=REDIS_TIMEOUT_SECONDS)
        # Addresses this process asks Redis about: each until its bucket has drained, burst / rate
        # seconds after its last failure.
        drained = 0.0 if limit.unlimited else limit.burst / limit.rate
        timer = seconds_of(clock or SystemClock())
        self._recent: TTLCache[str, bool] = TTLCache(remember_size, ttl=drained, timer=timer)

    @property
    def enabled(self) -> bool:
        """Counting, with Redis answering lately (a stalled Redis is not waited on for every request)."""
        return self._peek is not None and not self._limit.unlimited and not self._breaker.open

    def _args(self) -> list[int]:
        emission = 1_000_000 / self._limit.rate
        return [round(emission), round(emission * self._limit.burst)]

    async def retry_after(self, address: str) -> int:
        """Seconds until ``address`` may present a credential again (0: now)."""
        if not self.enabled or address not in self._recent:
            return 0
        try:
            wait_us = int(await self._peek(keys=[f"{KEY_PREFIX}:{address}"], args=self._args()))  # type: ignore[misc]
        except REDIS_UNAVAILABLE as error:
            self._unavailable(error)
            return 0
        self._breaker.succeeded()
        return max(1, math.ceil(wait_us / 1_000_000)) if wait_us > 0 else 0

    async def record(self, address: str) -> None:
        """Count one failed authentication from ``address``."""
        if not self.enabled:
            return
        self._recent[address] = True
        try:
            await self._count(keys=[f"{KEY_PREFIX}:{address}"], args=self._args())  # type: ignore[misc]
        except REDIS_UNAVAILABLE as error:
            self._unavailable(error)
            return
        self._breaker.succeeded()

    def _unavailable(self, error: Exception) -> None:
        if self._breaker.failed():
            log.warning("failed authentications not limited: Redis is unavailable (%s)", error)
