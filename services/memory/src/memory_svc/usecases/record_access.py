"""Record that memories were used: a row per access in the access log, and the item's
access_count, last_accessed_at and current_salience refreshed so salience revives.

The access log (Postgres) is the source of truth; the counters on the item are a
materialised copy that RunDecay recomputes exactly. A replayed request id records nothing.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence

from lore_runtime.clock import Clock
from lore_runtime.errors import FailedPrecondition

from memory_svc.domain.model import MemoryItem
from memory_svc.domain.salience import salience_of_type
from memory_svc.usecases.memory_ports import AccessLog, AccessRequest, MemoryCatalog, MemoryIndex

log = logging.getLogger(__name__)
REASONS = ("recall", "assembled_context", "prime", "client")
# What a caller of RecordAccess may say; "recall" is recorded by Recall itself.
CLIENT_REASONS = REASONS[1:]
ACCESS_FIELDS = ("access_count", "last_accessed_at", "current_salience")


async def record_access(
    org_id: str,
    memory_ids: Sequence[str],
    access: AccessRequest,
    *,
    index: MemoryIndex,
    catalog: MemoryCatalog,
    access_log: AccessLog,
    clock: Clock,
) -> int:
    """Record access to memories named by id (RecordAccess)."""
    # Only the caller's own items: another org's id records nothing and reveals nothing.
    items = await index.get(org_id, list(dict.fromkeys(memory_ids)))
    return await record_items_access(org_id, items, access, catalog=catalog, access_log=access_log, clock=clock)


async def record_items_access(
    org_id: str,
    items: Sequence[MemoryItem],
    access: AccessRequest,
    *,
    catalog: MemoryCatalog,
    access_log: AccessLog,
    clock: Clock,
) -> int:
    """Record access to items the caller already holds (Recall's results: no second read)."""
    if not items:
        return 0
    now = clock.now()
    accesses = [access.entry(item.id, item.scope.user_id, now) for item in items]
    recorded = set(await access_log.record(org_id, accesses))
    refreshed = [
        dataclasses.replace(
            item,
            access_count=item.access_count + 1,
            last_accessed_at=now,
            current_salience=salience_of_type(item.memory_type, item.access_count + 1, now, now),
        )
        for item in items
        if item.id in recorded
    ]
    if refreshed:
        try:
            await catalog.replace_payloads(org_id, refreshed, ACCESS_FIELDS)
        except FailedPrecondition as error:
            if error.reason != "REINDEX_RUNNING":
                raise
            # The access is durable in the access log; only the counters on the items wait for the
            # reindex (a Recall must keep answering while the store is being copied).
            log.warning("access counters not updated during a reindex", extra={"items": len(refreshed)})
    return len(refreshed)
