"""One fact, many wordings: each kind is read from its usual words (``lexicon.py``, the canonical
shapes of ``fronting.py``), and a near miss — someone else's fact, a word that only looks like one —
learns nothing of the user's.

Sentences are our own, written for these tests (never LoCoMo's, never the held-out half's).
"""

from __future__ import annotations

import pytest
from agent_svc.domain.extraction import TurnReflection, Utterance
from agent_svc.domain.rules.extractor import RuleExtractor
from agent_svc.domain.rules.fronting import canonical, we_said
from agent_svc.domain.rules.lexicon import number_value


async def _reflect(text: str, before: tuple[str, str] | None = None) -> TurnReflection:
    earlier = [Utterance(before[0], before[1])] if before else []
    return await RuleExtractor().reflect(Utterance("user", text), earlier)


def _slots(found: TurnReflection) -> list[tuple[str, str]]:
    return [(c.slot, c.summary) for c in found.claims]


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("I've got a severe shellfish allergy.", "allergy:shellfish", "shellfish"),
        ("Penicillin allergy here.", "allergy:penicillin", "penicillin"),
        ("Allergic to latex, just so you know.", "allergy:latex", "latex"),
        ("I'm deathly allergic to bee stings.", "allergy:bee_stings", "bee stings"),
        ("Sesame is my big allergy.", "allergy:sesame", "sesame"),
        ("Kiwi gives me hives.", "allergy:kiwi", "kiwi"),
        ("I have an allergy to tree nuts.", "allergy:tree_nuts", "tree nuts"),
        ("I always carry an EpiPen because of my wasp allergy.", "allergy:wasp", "wasp"),
    ],
)
async def test_an_allergy_is_learnt_whatever_words_say_it(text: str, slot: str, value: str) -> None:
    assert (slot, f"The user is allergic to {value}.") in _slots(await _reflect(text))


@pytest.mark.parametrize(
    "text",
    [
        "My son is allergic to eggs.",
        "My sister has a peanut allergy.",
        "My husband's sesame allergy is serious.",
        "Shellfish gives my brother hives.",
        "I don't have a nut allergy.",
        "Is a latex allergy common?",
    ],
)
async def test_someone_elses_allergy_or_a_denied_one_is_never_the_users(text: str) -> None:
    found = await _reflect(text)
    assert not any(c.slot.startswith("allergy") for c in found.claims)
    assert not any(m.content.startswith("The user is allergic") for m in found.memories)


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("I stay away from dairy.", "The user avoids dairy."),
        ("I never touch alcohol.", "The user avoids alcohol."),
        ("No caffeine after noon for me.", "The user avoids caffeine after noon."),
        ("No pork for me, please.", "The user avoids pork."),
        ("Red meat makes me feel awful.", "The user can't tolerate red meat."),
        ("Garlic doesn't sit well with me.", "The user can't tolerate garlic."),
        ("I'm gluten intolerant, not coeliac.", "The user can't tolerate gluten."),
    ],
)
async def test_a_food_kept_off_is_learnt_from_its_usual_words(text: str, memory: str) -> None:
    assert memory in [m.content for m in (await _reflect(text)).memories]


async def test_an_avoided_food_is_no_belief_and_no_problem_is_no_food() -> None:
    assert (await _reflect("I steer clear of fried food.")).claims == ()
    for text in ("No problem for me.", "No worries for me, thanks.", "My daughter avoids gluten."):
        assert not any(
            "avoids" in m.content and m.content.startswith("The user avoids") for m in (await _reflect(text)).memories
        )


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Everyone calls me Kat.", "Kat"),
        ("Please just call me Mo.", "Mo"),
        ("I go by Sam.", "Sam"),
        ("I prefer to be called Ben.", "Ben"),
        ("Jim is what my friends call me.", "Jim"),
        ("It's Pip to my friends.", "Pip"),
        ("My nickname is Skip.", "Skip"),
        ("I prefer Nick to Nicholas.", "Nick"),
        ("It's Doug, nobody calls me Douglas.", "Doug"),
        ("Hi, I'm Sasha.", "Sasha"),
        ("Hi, I'm Rosa Diaz, nice to meet you.", "Rosa Diaz"),
    ],
)
async def test_the_name_the_user_goes_by_is_learnt_from_its_usual_words(text: str, name: str) -> None:
    assert ("name", f"The user's name is {name}.") in _slots(await _reflect(text))


