from __future__ import annotations

import math

import pytest
from assembler_svc.domain.model import (
    DEFAULT_BUDGETS,
    SECTION_TITLES,
    AssemblyPolicy,
    Outcome,
    Section,
    Source,
    Weights,
    with_budgets,
)
from lore.common.v1 import context_pb2


def test_enums_carry_the_proto_numbers() -> None:
    for section in Section:
        assert context_pb2.SectionKind.Value(f"SECTION_KIND_{section.name}") == section
    for source in Source:
        assert context_pb2.CandidateSource.Value(f"CANDIDATE_SOURCE_{source.name}") == source
    for outcome in Outcome:
        assert context_pb2.ManifestOutcome.Value(f"MANIFEST_OUTCOME_{outcome.name}") == outcome
    assert len(Section) == len(context_pb2.SectionKind.keys()) - 1


def test_default_budgets_are_the_architectures_1400_tokens() -> None:
    assert sum(DEFAULT_BUDGETS.values()) == 1400
    assert DEFAULT_BUDGETS[Section.PERSONA] == 300
    assert DEFAULT_BUDGETS[Section.TOOL_RESULTS] == 400
    assert DEFAULT_BUDGETS[Section.OPINIONS] == 50
    assert set(SECTION_TITLES) == set(Section)
    assert SECTION_TITLES[Section.MEMORIES] == "What I remember"


def test_with_budgets_merges_overrides_onto_the_defaults() -> None:
    merged = with_budgets({Section.MEMORIES: 500, 8: 0})
    assert merged[Section.MEMORIES] == 500
    assert merged[Section.OPINIONS] == 0
    assert merged[Section.PERSONA] == 300
    assert with_budgets(None) == DEFAULT_BUDGETS


def test_a_partial_budget_mapping_keeps_the_other_defaults() -> None:
    policy = AssemblyPolicy(budgets={Section.PERSONA: 10})
    assert policy.budgets[Section.PERSONA] == 10
    assert policy.budgets[Section.GUIDANCE] == 150
    assert policy.budget_tokens == 1400 - 300 + 10
    assert policy.with_budgets({Section.GUIDANCE: 0}).budgets[Section.PERSONA] == 10
    assert policy.with_budgets({Section.GUIDANCE: 0}).budgets[Section.GUIDANCE] == 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_score": -0.1},
        {"min_score": 1.5},
        {"duplicate_cosine": 0.0},
        {"duplicate_cosine": 1.01},
        {"budgets": {Section.MEMORIES: -1}},
        {"budgets": {Section.MEMORIES: 1.5}},
    ],
)
def test_policy_rejects_out_of_range_settings(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        AssemblyPolicy(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"similarity": -0.1},
        {"recency": math.nan},
        {"importance": math.inf},
        {"similarity": 0, "recency": 0, "importance": 0},
    ],
)
def test_weights_must_be_finite_non_negative_and_not_all_zero(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Weights(**kwargs)


def test_default_weights_sum_to_one() -> None:
    weights = Weights()
    assert weights.similarity + weights.recency + weights.importance == pytest.approx(1.0)
