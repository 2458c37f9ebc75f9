"""Recognising a request to forget (domain/forget_requests.py): the forms a user says it in, what it
names, and the sentences that only look like one."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from agent_svc.domain.forget_requests import (
    ForgetRequest,
    digest_without,
    forget_request,
    summary_without,
    topic_words,
    without_forgotten,
)

REQUESTS = {
    "Forget what I said about my address.": ForgetRequest("my address"),
    "Don't remember that.": ForgetRequest(""),
    "Delete my address.": ForgetRequest("my address"),
    "Please forget my ex's name.": ForgetRequest("my ex's name"),
    "Scratch that.": ForgetRequest(""),
    "Forget it.": ForgetRequest(""),
    "Can you forget everything I told you about my sister?": ForgetRequest("my sister"),
    "Oh, and forget about my old job please.": ForgetRequest("my old job"),
    "I want you to forget my phone number.": ForgetRequest("my phone number"),
    "Remove my phone number from your memory.": ForgetRequest("my phone number"),
    "Stop remembering my birthday.": ForgetRequest("my birthday"),
    "Erase what I just said.": ForgetRequest(""),
    "My door code is 4417, actually don't remember that.": ForgetRequest("", "My door code is 4417"),
}
NOT_REQUESTS = [
    "Don't forget to call Mum.",
    "I always forget my keys.",
    "I forgot my password.",
    "Delete the old drafts in my inbox.",
    "Delete my account.",
    "Please remove my meeting at 3pm.",
    "Can you delete that email?",
    "Scratch the plan, we go on Tuesday.",
    "Don't remember the meeting being that long.",
    "Never forget where you came from.",
    "Never mind.",
    "Delete it.",
]


@pytest.mark.parametrize("said", sorted(REQUESTS))
def test_each_form_is_a_request_naming_what_to_forget(said):
    assert forget_request(said) == REQUESTS[said]


@pytest.mark.parametrize("said", NOT_REQUESTS)
def test_sentences_that_only_look_like_a_request_are_not_one(said):
    assert forget_request(said) is None


def test_a_bare_detail_is_found_by_the_words_it_is_said_with():
    assert {"live", "road", "street"} <= topic_words("my address")
    assert topic_words("my ex's name") >= {"ex"} and "called" not in topic_words("my ex's name")


@dataclass(frozen=True)
class Said:
    role: str
    content: str


def test_a_summary_is_made_without_what_was_forgotten_nor_the_request():
    turns = [
        Said("user", "I'm allergic to peanuts."),
        Said("user", "I live at 14 Juniper Road."),
        Said("assistant", "Noted."),
        Said("user", "Scratch that."),
        Said("user", "My sister Marisol is a nurse."),
        Said("user", "Forget what I said about my sister."),
    ]
    assert [t.content for t in without_forgotten(turns)] == ["I'm allergic to peanuts.", "Noted."]
    summary = "The user is allergic to peanuts. The user lives at 14 Juniper Road. Marisol is a nurse."
    kept = summary_without(summary, ["I live at 14 Juniper Road."], topic_words("Marisol"))
    assert kept == "The user is allergic to peanuts."


def test_a_digest_loses_only_the_lines_and_items_that_say_what_was_forgotten():
    digest = (
        "2026-03-01: 2 conversations.\n- Talked about the flat on Juniper Road.\n- Talked about the half marathon.\n"
        "Decided: Repaint the Juniper Road flat; Train three times a week."
    )

    told = digest_without(digest, ["I live at 14 Juniper Road"], frozenset({"juniper"}))

    assert told == "2026-03-01: 2 conversations.\n- Talked about the half marathon.\nDecided: Train three times a week."
    assert digest_without("2026-03-01: 1 conversation.\n- Juniper Road.", [], frozenset({"juniper"})) == ""
