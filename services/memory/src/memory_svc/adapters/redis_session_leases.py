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

A lease is never granted to a caller that has stopped waiting for it (issue #19: after a Redis stall,
acquisitions queued in the stalled server ran for callers long gone and held the session for 30 s).
Each attempt names the moment its caller gives up — the Redis call's deadline, stated on Redis's own
clock (read with ``TIME`` when the acquisition starts, then advanced by this process's monotonic
clock, so the hosts' clocks need not agree) — and the script refuses to grant after it. An attempt
whose caller is cancelled while the script is on its way releases whatever the script grants.
A release that Redis does not answer is retried in the background until it does (for at most the
longest lease): left to its TTL, the lease would turn every later turn of the session away with
SESSION_BUSY once Redis resumes.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import redis.asyncio as redis
from lore_runtime import errors
from lore_runtime.clock import Clock, SystemClock

from memory_svc.adapters.redis_calls import RedisCalls
from memory_svc.adapters.redis_working_memory import LEASE_PREFIX, fence_key, session_tag
from memory_svc.domain.working_memory import MAX_LEASE_TTL, SessionLease

log = logging.getLogger(__name__)

FENCE_IDLE_MS = 30 * 24 * 3600 * 1000
TOO_LATE = -1

# KEYS: lease, fence. ARGV: holder, ttl ms, fence idle ms, not after (Redis clock, ms). Returns the token,
# false when busy, or -1 when run after its caller stopped waiting (nothing granted).
_ACQUIRE = """
local now = redis.call('TIME')
local floor = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
if floor > tonumber(ARGV[4]) then
  return -1
end
if redis.call('EXISTS', KEYS[1]) == 1 then
  return false
end
local token = redis.call('INCR', KEYS[2])
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
        self,
        redis_client: redis.Redis,
        *,
        key_prefix: str = LEASE_PREFIX,
        clock: Clock | None = None,
        calls: RedisCalls | None = None,
    ) -> None:
        self._redis = redis_client
        self._prefix = key_prefix
        self._clock = clock or SystemClock()
        self._calls = calls or RedisCalls()
        self._releasing: set[asyncio.Task[None]] = set()
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
        with self._calls.call():
            seconds, microseconds = await self._redis.time()
        server_ms, synced = seconds * 1000 + microseconds // 1000, loop.time()
        backoff = FIRST_BACKOFF
        while True:
            # When this attempt's Redis call times out, on Redis's clock: a grant after it would be held by nobody.
            not_after = server_ms + int((loop.time() - synced + self._calls.timeout) * 1000)
            token = await self._attempt(lease_key, fence_key, holder, [holder, ttl_ms, FENCE_IDLE_MS, not_after])
            if token is not None and token != TOO_LATE:
                return SessionLease(session_id, holder, token, self._clock.now() + ttl)
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise errors.Conflict(
                    f"session {session_id!r} is busy: another turn holds its lease",
                    reason="SESSION_BUSY",
                    metadata={"session_id": session_id},
                )
            await asyncio.sleep(min(backoff, remaining))
            backoff = min(backoff * 2, MAX_BACKOFF)

    async def _attempt(self, lease_key: str, fence_key: str, holder: str, args: list) -> int | None:
        script = asyncio.ensure_future(self._acquire(keys=[lease_key, fence_key], args=args))
        try:
            with self._calls.call():
                token = await asyncio.shield(script)
        except asyncio.CancelledError:
            script.add_done_callback(lambda done: self._release_orphan(done, lease_key, holder))
            raise
        return None if token is None else int(token)

    def _release_orphan(self, done: asyncio.Future, lease_key: str, holder: str) -> None:
        """The script of a cancelled acquisition finished: free whatever it granted."""
        if done.cancelled() or done.exception() is not None or done.result() in (None, TOO_LATE):
            return
        self._release_later(lease_key, f"{int(done.result())}:{holder}")

    def _release_later(self, lease_key: str, value: str) -> None:
        task = asyncio.ensure_future(self._keep_releasing(lease_key, value))
        self._releasing.add(task)
        task.add_done_callback(self._releasing.discard)

    async def _keep_releasing(self, lease_key: str, value: str) -> None:
        loop = asyncio.get_running_loop()
        give_up = loop.time() + MAX_LEASE_TTL.total_seconds()  # by then the lease has expired anyway
        while loop.time() < give_up:
            try:
                with self._calls.call():
                    await self._release(keys=[lease_key], args=[value])
                return
            except errors.DependencyUnavailable:
                await asyncio.sleep(self._calls.timeout / 2)
        log.warning("gave up releasing a session lease (%s): Redis did not answer; it expires with its TTL", lease_key)

    async def release(self, org_id: str, session_id: str, holder: str, fencing_token: int) -> bool:
        """Compare-and-delete; when Redis does not answer, DependencyUnavailable, and retried in the background."""
        lease_key, _ = self.keys(org_id, session_id)
        value = f"{fencing_token}:{holder}"
        try:
            with self._calls.call(fail_fast=False):
                deleted = await self._release(keys=[lease_key], args=[value])
        except errors.DependencyUnavailable:
            self._release_later(lease_key, value)
            raise
        return bool(deleted)
