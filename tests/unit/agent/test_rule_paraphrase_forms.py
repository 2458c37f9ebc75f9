"""The same fact is learnt whatever form the user says it in: chat spelling, hedges, a dropped
subject, the thing said first, several facts in one breath, a name said with who uses it.

Sentences are our own (the paraphrase suite's tuning half and new ones), never LoCoMo's.
"""

from __future__ import annotations

import pytest
from agent_svc.domain.extraction import TurnReflection, Utterance
from agent_svc.domain.rules.extractor import RuleExtractor


async def _reflect(text: str) -> TurnReflection:
    return await RuleExtractor().reflect(Utterance("user", text), [])


@pytest.mark.parametrize(
    ("text", "content", "slot"),
    [
        # chat spelling and a possessive without its apostrophe
        ("i cant have dairy, it wrecks my stomach", "The user can't have dairy.", "no_dairy"),
        ("my husbands a chef at a hotel", "The user's husband is a chef at a hotel.", "family:husband:job"),
        (
            "my daughters birthday is march 14",
            "The user's daughter's birthday is march 14.",
            "family:daughter:birthday",
        ),
        ("Our anniversary's on the 18th of March.", "The user's wedding anniversary is 18th of March.", "anniversary"),
        # a hedge or a "how I know" lead before the fact
        (
            "I think I'm allergic to hazelnuts, I always get itchy after Nutella.",
            "The user is allergic to hazelnuts.",
            "allergy:hazelnuts",
        ),
        (
            "We found out last month that I'm allergic to dust mites.",
            "The user is allergic to dust mites.",
            "allergy:dust_mites",
        ),
        ("I guess you'd call me a flexitarian, mostly plant-based.", "The user is flexitarian.", "diet"),
        # the subject dropped
        ("Been a vegetarian for a decade now.", "The user is vegetarian.", "diet"),
        ("Went vegetarian after watching a documentary about farming.", "The user is vegetarian.", "diet"),
        ("Been in Valencia for three years now and I love it.", "The user lives in Valencia.", "home_city"),
        ("divorced, 2 kids, live alone", "The user is divorced.", "relationship_status"),
        # a name said with who uses it, or after the one the user does not go by
        ("I'd rather you called me Robbie.", "The user's name is Robbie.", "name"),
        ("Everyone at work calls me Benji and I prefer it.", "The user's name is Benji.", "name"),
        ("you can just call me by my nickname, Sully", "The user's name is Sully.", "name"),
        ("The name's Christopher but please use Kit.", "The user's name is Kit.", "name"),
        ("first name Tomasz, surname Kowalczyk", "The user's name is Tomasz Kowalczyk.", "name"),
        ("This is Henrik Larsson.", "The user's name is Henrik Larsson.", "name"),
        ("Hi! Siobhan Murphy here, first time using this.", "The user's name is Siobhan Murphy.", "name"),
        ("please refer to me as she/her", "The user's pronouns are she/her.", "pronouns"),
        ("As a nonbinary person I use xe/xem.", "The user's pronouns are xe/xem.", "pronouns"),
        # the thing said first
        ("Sesame is something I'm allergic to.", "The user is allergic to sesame.", "allergy:sesame"),
        ("Spiders terrify me, I hate them.", "The user hates spiders.", "spiders"),
        ("Nothing beats a good curry for me.", "The user loves a good curry.", "good_curry"),
        # a hedge takes its own clause only; a place written in lower case is still a place
        ("As a 31-year-old, I probably should know this already.", "The user is 31 years old.", "age"),
        ("me and the kids live in stockport", "The user lives in Stockport.", "home_city"),
        ("I'm a Geordie, grew up in Newcastle.", "The user is from Newcastle.", "hometown"),
        ("I have a twin brother, Callum.", "The user's brother is called Callum.", "family:brother"),
        ("I work in IT as a systems administrator.", "The user works as a systems administrator.", "job"),
        ("The best time to reach me is after 6pm.", "The user prefers to be contacted after 6pm.", "contact_time"),
        ("Mornings are the best time to call me.", "The user prefers to be contacted in the mornings.", "contact_time"),
        ("Strictly vegetarian, no fish either.", "The user is vegetarian.", "diet"),
        ("We're a vegan household.", "The user is vegan.", "diet"),
        ("Can't go near peanuts - anaphylactic allergy.", "The user is allergic to peanuts.", "allergy:peanuts"),
        ("Aged 45 and counting.", "The user is 45 years old.", "age"),
        ("As someone who's 70, technology is not my friend.", "The user is 70 years old.", "age"),
        ("Wedding anniversary: 16 October.", "The user's wedding anniversary is 16 October.", "anniversary"),
        ("Green tea is my favourite drink.", "The user's favourite drink is green tea.", "drink"),
        (
            "just flagging that cashews send me to a&e so no cashews in anything",
            "The user is allergic to cashews.",
            "allergy:cashews",
        ),
        (
            "When you plan meals remember I'm allergic to mustard.",
            "The user is allergic to mustard.",
            "allergy:mustard",
        ),
        ("For religious reasons I only eat halal.", "The user is halal.", "diet"),
        ("hey its Liz by the way not Elizabeth", "The user's name is Liz.", "name"),
        ("I prefer to go by Sasha.", "The user's name is Sasha.", "name"),
        ("My pronouns are he/him if you need them.", "The user's pronouns are he/him.", "pronouns"),
        ("It's my birthday on 19 September.", "The user's birthday is 19 September.", "birthday"),
        ("our dog buster is 10 now", "The user's dog Buster is 10.", "pet:dog"),
        ("I come from Belfast.", "The user is from Belfast.", "hometown"),
        (
            "I'm a student at the University of Manchester.",
            "The user is a student at University of Manchester.",
            "school",
        ),
        ("I prefer texts to calls.", "The user prefers to be contacted by text.", "contact_channel"),
        (
            "please don't call me during work hours",
            "The user does not want to be contacted during work hours.",
            "contact_time",
        ),
    ],
)
async def test_a_fact_is_learnt_in_the_form_it_is_said(text: str, content: str, slot: str) -> None:
    found = await _reflect(text)
    assert content in [m.content for m in found.memories]
    assert slot in [c.slot for c in found.claims]


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("Turns out I have high blood pressure, not sure if that's relevant.", "The user has high blood pressure."),
        ("Been dealing with chronic back pain for years.", "The user deals with chronic back pain."),
        ("Living with multiple sclerosis means I tire quickly.", "The user lives with multiple sclerosis."),
        ("on citalopram since january", "The user is on citalopram since january."),
        ("Love a good crossword.", "The user loves a good crossword."),
        ("Most weekends you will find me out birdwatching on the marshes.", "The user loves birdwatching."),
        ("Nothing with mushrooms, please - they make me sick.", "The user avoids mushrooms."),
        ("We've got flights booked to Bali for October.", "The user is flying to Bali for October."),
        ("we've booked a week in crete for june", "The user's household has booked a week in Crete for june."),
        ("Mum of two here, both under five.", "The user is a Mum of two."),
        ("mum lives with my sister in Perth", "The user's mother lives with the user's sister in Perth."),
        ("Our car is a Kia Sportage.", "The user's car is a Kia Sportage."),
        ("We live on a narrowboat.", "The user's household lives on a narrowboat."),
        ("On Sundays we always have a roast.", "The user's household has a roast on Sundays."),
        ("Currently learning French.", "The user is learning French."),
        ("Big fan of Thai food.", "The user likes Thai food."),
        ("Our family dog is a labrador.", "The user's dog is a labrador."),
        ("My doctor says I have sleep apnoea.", "The user has sleep apnoea."),
        ("please leave out coriander i can't stand the taste", "The user avoids coriander."),
        ("No red meat for me, doctor's orders.", "The user avoids red meat."),
        ("we're going to portugal in june", "The user's household is going to Portugal."),
        (
            "We're visiting family in Ireland at Christmas.",
            "The user's household is visiting family in Ireland at Christmas.",
        ),
        ("honestly i could eat italian food every day, love it", "The user loves italian food."),
    ],
)
async def test_a_fact_with_no_sure_slot_is_still_kept_as_a_memory(text: str, content: str) -> None:
    assert content in [m.content for m in (await _reflect(text)).memories]


