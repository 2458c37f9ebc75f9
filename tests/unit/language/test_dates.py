"""Relative times resolved against when they were said (``lore_language.dates``): the agent dates
what it extracts with these rules, the assembler the messages it hands back."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from lore_language.dates import with_dates

TUESDAY = datetime(2026, 11, 24, 10, 30, tzinfo=UTC)
SUNDAY = datetime(2026, 11, 29, 21, 0, tzinfo=UTC)
SATURDAY = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "said_at", "future", "expected"),
    [
        ("today", TUESDAY, False, "today (24 November 2026)"),
        ("tonight", TUESDAY, False, "tonight (24 November 2026)"),
        ("tomorrow morning", TUESDAY, False, "tomorrow morning (25 November 2026)"),
        ("yesterday", TUESDAY, False, "yesterday (23 November 2026)"),
        ("this Friday", TUESDAY, False, "this Friday (27 November 2026)"),
        ("coming Friday", TUESDAY, False, "coming Friday (27 November 2026)"),
        ("next Friday", TUESDAY, False, "next Friday (4 December 2026)"),
        ("next Friday", SUNDAY, False, "next Friday (4 December 2026)"),
        ("last Friday", TUESDAY, False, "last Friday (20 November 2026)"),
        ("next week", TUESDAY, False, "next week (the week of 30 November 2026)"),
        ("next month", TUESDAY, False, "next month (December 2026)"),
        ("last year", TUESDAY, False, "last year (2025)"),
        ("in 3 days", TUESDAY, False, "in 3 days (27 November 2026)"),
        ("two weeks ago", TUESDAY, False, "two weeks ago (10 November 2026)"),
        ("the end of the month", TUESDAY, False, "the end of the month (30 November 2026)"),
        ("EOW", TUESDAY, False, "EOW (27 November 2026)"),
        ("next month", datetime(2026, 12, 5, tzinfo=UTC), False, "next month (January 2027)"),
        # Only a future memory resolves a bare weekday or a month and day without a year.
        ("Friday", TUESDAY, True, "Friday (27 November 2026)"),
        ("Friday", TUESDAY, False, "Friday"),
        ("June 3", TUESDAY, True, "June 3 (3 June 2027)"),
        ("3rd of December", TUESDAY, True, "3rd of December (3 December 2026)"),
        ("3 June", TUESDAY, False, "3 June"),
        ("march 5 miles", TUESDAY, True, "march 5 miles"),
        # Ambiguous or already absolute: left as said.
        ("this Monday", TUESDAY, True, "this Monday"),
        ("last Friday", SATURDAY, False, "last Friday"),
        ("the end of the week", SATURDAY, False, "the end of the week"),
        ("June 3, 2027", TUESDAY, True, "June 3, 2027"),
        ("asap", TUESDAY, True, "asap"),
        ("(by Friday)", TUESDAY, True, "(by Friday, 27 November 2026)"),
        # Said in a conversation read months later (the assembler dates messages with these).
        ("I went to the clinic last night", TUESDAY, False, "I went to the clinic last night (23 November 2026)"),
        ("the day before yesterday", TUESDAY, False, "the day before yesterday (22 November 2026)"),
        ("the day after tomorrow", TUESDAY, False, "the day after tomorrow (26 November 2026)"),
        ("last weekend", TUESDAY, False, "last weekend (the weekend of 21 November 2026)"),
        ("last weekend", SUNDAY, False, "last weekend (the weekend of 21 November 2026)"),
        ("this year", TUESDAY, False, "this year (2026)"),
        ("this month", TUESDAY, False, "this month (November 2026)"),
        ("last month", datetime(2026, 1, 9, tzinfo=UTC), False, "last month (December 2025)"),
        ("three months ago", TUESDAY, False, "three months ago (around August 2026)"),
        ("a year ago", TUESDAY, False, "a year ago (around 2025)"),
        ("ten years ago", TUESDAY, False, "ten years ago (around 2016)"),
        ("over the last year", TUESDAY, False, "over the last year"),
        ("the last Friday of the month", TUESDAY, False, "the last Friday of the month"),
        ("this weekend", SATURDAY, False, "this weekend"),
        ("a few days ago", TUESDAY, False, "a few days ago"),
        ("last summer", TUESDAY, False, "last summer"),
    ],
)
def test_a_relative_time_gets_the_date_it_meant(text, said_at, future, expected) -> None:
    assert with_dates(text, said_at, future) == expected
