from __future__ import annotations

import math

import pytest
from assembler_svc.domain.model import UNSCORED, Candidate, Section, Source, Weights
from assembler_svc.domain.scoring import below_threshold, clamp_unit, score
from hypothesis import given, settings
from hypothesis import strategies as st


def memory(similarity: float, recency: float, importance: float, pinned: bool = False) -> Candidate:
    return Candidate(Source.MEMORY, "m", Section.MEMORIES, "text", similarity, recency, importance, pinned)


def test_total_is_the_weighted_sum_of_the_architecture() -> None:
    value = score(memory(0.5, 1.0, 0.0), Weights())
    assert value.total == pytest.approx(0.4 * 0.5 + 0.3 * 1.0)
    assert (value.similarity, value.recency, value.importance) == (0.5, 1.0, 0.0)


def test_components_are_clamped_before_weighting() -> None:
    value = score(memory(-0.7, 3.0, math.nan), Weights())
    assert (value.similarity, value.recency, value.importance) == (0.0, 1.0, 0.0)
    assert value.total == pytest.approx(0.3)
    assert clamp_unit(math.inf) == 1.0
    assert clamp_unit(-math.inf) == 0.0


def test_weights_are_used_as_given() -> None:
    assert score(memory(1, 1, 1), Weights(2, 0, 0)).total == pytest.approx(2.0)


def test_pinned_candidates_are_not_scored_and_never_below_threshold() -> None:
    pinned = memory(0.0, 0.0, 0.0, pinned=True)
    assert score(pinned, Weights()) == UNSCORED
    assert not below_threshold(pinned, UNSCORED, 1.0)


def test_threshold_is_strictly_below() -> None:
    candidate = memory(0.0, 1.0, 0.0)
    value = score(candidate, Weights())
    assert not below_threshold(candidate, value, 0.3)
    assert below_threshold(candidate, value, 0.31)


unit = st.floats(allow_nan=True, allow_infinity=True)


@settings(max_examples=100, deadline=None)
@given(similarity=unit, recency=unit, importance=unit, better=st.floats(0, 1))
def test_total_stays_in_range_and_grows_with_every_component(
    similarity: float, recency: float, importance: float, better: float
) -> None:
    weights = Weights()
    value = score(memory(similarity, recency, importance), weights)
    assert 0.0 <= value.total <= 1.0 + 1e-12
    improved = score(memory(max(value.similarity, better), recency, importance), weights)
    assert improved.total >= value.total
