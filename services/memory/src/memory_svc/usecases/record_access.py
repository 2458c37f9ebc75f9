"""Record that memories were used (RecordAccess): a row per access in the access log, and the
item's access_count, last_accessed_at and current_salience refreshed so salience revives.

The access log (Postgres) is written before the answer; the counters on the item are written
behind it (``access_behind``), at most once. A replayed request id records nothing. Recall's own
uses go wholly behind its answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory_svc.usecases.access_behind import AccessWriteBehind
from memory_svc.usecases.memory_ports import AccessLog, AccessRequest, MemoryIndex

REASONS = ("recall", "assembled_context", "prime", "client")
# What a caller of RecordAccess may say; "recall" is recorded by Recall itself.
CLIENT_REASONS = REASONS[1:]


async def record_access(
    org_id: str,
    memory_ids: Sequence[str],
    access: AccessRequest,
    *,
    index: MemoryIndex,
    access_log: AccessLog,
    behind: AccessWriteBehind,
) -> int:
    """Record access to memories named by id (RecordAccess): the rows now (their count is the
    answer), the items' counters behind it (``access_behind``)."""
    # Only the caller's own items: another org's id records nothing and reveals nothing.
    # Their ids, scopes and types only: the rows and the counters need no more of them.
    items = await index.access_targets(org_id, list(dict.fromkeys(memory_ids)))
    if not items:
        return 0
    now = behind.clock.now()
    recorded = set(await access_log.record(org_id, [access.entry(item.id, item.scope.user_id, now) for item in items]))
    behind.offer(org_id, [item for item in items if item.id in recorded], access, logged=True)
    return len(recorded)