@pytest.mark.parametrize(
    "text",
    ["Everyone calls me lazy.", "Hi, I'm back.", "Hi, I'm Bored.", "I'm Jewish.", "I prefer Python to Java.",
     "My boss calls me Bob."],
)  # fmt: skip
async def test_a_word_that_only_looks_like_a_name_is_no_name(text: str) -> None:
    assert not any(c.slot == "name" for c in (await _reflect(text)).claims)


@pytest.mark.parametrize(
    ("text", "slot", "summary"),
    [
        ("Noodle is my cat.", "pet:cat", "The user's cat is called Noodle."),
        ("Meet Rosie, my jack russell.", "pet:jack_russell", "The user's jack russell is called Rosie."),
        ("Juno, my greyhound, hates the rain.", "pet:greyhound", "The user's greyhound is called Juno."),
        ("Our dog Pepper loves the beach.", "pet:dog", "The user's dog is called Pepper."),
        ("We adopted a rescue cat named Olive.", "pet:cat", "The user has a rescue cat called Olive."),
        ("We got a puppy and named him Toby.", "pet:puppy", "The user has a puppy called Toby."),
        ("Our baby girl is named Aria.", "family:daughter", "The user's daughter is called Aria."),
        ("I have a son, Ezra.", "family:son", "The user's son is called Ezra."),
        ("Chris is my husband.", "family:husband", "The user's husband is called Chris."),
        ("I live with my partner, Jo.", "family:partner", "The user's partner is called Jo."),
    ],
)
async def test_who_is_whose_is_learnt_from_appositions_and_inversions(text: str, slot: str, summary: str) -> None:
    assert (slot, summary) in _slots(await _reflect(text))


@pytest.mark.parametrize(
    "text", ["My friend's dog Pepper loves the beach.", "My dog's vet is called Rex.", "This is my dog."]
)
async def test_someone_elses_pet_or_a_pet_without_a_name_names_no_pet_of_the_users(text: str) -> None:
    assert not any(c.slot.startswith("pet") for c in (await _reflect(text)).claims)


async def test_children_named_together_are_one_memory() -> None:
    found = await _reflect("Our kids are called Finn and Rosie.")
    assert [m.content for m in found.memories] == ["The user's children are called Finn and Rosie."]


@pytest.mark.parametrize(
    ("text", "age"),
    [("I'm thirty-two.", "32"), ("Age 29, if that matters.", "29"), ("Being 24 and burnt out is no fun.", "24"),
     ("As a 37-year-old I should know better.", "37"), ("I'm a 50-year-old accountant.", "50")],
)  # fmt: skip
async def test_an_age_in_words_or_as_an_adjective_is_learnt(text: str, age: str) -> None:
    assert ("age", f"The user is {age} years old.") in _slots(await _reflect(text))


@pytest.mark.parametrize("text", ["I'm one of five kids.", "I'm a 5-star reviewer.", "My friend Tom is 32."])
async def test_a_number_that_is_no_age_of_the_users_gives_no_age(text: str) -> None:
    assert not any(c.slot == "age" for c in (await _reflect(text)).claims)


@pytest.mark.parametrize(
    ("text", "channel"),
    [
        ("Email is best for me.", "email"),
        ("The best way to reach me is WhatsApp.", "WhatsApp"),
        ("You can reach me by text any time.", "text"),
        ("Voice notes are easier for me than long emails.", "voice notes"),
    ],
)
async def test_how_to_reach_the_user_is_learnt_from_its_usual_words(text: str, channel: str) -> None:
    assert ("contact_channel", f"The user prefers to be contacted by {channel}.") in _slots(await _reflect(text))


