"""What a context or a Prime writes once it is made: access for the memories and episodes it kept
(``RecordAccess``, ``RecordEpisodeAccess``), and whatever else the caller adds. Best effort: the
result is already made, so a failed write is logged, never turned into a failed call (a lost
access count only makes an item fade a little sooner)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Iterable

from assembler_svc.domain.model import ManifestEntry, Outcome, Source
from assembler_svc.usecases.ports import MemorySources

log = logging.getLogger(__name__)


def kept_ids(manifest: Iterable[ManifestEntry], source: Source) -> list[str]:
    """The ids of ``source`` the manifest kept, each once, in the manifest's order."""
    return list(dict.fromkeys(e.id for e in manifest if e.source is source and e.outcome is Outcome.KEPT))


def access_writes(
    manifest: Iterable[ManifestEntry], memory: MemorySources, session_id: str, reason: str, timeout: float
) -> list[Awaitable[None]]:
    """The access records for what the manifest kept: its memories, then its episodes (none when
    it kept none of them)."""
    manifest = tuple(manifest)
    writes = []
    if memories := kept_ids(manifest, Source.MEMORY):
        writes.append(memory.record_access(memories, session_id, reason, timeout=timeout))
    if episodes := kept_ids(manifest, Source.EPISODE):
        writes.append(memory.record_episode_access(episodes, session_id, reason, timeout=timeout))
    return writes


async def settle(writes: Iterable[Awaitable[None]], doing: str) -> None:
    """Await every write at once; a failure is logged as ``<doing>: <error>``, never raised."""
    for outcome in await asyncio.gather(*writes, return_exceptions=True):
        if isinstance(outcome, BaseException):
            log.warning("%s: %s", doing, outcome)
