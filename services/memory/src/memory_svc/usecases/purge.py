"""PurgeErased: after an erasure, the stores rewrite their files so the erased text is gone from the
disk too (docs/operations.md, "Erasure and purge").

A deletion removes data from every query at once, but the bytes stay in files until the store
rewrites them: an embedded Qdrant shard keeps deleted points in its segments and its write-ahead
log, Redis keeps deleted keys in its append-only file. A purge asks each store to rewrite them.

Two ways in: the erase job asks for a deferred purge when it completes (``request``): the service
runs one purge ``delay`` seconds later for every request made meanwhile, and a request made while a
purge runs makes another one follow it (that erasure may have deleted after the copy began); a
pending request survives a restart where the flag can be kept (the embedded stores' directory).
An operator runs one now with ``lore erasure purge`` (``run_now``), which also vacuums Postgres.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from opentelemetry import trace

from memory_svc.usecases.maintenance_ports import PendingPurge, PurgedStore, StoreFiles

log = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)

# After a failed deferred purge, the next attempt waits this long (or for the next request).
RETRY_SECONDS = 300.0


class InMemoryFlag:
    """A pending flag that lives as long as the process (where nothing durable is at hand)."""

    def __init__(self) -> None:
        self._set = False

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True

    def clear(self) -> None:
        self._set = False


class PurgeSchedule:
    """Runs purges: now for an operator, or deferred and coalesced for the erase job."""

    def __init__(
        self, stores: Sequence[StoreFiles], pending: PendingPurge | None = None, *, delay: float = 60.0
    ) -> None:
        self._stores = list(stores)
        self._pending = pending or InMemoryFlag()
        self._delay = delay
        self._running = asyncio.Lock()
        self._wake = asyncio.Event()
        self._requests = 0
        if self._pending.is_set():  # asked for before a restart
            self._wake.set()

    @property
    def pending(self) -> bool:
        return self._pending.is_set()

    def request(self) -> list[PurgedStore]:
        """A deferred purge: recorded (durably where possible) and run within ``delay`` seconds."""
        self._requests += 1
        self._pending.set()
        self._wake.set()
        return [PurgedStore("all", "scheduled", detail=f"within {self._delay:g} s")]

    async def run_now(self) -> list[PurgedStore]:
        """One purge of every store, one at a time; a pending request made before it began is served."""
        async with self._running:
            seen = self._requests
            with tracer.start_as_current_span("memory.purge_erased") as span:
                done: list[PurgedStore] = []
                for store in self._stores:
                    done += await store.compact()
                span.set_attribute("lore.compacted", sum(part.outcome == "compacted" for part in done))
            if self._requests == seen:
                self._pending.clear()
                self._wake.clear()
            log.info("purged erased data", extra={"stores": {part.store: part.outcome for part in done}})
            return done

    async def run_forever(self) -> None:
        """The background side of ``request``: wait for one, let more gather for ``delay``, purge."""
        while True:
            await self._wake.wait()
            await asyncio.sleep(self._delay)
            try:
                await self.run_now()
            except Exception:  # the stores stay as they are; the flag keeps the purge due
                log.exception("a deferred purge of erased data failed; retrying in %.0f s", RETRY_SECONDS)
                await asyncio.sleep(RETRY_SECONDS)
