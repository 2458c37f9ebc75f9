"""Hand-written fakes of the working-memory ports, kept honest by
tests/integration/memory/test_working_memory_contract.py (same assertions as the Redis adapters).

Each method runs without awaiting in the middle, so on one event loop it is as atomic as the
Redis scripts. The store does not expire entries by itself (it records ``expires_at``); leases
expire on the real monotonic clock, as Redis's PX does.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from lore_runtime import errors
from memory_svc.domain.working_memory import SessionLease, Turn, WorkingMemory, append, apply_mask
from memory_svc.usecases.working_memory_ports import TurnsRead, keys_of


def _as_read(memory: WorkingMemory, turns: TurnsRead) -> WorkingMemory:
    """``memory`` with its recent turns as a read of ``turns`` returns them."""
    if turns is TurnsRead.ALL:
        return memory
    kept = tuple(keys_of(turn) for turn in memory.recent_turns) if turns is TurnsRead.KEYS else ()
    return dataclasses.replace(memory, recent_turns=kept)


class InMemoryWorkingMemoryStore:
    """``leases``: the fake whose fencing tokens writes are checked against (as the Redis scripts
    read the lease adapter's fence key)."""

    def __init__(self, leases: InMemorySessionLeases | None = None) -> None:
        self._memories: dict[tuple[str, str], WorkingMemory] = {}
        self._idempotency_keys: dict[tuple[str, str], set[str]] = {}
        self._leases = leases
        if leases is not None:
            leases.memory = self  # what its acquire_and_append appends to

    def _check_fence(self, key: tuple[str, str], fencing_token: int | None) -> None:
        newest = self._leases.newest_token(key) if self._leases is not None else 0
        if fencing_token is not None and newest > fencing_token:
            raise errors.Conflict("a newer lease of this session has been granted", reason="LEASE_LOST")

    async def get(self, org_id: str, session_id: str, *, turns: TurnsRead = TurnsRead.ALL) -> WorkingMemory | None:
        memory = self._memories.get((org_id, session_id))
        return None if memory is None else _as_read(memory, turns)

    async def append_turn(
        self,
        org_id: str,
        session_id: str,
        turn: Turn,
        *,
        max_turns: int,
        ttl: timedelta,
        now: datetime,
        fencing_token: int | None = None,
        turns: TurnsRead = TurnsRead.ALL,
    ) -> WorkingMemory:
        key = (org_id, session_id)
        self._check_fence(key, fencing_token)
        return self.append_now(key, turn, max_turns=max_turns, ttl=ttl, now=now, turns=turns)

    def append_now(
        self, key: tuple[str, str], turn: Turn, *, max_turns: int, ttl: timedelta, now: datetime, turns: TurnsRead
    ) -> WorkingMemory:
        """The append, without awaiting: atomic with whatever the caller did just before."""
        session_id = key[1]
        current = self._memories.get(key) or WorkingMemory(session_id=session_id)
        seen = self._idempotency_keys.setdefault(key, set())
        if turn.idempotency_key and turn.idempotency_key in seen:
            return _as_read(current, turns)
        if turn.idempotency_key:
            seen.add(turn.idempotency_key)
        updated = dataclasses.replace(append(current, turn, max_turns), updated_at=now, expires_at=now + ttl)
        self._memories[key] = updated
        return _as_read(updated, turns)

    async def update(
        self,
        org_id: str,
        session_id: str,
        changes: WorkingMemory,
        paths: Sequence[str],
        *,
        ttl: timedelta,
        now: datetime,
        fencing_token: int | None = None,
    ) -> WorkingMemory:
        key = (org_id, session_id)
        self._check_fence(key, fencing_token)
        current = self._memories.get(key) or WorkingMemory(session_id=session_id)
        updated = dataclasses.replace(apply_mask(current, changes, paths), updated_at=now, expires_at=now + ttl)
        self._memories[key] = updated
        return updated

    async def clear(self, org_id: str, session_id: str) -> None:
        self._memories.pop((org_id, session_id), None)
        self._idempotency_keys.pop((org_id, session_id), None)


class InMemorySessionLeases:
    def __init__(self, clock=None) -> None:
        self._clock = clock
        self._leases: dict[tuple[str, str], tuple[str, int, float]] = {}  # holder, token, monotonic expiry
        self._tokens: dict[tuple[str, str], int] = {}
        self.memory: InMemoryWorkingMemoryStore | None = None  # set by the store built on these leases

    def _now(self) -> datetime:
        return self._clock.now() if self._clock is not None else datetime.now(UTC)

    def newest_token(self, key: tuple[str, str]) -> int:
        return self._tokens.get(key, 0)

    def _try(self, key: tuple[str, str], holder: str, ttl: timedelta) -> int | None:
        held = self._leases.get(key)
        if held is not None and held[2] > time.monotonic():
            return None
        token = self._tokens.get(key, 0) + 1
        self._tokens[key] = token
        self._leases[key] = (holder, token, time.monotonic() + ttl.total_seconds())
        return token

    async def acquire(self, org_id: str, session_id: str, holder: str, ttl: timedelta, wait: timedelta) -> SessionLease:
        key = (org_id, session_id)
        deadline = time.monotonic() + wait.total_seconds()
        while True:
            token = self._try(key, holder, ttl)
            if token is not None:
                return SessionLease(session_id, holder, token, self._now() + ttl)
            if time.monotonic() >= deadline:
                raise errors.Conflict(f"session {session_id!r} is busy", reason="SESSION_BUSY")
            await asyncio.sleep(min(0.01, max(0.0, deadline - time.monotonic())))  # the fake's own wait for the lease

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
        assert self.memory is not None, "build InMemoryWorkingMemoryStore(leases) first"
        key = (org_id, session_id)
        deadline = time.monotonic() + wait.total_seconds()
        while True:
            token = self._try(key, holder, ttl)
            if token is not None:  # granted: append before anything else runs, as the Redis script does
                written = self.memory.append_now(key, turn, max_turns=max_turns, ttl=memory_ttl, now=now, turns=turns)
                return SessionLease(session_id, holder, token, self._now() + ttl), written
            if time.monotonic() >= deadline:
                raise errors.Conflict(f"session {session_id!r} is busy", reason="SESSION_BUSY")
            await asyncio.sleep(min(0.01, max(0.0, deadline - time.monotonic())))  # the fake's own wait for the lease

    async def release(self, org_id: str, session_id: str, holder: str, fencing_token: int) -> bool:
        key = (org_id, session_id)
        held = self._leases.get(key)
        if held is None or held[2] <= time.monotonic() or held[:2] != (holder, fencing_token):
            return False
        del self._leases[key]
        return True
