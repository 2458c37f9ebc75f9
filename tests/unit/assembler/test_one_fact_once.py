"""One fact once: a context never holds one statement twice — across beliefs, memories and
episodes — and never merges a statement with its negation. The pairs are committed in
tests/data/statement_pairs.json; the vectors are the packaged model's, as the services make them."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from assembler_svc.domain.candidates import belief_candidates, memory_candidates
from assembler_svc.domain.gathered import Belief, RecalledMemory
from assembler_svc.domain.model import AssemblyPolicy, Outcome, Section, Source
from assembler_svc.domain.pipeline import WORKING_MEMORY_ID, assemble
from assembler_svc.domain.statements import statement
from lore_embeddings import OnnxMiniLmEmbedder

from tests.unit.assembler.test_token_counters import WhitespaceCounter

PAIRS = json.loads((Path(__file__).parents[2] / "data" / "statement_pairs.json").read_text())
WORDS = WhitespaceCounter()
T0 = datetime(2026, 11, 2, tzinfo=UTC)
ROOMY = AssemblyPolicy(budgets={section: 2000 for section in Section})


@pytest.fixture(scope="module")
def vectors() -> dict[str, tuple[float, ...]]:
    texts = sorted({text for kind in ("paraphrases", "negations") for pair in PAIRS[kind] for text in pair})

    async def embed() -> list[tuple[float, ...]]:
        embedder = OnnxMiniLmEmbedder.load()
        try:
            return [tuple(float(x) for x in row) for row in await embedder.embed(texts)]
        finally:
            await embedder.aclose()

    return dict(zip(texts, asyncio.run(embed()), strict=True))


def remembered(key: str, text: str, vector: tuple[float, ...] | None, *, days: float = 0, **extra) -> RecalledMemory:
    return RecalledMemory(
        id=key,
        content=text,
        memory_type=extra.pop("memory_type", "fact"),
        similarity=0.8,
        salience=0.7,
        importance=0.6,
        valid_at=T0 + timedelta(days=days),
        vector=vector,
        **extra,
    )


def believed(key: str, text: str, vector: tuple[float, ...] | None, *, about_user: bool = True) -> Belief:
    return Belief(
        id=key,
        summary=text,
        kind="world_fact",
        confidence=0.82,
        freshness=0.9,
        similarity=0.7,
        updated_at=T0,
        sources=3,
        last_supported_at=datetime(2026, 11, 20, 9, 30, tzinfo=UTC),
        about_user=about_user,
        vector=vector,
    )


def kept_and_duplicates(assembly) -> tuple[set[str], dict[str, str]]:  # type: ignore[no-untyped-def]
    kept = {entry.id for entry in assembly.manifest if entry.outcome is Outcome.KEPT}
    duplicates = {entry.id: entry.duplicate_of for entry in assembly.manifest if entry.outcome is Outcome.DUPLICATE}
    return kept, duplicates


@pytest.mark.parametrize("pair", PAIRS["paraphrases"], ids=lambda pair: pair[0][:40])
def test_a_belief_and_a_memory_saying_the_same_show_once_and_the_belief_is_kept(pair, vectors) -> None:
    said_as_belief, said_as_memory = pair
    candidates = [
        *memory_candidates([remembered("m-1", said_as_memory, vectors[said_as_memory], days=5)]),
        *belief_candidates([believed("b-1", said_as_belief, vectors[said_as_belief])]),
    ]

    kept, duplicates = kept_and_duplicates(assemble(candidates, policy=ROOMY, counter=WORDS))

    assert kept == {"b-1"} and duplicates == {"m-1": "b-1"}, "the belief wins even over a newer memory"


@pytest.mark.parametrize("pair", PAIRS["paraphrases"], ids=lambda pair: pair[0][:40])
def test_two_memories_saying_the_same_show_once_and_the_newer_is_kept(pair, vectors) -> None:
    older, newer = pair
    candidates = memory_candidates(
        [remembered("m-old", older, vectors[older], days=0), remembered("m-new", newer, vectors[newer], days=3)]
    )

    kept, duplicates = kept_and_duplicates(assemble(candidates, policy=ROOMY, counter=WORDS))

    assert kept == {"m-new"} and duplicates == {"m-old": "m-new"}


@pytest.mark.parametrize("pair", PAIRS["negations"], ids=lambda pair: pair[0][:40])
def test_a_statement_and_its_negation_are_never_merged(pair, vectors) -> None:
    before, after = pair
    as_memories = memory_candidates(
        [remembered("m-before", before, vectors[before]), remembered("m-after", after, vectors[after], days=2)]
    )
    as_belief_and_memory = [
        *belief_candidates([believed("b-after", after, vectors[after])]),
        *memory_candidates([remembered("m-before", before, vectors[before])]),
    ]

    for candidates in (as_memories, as_belief_and_memory):
        kept, duplicates = kept_and_duplicates(assemble(candidates, policy=ROOMY, counter=WORDS))
        assert duplicates == {} and len(kept) == 2, (before, after)


def test_the_pairs_are_hard_enough_to_need_the_polarity_rule(vectors) -> None:
    """Most negation pairs embed above the duplicate threshold: without the polarity rule the
    vector rule would merge them."""

    def cosine(a: str, b: str) -> float:
        return sum(x * y for x, y in zip(vectors[a], vectors[b], strict=True))

    close = [pair for pair in PAIRS["negations"] if cosine(*pair) > 0.85]
    assert len(close) >= 4
    assert all(statement(a).negated != statement(b).negated for a, b in PAIRS["negations"])


def test_a_memory_is_not_repeated_with_its_day_when_a_belief_says_it() -> None:
    candidates = [
        *memory_candidates([remembered("m-1", "The user's sister Ana lives in Lisbon.", None)]),
        *belief_candidates([believed("b-1", "The user's sister Ana lives in Lisbon.", None)]),
    ]

    kept, duplicates = kept_and_duplicates(assemble(candidates, policy=ROOMY, counter=WORDS))

    assert kept == {"b-1"} and duplicates == {"m-1": "b-1"}


def test_without_vectors_the_same_words_still_show_once_but_a_fact_with_more_is_kept() -> None:
    fact = remembered("m-fact", "The user's sister Ana lives in Lisbon.", None, days=1)
    message = remembered(
        "m-message", "My sister Ana lives in Lisbon and works as an accountant.", None, memory_type="message"
    )
    belief = believed("b-1", "The user's sister, Ana, lives in Lisbon.", None)

    kept, duplicates = kept_and_duplicates(
        assemble([*memory_candidates([fact, message]), *belief_candidates([belief])], policy=ROOMY, counter=WORDS)
    )

    assert kept == {"b-1", "m-message"} and duplicates == {"m-fact": "b-1"}


def test_memories_learnt_from_the_turns_in_working_memory_are_not_repeated() -> None:
    recent = frozenset({"turn-8", "turn-9"})
    memories = [
        remembered("m-now", "I just adopted a cat.", None, memory_type="message", turn_ids=("turn-9",)),
        remembered("m-fact-now", "The user adopted a cat.", None, turn_ids=("turn-8", "turn-9")),
        remembered("m-earlier", "The user has a dog named Biscuit.", None, turn_ids=("turn-2",)),
        remembered("m-mixed", "The user likes animals.", None, turn_ids=("turn-2", "turn-9")),
    ]

    assembly = assemble(memory_candidates(memories, recent), policy=ROOMY, counter=WORDS)

    kept, duplicates = kept_and_duplicates(assembly)
    assert kept == {"m-earlier", "m-mixed"}
    assert duplicates == {"m-now": WORKING_MEMORY_ID, "m-fact-now": WORKING_MEMORY_ID}


def test_beliefs_say_how_sure_they_are_and_the_users_lead_the_profile() -> None:
    candidates = [
        *memory_candidates([remembered("m-pref", "The user prefers tea to coffee.", None, memory_type="preference")]),
        *belief_candidates(
            [
                believed("b-user", "The user prefers PostgreSQL over MongoDB.", None),
                Belief("b-org", "The deploy runs on Fridays.", "world_fact", 0.6, 0.9, 0.5, T0),
            ]
        ),
    ]
    # The preference memory scores higher than the belief: the belief still goes first.
    assembly = assemble(candidates, policy=ROOMY, counter=WORDS)

    profile = next(section for section in assembly.sections if section.section is Section.USER_PROFILE)
    assert [item.id for item in profile.items] == ["b-user", "m-pref"]
    assert profile.items[0].text == (
        "The user prefers PostgreSQL over MongoDB (confidence 0.82, 3 sources, last 2026-11-20)."
    )
    beliefs = next(section for section in assembly.sections if section.section is Section.OBSERVATIONS)
    assert [item.source for item in beliefs.items] == [Source.OBSERVATION]
    assert beliefs.items[0].text.endswith("Fridays (confidence 0.60, last 2026-11-02)."), "no count when none is known"
