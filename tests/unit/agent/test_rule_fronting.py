"""A fact that does not start its clause, or whose "I" was dropped, is learnt as if said plainly.

Sentences are our own, written for these tests (never LoCoMo's, never the held-out half's).
"""

from __future__ import annotations

import pytest
from agent_svc.domain.extraction import TurnReflection, Utterance
from agent_svc.domain.rules.extractor import RuleExtractor
from agent_svc.domain.rules.fronting import fronted, implied_subject


async def _reflect(text: str, before: tuple[str, str] | None = None) -> TurnReflection:
    earlier = [Utterance(before[0], before[1])] if before else []
    return await RuleExtractor().reflect(Utterance("user", text), earlier)


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("Loud open-plan offices are my idea of hell.", "The user hates loud open-plan offices."),
        ("Reality TV is the worst.", "The user hates reality TV."),
        ("Mushrooms are a no for me.", "The user hates mushrooms."),
        ("Sea swimming is my thing.", "The user loves sea swimming."),
        ("Board games are my absolute favourite.", "The user loves board games."),
        ("Of all the cheeses, halloumi is my favourite.", "The user's favourite cheese is halloumi."),
        ("Garlic doesn't agree with me.", "The user can't tolerate garlic."),
        ("Peppers, they make me sick.", "The user can't tolerate peppers."),
    ],
)
async def test_a_preference_said_topic_first_is_learnt(text: str, memory: str) -> None:
    found = await _reflect(text)
    assert [m.content for m in found.memories] == [memory]
    assert len(found.claims) == 1


async def test_a_reference_to_what_the_sentence_opened_with_is_resolved() -> None:
    found = await _reflect("Prawns give me hives - I'm allergic to them.")
    assert [m.content for m in found.memories] == ["The user is allergic to prawns."]
    assert [c.slot for c in found.claims] == ["allergy:prawns"]


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("Graduated in history in 2011.", "The user graduated in history in 2011."),
        ("Just back from a week in Crete.", "The user is just back from a week in Crete."),
        ("doing an evening class in pottery", "The user is doing an evening class in pottery."),
        ("Booked a cabin in the Lake District for Easter.", "The user booked a cabin in the Lake District for Easter."),
    ],
)
async def test_a_clause_with_its_i_dropped_is_the_users(text: str, memory: str) -> None:
    assert [m.content for m in (await _reflect(text)).memories] == [memory]


@pytest.mark.parametrize(
    ("text", "name"),
    [("name is priya shah", "Priya Shah"), ("call me jo", "Jo"), ("Everyone knows me as Kit.", "Kit")],
)
async def test_a_name_in_lower_case_or_said_as_known_as_is_the_users_name(text: str, name: str) -> None:
    found = await _reflect(text)
    assert [(c.slot, c.summary) for c in found.claims] == [("name", f"The user's name is {name}.")]


async def test_a_second_clause_after_but_is_not_read_into_the_first() -> None:
    found = await _reflect("I prefer green tea in the morning, but Chidi drinks coffee.")
    assert [(c.slot, c.summary) for c in found.claims] == [("drink", "The user prefers green tea in the morning.")]


async def test_a_title_and_a_name_preferred_are_how_to_address_the_user() -> None:
    found = await _reflect("I prefer Professor Okafor at work, but Chidi is fine here.")
    assert [(c.slot, c.summary) for c in found.claims] == [("name", "The user's name is Professor Okafor.")]


@pytest.mark.parametrize(
    "text",
    [
        "This is the worst.",
        "That is my favourite.",
        "It is my idea of hell.",
        "call me back",
        "call me later, please",
        "Got to go.",
        "Your cooking is the worst.",
    ],
)
async def test_shapes_that_only_resemble_one_learn_nothing(text: str) -> None:
    found = await _reflect(text)
    assert found.claims == ()
    assert all("hates" not in m.content and "name" not in m.content for m in found.memories)


@pytest.mark.parametrize(
    "clause",
    ["I moved to York", "My sister moved to York", "We moved to York", "Moving is hard", "the cat got out"],
)
def test_a_clause_with_its_subject_is_left_as_it_was(clause: str) -> None:
    assert implied_subject(clause) == clause
    assert fronted(clause) == clause


async def test_a_date_of_birth_with_its_i_dropped_is_the_users_birthday() -> None:
    found = await _reflect("born 14/03/1979 btw")
    assert [(c.slot, c.summary) for c in found.claims] == [("birthday", "The user was born on 14/03/1979.")]


@pytest.mark.parametrize(
    ("question", "answer", "memory"),
    [
        ("Sorry, what's your name again?", "It's Oluwaseun Bello.", "Oluwaseun Bello"),
        ("When's your daughter's birthday?", "It's the 2nd of August.", "the 2nd of August"),
    ],
)
async def test_an_answer_that_says_its_to_a_question_for_a_name_or_date_is_kept(
    question: str, answer: str, memory: str
) -> None:
    found = await _reflect(answer, before=("assistant", question))
    assert [m.content for m in found.memories] == [f'Asked "{question}", the user answered: {memory}.']


async def test_an_its_answer_to_a_question_for_a_view_is_not_kept() -> None:
    found = await _reflect("It's a bit much.", before=("assistant", "What do you think of the menu I drafted?"))
    assert found.memories == ()


