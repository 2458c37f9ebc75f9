"""Jokes said flat, words passed on and the assistant's make-believe are nobody's fact; the real facts
they resemble are kept. Sentences of our own (the LoCoMo data is for measuring only)."""

from __future__ import annotations

import pytest
from agent_svc.domain.extraction import Utterance
from agent_svc.domain.rules.extractor import RuleExtractor


async def reflect(said: str, role: str = "user", before: str = ""):
    earlier = [Utterance("user" if role == "assistant" else "assistant", before, "t-0")] if before else []
    return await RuleExtractor().reflect(Utterance(role, said, "t-1"), earlier)


JOKES = [
    "I'm pretty much a full-time snacker.",
    "Honestly I'm practically a professional overthinker.",
    "I'm literally a human alarm clock for the whole street.",
    "I'm the family's unpaid chef and taxi.",
    "Our kitten is the real boss around here.",
    "The hamster runs this house.",
    "I basically live at the climbing gym.",
    "I live in the library during exam season.",
    "I live on toast and tea.",
    "I'm married to my laptop these days.",
    "My second home is the coffee shop on Mill Road.",
    "I've got about a zillion nephews.",
    "I'm allergic to early starts.",
    "I'm fluent in dad jokes.",
    "Rumour has it I'm the new head of marketing.",
    "Legend has it I was born in a taxi.",
]


@pytest.mark.parametrize("said", JOKES)
async def test_a_joke_said_flat_or_words_passed_on_store_no_fact(said) -> None:
    found = await reflect(said)
    assert found.memories == ()
    assert [
        c.slot for c in found.claims if c.slot in ("job", "employer", "home_city", "age") or "allergy" in c.slot
    ] == []


async def test_a_pet_named_in_a_joke_is_still_named() -> None:
    found = await reflect("Our dog Biscuit is the boss of the house.")
    assert found.memories == ()
    assert [c.slot for c in found.claims] == ["pet:dog"]


REAL_FACTS = [
    ("I'm a certified accountant.", "accountant"),
    ("I'm a professional photographer.", "photographer"),
    ("I live in the garden flat on Elm Road.", "garden flat"),
    ("My second home is in Brittany.", "Brittany"),
    ("I'm allergic to latex.", "latex"),
    ("I work as a personal assistant to the CEO.", "personal assistant"),
    ("I'm fluent in Portuguese.", "Portuguese"),
    ("I have two nephews.", "nephews"),
]


@pytest.mark.parametrize(("said", "kept"), REAL_FACTS)
async def test_the_real_facts_jokes_resemble_are_kept(said, kept) -> None:
    found = await reflect(said)
    assert any(kept in memory.content for memory in found.memories)


MAKE_BELIEVE = [
    ("I'll definitely give that podcast a listen.", "Try the Deep Sea podcast."),
    ("I'll have to check out that series.", "You should watch Slow Horses."),
    ("I'll bake you a cake, virtually.", "It's my birthday!"),
    ("I'll be there in spirit.", "The race is on Sunday."),
    ("I'll try that noodle place next time I'm in town.", "The noodle bar on King Street is great."),
]


@pytest.mark.parametrize(("said", "before"), MAKE_BELIEVE)
async def test_the_assistants_pastimes_and_make_believe_are_no_promises(said, before) -> None:
    assert (await reflect(said, role="assistant", before=before)).memories == ()


async def test_the_assistants_errand_for_the_user_is_a_promise() -> None:
    found = await reflect("I'll check the train times to York tonight.", role="assistant", before="Going to York.")
    assert [m.kind for m in found.memories] == ["commitment"]
