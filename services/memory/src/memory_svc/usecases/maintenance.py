"""The memory service's daily maintenance: decay (memories', then episodes') then consolidation, one
organisation at a time (ARCHITECTURE §2: scheduled jobs act as a system principal, org by org).

The organisations are those holding memory items; an org with episodes and no memory item (none
in practice: a session's turns are remembered) keeps exact salience on every read, only its
stored copy, and so its ``min_salience`` pre-filter, stays as written."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from lore_runtime.clock import Clock

from memory_svc.domain.model import MemoryType
from memory_svc.domain.salience import DEFAULT_HALF_LIFE_DAYS
from memory_svc.usecases.consolidate import default_types, run_consolidation
from memory_svc.usecases.decay import run_decay
from memory_svc.usecases.episode_ports import EpisodeIndex
from memory_svc.usecases.episode_salience import decay_episodes
from memory_svc.usecases.memory_ports import MemoryCatalog, OrderGenerations

log = logging.getLogger(__name__)


async def run_maintenance(
    *,
    catalog: MemoryCatalog,
    clock: Clock,
    threshold: float,
    generations: OrderGenerations,
    half_lives: Mapping[MemoryType, float] | None = None,
    episodes: EpisodeIndex | None = None,
    episode_half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
) -> dict[str, Any]:
    """Returns totals for the job's record. One org failing is logged and skipped, so a single
    bad tenant never starves the others; the totals count the failures."""
    totals = {
        "orgs": 0,
        "failed_orgs": 0,
        "salience_updated": 0,
        "episode_salience_updated": 0,
        "groups": 0,
        "consolidated": 0,
    }
    for org_id in await catalog.org_ids():
        totals["orgs"] += 1
        try:
            decay = await run_decay(
                org_id, catalog=catalog, clock=clock, generations=generations, half_lives=half_lives
            )
            faded = 0
            if episodes is not None:
                faded = await decay_episodes(org_id, index=episodes, clock=clock, half_life_days=episode_half_life_days)
            folded = await run_consolidation(
                org_id,
                scope=None,
                memory_types=default_types(),
                threshold=threshold,
                dry_run=False,
                catalog=catalog,
                clock=clock,
                half_lives=half_lives,
            )
        except Exception:  # one tenant's failure must not stop the others; recorded in the totals
            log.exception("maintenance failed for one organisation", extra={"org_id": org_id})
            totals["failed_orgs"] += 1
            continue
        totals["salience_updated"] += decay.updated
        totals["episode_salience_updated"] += faded
        totals["groups"] += folded.groups
        totals["consolidated"] += folded.consolidated
    return totals
