"""Access recording behind the answer: Recall's access rows and every item's access counters are
written by one background flusher per process, not before a read answers.

A Recall (and a RecordAccess, for the counters) hands what it used to ``AccessWriteBehind.offer``,
which never waits: the entries wait in a bounded buffer, and every ``interval`` (and on shutdown)
the flusher writes them in batches — per org, one access-log insert for the rows, one read of the
items' stored ``access_count`` (that field only) and one payload write of their ``access_count``,
``last_accessed_at`` and ``current_salience``. Each item gains the accesses recorded for it since
the last flush on the count stored at the flush, so two Recalls of one item in one interval count
twice, and a counter is only ever written by this flusher in its process (no read-modify-write race
between requests); an item erased meanwhile is written nothing.

At most once: a crash loses at most one interval's entries, a full buffer drops the newest offer,
and a failed flush drops its batch; each is counted (``AccessBehindStats``, exported as metrics)
and logged, never raised to a caller. A lost use costs only salience (the item revives a little
less); no answer reads the counters back (docs/operations.md, "Access recording behind the answer").
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from lore_runtime.clock import Clock
from lore_runtime.errors import FailedPrecondition

from memory_svc.domain.model import MemoryItem
from memory_svc.domain.salience import salience_of_type
from memory_svc.usecases.memory_ports import (
    Access,
    AccessLog,
    AccessRefresh,
    AccessRequest,
    AccessTarget,
    MemoryCatalog,
    MemoryIndex,
)

log = logging.getLogger(__name__)
WRITE_CHUNK = 32  # items per counter read and write


@dataclass
class AccessBehindStats:
    """What the flusher did since the process started (each a counter, except ``pending``)."""

    offered: int = 0
    written: int = 0  # counter refreshes written to items
    dropped_full: int = 0  # offers refused because the buffer was full
    dropped_failed: int = 0  # entries of a flush that failed
    pending: int = 0


@dataclass(frozen=True, slots=True)
class _Used:
    """One use of one item (as read when used): ``row`` is the access-log row still to write (None:
    already written)."""

    target: AccessTarget
    accessed_at: datetime
    row: Access | None

    @property
    def memory_id(self) -> str:
        return self.target.id


@dataclass
class AccessWriteBehind:
    index: MemoryIndex
    catalog: MemoryCatalog
    access_log: AccessLog
    clock: Clock
    capacity: int = 10_000
    interval: float = 0.25
    stats: AccessBehindStats = field(default_factory=AccessBehindStats)
    _pending: dict[str, list[_Used]] = field(default_factory=lambda: defaultdict(list))
    _flushing: asyncio.Lock = field(default_factory=asyncio.Lock)

    def offer(
        self,
        org_id: str,
        items: Sequence[MemoryItem | AccessTarget],
        access: AccessRequest,
        *,
        logged: bool = False,
    ) -> None:
        """Queue the use of ``items`` (read whole, or only as ``AccessTarget``) by ``access``;
        ``logged``: its access-log rows are written already (RecordAccess), only the counters follow.
        Never waits; drops (and counts) what the buffer cannot hold."""
        if not items:
            return
        self.stats.offered += len(items)
        if self.stats.pending + len(items) > self.capacity:
            self.stats.dropped_full += len(items)
            log.warning("access buffer full: uses dropped", extra={"org_id": org_id, "dropped": len(items)})
            return
        now = self.clock.now()
        targets = [item if isinstance(item, AccessTarget) else AccessTarget.of(item) for item in items]
        self._pending[org_id].extend(
            _Used(target, now, None if logged else access.entry(target.id, target.scope.user_id, now))
            for target in targets
        )
        self.stats.pending += len(items)

    async def flush(self) -> None:
        """Write everything queued so far (one flush at a time)."""
        async with self._flushing:
            pending, self._pending = self._pending, defaultdict(list)
            self.stats.pending = 0
            for org_id, used in pending.items():
                written: set[str] = set()
                try:
                    await self._write(org_id, used, written)
                except Exception:
                    lost = sum(1 for entry in used if entry.memory_id not in written)
                    self.stats.dropped_failed += lost
                    log.exception("access records lost: the flush failed", extra={"org_id": org_id, "lost": lost})

    async def run_forever(self) -> None:
        """Flush every ``interval`` until cancelled; the final flush is ``close``'s."""
        while True:
            await asyncio.sleep(self.interval)
            await self.flush()

    async def close(self) -> None:
        await self.flush()

    async def _write(self, org_id: str, used: Sequence[_Used], written: set[str]) -> None:
        """Write ``used`` for ``org_id``, adding to ``written`` the items whose counters are written
        (what a failure part-way did not lose)."""
        # A request replayed within one interval: its first rows only (the log would refuse the rest);
        # a use without a request id is never a replay.
        rows: dict[tuple[str, str], Access] = {}
        for place, entry in enumerate(used):
            if entry.row is not None:
                rows.setdefault((entry.row.request_id or f"#{place}", entry.memory_id), entry.row)
        recorded = Counter(await self.access_log.record(org_id, list(rows.values()))) if rows else Counter()
        # A replayed request id wrote no row: it counts nothing either.
        recorded.update(entry.memory_id for entry in used if entry.row is None)
        if not recorded:
            return
        last = {entry.memory_id: entry for entry in sorted(used, key=lambda entry: entry.accessed_at)}
        # The counts as stored now (one field: the items are not read again); an item erased since
        # its use is absent and written nothing.
        keys = list(recorded)
        for start in range(0, len(keys), WRITE_CHUNK):
            # Small reads and writes, each its own call: a Recall running meanwhile waits for one
            # chunk at most, not the whole interval's writes (~16 ms for 350 items at once).
            stored = await self.index.access_counts(org_id, keys[start : start + WRITE_CHUNK])
            refreshed = [
                _refreshed(last[key].target, count + recorded[key], last[key].accessed_at)
                for key, count in stored.items()
            ]
            try:
                await self.catalog.write_access(org_id, refreshed)
            except FailedPrecondition as error:
                if error.reason != "REINDEX_RUNNING":
                    raise
                # The rows are durable in the access log; only the counters wait for the reindex.
                log.warning("access counters not updated during a reindex", extra={"items": len(refreshed)})
                return
            self.stats.written += len(refreshed)
            written.update(refresh.target.id for refresh in refreshed)


def _refreshed(target: AccessTarget, count: int, last: datetime) -> AccessRefresh:
    """The access fields of ``target`` at ``count`` uses, the last at ``last``."""
    return AccessRefresh(target, count, last, salience_of_type(target.memory_type, count, last, last))