async def test_a_past_time_said_first_is_moved_after_the_users_words() -> None:
    found = await _reflect("Back in 2012 I taught English in Osaka.")
    assert [m.content for m in found.memories] == ["The user taught English in Osaka back in 2012."]


async def test_a_trip_said_as_we_is_the_households_plan_never_a_belief() -> None:
    found = await _reflect("We're flying to Madeira for the holidays.")
    assert [m.content for m in found.memories] == ["The user's household is flying to Madeira for the holidays."]
    assert found.claims == ()


async def test_a_diet_followed_is_the_users_diet() -> None:
    found = await _reflect("I follow a paleo diet.")
    assert [(c.slot, c.summary) for c in found.claims] == [("diet", "The user is paleo.")]


@pytest.mark.parametrize(
    ("text", "memory", "name"),
    [
        ("Priya's my closest friend.", "The user's friend is called Priya.", "Priya"),
        ("An old friend of mine, Tomasz, runs a bike shop.", "The user's friend Tomasz runs a bike shop.", "Tomasz"),
        ("Ingrid, a colleague from the lab, invited me to the gala.", None, "Ingrid"),
    ],
)
async def test_a_friend_named_before_or_beside_the_relation_is_the_users_friend(
    text: str, memory: str | None, name: str
) -> None:
    found = await _reflect(text)
    if memory:
        assert [m.content for m in found.memories] == [memory]
    assert [c.summary for c in found.claims] == [
        f"The user's {'colleague' if 'colleague' in text else 'friend'} is called {name}."
    ]


async def test_a_pet_we_named_is_the_users_pet() -> None:
    found = await _reflect("We named the puppy Biscuit.")
    assert [(c.slot, c.summary) for c in found.claims] == [("pet:puppy", "The user's puppy is called Biscuit.")]


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("We've got three goats and a donkey.", "The user's household has three goats and a donkey."),
        ("Every Sunday we have a roast.", "The user's household has a roast every Sunday."),
    ],
)
async def test_what_the_household_has_is_kept_as_a_memory(text: str, memory: str) -> None:
    found = await _reflect(text)
    assert [m.content for m in found.memories] == [memory]
    assert found.claims == ()


async def test_we_are_vegan_is_the_users_diet() -> None:
    found = await _reflect("We're vegan in this house.")
    assert [(c.slot, c.summary) for c in found.claims] == [("diet", "The user is vegan.")]


async def test_it_after_the_assistant_offered_something_is_what_was_offered() -> None:
    found = await _reflect("Honestly, I can't stand it.", before=("assistant", "Would you fancy bowling tonight?"))
    assert [m.content for m in found.memories] == ["The user can't stand bowling."]


async def test_that_after_a_verbless_question_is_what_was_asked_about() -> None:
    found = await _reflect("Olives on pizza? No way, I hate that.")
    assert [m.content for m in found.memories] == ["The user hates olives."]


@pytest.mark.parametrize(
    ("before", "text"),
    [
        ("Do you like the new logo?", "I hate it."),
        ("Do you want me to order it?", "I hate that."),
        ("What did you think?", "I love it."),
    ],
)
async def test_it_with_nothing_plain_to_stand_for_learns_nothing(before: str, text: str) -> None:
    found = await _reflect(text, before=("assistant", before))
    assert found.memories == ()
    assert found.claims == ()


async def test_home_said_as_a_place_is_where_the_user_lives() -> None:
    found = await _reflect("Home is a small town outside Leeds.")
    assert [(c.slot, c.summary) for c in found.claims] == [("home_city", "The user lives in Leeds.")]
    assert (await _reflect("Home is where the heart is.")).claims == ()


@pytest.mark.parametrize(
    "text",
    [
        "Cooking from scratch and eating slowly makes a real difference.",
        "Working from home would suit the whole team.",
        "Doing nothing on Sundays is underrated.",
    ],
)
async def test_an_ing_form_that_is_the_subject_is_not_the_users_doing(text: str) -> None:
    assert all("The user is" not in m.content for m in (await _reflect(text)).memories)


@pytest.mark.parametrize(
    "text",
    [
        "We have the patience to see it through.",
        "We've got good chemistry as a team.",
        "We have different tastes in music, but we share a flat.",
    ],
)
async def test_what_a_group_has_that_is_not_a_thing_owned_is_not_the_households(text: str) -> None:
    assert all("household" not in m.content for m in (await _reflect(text)).memories)


async def test_a_short_time_said_first_is_left_where_it_stands() -> None:
    found = await _reflect("Last year I ran a half marathon and loved it.")
    assert [m.content for m in found.memories] == ["Last year the user ran a half marathon."]


async def test_what_the_household_keeps_is_kept_unless_it_is_a_habit() -> None:
    found = await _reflect("We keep chickens behind the shed.")
    assert [m.content for m in found.memories] == ["The user's household keeps chickens behind the shed."]
    assert (await _reflect("We keep each other sane.")).memories == ()


async def test_a_cannot_after_a_dropped_i_does_not_make_the_ing_form_a_subject() -> None:
    found = await _reflect("off to crete next week, can't wait")
    assert [m.content for m in found.memories] == ["The user is off to Crete next week, can't wait."]
