"""Relative times resolved against the turn's own time: "next Friday" said on Tuesday 24 November
2026 is Friday 4 December 2026. Pure: the caller passes when the turn was said.

A memory is read weeks later, when "tomorrow" means nothing; so the date the speaker meant is
written next to their words ("The user will send the report (by Friday, 27 November 2026).").
Precision first — an expression whose date is ambiguous is left as said:

- ``today``, ``tonight``, ``this morning``…: the turn's day; ``tomorrow``, ``yesterday``: ±1 day.
- ``this Friday``, ``coming Friday``: the next Friday after the turn's day (a "this Friday" said on a
  Saturday is ambiguous and left). ``next Friday``: the Friday of the following calendar week
  (Monday first) — what most speakers mean; said on a Sunday it is the coming one.
  ``last Friday``: the Friday of the previous calendar week.
- A bare weekday ("on Friday") only where the memory is about the future (a commitment or a plan):
  the next such day after the turn's day; elsewhere the tense decides, and the rules do not parse it.
- ``next week`` / ``month`` / ``year`` and ``last …``: "the week of <its Monday>", the month, the year.
- ``in 3 days``, ``two weeks ago``: the day; ``end of the week``/``EOW`` (Friday), ``end of the month``,
  ``end of the year``, ``end of the day``/``EOD``.
- A month and day without a year ("June 3", "3rd of June"), future memories only: its next
  occurrence on or after the turn's day. ``ASAP``, sprints and quarters are left as said.

Times are the turn's UTC day: Lore does not know the speaker's time zone (docs/extraction.md).
"""

from __future__ import annotations

import calendar
import dataclasses
import re
from datetime import date, datetime, timedelta

from agent_svc.domain.extraction import ExtractedMemory
from agent_svc.domain.rules.text import DAYS, MONTHS

_I = re.IGNORECASE
# English names whatever the process locale (calendar.month_name follows it).
_MONTH_NUMBER = {name: n for n, name in enumerate(MONTHS, 1)} | {name[:3]: n for n, name in enumerate(MONTHS, 1)}
_MONTH_NUMBER["sept"] = 9
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501
_PART = r"(?:\s+(?:morning|afternoon|evening|night))?"
_COUNT = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a couple of": 2}
_NUMBER = r"\d{1,3}|a couple of|an?|one|two|three|four|five|six"

RELATIVE = re.compile(
    rf"\b(?:"
    rf"(?P<today>(?:later\s+)?today|tonight|this\s+(?:morning|afternoon|evening)|eod|(?:the\s+)?end\s+of\s+(?:the\s+)?day)"
    rf"|(?P<tomorrow>tomorrow){_PART}|(?P<yesterday>yesterday){_PART}"
    rf"|(?P<rel>this|coming|next|last)\s+(?P<weekday>{_DAY})"
    rf"|(?P<span_rel>next|last)\s+(?P<span>week|month|year)"
    rf"|(?:the\s+)?end\s+of\s+(?:the|this)?\s*(?P<end>week|month|year)|(?P<eow>eow)"
    rf"|in\s+(?P<ahead>{_NUMBER})\s+(?P<ahead_unit>days?|weeks?)"
    rf"|(?P<ago>{_NUMBER})\s+(?P<ago_unit>days?|weeks?)\s+ago"
    rf"|(?P<month_a>{_MONTH})\.?\s+(?P<day_a>\d{{1,2}})(?:st|nd|rd|th)?(?!\s*,?\s*\d{{4}})"
    rf"|(?P<day_b>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month_b>{_MONTH})(?!\s*,?\s*\d{{4}})"
    rf"|(?P<bare>{_DAY})"
    rf")\b",
    _I,
)


def _day(value: date) -> str:
    return f"{value.day} {MONTHS[value.month - 1].title()} {value.year}"


def _count(text: str) -> int:
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else _COUNT[text]


def _monday(value: date) -> date:
    return value - timedelta(days=value.weekday())


