"""A message is handed back with the date its relative times meant: read months later, "yesterday"
would mislead the model (lore_language.dates, shared with the agent's extraction)."""

from __future__ import annotations

from datetime import UTC, datetime

from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.candidates import memory_candidates
from assembler_svc.domain.gathered import RecalledMemory
from assembler_svc.domain.priming import prime

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


def remembered(content: str, memory_type: str = "message", valid_at: datetime | None = SAID) -> RecalledMemory:
    return RecalledMemory(
        id="m-1",
        content=content,
        memory_type=memory_type,
        similarity=0.8,
        salience=0.9,
        importance=0.5,
        valid_at=valid_at,
    )


def test_a_message_carries_the_day_its_yesterday_meant() -> None:
    [candidate] = memory_candidates([remembered("I went to a support group yesterday and it helped.")])

    assert candidate.text == "I went to a support group yesterday (7 May 2023) and it helped. (on 8 May 2023)"
    assert candidate.statement == "I went to a support group yesterday and it helped.", "duplicates compare words"


def test_years_and_weekends_are_dated_and_vague_times_left_as_said() -> None:
    [candidate] = memory_candidates([remembered("We hiked last weekend; I read it last year, a while ago.")])

    assert candidate.text.startswith("We hiked last weekend (the weekend of 6 May 2023); I read it last year (2022),")
    assert "a while ago." in candidate.text


def test_learnt_memories_and_undated_messages_are_not_dated_again() -> None:
    fact, undated = memory_candidates(
        [
            remembered("The user went to a support group yesterday.", memory_type="MEMORY_TYPE_FACT"),
            remembered("See you tomorrow!", valid_at=None),
        ]
    )

    assert fact.text == "The user went to a support group yesterday. (on 8 May 2023)"
    assert undated.text == "See you tomorrow!"


def test_prime_dates_a_message_as_the_context_does() -> None:
    message = remembered("I signed up for a welding class yesterday.")
    primed = prime(
        episodes=(),
        threads=(),
        facts=(),
        beliefs=(),
        recalled=(message,),
        initial_message="When did I sign up for welding?",
        counter=TiktokenCounter(),
        now=datetime(2023, 6, 1, tzinfo=UTC),
    )

    assert "- I signed up for a welding class yesterday (7 May 2023). (on 8 May 2023)" in primed.formatted_context
