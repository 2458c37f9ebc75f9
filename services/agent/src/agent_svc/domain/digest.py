"""Daily digests: one readable entry per scope and day, composed from that day's episodes, so a
long-lived agent keeps a timeline it can read back. A digest ages with its day: active, then warm,
then archived (ARCHITECTURE.md §3; the thresholds are settings)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

MAX_DIGEST_CHARS = 2_000
MAX_PER_LIST = 5


@dataclass(frozen=True, slots=True)
class DayEpisode:
    summary: str
    decisions: tuple[str, ...] = ()
    open_threads: tuple[str, ...] = ()
    action_items: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Digest:
    day: date
    text: str
    episodes: int
    topics: tuple[str, ...] = field(default_factory=tuple)


def compose_digest(day: date, episodes: Sequence[DayEpisode]) -> Digest | None:
    """The day in a few lines: what each conversation was about, then what was decided, promised
    and left open (each list deduplicated, in the order said, at most five). None for a quiet day."""
    if not episodes:
        return None
    lines = [f"{day.isoformat()}: {len(episodes)} conversation{'s' if len(episodes) > 1 else ''}."]
    lines += [f"- {episode.summary.strip()}" for episode in episodes if episode.summary.strip()]
    for title, items in (
        ("Decided", [item for episode in episodes for item in episode.decisions]),
        ("To do", [item for episode in episodes for item in episode.action_items]),
        ("Still open", [item for episode in episodes for item in episode.open_threads]),
    ):
        unique = list(dict.fromkeys(item.strip() for item in items if item.strip()))[:MAX_PER_LIST]
        if unique:
            lines.append(f"{title}: " + "; ".join(unique) + ".")
    text = "\n".join(lines)
    if len(text) > MAX_DIGEST_CHARS:
        text = text[: MAX_DIGEST_CHARS - 1].rsplit(" ", 1)[0] + "…"
    topics = tuple(dict.fromkeys(topic for episode in episodes for topic in episode.topics))[:10]
    return Digest(day, text, len(episodes), topics)


def status_for_age(age_days: int, warm_after_days: int, archive_after_days: int) -> str:
    """active until ``warm_after_days`` old, warm until ``archive_after_days``, then archived."""
    if age_days >= archive_after_days:
        return "archived"
    if age_days >= warm_after_days:
        return "warm"
    return "active"
