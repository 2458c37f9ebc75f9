"""Episode summaries told in the third person: who said what, no pasted transcript, no filler."""

from __future__ import annotations

import pytest
from agent_svc.domain.extraction import Thread, Utterance
from agent_svc.domain.rules.episode import build_episode
from agent_svc.domain.rules.narration import is_filler, speaker_names, third_person
from agent_svc.domain.rules.summary import episode_summary, left_open, narrate_summary


@pytest.mark.parametrize(
    ("said", "told"),
    [
        ("I finally booked the ferry to Skye.", "Noor finally booked the ferry to Skye."),
        ("I love my new allotment.", "Noor loves their new allotment."),
        ("I'm moving to Galway in March.", "Noor is moving to Galway in March."),
        ("I've started learning the cello.", "Noor has started learning the cello."),
        ("My brother and I fixed the boat.", "Noor's brother and Noor fixed the boat."),
        ("Yeah, I don't eat shellfish.", "Noor doesn't eat shellfish."),
        ("The ferry leaves at six, Sam.", "Noor said the ferry leaves at six."),
        ("I'll send you the tide tables.", "Noor will send Sam the tide tables."),
        ("You should ask your landlord first.", "Noor said Sam should ask their landlord first."),
        ("Let's meet at the harbour on Friday.", "Noor suggested they meet at the harbour on Friday."),
    ],
)
def test_a_sentence_is_told_with_the_speakers_names(said: str, told: str) -> None:
    assert third_person(said, "Noor", "Sam") == told


@pytest.mark.parametrize(
    "sentence",
    [
        "Hey Sam! Good to see you!",
        "Thanks, that's really kind of you.",
        "Wow, love that photo!",
        "That ferry trip sounds amazing!",
        "You've got this!",
        "So glad to hear that.",
    ],
)
def test_greetings_thanks_and_compliments_are_filler(sentence: str) -> None:
    assert is_filler(sentence)


@pytest.mark.parametrize("sentence", ["I'm allergic to kiwis.", "My sister runs a bakery in Cork."])
def test_a_fact_is_no_filler(sentence: str) -> None:
    assert not is_filler(sentence)


TALK = [
    ("user", "Hi! How are you doing?"),
    ("assistant", "Great, thanks! What's new?"),
    ("user", "I signed the contract for the bakery unit on Mill Lane. My sister will run the ovens."),
    ("assistant", "Congratulations, that sounds wonderful! I'll draft the opening checklist for you."),
    ("user", "Thanks so much! We open on the first of June."),
]


def test_an_episode_summary_says_who_talked_and_what_without_a_transcript_or_filler() -> None:
    summary = episode_summary(TALK, {"user": "Ines", "assistant": "Tom"})

    assert summary.startswith("Ines and Tom talked about"), summary
    assert "Ines signed the contract for the bakery unit on Mill Lane." in summary
    assert "Tom will draft the opening checklist for Ines." in summary
    for pasted in ("User:", "Assistant:", "Thanks", "Congratulations", "How are you", "I ", "my "):
        assert pasted not in summary, pasted


def test_without_names_the_speakers_are_the_user_and_the_assistant() -> None:
    summary = episode_summary(TALK)

    assert summary.startswith("The user and the assistant talked about"), summary
    assert "The user signed the contract" in summary and "User:" not in summary


def test_the_summary_ends_with_what_was_decided_and_what_is_still_open() -> None:
    threads = (
        Thread("Which oven brand is cheapest to run?", "open", "Unanswered: no reply."),
        Thread("draft the opening checklist", "open", "The assistant will draft the opening checklist."),
        Thread("old topic", "resolved"),
    )
    still_open = left_open(threads, {"user": "Ines", "assistant": "Tom"})
    summary = narrate_summary(
        [("user", "I signed the contract for the bakery unit.")],
        {"user": "Ines", "assistant": "Tom"},
        topics=["bakery unit"],
        decided=["The user decided to open in June."],
        still_open=still_open,
    )

    assert summary == (
        "Ines and Tom talked about bakery unit. Ines signed the contract for the bakery unit. "
        "Decided: The user decided to open in June. Still open: Ines's question "
        '"Which oven brand is cheapest to run?"; Tom will draft the opening checklist.'
    )


def test_what_is_listed_as_open_is_not_told_twice() -> None:
    summary = narrate_summary(
        [("assistant", "I will book the vet for Tuesday.")],
        {},
        still_open=["The assistant will book the vet for Tuesday."],
    )

    assert summary.count("book the vet") == 1 and summary.endswith(
        "Still open: The assistant will book the vet for Tuesday."
    )


def test_a_decision_is_listed_once_with_its_label_once() -> None:
    summary = narrate_summary(
        [("user", "I'll post the keys to Marta by Friday.")],
        {},
        decided=["Decided: sell the camper van."],
        still_open=["The user will post the keys to Marta (by Friday)."],
    )

    assert summary.count("Decided:") == 1 and "Decided: sell the camper van." in summary, summary
    assert summary.count("post the keys") == 1, summary


def test_a_long_conversation_fits_the_budget_in_whole_sentences() -> None:
    turns = [("user", f"I repaired bicycle number {n} at the workshop on Dock Street today.") for n in range(80)]

    summary = episode_summary(turns, budget=300)

    assert 0 < len(summary) <= 300 and summary.endswith(".")


def test_the_rule_episode_a_language_model_falls_back_to_is_told_alike() -> None:
    draft = build_episode([Utterance(role, text) for role, text in TALK])

    assert draft.summary.startswith("The user and the assistant talked about"), draft.summary
    assert "User:" not in draft.summary and "Assistant:" not in draft.summary


def test_the_speakers_names_come_from_the_turns() -> None:
    turns = [("user", "hello", ""), ("user", "hi", "Ines"), ("assistant", "hey", "Tom"), ("user", "x", "Other")]

    assert speaker_names(turns) == {"user": "Ines", "assistant": "Tom"}
