"""SessionLeases on Redis: one lease key per (org, session), expiring by PX, with fencing tokens.

Keys (same hash tag as working memory: ``{<org>:<session>}``, ids percent-encoded):

- ``<prefix>:{<org>:<session>}`` — the lease, value ``<token>:<holder>``, ``SET NX PX <ttl>``;
- ``<prefix>:{<org>:<session>}:fence`` — the session's last fencing token.

Acquisition is one Lua script: if the lease is free, ``INCR`` the fence and ``SET NX PX`` the
lease. The fence key outlives leases (30 days idle, renewed on each acquisition) and, so that
tokens keep increasing even after it expires, the script never hands out a token below the
Redis server's clock in milliseconds. Release is a compare-and-delete script: only the
holder with its token deletes the lease. A busy lease is polled with a small backoff up to
``wait``, then ``Conflict(reason="SESSION_BUSY")``.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import redis.asyncio as redis
from lore_runtime import errors
from lore_runtime.clock import SystemClock

from memory_svc.adapters.redis_working_memory import LEASE_PREFIX, fence_key, session_tag, translate_redis_errors
from memory_svc.domain.working_memory import SessionLease
from memory_svc.usecases.ports import Clock

FENCE_IDLE_MS = 30 * 24 * 3600 * 1000

# KEYS: lease, fence. ARGV: holder, ttl ms, fence idle ms. Returns the token, or false when busy.
_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return false
end
local token = redis.call('INCR', KEYS[2])
local now = redis.call('TIME')
local floor = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
if token < floor then
  token = floor
  redis.call('SET', KEYS[2], string.format('%d', token))
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], string.format('%d', token) .. ':' .. ARGV[1], 'NX', 'PX', ARGV[2])
return token
"""

# KEYS: lease. ARGV: "<token>:<holder>". Deletes the lease only if it is still that one.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

FIRST_BACKOFF = 0.005
MAX_BACKOFF = 0.1


class RedisSessionLeases:
    def __init__(
        self, redis_client: redis.Redis, *, key_prefix: str = LEASE_PREFIX, clock: Clock | None = None
    ) -> None:
        self._redis = redis_client
        self._prefix = key_prefix
        self._clock = clock or SystemClock()
        self._acquire = redis_client.register_script(_ACQUIRE)
        self._release = redis_client.register_script(_RELEASE)

    def keys(self, org_id: str, session_id: str) -> tuple[str, str]:
        """The lease and fence keys of (org, session)."""
        return f"{self._prefix}:{session_tag(org_id, session_id)}", fence_key(self._prefix, org_id, session_id)

    async def acquire(self, org_id: str, session_id: str, holder: str, ttl: timedelta, wait: timedelta) -> SessionLease:
        lease_key, fence_key = self.keys(org_id, session_id)
        ttl_ms = max(1, int(ttl.total_seconds() * 1000))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait.total_seconds()
        backoff = FIRST_BACKOFF
        while True:
            with translate_redis_errors():
                token = await self._acquire(keys=[lease_key, fence_key], args=[holder, ttl_ms, FENCE_IDLE_MS])
            if token is not None:
                return SessionLease(session_id, holder, int(token), self._clock.now() + ttl)
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise errors.Conflict(
                    f"session {session_id!r} is busy: another turn holds its lease",
                    reason="SESSION_BUSY",
                    metadata={"session_id": session_id},
                )
            await asyncio.sleep(min(backoff, remaining))
            backoff = min(backoff * 2, MAX_BACKOFF)

    async def release(self, org_id: str, session_id: str, holder: str, fencing_token: int) -> bool:
        lease_key, _ = self.keys(org_id, session_id)
        with translate_redis_errors():
            deleted = await self._release(keys=[lease_key], args=[f"{fencing_token}:{holder}"])
        return bool(deleted)