async def test_four_facts_in_one_breath_with_a_status_after_a_comma() -> None:
    found = await _reflect("I'm 35, married with two kids, and we live in Sheffield.")
    assert [c.slot for c in found.claims] == ["age", "relationship_status", "home_city"]


async def test_a_partner_named_in_a_we_clause_is_still_named() -> None:
    found = await _reflect("My husband Oliver and I have been married since 2012.")
    assert ("family:husband", "The user's husband is called Oliver.") in [(c.slot, c.summary) for c in found.claims]


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("i live in student halls this year", "home_city"),  # a lower-case "place" that is a kind of home
        ("My cat, Luna, sleeps all day.", "family:cat"),  # a pet named in passing is a pet
        ("I guess you'd call me a flexitarian, mostly plant-based.", "job"),  # a diet said like a trade
        ("I'm a remote worker.", "job"),  # how the user works, not their trade
        ("Per my therapist, I'm a people pleaser.", "job"),  # a trait shaped like a trade
        ("I prefer texts to calls.", "texts"),  # a channel, on the contact slot
        ("my dog food is expensive", "pet:dog"),  # a lower-case word after "my dog" is no name when common
    ],
)
async def test_a_new_form_never_fills_the_wrong_slot(text: str, refused: str) -> None:
    assert refused not in [c.slot for c in (await _reflect(text)).claims]


@pytest.mark.parametrize(
    "text",
    [
        "If I ever move to Leeds, I'll get a dog.",
        "Maybe I'm allergic to cats, who knows.",
        "I might be vegetarian by next year.",
    ],
)
async def test_a_conditional_or_a_hedged_clause_is_no_fact(text: str) -> None:
    assert (await _reflect(text)).claims == ()


async def test_a_name_chosen_when_asked_for_one_is_the_name() -> None:
    asked = [Utterance("assistant", "What name do you prefer?")]
    found = await RuleExtractor().reflect(Utterance("user", "I prefer Jules."), asked)
    assert [(c.slot, c.summary) for c in found.claims] == [("name", "The user's name is Jules.")]


