"""Relative times in what the rules extract are resolved against the turn's own time (issue #20)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from agent_svc.domain.extraction import Utterance
from agent_svc.domain.rules.dates import with_dates
from agent_svc.domain.rules.extractor import RuleExtractor

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
    ],
)
def test_a_relative_time_gets_the_date_it_meant(text, said_at, future, expected) -> None:
    assert with_dates(text, said_at, future) == expected


@pytest.mark.parametrize(
    ("said", "content"),
    [
        ("I'm flying to Lisbon next Friday.", "The user is flying to Lisbon next Friday (4 December 2026)."),
        (
            "I'll send you the draft by Friday.",
            "The user will send the assistant the draft (by Friday, 27 November 2026).",
        ),
        (
            "Remind me to book the vet tomorrow.",
            "The assistant will remind the user to book the vet (by tomorrow, 25 November 2026).",
        ),
        ("I'll ring the landlord in two weeks.", "The user will ring the landlord (in two weeks, 8 December 2026)."),
    ],
)
async def test_reflection_writes_the_date_next_to_the_words(said, content) -> None:
    found = await RuleExtractor().reflect(Utterance("user", said, "t-1", TUESDAY), [])

    assert [memory.content for memory in found.memories] == [content]


async def test_without_a_time_the_words_stay_as_said() -> None:
    found = await RuleExtractor().reflect(Utterance("user", "I'm flying to Lisbon next Friday.", "t-1"), [])

    assert [memory.content for memory in found.memories] == ["The user is flying to Lisbon next Friday."]


async def test_a_commitment_deadline_carries_its_date() -> None:
    found = await RuleExtractor().reflect(Utterance("user", "I'll send you the draft by Friday.", "t-1", TUESDAY), [])

    assert found.memories[0].deadline == "Friday (27 November 2026)"
