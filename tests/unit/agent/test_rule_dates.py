"""Relative times in what the rules extract are resolved against the turn's own time;
the rules themselves are tested in tests/unit/language/test_dates.py."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from agent_svc.domain.extraction import Utterance
from agent_svc.domain.rules.extractor import RuleExtractor

TUESDAY = datetime(2026, 11, 24, 10, 30, tzinfo=UTC)


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
