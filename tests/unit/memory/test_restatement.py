"""One fact once (domain/restatement.py): what counts as the same fact said again, precision first."""

from __future__ import annotations

import pytest
from memory_svc.domain.restatement import NEAR, normalised, restates, terms


@pytest.mark.parametrize(
    ("draft", "kept"),
    [
        ("The user is allergic to peanuts.", "the user is allergic to peanuts"),
        ("The user is allergic to peanuts.", "The user has a peanut allergy."),
        ("The user has three kids.", "The user has 3 kids."),
        ("The user doesn't eat meat.", "The user does not eat meat."),
        ("The user lives in Leeds now.", "The user lives in Leeds."),
    ],
)
def test_the_same_fact_in_other_writing_is_a_restatement(draft, kept):
    assert restates(draft, kept, NEAR)


@pytest.mark.parametrize(
    ("draft", "kept"),
    [
        ("The user has 3 kids.", "The user has 4 kids."),
        ("The user's sister is called Anna.", "The user's sister is called Emma."),
        ("The user eats meat.", "The user does not eat meat."),
        ("The user has never been to Japan.", "The user has been to Japan."),
        ("The user works as a pharmacist.", "The user is a pharmacist."),
        ("The user is allergic to peanuts.", "The user is allergic to shellfish."),
    ],
)
def test_different_facts_never_restate_each_other_whatever_the_cosine(draft, kept):
    assert not restates(draft, kept, 0.99)


def test_near_words_without_near_vectors_are_not_a_restatement():
    assert not restates("The user is allergic to peanuts.", "The user has a peanut allergy.", NEAR - 0.01)
    assert restates("The user is allergic to peanuts.", "THE USER IS ALLERGIC TO PEANUTS", 0.0)


def test_framing_punctuation_and_empty_text():
    assert normalised("The user's sister is called Anna!") == "sister is called anna"
    assert terms("Not anymore, no.") == frozenset({"not", "anymore"})
    assert not restates("...", "!!!", 1.0)