def _weekday(rel: str, name: str, today: date) -> date | None:
    target = DAYS.index(name.lower())
    ahead = (target - today.weekday()) % 7
    if rel == "last":
        # "last Friday" said on a Saturday: yesterday, or the week before? Left as said.
        return None if target < today.weekday() else _monday(today) - timedelta(days=7 - target)
    if rel == "next" and today.weekday() != 6:
        return _monday(today) + timedelta(days=7 + target)
    if rel == "this":
        # "this Monday" said on a Thursday: the past one or the next? Left as said.
        return None if target < today.weekday() else today + timedelta(days=ahead)
    return today + timedelta(days=ahead or 7)


def _month_day(month: str, day: int, today: date) -> date | None:
    number = _MONTH_NUMBER.get(month.lower().rstrip("."))
    if number is None:
        return None
    for year in (today.year, today.year + 1):
        try:
            found = date(year, number, day)
        except ValueError:
            return None
        if found >= today:
            return found
    return None


def resolve(match: re.Match[str], today: date, future: bool) -> str:
    """The date (or week, month, year) a ``RELATIVE`` match means, said on ``today``; "" when it is
    ambiguous. ``future``: the memory is about what will happen (a commitment or a plan)."""
    g = match.groupdict()
    if g["today"]:
        return _day(today)
    if g["tomorrow"]:
        return _day(today + timedelta(days=1))
    if g["yesterday"]:
        return _day(today - timedelta(days=1))
    if g["weekday"]:
        found = _weekday(g["rel"].lower(), g["weekday"], today)
        return _day(found) if found else ""
    if g["span"]:
        step = 1 if g["span_rel"].lower() == "next" else -1
        if g["span"].lower() == "week":
            return f"the week of {_day(_monday(today) + timedelta(days=7 * step))}"
        if g["span"].lower() == "year":
            return str(today.year + step)
        month = (today.year * 12 + today.month - 1) + step
        return f"{MONTHS[month % 12].title()} {month // 12}"
    if g["end"]:
        unit = g["end"].lower()
        if unit == "week":
            return _day(_monday(today) + timedelta(days=4)) if today.weekday() <= 4 else ""
        if unit == "month":
            return _day(today.replace(day=calendar.monthrange(today.year, today.month)[1]))
        return _day(date(today.year, 12, 31))
    if g["eow"]:
        return _day(_monday(today) + timedelta(days=4)) if today.weekday() <= 4 else ""
    if g["ahead"]:
        days = _count(g["ahead"]) * (7 if g["ahead_unit"].lower().startswith("week") else 1)
        return _day(today + timedelta(days=days))
    if g["ago"]:
        days = _count(g["ago"]) * (7 if g["ago_unit"].lower().startswith("week") else 1)
        return _day(today - timedelta(days=days))
    if not future:
        return ""
    if g["month_a"] or g["month_b"]:
        if not (g["month_a"] or g["month_b"])[0].isupper():
            return ""  # "I'll march 5 miles", "it may 2x": a month is capitalised as written
        found = _month_day(g["month_a"] or g["month_b"], int(g["day_a"] or g["day_b"]), today)
        return _day(found) if found else ""
    if g["bare"]:
        return _day(_weekday("coming", g["bare"], today))  # type: ignore[arg-type]
    return ""


def with_dates(text: str, said_at: datetime, future: bool) -> str:
    """``text`` with the date each relative expression means written after it, once per expression:
    "(by Friday)" → "(by Friday, 27 November 2026)", "next Friday" → "next Friday (4 December 2026)"."""
    today = said_at.date()
    parts: list[str] = []
    last = 0
    for match in RELATIVE.finditer(text):
        meant = resolve(match, today, future)
        if not meant or meant in text:
            continue
        parts.append(text[last : match.end()])
        inside = text[match.end() : match.end() + 1] == ")"
        parts.append(f", {meant}" if inside else f" ({meant})")
        last = match.end()
    parts.append(text[last:])
    return "".join(parts)


def dated(memory: ExtractedMemory, said_at: datetime) -> ExtractedMemory:
    """The memory with the dates its relative times meant; a commitment is about the future, so a
    bare "Friday" or "June 3" in it is the next one. Reflection and episodes date alike, so a
    commitment's thread names it exactly as its memory does."""
    future = memory.kind == "commitment"
    return dataclasses.replace(
        memory,
        content=with_dates(memory.content, said_at, future),
        deadline=with_dates(memory.deadline, said_at, future) if memory.deadline else "",
    )
