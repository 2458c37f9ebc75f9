from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

from assembler_svc.domain.dedupe import find_duplicates, normalise_text, walk_order
from assembler_svc.domain.model import Candidate, Section, Source
from hypothesis import given, settings
from hypothesis import strategies as st

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def cand(
    key: str,
    text: str | None = None,
    vector: tuple[float, ...] | None = None,
    days: float | None = 0.0,
    section: Section = Section.MEMORIES,
) -> Candidate:
    when = None if days is None else T0 + timedelta(days=days)
    return Candidate(Source.MEMORY, key, section, text or f"text of {key}", vector=vector, occurred_at=when)


def named(found: dict[int, int], candidates: list[Candidate]) -> dict[str, str]:
    return {candidates[dup].id: candidates[kept].id for dup, kept in found.items()}


def test_near_duplicate_vectors_keep_the_newest() -> None:
    candidates = [cand("old", vector=(1.0, 0.0), days=1), cand("new", vector=(0.99, 0.05), days=2)]
    assert named(find_duplicates(candidates, [0.9, 0.1], 0.85), candidates) == {"old": "new"}


def test_vectors_at_or_below_the_threshold_are_both_kept() -> None:
    angle = math.acos(0.85)
    candidates = [cand("a", vector=(1.0, 0.0)), cand("b", vector=(math.cos(angle) - 1e-9, math.sin(angle)))]
    assert find_duplicates(candidates, [0.5, 0.5], 0.85) == {}


def test_duplicates_are_found_across_sections() -> None:
    candidates = [
        cand("memory", vector=(1.0, 0.0), days=2),
        cand("belief", vector=(1.0, 0.01), days=1, section=Section.OBSERVATIONS),
    ]
    assert named(find_duplicates(candidates, [0.5, 0.5], 0.85), candidates) == {"belief": "memory"}


def test_vectors_of_different_dimension_never_match() -> None:
    candidates = [cand("a", vector=(1.0, 0.0)), cand("b", vector=(1.0, 0.0, 0.0))]
    assert find_duplicates(candidates, [0.5, 0.5], 0.85) == {}


def test_zero_and_non_finite_vectors_never_match_by_vector() -> None:
    candidates = [
        cand("a", vector=(0.0, 0.0)),
        cand("b", vector=(0.0, 0.0)),
        cand("c", vector=(math.nan, 1.0)),
        cand("d", vector=(math.nan, 1.0)),
    ]
    assert find_duplicates(candidates, [0.5] * 4, 0.85) == {}


def test_without_a_vector_only_the_normalised_text_counts() -> None:
    candidates = [
        cand("a", "The user  likes TEA.", days=2),
        cand("b", "the user likes tea", days=1),
        cand("c", "the user likes coffee", days=0),
    ]
    assert named(find_duplicates(candidates, [0.5] * 3, 0.85), candidates) == {"b": "a"}


def test_equal_text_is_a_duplicate_even_when_only_one_has_a_vector() -> None:
    candidates = [cand("a", "Lives in Porto", vector=(1.0, 0.0), days=2), cand("b", "lives in porto!", days=1)]
    assert named(find_duplicates(candidates, [0.5] * 2, 0.85), candidates) == {"b": "a"}


def test_a_duplicate_of_a_duplicate_is_not_chained_to_a_dropped_item() -> None:
    # c ~ b, b ~ a, c not ~ a: b is dropped (dup of a), so c is compared with kept items only.
    a, b, c = (1.0, 0.0), (math.cos(0.5), math.sin(0.5)), (math.cos(1.0), math.sin(1.0))
    candidates = [cand("a", vector=a, days=3), cand("b", vector=b, days=2), cand("c", vector=c, days=1)]
    assert named(find_duplicates(candidates, [0.5] * 3, 0.85), candidates) == {"b": "a"}


def test_the_most_similar_kept_candidate_is_named() -> None:
    candidates = [
        cand("x", vector=(1.0, 0.0, 0.0), days=3),
        cand("y", vector=(0.0, 1.0, 0.0), days=2),
        cand("z", vector=(0.6, 0.8, 0.0), days=1),  # cos to x 0.6, to y 0.8
    ]
    assert named(find_duplicates(candidates, [0.5] * 3, 0.7), candidates) == {"z": "y"}


