from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from assembler_svc.domain.fingerprint import parse_fingerprint
from assembler_svc.domain.model import (
    UNSCORED,
    AssemblyPolicy,
    Candidate,
    Outcome,
    Section,
    Source,
    UnavailableSource,
)
from assembler_svc.domain.pipeline import FIRST_SESSION_ID, FIRST_SESSION_TEXT, assemble

from tests.unit.assembler.test_token_counters import WhitespaceCounter

WORDS = WhitespaceCounter()
POLICY = AssemblyPolicy()
T0 = datetime(2026, 3, 1, tzinfo=UTC)


def memory(key: str, text: str, similarity: float = 0.9, *, days: float = 0, **kwargs: object) -> Candidate:
    return Candidate(
        Source.MEMORY,
        key,
        kwargs.pop("section", Section.MEMORIES),  # type: ignore[arg-type]
        text,
        similarity=similarity,
        recency=kwargs.pop("recency", 0.5),  # type: ignore[arg-type]
        importance=kwargs.pop("importance", 0.5),  # type: ignore[arg-type]
        occurred_at=T0 + timedelta(days=days),
        **kwargs,  # type: ignore[arg-type]
    )


def given(key: str, section: Section, text: str) -> Candidate:
    return Candidate(Source.CALLER, key, section, text, pinned=True)


def outcomes(assembly) -> dict[str, Outcome]:  # type: ignore[no-untyped-def]
    return {entry.id: entry.outcome for entry in assembly.manifest if entry.id}


def test_a_small_turn_end_to_end() -> None:
    candidates = [
        memory("m-weak", "The user once mentioned rain.", similarity=0.0, recency=0.0, importance=0.1),
        memory("m-tea", "The user prefers green tea.", section=Section.USER_PROFILE),
        memory("m-porto", "The user moved to Porto in May."),
        given("persona", Section.PERSONA, "I am Lore.\nI speak plainly."),
        given("guidance", Section.GUIDANCE, "The user seems calm."),
    ]
    assembly = assemble(candidates, policy=POLICY, counter=WORDS, persona_mode="coach", mood="calm")
    assert [section.section for section in assembly.sections] == [
        Section.PERSONA,
        Section.USER_PROFILE,
        Section.GUIDANCE,
        Section.MEMORIES,
    ]
    assert assembly.text == (
        "## Persona\nI am Lore.\nI speak plainly.\n\n"
        "## User profile\n- The user prefers green tea.\n\n"
        "## Guidance\n- The user seems calm.\n\n"
        "## What I remember\n- The user moved to Porto in May."
    )
    assert [(entry.id, entry.outcome) for entry in assembly.manifest] == [
        ("persona", Outcome.KEPT),
        ("m-tea", Outcome.KEPT),
        ("guidance", Outcome.KEPT),
        ("m-porto", Outcome.KEPT),
        ("m-weak", Outcome.BELOW_THRESHOLD),
    ]
    weak = assembly.manifest[-1]
    assert weak.tokens == 6
    assert weak.reason == "score 0.030 below 0.300"
    assert weak.score.total == pytest.approx(0.03)
    assert assembly.manifest[0].score == UNSCORED
    assert assembly.total_tokens == sum(section.tokens for section in assembly.sections) == 8 + 9 + 7 + 12
    assert assembly.budget_tokens == 1400
    assert not assembly.first_session
    parts = parse_fingerprint(assembly.fingerprint)
    assert parts is not None
    assert (parts.persona, parts.mood) == ("coach", "calm")
    assert parts.sections == (Section.PERSONA, Section.USER_PROFILE, Section.GUIDANCE, Section.MEMORIES)


def test_ranked_items_go_best_first_then_newest_then_by_id() -> None:
    candidates = [
        memory("b", "same score older", days=1),
        memory("a", "same score older too", days=1),
        memory("c", "same score newer", days=2),
        memory("top", "best score", similarity=1.0),
    ]
    assembly = assemble(candidates, policy=POLICY, counter=WORDS, known_anything=True)
    assert [item.id for item in assembly.sections[0].items] == ["top", "c", "a", "b"]


def test_near_duplicates_keep_the_newest_and_name_it() -> None:
    candidates = [
        memory("old", "Lives in Porto.", vector=(1.0, 0.0), days=1, similarity=1.0),
        memory("new", "Lives in Porto now.", vector=(0.99, 0.02), days=5, similarity=0.5),
        given("g1", Section.GUIDANCE, "Be brief."),
        given("g2", Section.GUIDANCE, "Be brief."),
    ]
    assembly = assemble(candidates, policy=POLICY, counter=WORDS)
    old = next(entry for entry in assembly.manifest if entry.id == "old")
    assert (old.outcome, old.duplicate_of) == (Outcome.DUPLICATE, "new")
    assert outcomes(assembly) == {"g1": Outcome.KEPT, "g2": Outcome.KEPT, "new": Outcome.KEPT, "old": Outcome.DUPLICATE}


def test_a_repeated_source_and_id_is_placed_once() -> None:
    candidates = [memory("m1", "first copy"), memory("m1", "second copy")]
    assembly = assemble(candidates, policy=POLICY, counter=WORDS)
    assert [entry.outcome for entry in assembly.manifest] == [Outcome.KEPT, Outcome.DUPLICATE]
    assert assembly.manifest[1].duplicate_of == "m1"
    assert [item.text for item in assembly.sections[0].items] == ["first copy"]


