"""The rules learn a fact whatever surrounds it, about whom it is, and only when it reads alone.

Sentences are our own (the paraphrase suite's tuning half and new ones), never LoCoMo's.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from agent_svc.domain.extraction import TurnReflection, Utterance
from agent_svc.domain.rules.extractor import RuleExtractor


async def _reflect(text: str, role: str = "user", before: tuple[str, str] | None = None) -> TurnReflection:
    earlier = [Utterance(before[0], before[1])] if before else []
    return await RuleExtractor().reflect(Utterance(role, text), earlier)


async def _contents(text: str, role: str = "user", before: tuple[str, str] | None = None) -> list[str]:
    return [memory.content for memory in (await _reflect(text, role, before)).memories]


@pytest.mark.parametrize(
    "text",
    [
        "I'm allergic to peanuts.",
        "Quick note: I'm really allergic to peanuts, so keep that in mind.",
        "just so u know im allergic to peanuts",
        "Fun fact: I'm severely allergic to peanuts, just so you know.",
        "Honestly, I'm allergic to peanuts, if that helps.",
    ],
)
async def test_an_allergy_is_learnt_the_same_whatever_surrounds_it(text: str) -> None:
    found = await _reflect(text)
    assert [m.content for m in found.memories] == ["The user is allergic to peanuts."]
    assert [(c.slot, c.summary) for c in found.claims] == [("allergy:peanuts", "The user is allergic to peanuts.")]


async def test_four_facts_said_in_one_breath_are_four_facts() -> None:
    found = await _reflect("I'm 41, I live in Leeds with my husband Tom, and I work as a pharmacist.")
    assert [m.content for m in found.memories] == [
        "The user is 41 years old.",
        "The user lives in Leeds.",
        "The user's husband is called Tom.",
        "The user works as a pharmacist.",
    ]
    assert [c.slot for c in found.claims] == ["age", "home_city", "family:husband", "job"]


async def test_a_partners_job_is_a_fact_about_the_partner_never_the_users() -> None:
    found = await _reflect("My wife is a dentist.")
    assert [m.content for m in found.memories] == ["The user's wife is a dentist."]
    assert [(c.kind, c.slot) for c in found.claims] == [("relationship_fact", "family:wife:job")]


async def test_a_second_clause_about_someone_just_named_is_about_them() -> None:
    found = await _contents("My wife is a doctor, and she runs a bakery in town.")
    assert found == ["The user's wife is a doctor.", "The user's wife runs a bakery in town."]


async def test_a_leading_pronoun_is_read_from_the_turn_before() -> None:
    said = ("user", "My husband is taking me out for dinner tonight.")
    found = await _reflect("His name is Felix.", before=said)
    assert [(c.slot, c.summary) for c in found.claims] == [("family:husband", "The user's husband is called Felix.")]
    asked = ("assistant", "How is your daughter getting on?")
    assert await _contents("She's a nurse now, at the General.", before=asked) == [
        "The user's daughter is a nurse now, at the General."
    ]


@pytest.mark.parametrize(
    "text",
    [
        "It made me even more sure that I want to foster a dog someday soon.",
        "I painted this after my first evening class at the community centre.",
        "She's a midwife.",  # nobody named before
        "They taught me how to stay calm when everything around me is loud.",
    ],
)
async def test_a_fact_leaning_on_a_referent_it_does_not_name_is_not_stored(text: str) -> None:
    assert await _contents(text) == []


async def test_only_the_clause_that_reads_alone_is_kept() -> None:
    found = await _contents("I went to a pottery class with my sister last weekend and loved it.")
    assert found == ["The user went to a pottery class with the user's sister last weekend."]


@pytest.mark.parametrize(
    "text",
    [
        "Ooh, I'll give it a try sometime.",
        "I believe in you.",
        "I'll take it slow with the suggestions then.",
        "I will always remember our chat about the lake!",
        "Good luck! I'll be thinking of you.",
    ],
)
async def test_the_assistants_small_talk_is_no_commitment(text: str) -> None:
    assert await _contents(text, role="assistant") == []


async def test_an_assistant_commitment_is_a_concrete_action_with_its_time() -> None:
    (memory,) = (await _reflect("I'll send you the packing list by Friday.", role="assistant")).memories
    assert (memory.kind, memory.owner, memory.deadline) == ("commitment", "assistant", "Friday")
    assert memory.content == "The assistant will send the user the packing list (by Friday)."


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("My brother lives in Oslo.", "home_city"),
        ("My wife works at Deloitte.", "employer"),
        ("My son is allergic to eggs.", "allergy:eggs"),
        ("My girlfriend is a software engineer at Monzo.", "job"),
        ("My husband is keto these days and it's driving me mad.", "diet"),
    ],
)
async def test_another_persons_fact_is_never_the_users_belief(text: str, refused: str) -> None:
    found = await _reflect(text)
    assert refused not in {c.slot for c in found.claims}
    assert not any(m.content.startswith(("The user is", "The user lives", "The user works")) for m in found.memories)


@pytest.mark.parametrize(
    "text",
    [
        "Yeah right, I'm a rocket scientist.",
        "I'm 150 years old in spirit.",
        "Ich wohne in München und arbeite bei Siemens.",
        "Mi hija se llama Carmen.",
        "This week I'm in Lisbon for work.",
        "If I ever get a dog, I'll name him Bowie.",
        "I wish I could speak Portuguese.",
        "Sure, I live on coffee and spite.",
        "Assuming I'm still in London next year, I'll renew the lease.",
        "'My name is Nobody' - I keep quoting that film at people.",
    ],
)
async def test_jokes_other_languages_temporary_states_and_wishes_are_no_standing_fact(text: str) -> None:
    found = await _reflect(text)
    assert found.claims == ()
    assert not any("lives in" in m.content or "years old" in m.content for m in found.memories)


async def test_a_temporary_state_is_kept_with_its_time_never_as_a_standing_fact() -> None:
    said_at = datetime(2026, 11, 24, 10, 0, tzinfo=UTC)
    found = await RuleExtractor().reflect(Utterance("user", "This week I'm in Lisbon for work.", said_at=said_at), [])
    assert [m.content for m in found.memories] == [
        "This week (the week of 23 November 2026) the user is in Lisbon for work."
    ]
    assert found.claims == ()


async def test_a_short_answer_is_kept_with_the_question_it_answers() -> None:
    found = await _contents("Madrid.", before=("assistant", "Which city do you live in?"))
    assert found == ['Asked "Which city do you live in?", the user answered: Madrid.']
    assert await _contents("Thanks!", before=("assistant", "Which city do you live in?")) == []


@pytest.mark.parametrize(
    ("text", "slot", "summary", "contradicts"),
    [
        ("It's Jo, not Joe.", "name", "The user's name is Jo.", False),
        ("No, my name is Ines, not Agnes.", "name", "The user's name is Ines.", False),
        ("I have three kids now.", "count:children", "The user has three children.", False),
        ("I now work at Globex.", "employer", "The user works at Globex.", False),
        ("I've started a new job at Initech as a designer.", "employer", "The user works at Initech.", False),
        ("I left Acme.", "employer", "The user no longer works at Acme.", True),
        ("Not anymore, I'm in Bristol now.", "home_city", "The user lives in Bristol.", False),
        ("Actually I live in Lyon now, not Paris.", "home_city", "The user lives in Lyon.", False),
    ],
)
async def test_a_change_is_a_claim_on_the_same_slot(text: str, slot: str, summary: str, contradicts: bool) -> None:
    claims = (await _reflect(text)).claims
    assert (claims[0].slot, claims[0].summary, claims[0].contradicts) == (slot, summary, contradicts)


@pytest.mark.parametrize(
    ("text", "learnt"),
    [
        ("I love fixing up my own bikes.", "The user loves fixing up their own bikes."),
        ("I really enjoy walking my dog before work.", "The user enjoys walking their dog before work."),
    ],
)
async def test_a_fact_about_the_user_keeps_no_my_of_the_words_it_was_made_from(text: str, learnt: str) -> None:
    found = await _reflect(text)
    assert [m.content for m in found.memories] == [learnt]
    assert all(" my " not in f" {c.summary} " for c in found.claims)


@pytest.mark.parametrize(
    "text",
    ["Right now I'm reading 'The Long Field' and loving it.", 'My favourite film is "Night Train" and I own it.'],
)
async def test_a_fact_whose_object_was_a_quoted_title_is_not_stored_without_it(text: str) -> None:
    assert await _contents(text) == []
