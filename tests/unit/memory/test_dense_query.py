"""The dense side of Recall is asked without the query's names (domain.dense_query): the lexical side
matches names exactly, and the embedding then weighs what is asked about."""

from __future__ import annotations

import pytest
from memory_svc.domain.dense_query import dense_query


@pytest.mark.parametrize(
    ("query", "embedded"),
    [
        ("When did Noor first volunteer at the animal shelter?", "When did first volunteer at the animal shelter?"),
        ("What is Tomasz's favourite cello piece?", "What is favourite cello piece?"),
        ("Did “Noor” join the LGBTQ choir?", "Did join the LGBTQ choir?"),  # an acronym is no name
        ("Yesterday I met Ines at the café.", "Yesterday I met at the café."),  # nor is "I"
        ("Noor and Ines went hiking", "Noor and went hiking"),  # the first word is kept
        ("tea or coffee at 8 am", "tea or coffee at 8 am"),
    ],
)
def test_capitalised_words_after_the_first_are_left_to_the_lexical_side(query: str, embedded: str) -> None:
    assert dense_query(query) == embedded


@pytest.mark.parametrize(
    "query", ["Noor", "Noor Haddad", "Ask Noor", "Any news from Lisbon?", "What did Noor research?"]
)
def test_a_query_about_the_name_itself_is_embedded_as_written(query: str) -> None:
    """Fewer than two content words would remain: the name is what is asked about."""
    assert dense_query(query) == query