def test_unavailable_sources_come_last_and_are_not_a_first_session() -> None:
    gap = UnavailableSource(Source.MEMORY, Section.MEMORIES, "memory: DEADLINE_EXCEEDED after 150 ms")
    assembly = assemble(
        [given("persona", Section.PERSONA, "I am Lore.")], policy=POLICY, counter=WORDS, unavailable=[gap]
    )
    assert not assembly.first_session
    last = assembly.manifest[-1]
    assert (last.source, last.id, last.section, last.outcome, last.reason, last.tokens) == (
        Source.MEMORY,
        "",
        Section.MEMORIES,
        Outcome.SOURCE_UNAVAILABLE,
        "memory: DEADLINE_EXCEEDED after 150 ms",
        0,
    )


def test_nothing_stored_is_a_first_session_with_the_preamble_first_in_guidance() -> None:
    candidates = [
        given("guidance", Section.GUIDANCE, "Week 1 of the engagement."),
        given("persona", Section.PERSONA, "Lore"),
    ]
    assembly = assemble(candidates, policy=POLICY, counter=WORDS)
    assert assembly.first_session
    guidance = next(section for section in assembly.sections if section.section is Section.GUIDANCE)
    assert [item.id for item in guidance.items] == [FIRST_SESSION_ID, "guidance"]
    assert guidance.items[0].text == FIRST_SESSION_TEXT
    assert FIRST_SESSION_TEXT in assembly.text


def test_known_anything_overrides_the_guess() -> None:
    stored = [memory("m1", "something")]
    assert assemble(stored, policy=POLICY, counter=WORDS, known_anything=False).first_session
    assert not assemble([], policy=POLICY, counter=WORDS, known_anything=True).first_session
    assert not assemble(stored, policy=POLICY, counter=WORDS).first_session
    empty = assemble([], policy=POLICY, counter=WORDS)
    assert empty.first_session
    assert [entry.id for entry in empty.manifest] == [FIRST_SESSION_ID]


def test_a_disabled_section_drops_everything_in_it_over_budget() -> None:
    policy = POLICY.with_budgets({Section.MEMORIES: 0})
    assembly = assemble([memory("m1", "a fact"), memory("m2", "another")], policy=policy, counter=WORDS)
    assert assembly.sections == ()
    assert {entry.outcome for entry in assembly.manifest} == {Outcome.OVER_BUDGET}
    assert {entry.reason for entry in assembly.manifest} == {"section disabled (budget 0)"}
    assert assembly.text == ""
    assert assembly.budget_tokens == 1250


def test_a_long_persona_is_cut_and_the_manifest_keeps_its_whole_size() -> None:
    persona = " ".join(f"Sentence number {i} is here." for i in range(100))  # 500 words
    fixed = POLICY.with_budgets({Section.PERSONA: 300})  # a caller's budget: no spare tokens
    assembly = assemble([given("persona", Section.PERSONA, persona)], policy=fixed, counter=WORDS, known_anything=True)
    (section,) = assembly.sections
    (item,) = section.items
    assert item.truncated
    assert item.text.endswith(".")
    assert section.tokens <= 300
    entry = assembly.manifest[0]
    assert (entry.outcome, entry.truncated, entry.tokens) == (Outcome.KEPT, True, 500)
    assert item.tokens < entry.tokens


def test_the_same_inputs_give_the_same_assembly() -> None:
    candidates = [memory(f"m{i}", f"fact number {i}", similarity=i / 10, days=i % 3) for i in range(10)]
    first = assemble(candidates, policy=POLICY, counter=WORDS, persona_mode="x", mood="y")
    assert first == assemble(list(reversed(candidates)), policy=POLICY, counter=WORDS, persona_mode="x", mood="y")


def _many_memories(count: int, words: int = 20) -> list[Candidate]:
    return [memory(f"m-{n:02d}", " ".join([f"fact{n}"] * words) + ".", days=n) for n in range(count)]


def test_tokens_a_section_leaves_unused_go_to_one_that_ran_out() -> None:
    candidates = _many_memories(20)  # 400 words of memories; no persona, no tool results

    assembly = assemble(candidates, policy=POLICY, counter=WORDS, known_anything=True)

    (section,) = assembly.sections
    assert section.section is Section.MEMORIES
    assert section.budget_tokens > POLICY.budgets[Section.MEMORIES]
    assert len(section.items) == 20, "the whole 1400 tokens are there to use"
    assert assembly.total_tokens <= assembly.budget_tokens == POLICY.budget_tokens


def test_a_budget_the_caller_set_is_kept_exactly_and_the_table_is_kept_when_sharing_is_off() -> None:
    candidates = _many_memories(20)
    for policy in (POLICY.with_budgets({Section.MEMORIES: 150}), AssemblyPolicy(share_spare=False)):
        assembly = assemble(candidates, policy=policy, counter=WORDS, known_anything=True)

        (section,) = assembly.sections
        assert section.budget_tokens == 150 and section.tokens <= 150
        assert sum(entry.outcome is Outcome.OVER_BUDGET for entry in assembly.manifest) > 10


def test_the_spare_goes_first_to_what_was_recalled_for_the_message() -> None:
    profile = [memory(f"p-{n}", " ".join([f"likes{n}"] * 20) + ".", section=Section.USER_PROFILE) for n in range(30)]
    memories = _many_memories(30)
    tight = AssemblyPolicy(budgets={Section.PERSONA: 200, Section.TOOL_RESULTS: 0, Section.GUIDANCE: 0})

    assembly = assemble([*memories, *profile], policy=tight, counter=WORDS, known_anything=True)

    by_section = {section.section: section for section in assembly.sections}
    spare = 200 + tight.budgets[Section.WORKING_SUMMARY] + tight.budgets[Section.OBSERVATIONS]
    spare += tight.budgets[Section.OPINIONS]
    assert by_section[Section.USER_PROFILE].budget_tokens > tight.budgets[Section.USER_PROFILE] + spare - 25
    assert by_section[Section.MEMORIES].budget_tokens <= tight.budgets[Section.MEMORIES] + 25