async def test_a_channel_best_for_someone_else_is_not_the_users() -> None:
    assert not any(
        c.slot.startswith("contact") for c in (await _reflect("Text is better than calls for my mum.")).claims
    )


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("I call Melbourne home.", "home_city", "Melbourne"),
        ("We're based in Austin.", "home_city", "Austin"),
        ("I'm a Londoner.", "home_city", "London"),
        ("I'm from Glasgow but live in Edinburgh now.", "home_city", "Edinburgh"),
        ("We left the city and now live in a village near York.", "home_city", "York"),
        ("We settled in Valencia last year.", "home_city", "Valencia"),
        ("originally a Leeds lass", "hometown", "Leeds"),
        ("I hold a Spanish passport.", "nationality", "Spanish"),
    ],
)
async def test_where_the_user_lives_or_comes_from_is_learnt_from_its_usual_words(
    text: str, slot: str, value: str
) -> None:
    assert any(c.slot == slot and value in c.summary for c in (await _reflect(text)).claims)


async def test_someone_else_moving_is_not_the_users_move() -> None:
    for text in ("My sister and her husband moved to Leeds.", "My sister moved to Leeds last year."):
        assert not any(c.slot == "home_city" for c in (await _reflect(text)).claims)


@pytest.mark.parametrize(
    ("text", "slot", "summary"),
    [
        ("I turn 30 on 11 December.", "birthday", "The user's birthday is 11 December."),
        ("Mum's birthday is on the 9th of May.", "family:mother:birthday",
         "The user's mother's birthday is 9th of May."),
        ("Grandma turns ninety on 5 May.", "family:grandma:birthday", "The user's grandma's birthday is 5 May."),
        ("We tied the knot on 1 September.", "anniversary", "The user got married on 1 September."),
        ("My wife and I married on 12 September 2015.", "anniversary", "The user got married on 12 September 2015."),
        ("Our wedding was on 30 July.", "anniversary", "The user's wedding anniversary is 30 July."),
    ],
)  # fmt: skip
async def test_a_date_is_learnt_from_its_usual_words(text: str, slot: str, summary: str) -> None:
    assert (slot, summary) in _slots(await _reflect(text))


async def test_someone_elses_wedding_or_a_named_childs_birthday_is_not_the_users_date() -> None:
    for text in ("My brother's wedding was on 3 May.", "Tom turns seven on 22 May."):
        assert not any(c.slot in ("anniversary", "birthday") for c in (await _reflect(text)).claims)


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("Last month we were in Venice.", "The user's household was in Venice last month."),
        ("We spent two weeks in Thailand in March.", "The user's household spent two weeks in Thailand in March."),
        ("I flew to Boston for work in October.", "The user flew to Boston for work in October."),
        ("We're going on holiday to Portugal in July.",
         "The user's household is going on holiday to Portugal in July."),
        ("I leave for Mexico on Saturday.", "The user leaves for Mexico on Saturday."),
    ],
)  # fmt: skip
async def test_a_trip_is_kept_as_said_and_never_a_belief(text: str, memory: str) -> None:
    found = await _reflect(text)
    assert memory in [m.content for m in found.memories]
    assert found.claims == ()


async def test_a_meal_out_or_a_meeting_is_no_trip() -> None:
    for text in ("We had lunch in Soho.", "We were in a meeting all day."):
        assert not any("household" in m.content for m in (await _reflect(text)).memories)


@pytest.mark.parametrize(
    ("text", "slot"),
    [("Please use he/him for me.", "pronouns"), ("she/they", "pronouns"),
     ("I'm nonbinary and go by they/them.", "pronouns")],
)  # fmt: skip
async def test_pronouns_are_learnt_however_asked_for(text: str, slot: str) -> None:
    assert any(c.slot == slot for c in (await _reflect(text)).claims)


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("The Beatles are my favourite band.", "The user's favourite band is The Beatles."),
        ("My favourite season has to be autumn.", "The user's favourite season is autumn."),
    ],
)
async def test_a_favourite_said_thing_first_or_with_a_hedge_is_learnt(text: str, summary: str) -> None:
    assert summary in [c.summary for c in (await _reflect(text)).claims]


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("Mayonnaise is disgusting.", "The user hates mayonnaise."),
        ("Nothing annoys me more than slow walkers.", "The user hates slow walkers."),
        ("Coriander tastes like soap to me, I hate it.", "The user hates coriander."),
    ],
)
async def test_a_strong_dislike_said_of_the_thing_is_learnt(text: str, memory: str) -> None:
    assert memory in [m.content for m in (await _reflect(text)).memories]


def test_the_user_among_others_is_said_as_we() -> None:
    assert we_said("My wife and I got married in June") == "we got married in June"
    assert we_said("Priya and I share a flat") == "we share a flat"
    assert we_said("My wife and her sister share a flat") == "My wife and her sister share a flat"


