"""Episodes' salience over time: their uses recorded (RecordEpisodeAccess), their stored copy
refreshed (RunDecay and the daily maintenance), as ``record_access.py`` and ``decay.py`` do for
memories.

A use is logged in the same access log as memories' (kind ``episode``): the log makes a replayed
request record nothing and keeps who used what; the counters on the episode are the copy that
salience is computed from.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from lore_runtime.clock import Clock
from lore_runtime.errors import FailedPrecondition
from opentelemetry import trace

from memory_svc.domain.episode_salience import accessed, as_of
from memory_svc.domain.model import Scope
from memory_svc.domain.salience import DEFAULT_HALF_LIFE_DAYS
from memory_svc.usecases.decay import TOLERANCE
from memory_svc.usecases.episode_ports import EpisodeCursor, EpisodeIndex
from memory_svc.usecases.memory_ports import AccessLog, AccessRequest

log = logging.getLogger(__name__)
tracer = trace.get_tracer(__name__)
BATCH = 100  # the index's largest page


async def record_episode_access(
    org_id: str,
    episode_ids: Sequence[str],
    access: AccessRequest,
    *,
    index: EpisodeIndex,
    access_log: AccessLog,
    clock: Clock,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
) -> int:
    """Record one use of each episode of ``org_id`` named in ``episode_ids``; returns how many were
    recorded. Ids the org does not hold record nothing and reveal nothing."""
    with tracer.start_as_current_span("memory.record_episode_access") as span:
        span.set_attribute("lore.org_id", org_id)
        episodes = await index.get_many(org_id, list(dict.fromkeys(episode_ids)))
        if not episodes:
            return 0
        now = clock.now()
        accesses = [access.entry(episode.id, episode.scope.user_id, now, kind="episode") for episode in episodes]
        recorded = set(await access_log.record(org_id, accesses))
        used = [accessed(episode, now, half_life_days) for episode in episodes if episode.id in recorded]
        if used:
            try:
                await index.update_salience(org_id, used)
            except FailedPrecondition as error:
                if error.reason != "REINDEX_RUNNING":
                    raise
                # As for memories: the use is in the log; the counters (so salience) miss it.
                log.warning("episode access counters not updated during a reindex", extra={"episodes": len(used)})
        span.set_attribute("lore.recorded", len(used))
    return len(used)


async def decay_episodes(
    org_id: str, *, index: EpisodeIndex, clock: Clock, half_life_days: float = DEFAULT_HALF_LIFE_DAYS
) -> int:
    """Refresh the stored salience of every episode of ``org_id`` that faded by more than the
    tolerance since it was written (so ``min_salience`` filters stay tight); returns how many."""
    now = clock.now()
    checked = updated = 0
    with tracer.start_as_current_span("memory.decay_episodes") as span:
        span.set_attribute("lore.org_id", org_id)
        cursor: EpisodeCursor | None = None
        while True:
            # Newest first by ended_at, which a salience write leaves alone: the pages hold still.
            page = await index.list(org_id, Scope(), BATCH, cursor)
            checked += len(page.episodes)
            faded = []
            for episode in page.episodes:
                fresh = as_of(episode, now, half_life_days)
                if abs(fresh.current_salience - episode.current_salience) > TOLERANCE:
                    faded.append(fresh)
            if faded:
                await index.update_salience(org_id, faded)
                updated += len(faded)
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        span.set_attribute("lore.checked", checked)
        span.set_attribute("lore.updated", updated)
    return updated
