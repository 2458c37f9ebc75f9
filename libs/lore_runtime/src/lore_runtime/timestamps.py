"""One rule for every timestamp a caller gives, and one stored form that always reads back.

Two ranges, both closed, both in UTC:

- a moment on the calendar (a memory's ``valid_at``, a turn's ``created_at``, an episode's times,
  the bounds of a filter): ``EARLIEST`` (1900-01-01T00:00:00Z) to ``LATEST``
  (2999-12-31T23:59:59.999999Z). The future is legitimate: planned events.
- a moment something was seen (evidence ``observed_at``, ``recorded_at``): ``EARLIEST`` to the
  caller's ``now`` plus ``CLOCK_SKEW`` (five minutes): nothing is observed in the future, but
  clocks differ.

Outside a range is ``InvalidArgument`` naming the field and the range. Every accepted value is
offset-aware UTC.

The stored text form (``stored_text``) is fixed width, ``YYYY-MM-DDTHH:MM:SS.ffffffZ``, so that it
parses back and sorts as text in time order. ``parse_stored`` also reads what older releases wrote
(years of fewer than four digits, no offset), and ``repaired_text`` says what such a value is
rewritten to: the fixed-width form, moved into the calendar range when it lay outside.

Pure: no I/O, no clock (the caller passes ``now``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from lore_runtime.errors import InvalidArgument

EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(2999, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC)
CLOCK_SKEW = timedelta(minutes=5)

CALENDAR_RANGE = "must be between 1900-01-01T00:00:00Z and 2999-12-31T23:59:59Z"
OBSERVED_RANGE = "must be between 1900-01-01T00:00:00Z and now (plus 5 minutes of clock skew)"

_STORED = re.compile(
    r"(?P<year>\d{1,4})-(?P<month>\d{2})-(?P<day>\d{2})[T ](?P<hour>\d{2}):(?P<minute>\d{2}):(?P<second>\d{2})"
    r"(?:\.(?P<fraction>\d{1,9}))?(?P<zone>Z|[+-]\d{2}:?\d{2})?"
)


def utc(value: datetime) -> datetime:
    """``value`` in UTC; a naive datetime is taken as UTC."""
    if value.tzinfo is None or value.utcoffset() is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def calendar_time(value: datetime, field: str) -> datetime:
    """``value`` (aware UTC) if it lies in the calendar range, else InvalidArgument naming ``field``."""
    moment = utc(value)
    if not EARLIEST <= moment <= LATEST:
        raise InvalidArgument(field, CALENDAR_RANGE)
    return moment


def observed_time(value: datetime, field: str, now: datetime) -> datetime:
    """``value`` (aware UTC) if it lies between ``EARLIEST`` and ``now`` + ``CLOCK_SKEW``."""
    moment = utc(value)
    if not EARLIEST <= moment <= utc(now) + CLOCK_SKEW:
        raise InvalidArgument(field, OBSERVED_RANGE)
    return moment


def in_calendar(value: datetime) -> datetime:
    """``value`` (aware UTC) moved to the nearest bound of the calendar range when outside it."""
    return min(max(utc(value), EARLIEST), LATEST)


def stored_text(value: datetime) -> str:
    """The fixed-width stored form: ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (a naive value is refused)."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"stored timestamps must be timezone-aware, got naive {value!r}")
    moment = value.astimezone(UTC)
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T"
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}.{moment.microsecond:06d}Z"
    )


def parse_stored(text: str) -> datetime:
    """A stored timestamp as aware UTC: the fixed-width form, and the older forms (a year of fewer
    than four digits, no offset: taken as UTC). ValueError for anything else."""
    try:  # the stored form, and any other ISO 8601 form: C speed (listings parse three per record)
        return utc(datetime.fromisoformat(text))
    except ValueError:
        pass
    found = _STORED.fullmatch(text.strip())
    if found is None:
        raise ValueError(f"not a stored timestamp: {text!r}")
    parts = found.groupdict()
    fraction = (parts["fraction"] or "0")[:6].ljust(6, "0")
    moment = datetime(
        int(parts["year"]),
        int(parts["month"]),
        int(parts["day"]),
        int(parts["hour"]),
        int(parts["minute"]),
        int(parts["second"]),
        int(fraction),
        tzinfo=UTC,
    )
    zone = parts["zone"]
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        moment -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return moment


def repaired_text(text: str) -> str | None:
    """What a stored timestamp must be rewritten to, or None when it is already in the stored form and
    in the calendar range. A value outside the range moves to the nearest bound."""
    try:
        moment = parse_stored(text)
    except (ValueError, OverflowError):
        moment = EARLIEST  # unreadable: the earliest moment keeps the record readable
    canonical = stored_text(in_calendar(moment))
    return None if canonical == text else canonical