def test_walk_order_is_newest_first_unknown_last_then_total_then_id() -> None:
    naive = datetime(2026, 1, 5)
    candidates = [
        cand("none", days=None),
        cand("b", days=1),
        cand("a", days=1),
        cand("best", days=1),
        Candidate(Source.MEMORY, "naive", Section.MEMORIES, "t", occurred_at=naive),
    ]
    order = walk_order(candidates, [0.9, 0.5, 0.5, 0.8, 0.1])
    assert [candidates[i].id for i in order] == ["naive", "best", "a", "b", "none"]


vectors = st.lists(
    st.sampled_from([(1.0, 0.0), (0.99, 0.1), (0.0, 1.0), (0.1, 0.99), (0.7, 0.7)]), min_size=1, max_size=12
)


@settings(max_examples=60, deadline=None)
@given(chosen=vectors, seed=st.integers(0, 1000))
def test_result_names_kept_candidates_and_ignores_input_order(chosen: list[tuple[float, float]], seed: int) -> None:
    candidates = [cand(f"c{i}", vector=v, days=i % 3) for i, v in enumerate(chosen)]
    totals = [0.5] * len(candidates)
    found = named(find_duplicates(candidates, totals, 0.85), candidates)
    assert not set(found.values()) & set(found)
    shuffled = candidates[:]
    random.Random(seed).shuffle(shuffled)
    assert named(find_duplicates(shuffled, totals, 0.85), shuffled) == found


def test_normalise_text() -> None:
    assert normalise_text("  Hello,\n  World!!! ") == "hello, world"
    assert normalise_text("Straße…") == "strasse"


def _reference(candidates: list[Candidate], totals: list[float], threshold: float) -> dict[int, int]:
    """The rule in plain Python, pair by pair: what the blocked numpy version must reproduce."""

    def cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
        na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
        return sum(x * y for x, y in zip(a, b, strict=True)) / (na * nb) if na and nb else 0.0

    kept: list[int] = []
    found: dict[int, int] = {}
    for index in walk_order(candidates, totals):
        vector = candidates[index].vector
        best, of = -1.0, None
        for other in kept:
            if normalise_text(candidates[other].text) == normalise_text(candidates[index].text):
                of = other
                break
        if of is None and vector is not None:
            for other in kept:
                twin = candidates[other].vector
                if twin is not None and len(twin) == len(vector):
                    value = cosine(vector, twin)
                    if value > threshold and value > best:
                        best, of = value, other
        if of is None:
            kept.append(index)
        else:
            found[index] = of
    return found


def test_the_blocked_matrix_product_matches_the_plain_rule_at_scale() -> None:
    rng = random.Random(3)
    bases = [[rng.gauss(0, 1) for _ in range(64)] for _ in range(60)]
    candidates = []
    for n in range(150):
        base = bases[n % len(bases)] if n >= 60 and rng.random() < 0.5 else [rng.gauss(0, 1) for _ in range(64)]
        vector = tuple(x + rng.gauss(0, 0.2) for x in base)
        candidates.append(cand(f"c{n:03}", vector=vector, days=rng.randint(0, 30)))
    candidates.append(cand("int-vector", vector=tuple(range(64)), days=1))
    totals = [rng.random() for _ in candidates]
    found = find_duplicates(candidates, totals, 0.85)
    assert found == _reference(candidates, totals, 0.85)
    assert len(found) > 10


def test_a_message_is_a_duplicate_by_its_vector_only_of_what_keeps_most_of_its_words() -> None:
    # Two turns of one speaker on one topic embed close, yet the older says what the newer does not.
    def said(key: str, words: str, days: float) -> Candidate:
        return Candidate(
            Source.MEMORY,
            key,
            Section.MEMORIES,
            f"Jon said: {words}",
            statement=words,
            quotes=True,
            vector=(1.0, 0.01 * days),
            occurred_at=T0 + timedelta(days=days),
        )

    offered = said("offer", "Besides the lessons I'm giving private coaching to the swimmers.", 1)
    excited = said("excited", "I'm also thrilled to coach and train young swimmers.", 2)
    repeated = said("again", "I'm giving private coaching to the swimmers besides lessons!", 3)

    assert find_duplicates([offered, excited], [0.6, 0.6], 0.85) == {}
    assert named(
        find_duplicates([offered, excited, repeated], [0.6, 0.6, 0.6], 0.85), [offered, excited, repeated]
    ) == {"offer": "again"}
