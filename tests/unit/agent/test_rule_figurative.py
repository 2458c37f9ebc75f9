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
    "My favourite pastime is misplacing my keys.",
    "My cardio is chasing the bus every morning.",
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
    ("My main hobby is running marathons.", "marathons"),
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


NOT_MEANT = [
    # taken back, winked at
    "I'm a secret agent, jk.",
    "I work at NASA /s",
    "I'm a morning person. Not.",
    "I'm a vegan 🙃",
    "I'm a vegan. 😜",
    "I'm a pilot, just kidding lol",
    # a claim no one makes in earnest
    "I'm a billionaire lol",
    "I'm basically royalty.",
    "I'm the CEO of naps.",
    "I'm the queen of bad decisions.",
    "I have a PhD in overthinking.",
    "My kids call me the worst cook in the world.",
    "I'm the world's okayest runner.",
    "I'm 29 again this year.",
    "I've been 39 for ten years now.",
    "Danger is my middle name.",
    "My blood type is coffee.",
    "I live in a castle 😂",
    "I speak fluent cat.",
    "I just love it when my train is cancelled.",
    "Oh yeah, I totally love doing my taxes.",
    "I'm a part-time superhero.",
    "My phone is basically my boss.",
    "My houseplants are my children.",
    "My superpower is napping.",
    "My spirit animal is a sloth.",
    "I have the memory of a goldfish.",
    "I'm a morning person, said no one ever.",
    "As if I'd ever run a marathon.",
    # someone else's words
    "My brother keeps saying I'm allergic to work.",
    "My mum is convinced I'm vegetarian.",
    "My mum's convinced I'm a genius.",
    "My sister swears I'm adopted.",
    "My dad always jokes that I'm the milkman's son.",
    "My friend insists I work too much at the bank.",
    "She was like, I'm moving to Oslo.",
    '"I\'m vegan," my flatmate announced.',
    "My sister texted me that I'm the favourite.",
    "Per my horoscope, I'm a natural leader.",
    "I heard I'm getting promoted to manager.",
    "I was told I'm allergic to penicillin, but the test was negative.",
    "I dreamt I was a pilot in Rome.",
    # supposed or asked without the usual marks
    "In another life I'm a chef in Paris.",
    "In my dreams I live in a beach house in Bali.",
    "In a perfect world I'd work four days a week.",
    "Were I to move to Spain, I'd learn Spanish.",
    "Had I stayed in Leeds, I'd be a teacher now.",
    "Let's say I'm vegan.",
    "No idea whether I'm lactose intolerant.",
    "Remind me whether I'm allergic to shellfish.",
    "Guess where I live",
    "I'm vegetarian, aren't I",
    "I live in Leeds, right.",
    "You think I'm a vegetarian",
    "In the panto this year I'm a pirate captain.",
    "In my novel, I live in a lighthouse in Cornwall.",
]


@pytest.mark.parametrize("said", NOT_MEANT)
async def test_a_sentence_taken_back_reported_supposed_or_asked_stores_no_fact(said) -> None:
    found = await reflect(said)
    assert found.memories == ()
    assert [c.slot for c in found.claims if c.subject_id == ""] == []


async def test_words_taking_back_the_sentence_before_leave_what_follows_them() -> None:
    found = await reflect("I'm a professional footballer. jk, I'm a nurse.")
    assert [m.content for m in found.memories] == ["The user is a nurse."]


MEANT = [
    ("I'm allergic to peanuts lol", "allergic to peanuts"),
    ("I'm a nurse haha", "nurse"),
    ("I have a dog lol, his name is Rufus.", "Rufus"),
    ("My wife writes novels.", "writes novels"),
    ("I'm a drag queen.", "drag queen"),
    ("My middle name is Rhys.", "Rhys"),
    ("I'm doing a PhD in biology.", "PhD in biology"),
    ("I'm the head of marketing at Acme.", "head of marketing"),
    ("I heard back from Google and I got the job.", "Google"),
    ("I absolutely love hiking.", "hiking"),
    ("I really love Mondays at the climbing wall.", "climbing wall"),
    ("I'm not really into sports.", "not really into sports"),
    ("I'm the fastest runner in my club.", "fastest runner"),
    ("I'm 29.", "29"),
    ("My favourite film is Alien.", "Alien"),
    ("Per my doctor, I have asthma.", "asthma"),
    ("I'm a retired nurse.", "retired nurse"),
    ("I'm a natural blonde.", "natural blonde"),
    ("I'm a real estate agent.", "real estate agent"),
    ("My house is 150 years old.", "150 years old"),
    ("I'm in the school play this spring.", "school play"),
    ("In my book club I'm the only vegetarian.", "vegetarian"),
]


@pytest.mark.parametrize(("said", "kept"), MEANT)
async def test_laughter_alone_and_the_shapes_jokes_resemble_keep_the_fact(said, kept) -> None:
    found = await reflect(said)
    assert any(kept in memory.content for memory in found.memories)
