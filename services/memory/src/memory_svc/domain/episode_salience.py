"""Episodes fade and revive like memories (seed 001: "episodes also decay").

The formula is ``domain/salience.py``'s, with the episodes' own half-life (30 days unless
``LORE_HALF_LIFE_DAYS`` has an ``episode`` entry); the clock starts when the episode is stored,
and each recorded use adds 10% and restarts it. The stored ``current_salience`` is a copy that
decay runs refresh; reads return the value computed at the time of the read.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from memory_svc.domain.episode import Episode
from memory_svc.domain.salience import DEFAULT_HALF_LIFE_DAYS, salience


def salience_at(episode: Episode, now: datetime, half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> float:
    return salience(episode.access_count, episode.last_accessed_at, now, half_life_days)


def as_of(episode: Episode, now: datetime, half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> Episode:
    """``episode`` with ``current_salience`` as it is at ``now``."""
    return replace(episode, current_salience=salience_at(episode, now, half_life_days))


def accessed(episode: Episode, now: datetime, half_life_days: float = DEFAULT_HALF_LIFE_DAYS) -> Episode:
    """``episode`` after one more use at ``now``: counted, its clock restarted, its salience revived."""
    count = episode.access_count + 1
    return replace(
        episode,
        access_count=count,
        last_accessed_at=now,
        current_salience=salience(count, now, now, half_life_days),
    )