def test_a_wording_no_shape_fits_is_left_alone() -> None:
    for clause in (
        "I moved to York",
        "As a reminder, the meeting is at 5",
        "No problem for me",
        "Being a parent is hard",
    ):
        assert canonical(clause) == ""


@pytest.mark.parametrize(
    ("said", "value"), [("32", 32), ("thirty-two", 32), ("forty", 40), ("seven", 7), ("lots", None)]
)
def test_numbers_in_words_are_read(said: str, value: int | None) -> None:
    assert number_value(said) == value


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("I'm asthmatic.", "The user is asthmatic."),
        ("I'm self-employed.", "The user is self-employed."),
        ("I suffer from migraines.", "The user suffers from migraines."),
        ("I live with chronic back pain.", "The user lives with chronic back pain."),
        ("I knit.", "The user knits."),
        ("On Fridays we order takeaway.", "The user's household orders takeaway on Fridays."),
        ("There's a corn snake in my son's room.", "The user's household has a corn snake."),
        ("Our house is a Victorian terrace.", "The user's home is a Victorian terrace."),
        ("I have two cats, Tom and Jerry.", "The user has two cats, Tom and Jerry."),
    ],
)
async def test_what_the_user_is_does_or_keeps_is_kept_as_a_memory(text: str, memory: str) -> None:
    found = await _reflect(text)
    assert memory in [m.content for m in found.memories]


@pytest.mark.parametrize(
    "text",
    ["My sister is asthmatic.", "My dad suffers from migraines.", "My mum lives with arthritis.", "I'm asthmatic?"],
)
async def test_someone_elses_condition_is_not_the_users(text: str) -> None:
    found = await _reflect(text)
    assert not any(m.content.startswith(("The user is asthmatic", "The user suffers", "The user lives with"))
                   for m in found.memories)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("I've been living in Dublin for five years.", "home_city", "Dublin"),
        ("Since January I've been living in Seville.", "home_city", "Seville"),
        ("I'm currently working at Initech.", "employer", "Initech"),
        ("My husband and I split up last year.", "relationship_status", "separated"),
    ],
)
async def test_tense_and_aspect_do_not_change_the_fact(text: str, slot: str, value: str) -> None:
    assert any(c.slot == slot and value in c.summary for c in (await _reflect(text)).claims)


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("Feel free to call me Dan.", "name", "Dan"),
        ("I go by my middle name, James.", "name", "James"),
        ("Elizabeth, but Beth for short.", "name", "Beth"),
        ("We call our dog Rex.", "pet:dog", "Rex"),
        ("Say hi to Biscuit, my spaniel.", "pet:spaniel", "Biscuit"),
        ("My cat's called Mittens.", "pet:cat", "Mittens"),
        ("My kids, Ella and Sam, love the park.", "", "Ella and Sam"),
        ("My age is 52.", "age", "52"),
        ("I carry an EpiPen for bee stings.", "allergy:bee_stings", "bee stings"),
        ("I'm easiest to reach by email.", "contact_channel", "email"),
        ("I'm a Leeds resident.", "home_city", "Leeds"),
        ("I swapped London for Bristol last year.", "home_city", "Bristol"),
        ("It's our anniversary on Friday.", "anniversary", "Friday"),
        ("3 May is my birthday.", "birthday", "3 May"),
        ("Dad's 60th is on 3 May.", "family:father:birthday", "3 May"),
        ("I'm a proud Scot.", "nationality", "Scottish"),
        ("I keep kosher.", "diet", "kosher"),
    ],
)
async def test_more_wordings_of_a_fact_are_read(text: str, slot: str, value: str) -> None:
    found = await _reflect(text)
    if slot:
        assert any(c.slot == slot and value in c.summary for c in found.claims), _slots(found)
    else:
        assert any(value in m.content for m in found.memories)


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("I try not to eat sugar.", "The user avoids sugar."),
        ("Anything with pork in it is off-limits.", "The user avoids pork."),
        ("I'll eat anything except olives.", "The user doesn't eat olives."),
        ("Queues get on my nerves.", "The user hates queues."),
        ("I've never liked cricket.", "The user dislikes cricket."),
        ("I have a soft spot for old musicals.", "The user likes old musicals."),
        ("Running keeps me sane.", "The user loves running."),
    ],
)
async def test_more_wordings_of_a_taste_are_read(text: str, memory: str) -> None:
    assert memory in [m.content for m in (await _reflect(text)).memories]


