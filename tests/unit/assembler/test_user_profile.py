"""The user profile: built from the user's own beliefs and facts, in every context and as a read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.gathered import Belief, RecalledMemory, Scope
from assembler_svc.domain.model import DEFAULT_BUDGETS, AssemblyPolicy, Outcome, Section, Source
from assembler_svc.domain.profile import (
    DEFAULT_TOKENS,
    MEMORIES_FLOOR,
    Learnt,
    build_profile,
    core_lines,
    is_core,
    naming_listener,
    profile_policy,
    standing_alone,
    their,
    topic_of,
)
from assembler_svc.domain.render import title_line
from assembler_svc.usecases.assemble_context import AssembleInput, assemble_context
from assembler_svc.usecases.ports import AssemblyServices
from assembler_svc.usecases.user_profile import ProfileInput, user_profile
from lore_runtime import errors

from tests.fakes import FixedClock
from tests.fakes_assembler import FakeMemorySources, FakeObservationSources

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
USER = Scope(user_id="u-rhea", agent_id="ada")
OTHER = Scope(user_id="u-olek", agent_id="ada")
COUNTER = TiktokenCounter()


def fact(id_: str, content: str, memory_type: str = "fact", speaker: str = "user", days: int = 3) -> RecalledMemory:
    return RecalledMemory(
        id=id_,
        content=content,
        memory_type=memory_type,
        similarity=0.0,
        salience=0.8,
        importance=0.7,
        valid_at=NOW - timedelta(days=days),
        metadata={"speaker": speaker} if speaker else {},
    )


def services(memories: FakeMemorySources, beliefs: FakeObservationSources) -> AssemblyServices:
    return AssemblyServices(memories, beliefs, COUNTER, FixedClock(NOW))


def rhea() -> tuple[FakeMemorySources, FakeObservationSources]:
    memories = FakeMemorySources()
    memories.add_memory(fact("m-dog", "The user has a beagle called Pickle."), USER)
    memories.add_memory(fact("m-job", "The user works as a ferry engineer in Oban."), USER)
    memories.add_memory(fact("m-tea", "The user loves smoky lapsang tea.", "preference"), USER)
    memories.add_memory(fact("m-walk", "The user went for a walk on the pier."), USER)  # no core topic
    # The assistant's words, another user's facts and the org's shared ones are nobody's profile here.
    memories.add_memory(fact("m-kids", "The user has two kids who paint.", speaker="assistant"), USER)
    memories.add_memory(fact("m-olek", "The user lives in Gdansk.", "fact"), OTHER)
    memories.add_memory(fact("m-shared", "The user works at the harbour office."), Scope(agent_id="ada"))
    beliefs = FakeObservationSources()
    beliefs.add_belief(Belief("o-home", "The user lives in Oban", "world_fact", 0.9, 0.9, updated_at=NOW), USER)
    beliefs.add_belief(Belief("o-olek", "The user is vegan", "world_fact", 0.9, 0.9, updated_at=NOW), OTHER)
    # Shared (no user) but about this user: it belongs in the profile.
    beliefs.add_belief(
        Belief("o-allergy", "The user is allergic to peanuts", "world_fact", 0.8, 0.9, updated_at=NOW),
        Scope(agent_id="ada"),
        about="u-rhea",
    )
    # Shared and about nobody in particular: not the user's.
    beliefs.add_belief(Belief("o-office", "The office moved to Leith", "world_fact", 0.9, 0.9), Scope())
    return memories, beliefs


async def read(memories, beliefs, **values):
    return await user_profile(ProfileInput(USER, **values), services(memories, beliefs), timeout=0.5)


async def test_the_profile_holds_the_users_own_core_facts_only():
    profile = await read(*rhea())
    assert [(line.source_id, line.kind) for line in profile.lines] == [
        ("m-dog", "fact"),  # people and pets
        ("o-home", "belief"),  # home
        ("m-job", "fact"),  # work
        ("o-allergy", "belief"),  # diet and allergies
        ("m-tea", "preference"),  # likes
    ]
    assert profile.text.splitlines()[0] == title_line(Section.USER_PROFILE)
    assert "- The user has a beagle called Pickle." in profile.text.splitlines()
    assert profile.tokens == COUNTER.count(profile.text) <= profile.budget_tokens
    assert {"m-kids", "m-olek", "m-shared", "o-olek", "o-office", "m-walk"}.isdisjoint(profile.learnt_ids)


async def test_the_callers_lines_come_first_and_are_not_repeated():
    profile = await read(*rhea(), user_profile="Prefers to be called Rhe.\nLives in Oban.")
    texts = [line.text for line in profile.lines]
    assert texts[:2] == ["Prefers to be called Rhe.", "Lives in Oban."]
    assert "The user lives in Oban" not in texts  # the caller said it already
    assert profile.lines[0].kind == "caller" and profile.lines[0].confidence == 1.0


async def test_a_user_with_nothing_learnt_has_no_profile():
    memories, beliefs = rhea()
    profile = await user_profile(ProfileInput(Scope(user_id="u-new")), services(memories, beliefs), timeout=0.5)
    assert profile.lines == () and profile.text == "" and profile.tokens == 0


async def test_a_source_down_fails_the_read_instead_of_answering_a_part():
    memories, beliefs = rhea()
    beliefs.misbehave.fail.add("top_beliefs")
    with pytest.raises(errors.DependencyUnavailable):
        await read(memories, beliefs)


def learnt(count: int) -> list[Learnt]:
    pets = ["beagle", "collie", "tabby cat", "parrot", "pony", "hamster", "tortoise", "rabbit", "ferret", "goat"]
    places = ["Oban", "Perth", "Leith", "Ayr", "Troon", "Largs", "Crieff", "Elgin", "Nairn", "Wick"]
    found = []
    for index in range(count):
        found.append(Learnt(f"p-{index}", f"The user has a {pets[index % 10]} named Item{index}.", "fact", 0.9))
        home = f"The user once lived in {places[index % 10]} for {index + 2} years."
        found.append(Learnt(f"h-{index}", home, "fact", 0.5))
    return found


def test_the_budget_is_100_tokens_growing_with_what_is_known_up_to_the_maximum():
    small = build_profile("", learnt(1), COUNTER, max_tokens=300)
    assert small.budget_tokens == DEFAULT_TOKENS and len(small.lines) == 2
    big = build_profile("", learnt(30), COUNTER, max_tokens=300)
    assert big.budget_tokens == 300 and 250 < big.tokens <= 300
    capped = build_profile("", learnt(30), COUNTER, max_tokens=160)
    assert capped.budget_tokens == 160 and capped.tokens <= 160
    # Round-robin over topics: a full profile still holds both the pets and the homes.
    assert {line.topic for line in capped.lines} == {"people", "home"}


def test_only_core_topics_count():
    assert topic_of("The user is allergic to shellfish.") == "diet"
    assert topic_of("The user speaks Gaelic at home.") == "home"  # first topic that matches
    assert topic_of("The user wants to run a marathon next spring.") == "goals"
    assert topic_of("The user watched a film yesterday.") == ""
    assert topic_of("Something", "relationship_fact") == "people"


def test_a_dated_event_that_is_over_is_no_core_fact_but_a_plan_or_a_start_is():
    assert not is_core("The user went kayaking with the cousins last weekend.", "people")
    assert not is_core("Yesterday the user had a job interview at the bakery.", "work")
    assert not is_core("The user baked bread with the kids (3 June 2025).", "people")
    assert is_core("The user is going to visit the sister in Cork next month.", "people")
    assert is_core("The user started a new job at the library last month.", "work")
    assert is_core("The user has a daughter named Ivy.", "people")
    # The event is left to the memories section; the standing fact beside it is the profile's.
    found = [
        Learnt("e-trip", "Last Friday the user took the dog to the beach.", "fact", 0.9),
        Learnt("s-dog", "The user has a collie named Fern.", "fact", 0.8),
    ]
    assert [line.source_id for line in core_lines(found)] == ["s-dog"]


def test_a_goal_line_must_name_something_concrete():
    assert not is_core("The user's goal is to stay positive.", "goals")
    assert not is_core("The user's goal is to help others do the same.", "goals")
    assert not is_core("The user's aim is to keep reaching for new goals.", "goals")
    assert not is_core("The user has a few plans.", "goals")
    assert is_core("The user's goal is to open a bike repair shop.", "goals")
    assert is_core("The user's goal is to run the Dublin marathon.", "goals")
    assert is_core("The user plans to learn the cello.", "goals")
    # The concreteness test is on the goal, whichever topic the line came under.
    assert not is_core("The user's goal is to help the family be happy.", "people")


def test_a_line_said_to_the_listener_or_cut_apart_is_no_fact_about_the_user():
    assert not is_core("The user loves how you caught the light on the water.", "likes")
    assert not is_core("The user enjoys your day.", "likes")
    assert not is_core("The user loves and kindness should be for everyone.", "likes")
    assert is_core("The user loves sailing and kindness to strangers.", "likes")


def test_love_as_a_noun_and_like_as_as_are_no_cut_sentence_nor_reaction():
    assert is_core("The user's sisters have been great - their care and support carried the user.", "people")
    assert is_core("The user mentors a teen just like the user.", "work")


def test_something_shown_a_moment_judged_or_what_might_be_is_no_standing_fact():
    assert not is_core("The user has been busy painting - here's something the user just finished.", "likes")
    assert not is_core("The user did a watercolour too, take a look.", "likes")
    assert not is_core("Check out the user's pottery bowl in the pic.", "likes")
    assert not is_core("Seeing the user's kids so happy at the lake was the best.", "people")
    assert not is_core("The user could add a café corner to their bike shop.", "work")
    assert is_core("The user runs a bike shop in Leith.", "work")


def test_the_other_speaker_as_the_object_is_named_or_the_line_is_dropped():
    assert naming_listener("The user likes me.", "Sam") == "The user likes Sam."
    assert (
        naming_listener("The user is grateful to you for the lift.", "Sam")
        == "The user is grateful to Sam for the lift."
    )
    assert naming_listener("The user likes me.", "") == "The user likes me."
    assert not is_core("The user likes me.", "likes")
    assert not is_core("The user trusts you.", "people")
    learnt_lines = [
        Learnt("m-me", "The user likes me.", "fact", 0.9),
        Learnt("m-you", "The user's best friend is you.", "fact", 0.9),
        Learnt("m-dog", "The user has a dog called Pip.", "fact", 0.9),
    ]
    # Nobody named: the lines about "me" and "you" are no fact about the user.
    assert [line.source_id for line in core_lines(learnt_lines)] == ["m-dog"]
    named = {line.source_id: line.text for line in core_lines(learnt_lines, listener="Sam")}
    assert named == {"m-me": "The user likes Sam.", "m-you": "The user's best friend is Sam.", "m-dog": named["m-dog"]}
    profile = build_profile("", learnt_lines, COUNTER, listener="Sam")
    assert "- The user likes Sam." in profile.text.splitlines()
    assert " me." not in profile.text and " you." not in profile.text


def test_a_liking_of_one_thing_just_shown_is_a_reaction_not_a_standing_like():
    assert not is_core("The user loves the green and gold.", "likes")
    assert not is_core("The user likes that little boat in the picture.", "likes")
    assert not is_core("The user loves all the details.", "likes")
    assert is_core("The user loves sea kayaking.", "likes")


def test_what_no_longer_holds_is_no_standing_fact():
    assert not is_core("The user used to love playing the trumpet.", "likes")
    assert is_core("The user loves playing the trumpet.", "likes")


def test_into_and_passion_name_a_like_only_when_they_say_one():
    assert topic_of("The user is stepping into the unknown.") == ""
    assert topic_of("The user's passion for the meeting.") == ""
    assert topic_of("The user is really into bouldering.") == "likes"
    assert topic_of("The user is passionate about birdwatching.") == "likes"


def test_pastimes_a_shop_and_a_household_have_their_topics():
    assert topic_of("Sketching helps the user unwind; the user does pottery on Sundays.") == "likes"
    assert topic_of("The user opened an online bicycle shop.") == "work"
    assert topic_of("The user's household has a blast together.") == "people"


def test_a_line_stands_alone_without_the_turn_it_answered():
    answer = "Yup, the user does - Bramble, the user's tortoise."
    assert standing_alone(answer) == "The user does - Bramble, their tortoise."
    assert standing_alone("Priya, the user's family has been great.") == "The user's family has been great."
    assert standing_alone("Oh wow, the user has a new bike.") == "The user has a new bike."
    # A time said first is no name: it stays, and the event stays an event.
    assert standing_alone("Yesterday, the user went to the dentist.") == "Yesterday, the user went to the dentist."
    found = [Learnt("m-yup", "Yeah, the user has a cat called Miso.", "fact", 0.9)]
    assert [line.text for line in core_lines(found)] == ["The user has a cat called Miso."]


def test_the_user_is_named_once_then_their_and_them():
    assert their("The user lost the user's job at the mill.") == "The user lost their job at the mill."
    family = "The user's family motivates the user to keep going."
    assert their(family) == "The user's family motivates them to keep going."
    # The user as the subject of a clause of its own stays named.
    helped = "Rob helped the user move and the user is grateful."
    assert their(helped) == helped
    assert their("The user thinks of the user is here.") == "The user thinks of the user is here."


def test_the_profile_grows_into_the_memories_share_not_past_its_floor():
    profile = build_profile("", learnt(30), COUNTER, max_tokens=300)
    policy = profile_policy(AssemblyPolicy(), profile)
    assert policy.budgets[Section.USER_PROFILE] == DEFAULT_BUDGETS[Section.USER_PROFILE] + 100
    assert policy.budgets[Section.MEMORIES] == MEMORIES_FLOOR
    assert policy.budget_tokens == AssemblyPolicy().budget_tokens
    # A budget the caller set is kept as set.
    fixed = AssemblyPolicy().with_budgets({Section.USER_PROFILE: 40})
    assert profile_policy(fixed, profile) == fixed


async def test_the_context_leads_with_the_profile_right_after_the_persona():
    memories, beliefs = rhea()
    assembled = await assemble_context(
        AssembleInput(message="Any idea what Pickle would like for a walk?", scope=USER, persona="You are Ada."),
        services(memories, beliefs),
        timeout=0.5,
    )
    sections = assembled.assembly.sections
    assert [s.section for s in sections[:2]] == [Section.PERSONA, Section.USER_PROFILE]
    first = [title_line(Section.USER_PROFILE), "- The user has a beagle called Pickle."]
    assert sections[1].text.splitlines()[:2] == first
    kept = [(e.source, e.id) for e in assembled.assembly.manifest if e.outcome is Outcome.KEPT]
    # Recalled as well ("Pickle", "walk"), the fact is placed once, in the profile.
    assert kept.count((Source.MEMORY, "m-dog")) == 1
    placed = [item.id for section in sections for item in section.items]
    assert placed.count("m-dog") == 1
    assert "m-kids" not in placed and "The user has two kids" not in sections[1].text


async def test_a_context_for_a_user_with_nothing_learnt_has_no_profile_section():
    memories, beliefs = rhea()
    assembled = await assemble_context(
        AssembleInput(message="Hello there", scope=Scope(user_id="u-new", agent_id="ada")),
        services(memories, beliefs),
        timeout=0.5,
    )
    assert Section.USER_PROFILE not in [s.section for s in assembled.assembly.sections]


async def test_in_a_context_between_named_people_the_other_speaker_is_named_in_the_profile():
    memories = FakeMemorySources()
    memories.add_memory(fact("m-me", "The user loves hiking with me."), USER)
    sam = RecalledMemory(
        id="m-sam",
        content="Sam: I finished the canoe I was building, so proud of it.",
        memory_type="message",
        similarity=0.0,
        salience=0.5,
        importance=0.5,
        valid_at=NOW - timedelta(days=2),
        metadata={"role": "assistant"},
        speaker="Sam",
    )
    memories.add_memory(sam, USER)
    assembled = await assemble_context(
        AssembleInput(message="How is the canoe Sam was building?", scope=USER),
        services(memories, FakeObservationSources()),
        timeout=0.5,
    )
    profile = next(s for s in assembled.assembly.sections if s.section is Section.USER_PROFILE)
    assert "- The user loves hiking with Sam." in profile.text.splitlines()
