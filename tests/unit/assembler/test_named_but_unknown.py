"""A message naming someone no candidate mentions finds nothing relevant, however close its other
words come to what is remembered; names the scope knows (mentioned, the user's own, a speaker, an
entity, a short form) never do."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.candidates import memory_candidates
from assembler_svc.domain.gathered import RecalledMemory
from assembler_svc.domain.model import AssemblyPolicy, Outcome, Source
from assembler_svc.domain.pipeline import assemble
from assembler_svc.domain.relevance import NOTHING_FOUND_TEXT, names_in, unknown_names

SAID = datetime(2026, 3, 9, 18, 0, tzinfo=UTC)
COUNTER = TiktokenCounter()
POLICY = AssemblyPolicy(min_relevance=0.3, name_relevance=0.6)


def said(memory_id: str, speaker: str, words: str, similarity: float = 0.45) -> RecalledMemory:
    return RecalledMemory(
        id=memory_id,
        content=f"{speaker}: {words}",
        memory_type="message",
        similarity=similarity,
        salience=0.9,
        importance=0.5,
        valid_at=SAID,
        metadata={"role": "user" if speaker == "Noor" else "assistant"},
        turn_ids=(f"t-{memory_id}",),
        speaker=speaker,
    )


REMEMBERED = [
    said("m-1", "Noor", "I started a pottery class at the community centre."),
    said("m-2", "Ilse", "My brother Tomas studied marine biology in Aveiro."),
    said("m-3", "Noor", "The greyhound sleeps on the sofa all afternoon."),
]


@pytest.mark.parametrize(
    ("message", "names"),
    [
        ("What did Caroline research?", ["Caroline"]),
        ("How long ago was Noor's 18th birthday?", ["Noor"]),
        ("Would Noor keep Dr. Seuss books on her shelf?", ["Noor", "Seuss"]),  # "Dr." ends no sentence
        ("Lena called. What should Lena and I do in May?", ["Lena"]),  # sentence starts, months, "I"
        ("What LGBTQ events did Mom go to on Sunday?", []),  # acronyms, family words, days
        ("Caroline?", []),  # the first word is no name: every sentence starts with a capital
    ],
)
def test_a_name_is_a_capitalised_word_within_a_sentence_and_no_common_word(message: str, names: list[str]) -> None:
    assert names_in(message) == names


def test_a_question_about_someone_no_candidate_mentions_finds_nothing_relevant() -> None:
    asked = "What did Caroline study at university?"  # close to Tomas's studies by meaning alone

    assembly = assemble(memory_candidates(REMEMBERED), policy=POLICY, counter=COUNTER, message=asked)

    assert assembly.text == f"## What I remember\n- {NOTHING_FOUND_TEXT}"
    missed = {entry.id: entry for entry in assembly.manifest if entry.source is Source.MEMORY}
    assert {entry.outcome for entry in missed.values()} == {Outcome.BELOW_THRESHOLD}
    assert missed["m-2"].reason == "nothing relevant found: no candidate mentions Caroline"


@pytest.mark.parametrize(
    ("message", "known"),
    [
        ("What did Tomas study?", ()),  # mentioned in a line
        ("What did Ilse's brother study?", ()),  # a speaker
        ("When did Tom start studying?", ()),  # the start of a name mentioned: a short form
        ("What does Noor Haddad like to study?", ("Haddad",)),  # the user's own name
        ("Where did Aveiro University rank?", ("University",)),  # an entity of what was recalled
    ],
)
def test_a_name_the_scope_knows_keeps_the_context(message: str, known: tuple[str, ...]) -> None:
    candidates = memory_candidates(REMEMBERED)
    assert unknown_names(message, candidates, known) == []

    assembly = assemble(candidates, policy=POLICY, counter=COUNTER, message=message, known_names=known)

    assert NOTHING_FOUND_TEXT not in assembly.text and "marine biology" in assembly.text


def test_a_candidate_close_enough_keeps_the_context_whatever_the_names() -> None:
    close = [*REMEMBERED, said("m-4", "Noor", "I want to study ceramics in Kyoto next year.", similarity=0.7)]

    assembly = assemble(
        memory_candidates(close), policy=POLICY, counter=COUNTER, message="Should I study ceramics with Caroline?"
    )

    assert NOTHING_FOUND_TEXT not in assembly.text and "ceramics in Kyoto" in assembly.text


def test_names_are_not_checked_when_name_relevance_is_zero() -> None:
    policy = AssemblyPolicy(min_relevance=0.3, name_relevance=0.0)

    assembly = assemble(memory_candidates(REMEMBERED), policy=policy, counter=COUNTER, message="What did Caroline do?")

    assert NOTHING_FOUND_TEXT not in assembly.text


def test_a_short_name_is_never_the_start_of_an_ordinary_word() -> None:
    # "Tim" starts "time" and "Al" starts "also": only a word written with a capital can be a longer name.
    candidates = memory_candidates([said("m-5", "Noor", "I spend time at the pottery class, also on Sundays.")])
    assert unknown_names("What does Tim do at the weekend?", candidates) == ["Tim"]
    assert unknown_names("What does Noo do?", candidates) == []  # the start of a speaker's name
