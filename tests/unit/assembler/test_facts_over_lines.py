"""What is placed for others takes their place: a fact placed over the message it was learnt from
ranks where the message would have (only a fact of the message's section, keeping enough of what it
says, stands in for it), and the kept one of near-duplicates where the best of them would have."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.candidates import memory_candidates
from assembler_svc.domain.gathered import RecalledMemory
from assembler_svc.domain.model import AssemblyPolicy, Outcome, Section
from assembler_svc.domain.pipeline import assemble

SAID = datetime(2026, 3, 9, 18, 0, tzinfo=UTC)
COUNTER = TiktokenCounter()


def memory(memory_id: str, content: str, turn: str, similarity: float, memory_type: str = "message") -> RecalledMemory:
    message = memory_type == "message"
    return RecalledMemory(
        id=memory_id,
        content=f"Noor: {content}" if message else content,
        memory_type=memory_type,
        similarity=similarity,
        salience=0.5,
        importance=0.5,
        valid_at=SAID,
        metadata={"role": "user"},
        turn_ids=(turn,),
        speaker="Noor" if message else "",
    )


LINE = memory("m-1", "Finally adopted a greyhound, Biscuit is settling in at home.", "t-1", 0.9)
OTHERS = [
    memory(f"m-{n}", text, f"t-{n}", 0.6)
    for n, text in enumerate(
        [
            "We walked along the river to the old mill on Sunday morning.",
            "My sister Ana moved to Lisbon to work as an accountant.",
            "The pottery class at the community centre starts in April.",
            "I ran my first half marathon in under two hours.",
            "Our neighbours planted three cherry trees by the fence.",
        ],
        start=2,
    )
]


def placed(memories: list[RecalledMemory], budget: int) -> dict[str, Outcome]:
    policy = AssemblyPolicy(min_relevance=0.0, share_spare=False).with_budgets({Section.MEMORIES: budget})
    assembly = assemble(memory_candidates(memories), policy=policy, counter=COUNTER, message="Does Noor have a dog?")
    return {entry.id: entry.outcome for entry in assembly.manifest}


def test_a_fact_ranks_where_the_line_it_stands_in_for_would_have() -> None:
    # Less similar than every other line: on its own score it would come last and not fit.
    fact = memory("f-1", "Noor adopted a greyhound named Biscuit.", "t-1", 0.3, memory_type="fact")

    found = placed([LINE, *OTHERS, fact], budget=60)

    assert found["m-1"] is Outcome.DUPLICATE
    assert found["f-1"] is Outcome.KEPT, "the fact must not be lost with the line it replaced"
    assert Outcome.OVER_BUDGET in {found[other.id] for other in OTHERS}


def test_a_fact_of_another_section_does_not_stand_in_for_the_line() -> None:
    # A preference goes to the user's profile section, whose budget is its own: the line stays.
    liked = memory("p-1", "Noor likes greyhounds.", "t-1", 0.3, memory_type="preference")

    found = placed([LINE, *OTHERS, liked], budget=60)

    assert found["m-1"] is Outcome.KEPT


def test_a_fact_keeping_too_little_of_its_line_does_not_stand_in_for_it() -> None:
    line = memory("m-1", "I'm currently reading a pricing guide and hoping for tips for my bakery.", "t-1", 0.9)
    fact = memory("f-1", "The user is currently reading.", "t-1", 0.8, memory_type="fact")

    found = placed([line, fact], budget=200)

    assert found == {"m-1": Outcome.KEPT, "f-1": Outcome.KEPT}


def test_the_kept_one_of_near_duplicates_ranks_where_the_best_of_them_would_have() -> None:
    # The same words said twice: the newer is kept, though the older is the closer match.
    older = memory("m-1", "I got a greyhound named Biscuit from the shelter.", "t-1", 0.9)
    newer = dataclasses.replace(older, id="m-9", similarity=0.3, valid_at=datetime(2026, 4, 1, tzinfo=UTC))

    found = placed([older, *OTHERS, newer], budget=60)

    assert found["m-1"] is Outcome.DUPLICATE
    assert found["m-9"] is Outcome.KEPT, "what the duplicate said must not be lost with it"
