"""Which open threads a later conversation closes (domain/thread_closure.py): precision first.

The table is our own sentences: each later conversation either closes the thread (asked again and
answered, or reported done) or must leave it open (negated, still pending, only mentioned, another
task, asked back, not known, too vague, said before the episode ended)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from agent_svc.domain.thread_closure import OpenThreadRef, closures, key_terms
from agent_svc.domain.transcript import Turn

ENDED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
VISA = "Which visa do I need to work remotely from Portugal?"
REPORT = "send the tax report to Marta"
DENTIST = "book the dentist appointment"
REPLICATION = "Can you find out whether our Postgres version supports logical replication?"

# (thread topic, later turns as (role, text), closes?)
CASES = [
    (VISA, [("user", "Good news: I got the digital nomad visa to work remotely from Portugal.")], True),
    (
        VISA,
        [
            ("user", "Which visa lets me work remotely from Portugal?"),
            ("assistant", "The D8 digital nomad visa covers remote work from Portugal."),
        ],
        True,
    ),
    (REPORT, [("user", "I sent the tax report to Marta this morning.")], True),
    (DENTIST, [("user", "Booked the dentist appointment for Tuesday.")], True),
    (REPLICATION, [("assistant", "I found out that our Postgres version supports logical replication.")], True),
    (REPORT, [("user", "Hi again!"), ("user", "Finally submitted the tax report to Marta, what a relief.")], True),
    ("renew my passport", [("user", "I renewed my passport on Monday.")], True),
    # Must stay open.
    (REPORT, [("user", "I still haven't sent the tax report to Marta.")], False),
    (REPORT, [("assistant", "Did you send the tax report to Marta?")], False),
    (REPORT, [("user", "I'm going to send the tax report to Marta tomorrow.")], False),
    (REPORT, [("user", "I sent the invoice to Marta.")], False),
    (REPORT, [("user", "Marta liked the report.")], False),
    (
        VISA,
        [
            ("user", "Which visa do I need to work remotely from Portugal?"),
            ("assistant", "I'm not sure, let me check."),
        ],
        False,
    ),
    (
        VISA,
        [
            ("user", "Which visa do I need to work remotely from Portugal?"),
            ("assistant", "Which country are you applying from?"),
        ],
        False,
    ),
    (VISA, [("user", "We talked about the visa to work in Portugal again but nothing is decided.")], False),
    (VISA, [("user", "Still waiting on the visa to work remotely from Portugal.")], False),
    ("renew my passport", [("user", "My passport was renewed? No, it expired.")], False),
    ("renew my passport", [("user", "I renewed my gym membership.")], False),
    ("Why?", [("user", "I got it done, sent and booked.")], False),
    (DENTIST, [("user", "The dentist appointment was booked ages ago.", -1)], False),
]


def _turns(said) -> list[Turn]:
    turns = []
    for position, (role, text, *offset) in enumerate(said):
        at = ENDED + timedelta(days=offset[0] if offset else 7, minutes=position)
        turns.append(Turn(f"t-{position}", "s-later", position + 1, role, text, at))
    return turns


@pytest.mark.parametrize(("topic", "said", "closes"), CASES, ids=[f"{i}" for i in range(len(CASES))])
def test_a_later_conversation_closes_only_what_it_answers_or_reports_done(topic, said, closes) -> None:
    thread = OpenThreadRef("e-1", 0, topic, "", ENDED)

    found = closures([thread], _turns(said))

    assert bool(found) is closes, (topic, said)
    if closes:
        assert found[0].thread == thread and found[0].resolution.startswith(("The user said", "The assistant said"))


def test_the_table_measures_full_precision_and_the_recall_it_claims() -> None:
    """Precision (no wrong closure) is the rule's promise; the recall on this table is documented."""
    decided = [(bool(closures([OpenThreadRef("e", 0, t, "", ENDED)], _turns(s))), c) for t, s, c in CASES]
    wrong = sum(1 for got, want in decided if got and not want)
    caught = sum(1 for got, want in decided if got and want)

    assert wrong == 0
    assert caught / sum(1 for _, want in decided if want) == 1.0
    assert key_terms("Sends the reports") == {"send", "report"}


def test_only_the_threads_answered_are_closed_among_several() -> None:
    threads = [OpenThreadRef("e-1", 0, VISA, "", ENDED), OpenThreadRef("e-1", 1, REPORT, "", ENDED)]

    found = closures(threads, _turns([("user", "I sent the tax report to Marta.")]))

    assert [(c.thread.index, c.thread.topic) for c in found] == [(1, REPORT)]
