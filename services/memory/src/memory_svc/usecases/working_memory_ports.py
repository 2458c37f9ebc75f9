"""What the working-memory use cases need from the outside world (implemented in adapters/).

Every method is scoped by ``org_id``: the same session id in two orgs names two different
working memories and two different leases.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

from memory_svc.domain.working_memory import SessionLease, Turn, WorkingMemory


class TurnsRead(enum.Enum):
    """How much of the recent turns ``WorkingMemoryStore.get`` reads (GetWorkingMemory's read mask)."""

    ALL = "all"
    # Each turn as ``keys_of`` leaves it: its id, session id, sequence and idempotency key.
    KEYS = "keys"
    # No turn is read: ``recent_turns`` is empty.
    NONE = "none"


def keys_of(turn: Turn) -> Turn:
    """What ``TurnsRead.KEYS`` keeps of a turn."""
    return Turn(
        role=None,
        content="",
        id=turn.id,
        session_id=turn.session_id,
        sequence=turn.sequence,
        idempotency_key=turn.idempotency_key,
    )


class WorkingMemoryStore(Protocol):
    async def get(self, org_id: str, session_id: str, *, turns: TurnsRead = TurnsRead.ALL) -> WorkingMemory | None:
        """The session's working memory, or None when it never existed, expired or was cleared; its
        recent turns as ``turns`` says (every other field in full)."""
        ...

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
        """Atomically: number ``turn`` (turn_count + 1), append it, keep the last ``max_turns``, set
        ``updated_at = now`` and ``expires_at = now + ttl`` and renew the TTL. A turn whose non-empty
        ``idempotency_key`` was already appended to this session changes nothing (a replay): the
        current working memory is returned. With a ``fencing_token``, raises
        ``errors.Conflict(reason="LEASE_LOST")`` and writes nothing when a lease of the session newer
        than the one that issued the token has been granted. Returns the working memory after the
        write, its recent turns read back as ``turns`` says."""
        ...

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
        """Atomically replace the fields named by ``paths`` (validated, from UPDATABLE_PATHS) with those of
        ``changes``, set ``updated_at``/``expires_at`` and renew the TTL; creates the working memory if absent.
        ``fencing_token``: as for ``append_turn``."""
        ...

    async def clear(self, org_id: str, session_id: str) -> None:
        """Forget the session's working memory (a no-op when there is none)."""
        ...


class SessionLeases(Protocol):
    async def acquire(self, org_id: str, session_id: str, holder: str, ttl: timedelta, wait: timedelta) -> SessionLease:
        """Take the session's lease for ``ttl``, waiting up to ``wait`` while another holder has it;
        raises ``errors.Conflict(reason="SESSION_BUSY")`` when still busy. Each acquisition gets a
        fencing token strictly greater than every earlier one of the session."""
        ...

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
        """``acquire``, then ``WorkingMemoryStore.append_turn`` (``memory_ttl`` its ``ttl``) under the new
        lease, each attempt one atomic step: the turn is appended only once the lease is granted, and a
        refused acquisition (SESSION_BUSY) writes nothing. Returns the lease and the working memory
        after the write, as ``append_turn`` does."""
        ...

    async def release(self, org_id: str, session_id: str, holder: str, fencing_token: int) -> bool:
        """Release the lease if ``holder`` still holds it with ``fencing_token``; False otherwise."""
        ...