async def test_a_question_and_its_answer_name_a_favourite() -> None:
    found = await _reflect("Fave film? Jaws, every time.")
    assert "The user's favourite film is Jaws." in [m.content for m in found.memories]


@pytest.mark.parametrize(
    ("asked", "text", "content"),
    [
        (
            "Any injuries or conditions to plan around?",
            "Arthritis in both knees, sadly.",
            'Asked "Any injuries or conditions to plan around?", the user answered: Arthritis in both knees.',
        ),
        (
            "How was your trip?",
            "It was lovely, Sicily is gorgeous.",
            'Asked "How was your trip?", the user answered: the trip was lovely, Sicily is gorgeous.',
        ),
    ],
)
async def test_an_answer_to_the_assistants_question_is_kept_with_it(asked: str, text: str, content: str) -> None:
    found = await RuleExtractor().reflect(Utterance("user", text), [Utterance("assistant", asked)])
    assert [m.content for m in found.memories] == [content]


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("me and my gf mia are going hiking saturday", "The user's girlfriend is called Mia."),
        ("Cantonese at home, English at work.", "The user speaks Cantonese."),
        (
            "we did a road trip down the west coast of the us in may",
            "The user's household did a road trip down the west coast of the us in may.",
        ),
    ],
)
async def test_lower_case_chat_and_verbless_lists_still_say_a_fact(text: str, content: str) -> None:
    assert content in [m.content for m in (await _reflect(text)).memories]


@pytest.mark.parametrize(
    ("asked", "text", "content"),
    [
        (
            "Any food allergies I should know about?",
            "Tree nuts, and it's serious.",
            'Asked "Any food allergies I should know about?", the user answered: Tree nuts.',
        ),
        (
            "Do you have any siblings?",
            "One brother, he's older.",
            'Asked "Do you have any siblings?", the user answered: One brother.',
        ),
        (
            "How should I contact you?",
            "By email if possible, I rarely check texts.",
            'Asked "How should I contact you?", the user answered: By email, the user',
        ),
    ],
)
async def test_an_answer_keeps_what_reads_alone(asked: str, text: str, content: str) -> None:
    found = await RuleExtractor().reflect(Utterance("user", text), [Utterance("assistant", asked)])
    assert len(found.memories) == 1
    assert found.memories[0].content.startswith(content.rstrip("."))


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("Turns out the rash was hair dye - I'm allergic to it.", "The user is allergic to hair dye."),
        ("I inject insulin four times a day.", "The user takes insulin four times a day."),
        ("Please don't call me Katherine, Kate is fine.", "The user's name is Kate."),
        ("my husband works in IT", "The user's husband works in IT."),
        ("Please only text me.", "The user prefers to be contacted by text."),
        ("We've had dogs all my life and have a spaniel now.", "The user's household has a spaniel."),
    ],
)
async def test_more_forms_of_one_fact(text: str, content: str) -> None:
    assert content in [m.content for m in (await _reflect(text)).memories]


@pytest.mark.parametrize(
    ("text", "content"),
    [
        (
            "I break out in hives if I eat strawberries, so I'm allergic I guess.",
            "The user is allergic to strawberries.",
        ),
        ("Nuts are a no-go, I'm allergic.", "The user is allergic to nuts."),
        ("Caffeine keeps me up, so I avoid it after lunch.", "The user avoids caffeine after lunch."),
        ("Our household is fully vegan.", "The user is vegan."),
        ("My name is Oluwaseun Bello but call me Seun.", "The user's name is Oluwaseun Bello."),
        ("Please call me they/them.", "The user's pronouns are they/them."),
        ("As an Italian, I'm fussy about pasta.", "The user is Italian."),
        ("We have twin boys.", "The user's household has twin boys."),
        ("our parrot polly talks a lot", "The user's parrot Polly talks a lot."),
        ("We're in Cardiff.", "The user lives in Cardiff."),
        ("no car here, i get the train everywhere", "The user doesn't have a car."),
    ],
)
async def test_a_sixth_set_of_forms(text: str, content: str) -> None:
    assert content in [m.content for m in (await _reflect(text)).memories]


async def test_a_condition_that_opens_the_sentence_still_takes_every_clause() -> None:
    assert (await _reflect("If I ever move to Leeds, I'll get a dog.")).memories == ()


@pytest.mark.parametrize(
    "text",
    [
        "Enjoy the rest of your weekend!",  # an imperative, not the user's liking
        "Love and patience make a good teacher.",
        "Been a tough month, but things are looking up.",
        "Having a garden really lifts my mood.",
        "I'm certain if I practise daily, I'll pass the exam!",  # a condition governs the clause after it
        "We have a laugh together.",
    ],
)
async def test_conversation_that_only_looks_like_a_dropped_subject_gives_no_fact(text: str) -> None:
    assert (await _reflect(text)).memories == ()


async def test_its_as_a_possessive_stays_one() -> None:
    found = await _reflect("My faith in the plan and its chances keep me going.")
    assert not any("it's" in m.content for m in found.memories)
