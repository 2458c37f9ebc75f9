"""A stored fact names its subject: "that" pointing back ("that feeling", "make that happen") leans on
something said before, as "it" and "this" do; "that" as a conjunction or a relative pronoun does
not. Sentences of our own (the LoCoMo data is for measuring only)."""

from __future__ import annotations

import pytest
from agent_svc.domain.extraction import Utterance
from agent_svc.domain.rules.extractor import RuleExtractor
from agent_svc.domain.rules.references import standing_part, stands_alone


async def stored(said: str) -> list[str]:
    return [m.content for m in (await RuleExtractor().reflect(Utterance("user", said, "t-1"), [])).memories]


POINTING_BACK = [
    "The user's goal is to make that happen.",
    "The user tried to capture that feeling in a sketch.",
    "The user wants to bring that same calm to the user's flat.",
    "The user got the idea from that trip to Norway.",
]


@pytest.mark.parametrize("text", POINTING_BACK)
def test_that_pointing_back_does_not_stand_alone(text) -> None:
    assert not stands_alone(text)


NOT_POINTING = [
    "The user realised that cycling to work is quicker.",
    "The user read the book that changed the user's mind about cities.",
    "The user has a job that pays well.",
    "The user owns a dog that bit the postman once.",
    "The user knows that Lyon is lovely in May.",
]


@pytest.mark.parametrize("text", NOT_POINTING)
def test_that_as_a_conjunction_or_relative_pronoun_stands_alone(text) -> None:
    assert stands_alone(text)


def test_a_later_clause_pointing_back_is_left_off() -> None:
    kept = standing_part("The user went to a glass-blowing class with the user's aunt and loved that feeling.")
    assert kept == "The user went to a glass-blowing class with the user's aunt."


async def test_a_self_disclosure_pointing_back_is_not_stored() -> None:
    assert await stored("I've always wanted to make that happen for my kids.") == []
