"""``bench.paraphrase --ids`` measures one batch of the suite: the cases whose id the expression finds."""

from __future__ import annotations

from bench.paraphrase import Case, selected


def _cases(*ids: str) -> list[Case]:
    return [Case(case_id, "tuning", "I'm allergic to peanuts.", "user", None) for case_id in ids]


def test_ids_keep_the_cases_they_find_and_every_thins_them_after() -> None:
    cases = _cases("allergy.t01", "allergy.tc01", "diet.tc02", "diet.t03", "trap.t001")
    assert [c.id for c in selected(cases, r"\.tc")] == ["allergy.tc01", "diet.tc02"]
    assert [c.id for c in selected(cases, r"\.tc", every=2)] == ["allergy.tc01"]
    assert [c.id for c in selected(cases)] == [c.id for c in cases]