@pytest.mark.parametrize(
    ("text", "forbidden"),
    [
        ("Peanuts are dangerous for my son.", "The user is allergic"),
        ("I don't have children.", "avoids"),
        ("I never have time to cook.", "avoids"),
        ("I'm owned by my bank.", "household"),
        ("Just hit 30 reps at the gym.", "years old"),
        ("My mum's dog's called Bess.", "The user's dog"),
        ("If I eat gluten, I might get sick.", "The user"),
    ],
)
async def test_a_near_miss_of_the_new_wordings_learns_nothing_of_the_users(text: str, forbidden: str) -> None:
    assert not any(forbidden in m.content for m in (await _reflect(text)).memories)


async def test_a_date_in_may_is_no_hedge() -> None:
    assert (await _reflect("3 May is my birthday.")).claims
    assert not (await _reflect("I may move to Leeds.")).memories


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("Home town? Hobart, Tasmania.", "hometown", "Hobart"),
        ("Best film ever made? The Godfather, easily.", "favourite_film", "The Godfather"),
        ("Favourite colour? Green.", "favourite_colour", "Green"),
        ("Could you stick to they/them pronouns when you talk about me?", "pronouns", "they/them"),
        ("pls call me nat, natalie feels too formal", "name", "Nat"),
        ("They call me Sunny but my actual name is Sunita Rao.", "name", "Sunita Rao"),
        ("I'm half Italian, half Japanese.", "nationality", "Japanese"),
        ("My birthday falls on Bonfire Night, the fifth of November.", "birthday", "fifth of November"),
    ],
)
async def test_a_question_the_user_answers_and_a_qualified_name_are_read(text: str, slot: str, value: str) -> None:
    found = await _reflect(text)
    assert any(c.slot == slot and value in c.summary for c in found.claims), _slots(found)


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("our kids are called finn and rosie", "The user's children are called Finn and Rosie."),
        ("I've got a stepson who lives with us half the week.", "The user has a stepson."),
        ("I job-share, so I only work Thursdays and Fridays.", "The user works Thursdays and Fridays."),
        ("We're in a long-distance relationship at the moment.",
         "The user is in a long-distance relationship at the moment."),
        ("The doctor has me on omeprazole for reflux.", "The user takes omeprazole for reflux."),
        ("My girlfriend runs her own law firm.", "The user's girlfriend runs their own law firm."),
        ("Leo turns seven on 22 May.", "Leo's birthday is 22 May."),
    ],
)  # fmt: skip
async def test_more_of_what_the_user_says_of_their_life_is_kept(text: str, memory: str) -> None:
    assert memory in [m.content for m in (await _reflect(text)).memories]


@pytest.mark.parametrize(
    "text",
    ["Could you use she/her for my sister?", "What? No.", "Job? Not sure.", "My birthday is coming up.",
     "My friend feels that I'm vegan."],
)  # fmt: skip
async def test_a_question_about_someone_else_or_no_answer_gives_no_belief(text: str) -> None:
    found = await _reflect(text)
    assert not any(c.slot in ("pronouns", "job", "birthday", "diet") for c in found.claims)


@pytest.mark.parametrize(
    "text", ["No more for me, thanks.", "No plans for me this weekend.", "The doctor has me on a waiting list."]
)
async def test_what_only_looks_like_a_food_or_a_drug_is_none(text: str) -> None:
    assert not any(m.content.startswith(("The user avoids", "The user takes")) for m in (await _reflect(text)).memories)


@pytest.mark.parametrize("text", ["My fiancé Tom is a chef.", "Tom, my fiancé, cooks.", "My fiancée is called Rosa."])
async def test_an_accented_relation_keeps_its_slot_in_the_slot_alphabet(text: str) -> None:
    slots = [c.slot for c in (await _reflect(text)).claims]
    assert slots and all(slot.isascii() and slot.startswith("family:fianc") for slot in slots)
    assert all(slot in ("family:fiance", "family:fiancee") for slot in slots)
