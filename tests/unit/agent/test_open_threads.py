"""Threads only for what is open (domain/open_threads.py) and a later answer to an open question
closing it (domain/thread_closure.py): our own sentences, precision first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from agent_svc.domain.extraction import ActionItem, EpisodeDraft, Thread
from agent_svc.domain.open_threads import open_business
from agent_svc.domain.thread_closure import OpenThreadRef, closures
from agent_svc.domain.transcript import Turn

ENDED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
PHARMACY = "What time does the pharmacy open on Sundays?"


def _draft(threads: list[str], items: list[ActionItem] = ()) -> EpisodeDraft:
    return EpisodeDraft("s", open_threads=tuple(Thread(topic) for topic in threads), action_items=tuple(items))


@pytest.mark.parametrize(
    "topic",
    [
        PHARMACY,
        "Which visa fits a remote job",
        "Can you book a table for two at Nando's?",
        "Please compare the two phone contracts",
        "Remind me to renew the car insurance",
    ],
)
def test_questions_and_requests_stay_open(topic):
    assert open_business(_draft([topic])).open_threads == (Thread(topic),)


@pytest.mark.parametrize(
    "topic",
    [
        "I'm allergic to peanuts.",
        "My card number is 4242 4242 4242 4242",
        "My card is 4242 4242 4242 4242?",
        "The user lives in Leeds.",
        "Where is Tom?",
        "ok?",
    ],
)
def test_statements_and_questions_nothing_could_close_open_no_thread(topic):
    assert open_business(_draft([topic])).open_threads == ()


def test_plans_open_a_thread_only_when_a_later_report_could_close_them():
    items = [
        ActionItem("user", "work"),
        ActionItem("user", "call 07700 900123"),
        ActionItem("user", "send the tax report to Marta"),
    ]
    kept = open_business(_draft([item.task for item in items], items)).open_threads
    assert kept == (Thread("send the tax report to Marta"),)


def _turn(role: str, text: str, minutes: int) -> Turn:
    return Turn(f"t{minutes}", "s2", minutes, role, text, ENDED + timedelta(minutes=minutes))


@pytest.mark.parametrize(
    ("said", "closes"),
    [
        ("The pharmacy opens at 10 on Sundays.", True),
        ("Turns out the pharmacy opens on Sundays at noon.", True),
        ("I still wonder when the pharmacy opens on Sundays.", False),
        ("I asked whether the pharmacy opens on Sundays.", False),
        ("The pharmacy doesn't open on Sundays yet.", False),
        ("The pharmacy opens on Sundays.", False),  # nothing the question did not say
        ("The bakery opens at 10 on Sundays.", False),
    ],
)
def test_a_later_statement_answering_an_open_question_closes_it(said, closes):
    thread = OpenThreadRef("e1", 0, PHARMACY, "Unanswered: no reply.", ENDED)
    assert bool(closures([thread], [_turn("user", said, 5)])) is closes
