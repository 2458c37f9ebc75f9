"""Candidate scoring (ARCHITECTURE.md §5):

    total = w_s · clamp(similarity) + w_r · clamp(recency) + w_i · clamp(importance)

Each component is clamped to [0, 1] first: a negative cosine says "unrelated", not "penalise",
and a salience or confidence above 1 (or NaN from a bad store row) must not let one signal
dominate. The weights are used as given: the defaults sum to 1, so ``min_score`` is on the same
scale as the components. Pinned candidates are given context, never scored.
"""

from __future__ import annotations

import math

from assembler_svc.domain.model import UNSCORED, Candidate, Score, Weights


def clamp_unit(value: float) -> float:
    """``value`` in [0, 1]; NaN counts 0."""
    if not math.isfinite(value):
        return 1.0 if value == math.inf else 0.0
    return 0.0 if value < 0.0 else 1.0 if value > 1.0 else float(value)


def score(candidate: Candidate, weights: Weights) -> Score:
    """The score of one candidate; ``UNSCORED`` (all zero) for a pinned one."""
    if candidate.pinned:
        return UNSCORED
    similarity = clamp_unit(candidate.similarity)
    recency = clamp_unit(candidate.recency)
    importance = clamp_unit(candidate.importance)
    total = weights.similarity * similarity + weights.recency * recency + weights.importance * importance
    return Score(similarity, recency, importance, total)


def below_threshold(candidate: Candidate, value: Score, min_score: float) -> bool:
    """A pinned candidate never is; any other is when its total is under ``min_score``."""
    return not candidate.pinned and value.total < min_score
