"""Properties of ``assemble`` over generated turns, with the fake word counter and the real BPE
(which is not additive over concatenation, so it exercises the re-count of every section)."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta

from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.model import (
    Assembly,
    AssemblyPolicy,
    Candidate,
    ManifestEntry,
    Outcome,
    Section,
    Source,
    TokenCounter,
    UnavailableSource,
)
from assembler_svc.domain.pipeline import FIRST_SESSION_ID, WORKING_MEMORY_ID, assemble
from assembler_svc.domain.relevance import NEAREST, NOTHING_FOUND_ID, SEARCHED
from assembler_svc.domain.render import clean, is_prose, render_line
from assembler_svc.domain.truncate import ELLIPSIS
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.unit.assembler.test_token_counters import WhitespaceCounter

COUNTERS = {"words": WhitespaceCounter(), "bpe": TiktokenCounter()}
T0 = datetime(2026, 3, 1, tzinfo=UTC)
WORDS = [
    "the",
    "user",
    "Likes",
    "tea",
    "Porto",
    "café",
    "日本語",
    "said:",
    "3.5",
    "ok.",
    "why?",
    "yes!",
    "-",
    "\n",
    "🎉",
]
VECTORS = [(1.0, 0.0, 0.0), (0.99, 0.1, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.6, 0.8, 0.0), (0.0, 0.0)]

texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=60).map(" ".join)
components = st.floats(min_value=-0.2, max_value=1.2, allow_nan=False)
moments = st.one_of(st.none(), st.integers(0, 4).map(lambda days: T0 + timedelta(days=days)))


@st.composite
def ranked_candidates(draw: st.DrawFn) -> list[Candidate]:
    count = draw(st.integers(0, 14))
    return [
        Candidate(
            source=draw(st.sampled_from([source for source in Source if source is not Source.CALLER])),
            id=f"r{index}",
            section=draw(st.sampled_from(list(Section))),
            text=draw(texts),
            similarity=draw(components),
            recency=draw(components),
            importance=draw(components),
            vector=draw(st.one_of(st.none(), st.sampled_from(VECTORS))),
            occurred_at=draw(moments),
        )
        for index in range(count)
    ]


@st.composite
def pinned_candidates(draw: st.DrawFn) -> list[Candidate]:
    count = draw(st.integers(0, 5))
    return [
        Candidate(Source.CALLER, f"p{index}", draw(st.sampled_from(list(Section))), draw(texts), pinned=True)
        for index in range(count)
    ]


budgets = st.dictionaries(st.sampled_from(list(Section)), st.integers(0, 60))
unavailable = st.lists(
    st.builds(UnavailableSource, st.sampled_from(list(Source)), st.sampled_from(list(Section)), st.text(max_size=10)),
    max_size=2,
)
PROPERTY_SETTINGS = settings(max_examples=70, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_invariants(
    assembly: Assembly, candidates: list[Candidate], policy: AssemblyPolicy, counter: TokenCounter, gaps: int
) -> None:
    for entry in assembly.manifest:
        event(f"outcome {entry.outcome.name}")
    if any(item.truncated for section in assembly.sections for item in section.items):
        event("an item was cut")
    # Budgets: every section within its own (plus the spare it took, never when its budget was
    # fixed), its tokens the exact count of its text.
    for section in assembly.sections:
        assert section.items, "empty sections are omitted"
        if policy.may_take_spare(section.section):
            assert section.budget_tokens >= policy.budgets[section.section]
        else:
            assert section.budget_tokens == policy.budgets[section.section]
        assert section.tokens == counter.count(section.text) <= section.budget_tokens
    assert assembly.total_tokens == sum(section.tokens for section in assembly.sections) <= assembly.budget_tokens
    assert assembly.budget_tokens == sum(policy.budgets.values())
    assert [section.section for section in assembly.sections] == sorted(
        section.section for section in assembly.sections
    )

    # The manifest: every candidate exactly once, then one entry per unavailable source.
    entries = assembly.manifest[: len(assembly.manifest) - gaps]
    assert all(entry.outcome is Outcome.SOURCE_UNAVAILABLE for entry in assembly.manifest[len(entries) :])
    assert all(entry.outcome is not Outcome.SOURCE_UNAVAILABLE for entry in entries)
    given_keys = Counter((c.source, c.id, c.section) for c in candidates)
    if assembly.first_session:
        given_keys[(Source.CALLER, FIRST_SESSION_ID, Section.GUIDANCE)] += 1
    # Nothing relevant: searched candidates, none similar enough, no searched source down, not a first session.
    searched = [c for c in candidates if c.source in SEARCHED and not c.pinned]
    nothing = (
        policy.min_relevance > 0
        and not assembly.first_session
        and bool(searched)
        and not any(gap.source in SEARCHED for gap in assembly_gaps(assembly, gaps))
        and max(c.similarity for c in searched) < policy.min_relevance
    )
    if nothing:
        event("nothing relevant found")
        given_keys[(Source.CALLER, NOTHING_FOUND_ID, Section.MEMORIES)] += 1
    assert Counter((e.source, e.id, e.section) for e in entries) == given_keys
    assert [entry.section for entry in entries] == sorted(entry.section for entry in entries)

    # KEPT entries are exactly the placed items, in order.
    kept = [(e.source, e.id, e.section, e.truncated) for e in entries if e.outcome is Outcome.KEPT]
    placed = [(i.source, i.id, s.section, i.truncated) for s in assembly.sections for i in s.items]
    assert kept == placed

    by_key = {(c.source, c.id): c for c in candidates}
    outcome_of = {(e.source, e.id): e.outcome for e in entries}
    for entry in entries:
        candidate = by_key.get((entry.source, entry.id))
        if candidate is None:  # the first-session preamble
            continue
        prose = is_prose(candidate)
        assert entry.tokens == counter.count(render_line(clean(candidate.text, prose), prose))
        # The threshold: exactly the non-pinned candidates under it, or all that was recalled for the
        # message when nothing relevant was found.
        assert (entry.outcome is Outcome.BELOW_THRESHOLD) == (
            not candidate.pinned and (entry.score.total < policy.min_score or (nothing and entry.section in NEAREST))
        )
        if entry.outcome is Outcome.DUPLICATE:
            assert not candidate.pinned
            twin = next(e for e in entries if e.id == entry.duplicate_of)
            assert outcome_of[(twin.source, twin.id)] in (Outcome.KEPT, Outcome.OVER_BUDGET)
            assert twin.score.total >= policy.min_score

    # Ranking: within a section, pinned first, then never a lower rank above a higher one; a rank is
    # the score, or the best score of the near-duplicates the candidate stands in for.
    stands_in: dict[str, float] = {}
    for entry in entries:
        if entry.outcome is Outcome.DUPLICATE and entry.duplicate_of not in (entry.id, WORKING_MEMORY_ID):
            stands_in[entry.duplicate_of] = max(stands_in.get(entry.duplicate_of, 0.0), entry.score.total)
    for section in Section:
        ranked = [e for e in entries if e.section is section and e.source is not Source.CALLER]
        pinned = [e for e in entries if e.section is section and e.source is Source.CALLER]
        section_entries = [e for e in entries if e.section is section]
        assert section_entries == pinned + ranked
        ranks = [max(e.score.total, stands_in.get(e.id, 0.0)) for e in ranked]
        assert ranks == sorted(ranks, reverse=True)

    # Cuts end at a sentence boundary or with an ellipsis.
    for section in assembly.sections:
        for item in section.items:
            if item.truncated:
                assert (
                    item.text.endswith(ELLIPSIS)
                    or item.text[-1] in ".!?"
                    or "\n" in by_key[(item.source, item.id)].text
                )
            else:
                candidate = by_key.get((item.source, item.id))
                if candidate is not None:
                    assert item.text == clean(candidate.text, is_prose(candidate))


def assembly_gaps(assembly: Assembly, gaps: int) -> list[ManifestEntry]:
    return list(assembly.manifest[len(assembly.manifest) - gaps :]) if gaps else []


def _interleave(pinned: list[Candidate], ranked: list[Candidate], seed: int) -> list[Candidate]:
    """``ranked`` shuffled, with ``pinned`` spread among them in their own order."""
    rng = random.Random(seed)
    shuffled = ranked[:]
    rng.shuffle(shuffled)
    slots = sorted(rng.randint(0, len(shuffled)) for _ in pinned)
    for offset, (slot, candidate) in enumerate(zip(slots, pinned, strict=True)):
        shuffled.insert(slot + offset, candidate)
    return shuffled


@PROPERTY_SETTINGS
@given(
    ranked=ranked_candidates(),
    pinned=pinned_candidates(),
    overrides=budgets,
    gaps=unavailable,
    counter_name=st.sampled_from(sorted(COUNTERS)),
    min_score=st.sampled_from([0.0, 0.3, 0.6]),
    min_relevance=st.sampled_from([0.0, 0.3, 0.6]),
    seed=st.integers(0, 10_000),
    known=st.sampled_from([None, True, False]),
)
def test_assembly_invariants_hold_and_input_order_of_ranked_items_does_not_matter(
    ranked: list[Candidate],
    pinned: list[Candidate],
    overrides: dict[Section, int],
    gaps: list[UnavailableSource],
    counter_name: str,
    min_score: float,
    min_relevance: float,
    seed: int,
    known: bool | None,
) -> None:
    counter = COUNTERS[counter_name]
    policy = AssemblyPolicy(min_score=min_score, min_relevance=min_relevance).with_budgets(overrides)
    candidates = pinned + ranked

    def run(items: list[Candidate]) -> Assembly:
        return assemble(
            items,
            policy=policy,
            counter=counter,
            unavailable=gaps,
            persona_mode="Coach",
            mood="calm",
            known_anything=known,
        )

    assembly = run(candidates)
    check_invariants(assembly, candidates, policy, counter, len(gaps))
    assert run(candidates) == assembly
    assert run(_interleave(pinned, ranked, seed)) == assembly


long_texts = st.lists(st.sampled_from(WORDS + ["word"] * 5), min_size=40, max_size=400).map(" ".join)


@PROPERTY_SETTINGS
@given(
    persona=long_texts,
    tools=st.lists(long_texts, min_size=1, max_size=3),
    memories=st.lists(long_texts, max_size=4),
    counter_name=st.sampled_from(sorted(COUNTERS)),
    budget=st.integers(0, 120),
)
def test_long_items_are_cut_once_per_section_and_never_overflow(
    persona: str, tools: list[str], memories: list[str], counter_name: str, budget: int
) -> None:
    counter = COUNTERS[counter_name]
    policy = AssemblyPolicy().with_budgets({section: budget for section in Section})
    candidates = [
        Candidate(Source.CALLER, "persona", Section.PERSONA, persona, pinned=True),
        *(
            Candidate(Source.CALLER, f"tool{i}", Section.TOOL_RESULTS, text, pinned=True)
            for i, text in enumerate(tools)
        ),
        *(
            Candidate(Source.MEMORY, f"m{i}", Section.MEMORIES, text, similarity=1, recency=1, importance=1)
            for i, text in enumerate(memories)
        ),
    ]
    assembly = assemble(candidates, policy=policy, counter=counter, known_anything=True)
    check_invariants(assembly, candidates, policy, counter, 0)
    for section in assembly.sections:
        assert sum(item.truncated for item in section.items) <= 1
