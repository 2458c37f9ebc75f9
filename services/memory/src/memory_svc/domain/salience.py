"""Salience: memories fade with time since last access but never reach zero; use revives them.

salience = max(0.01, (1 + 0.1 * access_count) * 0.5 ** (days_since_last_access / half_life))

Seed 001 (US-218) and ARCHITECTURE.md §3: the half-life is 30 days by default for every memory
type, configurable per type. The per-type overrides are one setting, ``LORE_HALF_LIFE_DAYS``
(``"fact=90,preference=60"``), parsed by ``parse_half_lives``. Episodes fade by the same formula
("episodes also decay"); not being a memory type, they have their own key in that setting,
``episode`` (``"episode=60"``), read by ``episode_half_life``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType

from memory_svc.domain.model import MemoryType

FLOOR = 0.01
DEFAULT_HALF_LIFE_DAYS = 30.0
MAX_HALF_LIFE_DAYS = 36_500.0

HALF_LIFE_DAYS: Mapping[MemoryType, float] = MappingProxyType(dict.fromkeys(MemoryType, DEFAULT_HALF_LIFE_DAYS))


def half_life_of(memory_type: MemoryType | None, overrides: Mapping[MemoryType, float] | None = None) -> float:
    """The half-life of ``memory_type``: ``overrides`` first, then ``HALF_LIFE_DAYS``, else 30 days."""
    if memory_type is None:
        return DEFAULT_HALF_LIFE_DAYS
    if overrides and memory_type in overrides:
        return overrides[memory_type]
    return HALF_LIFE_DAYS.get(memory_type, DEFAULT_HALF_LIFE_DAYS)


EPISODE = "episode"  # LORE_HALF_LIFE_DAYS's key for episodes


def _parse_entries(text: str) -> dict[str, float]:
    """``"fact=90, episode=60"`` → half-lives in days by key (a memory type or ``episode``).
    Raises ``ValueError`` naming the bad entry: an unknown key, a repeated one, or a value
    outside (0, 36500]."""
    known = {kind.value for kind in MemoryType} | {EPISODE}
    entries: dict[str, float] = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        name, sep, value = entry.partition("=")
        name = name.strip().lower()
        if name not in known:
            names = ", ".join(kind.value for kind in MemoryType)
            raise ValueError(f"{entry!r}: unknown memory type (one of {names}, or {EPISODE})")
        if not sep or name in entries:
            raise ValueError(f"{entry!r}: expected type=days, each type once")
        try:
            days = float(value)
        except ValueError:
            raise ValueError(f"{entry!r}: days must be a number") from None
        if not 0 < days <= MAX_HALF_LIFE_DAYS:
            raise ValueError(f"{entry!r}: days must be in (0, {MAX_HALF_LIFE_DAYS:g}]")
        entries[name] = days
    return entries


def parse_half_lives(text: str) -> dict[MemoryType, float]:
    """``"fact=90, preference=60"`` → per-type half-lives in days (an ``episode`` entry is checked
    but left to ``episode_half_life``). Raises ``ValueError`` naming the bad entry."""
    return {MemoryType(name): days for name, days in _parse_entries(text).items() if name != EPISODE}


def episode_half_life(text: str) -> float:
    """The episodes' half-life in days: the ``episode`` entry of ``text``, else 30 days."""
    return _parse_entries(text).get(EPISODE, DEFAULT_HALF_LIFE_DAYS)


def salience(
    access_count: int,
    last_accessed_at: datetime,
    now: datetime,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
) -> float:
    days = max(0.0, (now - last_accessed_at).total_seconds() / 86_400)
    return max(FLOOR, (1.0 + 0.1 * access_count) * 0.5 ** (days / half_life_days))


def salience_of_type(
    memory_type: MemoryType,
    access_count: int,
    last_accessed_at: datetime,
    now: datetime,
    overrides: Mapping[MemoryType, float] | None = None,
) -> float:
    """``salience`` with the half-life of ``memory_type``."""
    return salience(access_count, last_accessed_at, now, half_life_of(memory_type, overrides))


RECENCY_HALF_LIFE_DAYS = 30.0


def recency(valid_at: datetime, now: datetime, half_life_days: float = RECENCY_HALF_LIFE_DAYS) -> float:
    """How recently a memory was true in the world: 1.0 at ``now``, halving every half-life
    (future ``valid_at`` counts as now). Unlike salience it ignores use."""
    days = max(0.0, (now - valid_at).total_seconds() / 86_400)
    return 0.5 ** (days / half_life_days)
