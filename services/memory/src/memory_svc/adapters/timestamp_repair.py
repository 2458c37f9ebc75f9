"""The repair of stored times written before the fixed-width form (``lore_runtime.timestamps``).

Older releases wrote a memory's or an episode's times with ``strftime("%Y")``: a year before 1000
came out unpadded (``1-01-01T00:00:00.000000Z``), which Qdrant's datetime index cannot range over
and which reads refused; and they took any year a caller sent. ``repair_timestamps`` reads the time
fields of every point (only those, a page at a time) and rewrites the ones not in the stored form:
fixed width, UTC, moved to the nearest bound of the calendar range (1900-01-01 .. 2999-12-31) when
outside it. A point already in the form is left alone, so the repair is idempotent and, when nothing
needs repair, one read of a few short fields per point and no write. The memory service runs it at
start-up, before it serves (the embedded engine admits one process: the service's).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from lore_runtime.timestamps import repaired_text

from memory_svc.adapters import episode_payload, memory_payload
from memory_svc.adapters.qdrant_engine import SCROLL_PAGE, PayloadWrite, QdrantEngine, Scroll

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Repaired:
    store: str
    points: int


async def repair_timestamps(store: QdrantEngine, fields: Sequence[str], label: str) -> Repaired:
    """Rewrite ``fields`` of every point of ``store`` not in the stored form; how many points changed."""
    changed = 0
    offset: str | None = None
    while True:
        page, offset = await store._scroll(
            Scroll("timestamp repair", None, SCROLL_PAGE, offset, payload=("org_id", *fields))
        )
        writes = []
        for point in page:
            payload = {}
            for name in fields:
                value = point.payload.get(name)
                fixed = repaired_text(value) if isinstance(value, str) else None
                if fixed is not None:
                    payload[name] = fixed
            if payload:
                writes.append(PayloadWrite(str(point.payload.get("org_id") or ""), str(point.id), payload))
        if writes:
            await store._set_payloads(lambda writes=writes: writes, what="timestamp repair")
            changed += len(writes)
        if offset is None:
            break
    if changed:
        log.warning(
            "rewrote the stored times of %d %s into the fixed-width form (older releases wrote years before "
            "1000 unpadded, and took years outside 1900..2999: those now lie on the nearest bound)",
            changed,
            label,
            extra={"store": label, "points": changed},
        )
    return Repaired(label, changed)


async def repair_stored_timestamps(items: QdrantEngine, episodes: QdrantEngine) -> list[Repaired]:
    """Both collections: memory items, then episodes."""
    return [
        await repair_timestamps(items, memory_payload.TIMESTAMP_FIELDS, "memory items"),
        await repair_timestamps(episodes, episode_payload.TIMESTAMP_FIELDS, "episodes"),
    ]
