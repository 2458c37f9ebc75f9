"""What the user profile states is not spent again as the message it was learnt from: a profile line
learnt from a turn, or a belief of the profile stating what the user said, stands in for the message
whatever share of it it keeps, unless the question needs the message's wording."""

from __future__ import annotations

from datetime import UTC, datetime

from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.candidates import memory_candidates
from assembler_svc.domain.gathered import RecalledMemory
from assembler_svc.domain.model import AssemblyPolicy, Outcome
from assembler_svc.domain.pipeline import assemble
from assembler_svc.domain.profile import BELIEF, FACT, Learnt, build_profile, profile_candidates

SAID = datetime(2026, 3, 9, 18, 0, tzinfo=UTC)
COUNTER = TiktokenCounter()
SISTER = "My sister Ana moved to Lisbon last spring and we talk every single evening on the phone."


def message(memory_id: str, words: str, turn: str, role: str = "user", speaker: str = "Noor") -> RecalledMemory:
    return RecalledMemory(
        id=memory_id,
        content=f"{speaker}: {words}",
        memory_type="message",
        similarity=0.8,
        salience=0.5,
        importance=0.5,
        valid_at=SAID,
        metadata={"role": role},
        turn_ids=(turn,),
        speaker=speaker,
    )


def outcomes(learnt: list[Learnt], messages: list[RecalledMemory], question: str) -> dict[str, Outcome]:
    profile = build_profile("", learnt, COUNTER)
    assert profile.lines, "the learnt line must be in the profile for the rule to apply"
    candidates = [*profile_candidates(profile), *memory_candidates(messages)]
    assembly = assemble(candidates, policy=AssemblyPolicy(min_relevance=0.0), counter=COUNTER, message=question)
    return {entry.id: entry.outcome for entry in assembly.manifest}


SISTER_FACT = Learnt("f-ana", "The user's sister Ana lives in Lisbon.", FACT, 0.7, SAID, "user", "fact", ("t-1",))


def test_a_profile_line_learnt_from_a_message_stands_in_for_it_though_it_keeps_little_of_it() -> None:
    found = outcomes([SISTER_FACT], [message("m-1", SISTER, "t-1")], "Where does Noor's sister live?")

    assert found == {"f-ana": Outcome.KEPT, "m-1": Outcome.DUPLICATE}


def test_the_message_stays_when_the_question_asks_what_only_its_words_say() -> None:
    found = outcomes([SISTER_FACT], [message("m-1", SISTER, "t-1")], "When does Noor talk to Ana on the phone?")

    assert found["m-1"] is Outcome.KEPT


def test_the_message_stays_when_the_question_asks_for_what_was_said() -> None:
    found = outcomes([SISTER_FACT], [message("m-1", SISTER, "t-1")], "What did Noor say about her sister?")

    assert found["m-1"] is Outcome.KEPT


def test_a_profile_line_learnt_from_another_turn_does_not_stand_in_for_the_message() -> None:
    elsewhere = Learnt("f-ana", "The user's sister Ana lives in Lisbon.", FACT, 0.7, SAID, "user", "fact", ("t-7",))

    found = outcomes([elsewhere], [message("m-1", SISTER, "t-1")], "Where does Noor's sister live?")

    assert found["m-1"] is Outcome.KEPT


def test_a_belief_of_the_profile_stands_in_for_what_the_user_said_not_for_the_other_speaker() -> None:
    belief = Learnt("o-pottery", "The user likes pottery", BELIEF, 0.8, SAID)
    mine = message("m-1", "I like pottery, the kiln evenings at the studio are the best part of my week.", "t-1")
    theirs = message("m-2", "I like pottery too, my aunt taught me to throw bowls.", "t-2", "assistant", "Sam")

    found = outcomes([belief], [mine, theirs], "What craft does Noor like?")

    assert found["o-pottery"] is Outcome.KEPT
    assert found["m-1"] is Outcome.DUPLICATE, "the user's own words say what the profile already states"
    assert found["m-2"] is Outcome.KEPT, "another speaker's liking is not what the user's belief states"
