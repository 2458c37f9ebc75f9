"""Rate limits per credential and scope, in Redis, shared by every gateway replica.

The algorithm is GCRA (the generic cell rate algorithm, a token bucket kept as one timestamp):
a credential may make ``burst`` requests at once, then one every ``1 / rate`` seconds. One Lua
script reads and moves the timestamp atomically, on Redis's own clock, so replicas neither race
nor need synchronised clocks; the key expires when the bucket is full again, so idle credentials
cost nothing. A refused request learns when it may retry (429 with ``Retry-After``).

Each scope has its limit (``LORE_RATE_LIMITS`` overrides the default per scope), counted apart:
a client hammering searches does not starve its own writes. When Redis cannot be reached the
limiter lets requests through (fail open), logs it once per outage and counts each request it let
through uncounted (``unenforced``, by scope: ``lore_gateway_rate_limits_unenforced_total``) — an
outage of the limiter's store must not become an outage of the API. It does not make them wait
either: a call gives up after the client's timeout
(``LORE_REDIS_TIMEOUT_SECONDS``), and for as long again requests pass without asking Redis
(``lore_runtime.breaker``), so a stalled Redis costs one request a second, not every request.
"""

from __future__ import annotations

import logging
import math
from collections import Counter

import redis.asyncio as redis
from lore_runtime.breaker import Breaker
from lore_runtime.errors import QuotaExceeded
from lore_runtime.stores import REDIS_TIMEOUT_SECONDS

from gateway_svc.domain.rate_limits import RateLimit

log = logging.getLogger(__name__)

KEY_PREFIX = "lore:gateway:rate"

# KEYS[1]: the bucket; ARGV: emission interval (µs), burst tolerance (µs). Returns {admitted, retry_after_µs}.
GCRA = """
local now = redis.call('TIME')
local now_us = tonumber(now[1]) * 1000000 + tonumber(now[2])
local emission = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now_us)
if tat < now_us then tat = now_us end
local next_tat = tat + emission
local allowed_at = next_tat - tolerance
if allowed_at > now_us then
  return {0, allowed_at - now_us}
end
redis.call('SET', KEYS[1], next_tat, 'PX', math.ceil((next_tat - now_us) / 1000))
return {1, 0}
"""


class NoRateLimiter:
    """Without Redis (``LORE_REDIS_URL`` unset) nothing is counted: no limit is configured, so none
    goes unenforced."""

    def __init__(self) -> None:
        self.unenforced: Counter[str] = Counter()

    async def admit(self, credential: str, scope: str) -> None:
        return None


class RedisRateLimiter:
    def __init__(
        self,
        client: redis.Redis,
        default: RateLimit,
        per_scope: dict[str, RateLimit],
        *,
        breaker: Breaker | None = None,
    ) -> None:
        self._script = client.register_script(GCRA)
        self._default = default
        self._per_scope = per_scope
        self._breaker = breaker or Breaker(cooldown=REDIS_TIMEOUT_SECONDS)
        self.unenforced: Counter[str] = Counter()  # requests let through uncounted, Redis down, by scope

    def limit_for(self, scope: str) -> RateLimit:
        return self._per_scope.get(scope, self._default)

    async def admit(self, credential: str, scope: str) -> None:
        """Count one request of ``credential`` against ``scope``'s limit; QuotaExceeded when over."""
        limit = self.limit_for(scope)
        if limit.unlimited:
            return
        if self._breaker.open:
            self.unenforced[scope] += 1
            return
        emission = 1_000_000 / limit.rate
        try:
            admitted, retry_after_us = await self._script(
                keys=[f"{KEY_PREFIX}:{credential}:{scope}"], args=[round(emission), round(emission * limit.burst)]
            )
        except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
            if self._breaker.failed():
                log.warning("rate limits not enforced: Redis is unavailable (%s)", error)
            self.unenforced[scope] += 1
            return
        self._breaker.succeeded()
        if not admitted:
            retry_after = max(1, math.ceil(int(retry_after_us) / 1_000_000))
            raise QuotaExceeded(
                f"rate limit of the {scope} scope exceeded ({limit.rate:g} requests/s, bursts of {limit.burst}):"
                f" retry in {retry_after} s",
                reason="RATE_LIMITED",
                metadata={"scope": scope, "retry_after_seconds": str(retry_after)},
            )
