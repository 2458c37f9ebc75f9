"""Relative times resolved against when they were said: "next Friday" said on Tuesday 24 November
2026 is Friday 4 December 2026. Pure: the caller passes the moment the words were said.

A memory is read weeks later, when "yesterday" means nothing; so the date the speaker meant is
written next to their words ("I went to the clinic yesterday (23 November 2026)"). The agent dates
what it extracts, the assembler the messages it hands back (stored as said). Precision first — an
expression whose date is ambiguous is left as said:

- ``today``, ``tonight``, ``this morning``…: the day said; ``tomorrow``, ``yesterday``,
  ``last night``: ±1 day; ``the day before yesterday`` / ``after tomorrow``: ±2 days.
- ``this Friday``, ``coming Friday``: the next Friday after the day said (a "this Friday" said on a
  Saturday is ambiguous and left). ``next Friday``: the Friday of the following calendar week
  (Monday first) — what most speakers mean; said on a Sunday it is the coming one.
  ``last Friday``: the Friday of the previous calendar week.
- A bare weekday ("on Friday") only where the text is about the future (a commitment or a plan):
  the next such day after the day said; elsewhere the tense decides, and the rules do not parse it.
- ``next``/``last``/``this`` ``week``/``month``/``year``: "the week of <its Monday>", the month, the
  year; ``last weekend``: "the weekend of <its Saturday>", the one before the week said in.
- ``in 3 days``, ``two weeks ago``: the day; ``3 months ago``: "around <month>"; ``ten years ago``:
  "around <year>" (a count of months or years is rarely exact). ``end of the week``/``EOW`` (Friday),
  ``end of the month``, ``end of the year``, ``end of the day``/``EOD``.
- A month and day without a year ("June 3", "3rd of June"), future text only: its next occurrence
  on or after the day said. ``ASAP``, ``recently``, ``a few days ago``, seasons, sprints and quarters
  are left as said, and so is "the last year" (the past twelve months, not the calendar year).

Times are the UTC day of the moment said: Lore does not know the speaker's time zone.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime, timedelta

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# English names whatever the process locale (calendar.month_name follows it).
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)

_I = re.IGNORECASE
_MONTH_NUMBER = {name: n for n, name in enumerate(MONTHS, 1)} | {name[:3]: n for n, name in enumerate(MONTHS, 1)}
_MONTH_NUMBER["sept"] = 9
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501
_PART = r"(?:\s+(?:morning|afternoon|evening|night))?"
_COUNT = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "a couple of": 2,
}
_NUMBER = r"\d{1,3}|a couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten"

RELATIVE = re.compile(
    rf"\b(?:"
    rf"(?:the\s+)?day\s+(?P<two_days>before\s+yesterday|after\s+tomorrow)"
    rf"|(?P<today>(?:later\s+)?today|tonight|this\s+(?:morning|afternoon|evening)|eod|(?:the\s+)?end\s+of\s+(?:the\s+)?day)"
    rf"|(?P<tomorrow>tomorrow){_PART}|(?P<yesterday>yesterday{_PART}|last\s+night)"
    rf"|(?<!the\s)(?P<rel>this|coming|next|last)\s+(?P<weekday>{_DAY})"
    rf"|(?<!the\s)(?P<span_rel>next|last|this)\s+(?P<span>weekend|week|month|year)"
    rf"|(?:the\s+)?end\s+of\s+(?:the|this)?\s*(?P<end>week|month|year)|(?P<eow>eow)"
    rf"|in\s+(?P<ahead>{_NUMBER})\s+(?P<ahead_unit>days?|weeks?)"
    rf"|(?P<ago>{_NUMBER})\s+(?P<ago_unit>days?|weeks?|months?|years?)\s+ago"
    rf"|(?P<month_a>{_MONTH})\.?\s+(?P<day_a>\d{{1,2}})(?:st|nd|rd|th)?(?!\s*,?\s*\d{{4}})"
    rf"|(?P<day_b>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month_b>{_MONTH})(?!\s*,?\s*\d{{4}})"
    rf"|(?P<bare>{_DAY})"
    rf")\b",
    _I,
)


def day_text(value: date) -> str:
    """ "8 May 2023": how Lore writes a day in text a model reads."""
    return f"{value.day} {MONTHS[value.month - 1].title()} {value.year}"


def _month_text(year: int, month: int) -> str:
    return f"{MONTHS[month - 1].title()} {year}"


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


def _span(rel: str, span: str, today: date) -> str:
    step = {"next": 1, "last": -1, "this": 0}[rel]
    if span == "weekend":
        # "this weekend" said on a Saturday is today or tomorrow, "next weekend" on a Friday is
        # tomorrow or the week after: only "last weekend", the one before the week said in, is sure.
        return f"the weekend of {day_text(_monday(today) - timedelta(days=2))}" if rel == "last" else ""
    if span == "week":
        return f"the week of {day_text(_monday(today) + timedelta(days=7 * step))}"
    if span == "year":
        return str(today.year + step)
    month = (today.year * 12 + today.month - 1) + step
    return _month_text(month // 12, month % 12 + 1)


def _ago(count: int, unit: str, today: date) -> str:
    unit = unit.lower().rstrip("s")
    if unit == "year":
        return f"around {today.year - count}"
    if unit == "month":
        month = (today.year * 12 + today.month - 1) - count
        return f"around {_month_text(month // 12, month % 12 + 1)}"
    return day_text(today - timedelta(days=count * (7 if unit == "week" else 1)))


def resolve(match: re.Match[str], today: date, future: bool) -> str:
    """The date (or week, month, year) a ``RELATIVE`` match means, said on ``today``; "" when it is
    ambiguous. ``future``: the text is about what will happen (a commitment or a plan)."""
    g = match.groupdict()
    if g["two_days"]:
        return day_text(today + timedelta(days=2 if g["two_days"].lower().startswith("after") else -2))
    if g["today"]:
        return day_text(today)
    if g["tomorrow"]:
        return day_text(today + timedelta(days=1))
    if g["yesterday"]:
        return day_text(today - timedelta(days=1))
    if g["weekday"]:
        found = _weekday(g["rel"].lower(), g["weekday"], today)
        return day_text(found) if found else ""
    if g["span"]:
        return _span(g["span_rel"].lower(), g["span"].lower(), today)
    if g["end"]:
        unit = g["end"].lower()
        if unit == "week":
            return day_text(_monday(today) + timedelta(days=4)) if today.weekday() <= 4 else ""
        if unit == "month":
            return day_text(today.replace(day=calendar.monthrange(today.year, today.month)[1]))
        return day_text(date(today.year, 12, 31))
    if g["eow"]:
        return day_text(_monday(today) + timedelta(days=4)) if today.weekday() <= 4 else ""
    if g["ahead"]:
        days = _count(g["ahead"]) * (7 if g["ahead_unit"].lower().startswith("week") else 1)
        return day_text(today + timedelta(days=days))
    if g["ago"]:
        return _ago(_count(g["ago"]), g["ago_unit"], today)
    if not future:
        return ""
    if g["month_a"] or g["month_b"]:
        if not (g["month_a"] or g["month_b"])[0].isupper():
            return ""  # "I'll march 5 miles", "it may 2x": a month is capitalised as written
        found = _month_day(g["month_a"] or g["month_b"], int(g["day_a"] or g["day_b"]), today)
        return day_text(found) if found else ""
    if g["bare"]:
        return day_text(_weekday("coming", g["bare"], today))  # type: ignore[arg-type]
    return ""


def with_dates(text: str, said_at: datetime, future: bool = False) -> str:
    """``text`` with the date each relative expression means written after it, once per expression:
    "(by Friday)" → "(by Friday, 27 November 2026)", "next Friday" → "next Friday (4 December 2026)".
    A date the text already states is not added again."""
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
