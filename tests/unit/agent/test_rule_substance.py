"""Small talk is not stored: feelings, resolve, cheers, fragments and promises about the chat itself
say nothing about the user a later conversation could use; the same shapes with something in them
are kept. Sentences of our own (the LoCoMo data is for measuring only)."""

from __future__ import annotations

import pytest
from agent_svc.domain.extraction import Utterance
from agent_svc.domain.rules.extractor import RuleExtractor


async def stored(said: str, role: str = "user", before: tuple[Utterance, ...] = ()) -> list[str]:
    found = await RuleExtractor().reflect(Utterance(role, said, "t-1"), list(before))
    return [memory.content for memory in found.memories]


SMALL_TALK = [
    "I'm so grateful!",
    "I'm super thankful and kinda nervous too.",
    "I won't give up.",
    "I'm not giving up, no matter what.",
    "I'm gonna keep going, whatever happens.",
    "I definitely will.",
    "I couldn't agree more.",
    "I'm hoping so.",
    "I'll keep you posted.",
    "I'll send you a pic.",
    "I'll always be there for you.",
    "Let's keep going and never stop dreaming!",
    "Let's keep cheering each other on and making our town better.",
    "Since I was about nine or so.",
    "For always having my back.",
    "Reminds me how lucky I am.",
    "Makes me feel at home.",
    "Here's one I painted last spring.",
]


@pytest.mark.parametrize("said", SMALL_TALK)
async def test_feelings_resolve_cheers_and_fragments_store_nothing(said) -> None:
    assert await stored(said) == []


SAYS_SOMETHING = [
    ("I'm grateful to my aunt for teaching me to sail.", "sail"),
    ("I won't give up on my pilot's licence.", "pilot"),
    ("I'm 41.", "41"),
    ("I'll send you the draft by Friday.", "draft"),
    ("Let's go with Postgres.", "Postgres"),
    ("As a kid, I lived in Seoul for three years.", "Seoul"),
    ("Since my early thirties I've had migraines.", "migraines"),
    ("Since 2019 I've lived in Leeds.", "Leeds"),
    ("I'm excited to start my new job at the library.", "library"),
]


@pytest.mark.parametrize(("said", "kept"), SAYS_SOMETHING)
async def test_the_same_shapes_with_something_in_them_are_kept(said, kept) -> None:
    assert any(kept in memory for memory in await stored(said))


async def test_a_reply_that_greets_or_reacts_is_no_answer_to_the_question() -> None:
    asked = Utterance("assistant", "Anything new with you lately?", "t-0")
    assert await stored("Maya! So good to hear from you! Congrats again.", before=(asked,)) == []
    assert await stored("Sounds great, see you then!", before=(asked,)) == []


async def test_a_short_answer_to_a_question_about_the_user_is_still_kept() -> None:
    asked = Utterance("assistant", "Which city do you live in?", "t-0")
    assert await stored("Madrid!", before=(asked,)) == [
        'Asked "Which city do you live in?", the user answered: Madrid.'
    ]


async def test_a_sentence_with_a_quoted_title_blanked_out_of_it_is_not_stored() -> None:
    assert await stored('I loved "The Long Way Home" by Dana Reyes.') == []


CONVERSATION_MOVES = [
    "Only popping by to check in on you.",
    "I'm always here to listen or help however I can.",
    "Count me in, I'm totally in for the party.",
    "I'm getting there, slowly.",
    "Check out my quilt from the county fair!",
    "I've been busy knitting - here's something I just made.",
    "I'll do my best to dig up a few links.",
    "I'll have a think about what the two of us can do.",
]


@pytest.mark.parametrize("said", CONVERSATION_MOVES)
async def test_moves_in_the_conversation_store_nothing(said) -> None:
    assert await stored(said) == []


PLACEHOLDERS = [
    "I had a similar experience.",
    "Lately I've been puzzled about something.",
    "I have a few plans.",
    "Over the weekend I did something new.",
    "Last month I did something that had an effect on me.",
]


@pytest.mark.parametrize("said", PLACEHOLDERS)
async def test_a_stand_in_for_what_comes_next_stores_nothing(said) -> None:
    assert await stored(said) == []


NAMED = [
    ("I'm looking for someone to share a flat in Leeds.", "Leeds"),
    ("I'm looking for someone to share my flat near the canal.", "flat"),
    ("I had a similar operation on my knee in 2019.", "knee"),
    ("I'm in for surgery on Monday.", "surgery"),
    ("I'll do my best to finish the thesis by June.", "thesis"),
    ("I'll do my best to finish the essay this week.", "essay"),
    ("I'm here for a conference on glaciers.", "glaciers"),
]


@pytest.mark.parametrize(("said", "kept"), NAMED)
async def test_the_same_shapes_naming_their_subject_are_kept(said, kept) -> None:
    assert any(kept in memory for memory in await stored(said))


@pytest.mark.parametrize(
    ("said", "kept"),
    [("I can't drink anything fizzy.", "fizzy"), ("I stay away from anything with sesame.", "sesame")],
)
async def test_anything_with_a_kind_named_is_kept(said, kept) -> None:
    assert any(kept in memory for memory in await stored(said))


@pytest.mark.parametrize(
    "said", ["Remember that staying calm is really important.", "Remember that eating slowly is so important!"]
)
async def test_a_maxim_about_no_one_stores_nothing(said) -> None:
    assert await stored(said) == []


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Keeping bees is my favourite hobby.", "bees"),
        ("most weekends i go sailing on the river", "river"),
    ],
)
async def test_the_same_shapes_about_someone_are_kept(said, kept) -> None:
    assert any(kept in memory for memory in await stored(said))
