"""Salience: memories fade with time since last access but never reach zero; use revives them.

salience = max(0.01, (1 + 0.1 * access_count) * 0.5 ** (days_since_last_access / half_life))
"""

from __future__ import annotations

from datetime import datetime

FLOOR = 0.01
DEFAULT_HALF_LIFE_DAYS = 30.0


def salience(
    access_count: int, last_accessed_at: datetime, now: datetime, half_life_days: float = DEFAULT_HALF_LIFE_DAYS
) -> float:
    days = max(0.0, (now - last_accessed_at).total_seconds() / 86_400)
    return max(FLOOR, (1.0 + 0.1 * access_count) * 0.5 ** (days / half_life_days))
