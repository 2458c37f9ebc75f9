"""SessionLeases on Redis: one lease key per (org, session), expiring by PX, with fencing tokens.

Keys (same hash tag as working memory: ``{<org>:<session>}``, ids percent-encoded):

- ``<prefix>:{<org>:<session>}`` — the lease, value ``<token>:<holder>``, ``SET NX PX <ttl>``;
- ``<prefix>:{<org>:<session>}:fence`` — the session's last fencing token.

Acquisition is one Lua script: if the lease is free, ``INCR`` the fence and ``SET NX PX`` the
lease. The fence key outlives leases (30 days idle, renewed on each acquisition) and, so that
tokens keep increasing even after it expires, the script never hands out a token below the
Redis server's clock in milliseconds.

Taking the lease and appending a turn (AppendTurn with ``acquire_lease``) is one script too: the
acquisition's, then, only when it granted the lease, the working-memory append of
``adapters/redis_working_memory.py`` (``APPEND_FUNCTION``; the four keys share the session's hash
tag), so a refused attempt writes nothing and the turn is never appended without its lease.

Release is a compare-and-delete script: only the holder with its token deletes the lease. A busy
lease is polled with a small backoff up to ``wait``, then ``Conflict(reason="SESSION_BUSY")``.

A lease is never granted to a caller that has stopped waiting for it (after a Redis stall,
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
from datetime import datetime, timedelta
from typing import Any

import redis.asyncio as redis
from lore_runtime import errors
from lore_runtime.clock import Clock, SystemClock

from memory_svc.adapters.redis_calls import RedisCalls
from memory_svc.adapters.redis_working_memory import (
    APPEND_FUNCTION,
    LEASE_PREFIX,
    MEMORY_PREFIX,
    append_args,
    decode_append,
    fence_key,
    memory_keys,
    session_tag,
)
from memory_svc.domain.working_memory import MAX_LEASE_TTL, SessionLease, Turn, WorkingMemory
from memory_svc.usecases.working_memory_ports import TurnsRead

log = logging.getLogger(__name__)

FENCE_IDLE_MS = 30 * 24 * 3600 * 1000
TOO_LATE = -1

# KEYS: lease, fence. ARGV: holder, ttl ms, fence idle ms, not after (Redis clock, ms). Returns the token,
# false when busy, or -1 when run after its caller stopped waiting (nothing granted).
_GRANT = """
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
"""
_ACQUIRE = _GRANT + "return token\n"

# KEYS: lease, fence, working memory's hash and turn list. ARGV: _ACQUIRE's four, then the working-memory
# adapter's ``append_args``. Returns {token, hash fields, turns read back} once granted; else as _ACQUIRE,
# having written nothing. The new lease's token is the newest, so the append needs no fence check.
_ACQUIRE_AND_APPEND = (
    APPEND_FUNCTION + _GRANT + "local read = append_turn(KEYS[3], KEYS[4], 5, 11)\nreturn {token, read[1], read[2]}\n"
)

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
        memory_prefix: str = MEMORY_PREFIX,
        clock: Clock | None = None,
        calls: RedisCalls | None = None,
    ) -> None:
        self._redis = redis_client
        self._prefix = key_prefix
        self._memory_prefix = memory_prefix
        self._clock = clock or SystemClock()
        self._calls = calls or RedisCalls()
        self._releasing: set[asyncio.Task[None]] = set()
        self._acquire = redis_client.register_script(_ACQUIRE)
        self._acquire_and_append = redis_client.register_script(_ACQUIRE_AND_APPEND)
        self._release = redis_client.register_script(_RELEASE)

    def keys(self, org_id: str, session_id: str) -> tuple[str, str]:
        """The lease and fence keys of (org, session)."""
        return f"{self._prefix}:{session_tag(org_id, session_id)}", fence_key(self._prefix, org_id, session_id)

    async def acquire(self, org_id: str, session_id: str, holder: str, ttl: timedelta, wait: timedelta) -> SessionLease:
        lease_key, fence_key = self.keys(org_id, session_id)
        token = await self._acquiring(session_id, holder, ttl, wait, self._acquire, [lease_key, fence_key], [])
        return SessionLease(session_id, holder, int(token), self._clock.now() + ttl)

    async def acquire_and_append(
        self,
        org_id: str,
        session_id: str,
        holder: str,
        ttl: timedelta,
        wait: timedelta,
        turn: Turn,
        *,
        max_turns: int,
        memory_ttl: timedelta,
        now: datetime,
        turns: TurnsRead = TurnsRead.ALL,
    ) -> tuple[SessionLease, WorkingMemory]:
        keys = [*self.keys(org_id, session_id), *memory_keys(self._memory_prefix, org_id, session_id)]
        args = append_args(turn, max_turns=max_turns, ttl=memory_ttl, now=now, turns=turns)
        script = self._acquire_and_append
        token, values, listed = await self._acquiring(session_id, holder, ttl, wait, script, keys, args)
        lease = SessionLease(session_id, holder, int(token), self._clock.now() + ttl)
        return lease, decode_append(session_id, values, listed, turns)

    async def _acquiring(
        self, session_id: str, holder: str, ttl: timedelta, wait: timedelta, script, keys: list[str], args: list
    ) -> Any:
        """Run the acquisition ``script`` (ARGV: holder, ttl ms, fence idle ms, not after, then ``args``) until
        it grants the lease or ``wait`` has passed: its answer once granted."""
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
            answer = await self._attempt(script, keys, holder, [holder, ttl_ms, FENCE_IDLE_MS, not_after, *args])
            if answer is not None and answer != TOO_LATE:
                return answer
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise errors.Conflict(
                    f"session {session_id!r} is busy: another turn holds its lease",
                    reason="SESSION_BUSY",
                    metadata={"session_id": session_id},
                )
            await asyncio.sleep(min(backoff, remaining))
            backoff = min(backoff * 2, MAX_BACKOFF)

    async def _attempt(self, script, keys: list[str], holder: str, args: list) -> Any:
        call = asyncio.ensure_future(script(keys=keys, args=args))
        try:
            with self._calls.call():
                return await asyncio.shield(call)
        except asyncio.CancelledError:
            call.add_done_callback(lambda done: self._release_orphan(done, keys[0], holder))
            raise

    def _release_orphan(self, done: asyncio.Future, lease_key: str, holder: str) -> None:
        """The script of a cancelled acquisition finished: free whatever it granted."""
        if done.cancelled() or done.exception() is not None or done.result() in (None, TOO_LATE):
            return
        answer = done.result()
        token = answer[0] if isinstance(answer, list) else answer
        self._release_later(lease_key, f"{int(token)}:{holder}")

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
