"""Salience: memories fade with time since last access but never reach zero; use revives them.

salience = max(0.01, (1 + 0.1 * access_count) * 0.5 ** (days_since_last_access / half_life))

The half-life depends on the memory type (``HALF_LIFE_DAYS``; 30 days for a type not
listed): what was merely said fades fastest, what is known about the user slowest.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType

from memory_svc.domain.model import MemoryType

FLOOR = 0.01
DEFAULT_HALF_LIFE_DAYS = 30.0

HALF_LIFE_DAYS: Mapping[MemoryType, float] = MappingProxyType(
    {
        # Raw conversation turns and tool calls: superseded by facts and digests distilled from them.
        MemoryType.MESSAGE: 14.0,
        MemoryType.TOOL_INTERACTION: 7.0,
        # Summaries of a session or a day: useful for a few weeks, then covered by newer ones.
        MemoryType.SESSION_SUMMARY: 30.0,
        MemoryType.DAILY_DIGEST: 30.0,
        # Opinions and commitments change or fall due within months.
        MemoryType.OPINION: 60.0,
        MemoryType.COMMITMENT: 60.0,
        MemoryType.DECISION: 60.0,
        # Stable knowledge about the user and the world.
        MemoryType.FACT: 90.0,
        MemoryType.PREFERENCE: 90.0,
        MemoryType.INSIGHT: 90.0,
        MemoryType.SKILL: 180.0,
    }
)


def half_life_of(memory_type: MemoryType | None, overrides: Mapping[MemoryType, float] | None = None) -> float:
    """The half-life of ``memory_type``: ``overrides`` first, then ``HALF_LIFE_DAYS``, else 30 days."""
    if memory_type is None:
        return DEFAULT_HALF_LIFE_DAYS
    if overrides and memory_type in overrides:
        return overrides[memory_type]
    return HALF_LIFE_DAYS.get(memory_type, DEFAULT_HALF_LIFE_DAYS)


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
