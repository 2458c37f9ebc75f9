"""Every message line names its speaker; small talk and an assistant's filler are not placed; a fact
is placed over the message it was learnt from; a context that found nothing relevant says so."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.candidates import episode_candidates, memory_candidates
from assembler_svc.domain.gathered import EpisodeDigest, RecalledMemory
from assembler_svc.domain.model import AssemblyPolicy, Outcome, Section, Source, UnavailableSource
from assembler_svc.domain.pipeline import assemble
from assembler_svc.domain.priming import prime
from assembler_svc.domain.relevance import NOTHING_FOUND_TEXT
from assembler_svc.domain.speakers import filler, is_small_talk, worth_coming_back_to

SAID = datetime(2026, 3, 9, 18, 0, tzinfo=UTC)
COUNTER = TiktokenCounter()
ROOMY = AssemblyPolicy(budgets={section: 2000 for section in Section}, min_relevance=0.0)


def said(
    memory_id: str,
    content: str,
    *,
    role: str = "",
    speaker: str = "",
    turn: str = "",
    memory_type: str = "message",
    similarity: float = 0.8,
) -> RecalledMemory:
    return RecalledMemory(
        id=memory_id,
        content=f"{speaker}: {content}" if speaker and memory_type == "message" else content,
        memory_type=memory_type,
        similarity=similarity,
        salience=0.9,
        importance=0.5,
        valid_at=SAID,
        metadata={"role": role} if role else {},
        turn_ids=(turn or f"t-{memory_id}",),
        speaker=speaker if memory_type == "message" else "",
    )


def outcomes(memories: list[RecalledMemory], message: str = "", policy: AssemblyPolicy = ROOMY) -> dict[str, str]:
    assembly = assemble(memory_candidates(memories), policy=policy, counter=COUNTER, message=message)
    return {entry.id: entry.outcome.name for entry in assembly.manifest}


def test_each_message_line_names_who_said_it() -> None:
    lines = memory_candidates(
        [
            said("m-1", "I adopted a greyhound called Biscuit.", speaker="Noor", role="user"),
            said("m-2", "My kids painted the fence blue.", speaker="Ilse", role="assistant"),
            said("m-3", "I moved to Porto last week.", role="user"),
            said("m-4", "I'll send you the ferry times tomorrow.", role="assistant"),
            said("m-5", "Lunch was fine.", speaker=""),
        ]
    )

    assert [line.text for line in lines] == [
        "Noor said: I adopted a greyhound called Biscuit. (on 9 March 2026)",
        "Ilse said: My kids painted the fence blue. (on 9 March 2026)",
        "The user said: I moved to Porto last week (the week of 2 March 2026). (on 9 March 2026)",
        "You said: I'll send you the ferry times tomorrow (10 March 2026). (on 9 March 2026)",
        "Lunch was fine. (on 9 March 2026)",  # neither a role nor a name: no guess
    ]
    assert lines[0].statement == "I adopted a greyhound called Biscuit.", "the name is not part of what was said"


@pytest.mark.parametrize(
    "words",
    ["Wow, love that painting!", "Thanks, Noor! That's so sweet. Is this your own painting?", "Sounds fun!", "Hi!"],
)
def test_small_talk_says_nothing_worth_placing(words: str) -> None:
    assert is_small_talk(words, ["Noor"])


@pytest.mark.parametrize(
    "words",
    ["I love hiking.", "Yes, I'm vegan.", "My sister is Ana.", "We painted the lake at sunrise last year."],
)
def test_a_short_statement_about_the_speaker_is_not_small_talk(words: str) -> None:
    assert not is_small_talk(words)


@pytest.mark.parametrize(
    ("words", "kept"),
    [
        ("I'll book the table for Friday at eight.", True),  # a commitment
        ("You could try the river loop; it is flat and shaded.", True),  # a recommendation
        ("The ferry to Vigo leaves at 9:40 from the north pier.", True),  # an answer
        ("That's great to hear!", False),
        ("How are you feeling today?", False),
        ("Glad it helped!", False),
    ],
)
def test_the_assistants_own_reply_must_carry_something_to_come_back_to(words: str, kept: bool) -> None:
    assert worth_coming_back_to(words) is kept
    assert filler(words, "assistant", "") is not kept


def test_both_named_speakers_rank_by_the_same_rules() -> None:
    # In an import between two named people the other side's statements are placed like the user's;
    # only an assistant of the agent's own sessions (no name) must carry more.
    words = "The market opens at six on Saturdays."
    assert not filler(words, "assistant", "Ilse") and not filler(words, "user", "Noor")
    assert filler(words, "assistant", "")


def test_small_talk_is_below_threshold_whoever_said_it() -> None:
    found = outcomes(
        [
            said("m-1", "Wow, love that painting!", speaker="Ilse", role="assistant"),
            said("m-2", "Thanks, Ilse! That's really sweet.", speaker="Noor", role="user"),
            said("m-3", "I painted that lake at sunrise last year.", speaker="Noor", role="user"),
            said("m-4", "That's great!", role="assistant"),
            said("m-5", "I'll email you the gallery's address tonight.", role="assistant"),
        ]
    )

    assert found == {"m-1": "BELOW_THRESHOLD", "m-2": "BELOW_THRESHOLD", "m-3": "KEPT", "m-4": "BELOW_THRESHOLD"} | {
        "m-5": "KEPT"
    }


def test_a_fact_is_placed_over_the_message_it_was_learnt_from() -> None:
    line = said("m-1", "Finally adopted a greyhound, Biscuit is settling in.", speaker="Noor", turn="t-7")
    fact = said("f-1", "Noor adopted a greyhound named Biscuit.", memory_type="fact", turn="t-7")
    other = said("m-2", "Biscuit chewed my running shoes.", speaker="Noor", turn="t-8")

    assembly = assemble(
        memory_candidates([line, fact, other]), policy=ROOMY, counter=COUNTER, message="Does Noor have a pet?"
    )

    entry = next(entry for entry in assembly.manifest if entry.id == "m-1")
    assert entry.outcome is Outcome.DUPLICATE and entry.duplicate_of == "f-1"
    assert entry.reason == "a fact learnt from this message is placed instead"
    assert "Noor adopted a greyhound named Biscuit. (on 9 March 2026)" in assembly.text
    assert "Biscuit chewed my running shoes." in assembly.text, "a message no fact came from stays"


@pytest.mark.parametrize(
    "message",
    ["What exactly did Noor say about the greyhound?", "Is Biscuit settling in?"],  # wording asked / word only there
)
def test_the_message_stays_when_the_question_needs_its_wording(message: str) -> None:
    line = said("m-1", "Finally adopted a greyhound, Biscuit is settling in.", speaker="Noor", turn="t-7")
    fact = said("f-1", "Noor adopted a greyhound named Biscuit.", memory_type="fact", turn="t-7")

    assert outcomes([line, fact], message) == {"m-1": "KEPT", "f-1": "KEPT"}


def test_nothing_relevant_found_says_so_and_keeps_the_near_misses_in_the_manifest() -> None:
    near = [
        said("m-1", "I baked a lemon cake for the office.", speaker="Noor", similarity=0.21),
        said("m-2", "The dog loves the beach.", speaker="Noor", similarity=0.18),
    ]
    policy = AssemblyPolicy(min_relevance=0.35)

    assembly = assemble(memory_candidates(near), policy=policy, counter=COUNTER, message="Where did Tomas study?")

    assert assembly.text == f"## What I remember\n- {NOTHING_FOUND_TEXT}"
    missed = {entry.id: entry for entry in assembly.manifest if entry.source is Source.MEMORY}
    assert {entry.outcome for entry in missed.values()} == {Outcome.BELOW_THRESHOLD}
    assert missed["m-1"].reason == "nothing relevant found: the best similarity 0.210 is under 0.350"
    assert not assembly.first_session


def test_one_relevant_candidate_or_an_outage_means_no_nothing_found_line() -> None:
    policy = AssemblyPolicy(min_relevance=0.35)
    near = said("m-1", "I baked a lemon cake for the office.", speaker="Noor", similarity=0.21)
    close = said("m-2", "Tomas studied marine biology in Aveiro.", speaker="Noor", similarity=0.52)
    outage = [UnavailableSource(Source.EPISODE, Section.MEMORIES, "episodes: no answer within 800 ms")]

    found = assemble(memory_candidates([near, close]), policy=policy, counter=COUNTER)
    down = assemble(memory_candidates([near]), policy=policy, counter=COUNTER, unavailable=outage)

    assert NOTHING_FOUND_TEXT not in found.text and "Tomas studied marine biology" in found.text
    assert NOTHING_FOUND_TEXT not in down.text and "lemon cake" in down.text


def test_an_episode_quoting_turns_by_role_names_them_as_the_context_does() -> None:
    [episode] = episode_candidates(
        [EpisodeDigest("e-1", "User: I start the new job Monday. Assistant: Good luck!", "c-1", SAID, 0.8, 0.5)]
    )

    assert episode.text == (
        "Earlier conversation ended on 9 March 2026: The user said: I start the new job Monday. You said: Good luck!"
    )


def test_prime_names_the_speaker_and_leaves_small_talk_out() -> None:
    primed = prime(
        episodes=(),
        threads=(),
        facts=(),
        beliefs=(),
        recalled=[
            said("m-1", "My kids and I finished another painting.", speaker="Ilse", role="assistant"),
            said("m-2", "Wow, love that painting!", speaker="Noor", role="user"),
        ],
        initial_message="I want to paint again.",
        counter=COUNTER,
        now=SAID,
    )

    assert "- Ilse said: My kids and I finished another painting. (on 9 March 2026)" in primed.formatted_context
    assert "love that painting" not in primed.formatted_context
