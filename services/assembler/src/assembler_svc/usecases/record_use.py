"""What a context or a Prime writes once it is made, in one call (``MemorySources.record_use``):
access for the memories and episodes it kept, and, for a context, the session's fingerprint. Best
effort: the result is already made, so a failed write is logged, never turned into a failed call
(a lost access count only makes an item fade a little sooner)."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from assembler_svc.domain.memory_reads import ContextUse
from assembler_svc.domain.model import ManifestEntry, Outcome, Source
from assembler_svc.usecases.ports import MemorySources

log = logging.getLogger(__name__)


def kept_ids(manifest: Iterable[ManifestEntry], source: Source) -> list[str]:
    """The ids of ``source`` the manifest kept, each once, in the manifest's order."""
    return list(dict.fromkeys(e.id for e in manifest if e.source is source and e.outcome is Outcome.KEPT))


def context_use(
    manifest: Iterable[ManifestEntry], session_id: str, reason: str, *, fingerprint: str | None = None
) -> ContextUse:
    """What to write for what the manifest kept (its memories and episodes) and the fingerprint."""
    manifest = tuple(manifest)
    return ContextUse(
        session_id=session_id,
        reason=reason,
        memory_ids=tuple(kept_ids(manifest, Source.MEMORY)),
        episode_ids=tuple(kept_ids(manifest, Source.EPISODE)),
        fingerprint=fingerprint,
    )


async def record_use(use: ContextUse, memory: MemorySources, timeout: float, doing: str) -> None:
    """Write ``use`` (nothing when there is nothing to write); a failure is logged as
    ``<doing>: <error>``, never raised."""
    if not use.writes_anything():
        return
    try:
        await memory.record_use(use, timeout=timeout)
    except Exception as error:
        log.warning("%s: %s", doing, error)
