"""The token counters: the real tiktoken adapter and ``WhitespaceCounter``, the fake the other
assembler tests import (a word is a token: easy to reason about, additive over concatenation)."""

from __future__ import annotations

import re

import pytest
from assembler_svc.adapters.tiktoken_counter import TiktokenCounter, encoding
from assembler_svc.domain.model import TokenCounter
from hypothesis import given, settings
from hypothesis import strategies as st

_WORD = re.compile(r"\S+")


class WhitespaceCounter:
    """A fake ``TokenCounter``: one token per whitespace-separated word."""

    name = "whitespace"

    def count(self, text: str) -> int:
        return len(text.split())

    def truncate(self, text: str, max_tokens: int) -> str:
        ends = [match.end() for match in _WORD.finditer(text)]
        if len(ends) <= max_tokens:
            return text
        return text[: ends[max_tokens - 1]] if max_tokens > 0 else ""


COUNTERS: list[TokenCounter] = [WhitespaceCounter(), TiktokenCounter()]


def test_both_counters_satisfy_the_port() -> None:
    for counter in COUNTERS:
        assert isinstance(counter.name, str)
        assert counter.count("") == 0


def test_tiktoken_counter_is_cl100k_and_loads_the_encoding_once() -> None:
    counter = TiktokenCounter()
    assert counter.name == "cl100k_base"
    assert encoding("cl100k_base") is encoding("cl100k_base")
    assert counter.count("hello world") == 2


def test_special_token_text_is_counted_as_plain_text() -> None:
    assert TiktokenCounter().count("before <|endoftext|> after") > 3


def test_an_unknown_encoding_is_refused() -> None:
    with pytest.raises(ValueError, match="no offline tiktoken encoding"):
        TiktokenCounter("o200k_nope")


def test_tiktoken_truncate_never_splits_a_character() -> None:
    text = "日本語のテキストと絵文字 🎉🎉🎉 and some English words"
    counter = TiktokenCounter()
    for max_tokens in range(counter.count(text) + 2):
        piece = counter.truncate(text, max_tokens)
        assert text.startswith(piece)
        assert "\ufffd" not in piece
        assert counter.count(piece) <= max_tokens


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=200), max_tokens=st.integers(min_value=-1, max_value=40))
def test_truncate_gives_a_prefix_within_the_limit(text: str, max_tokens: int) -> None:
    for counter in COUNTERS:
        piece = counter.truncate(text, max_tokens)
        assert text.startswith(piece)
        assert counter.count(piece) <= max(0, max_tokens)
        if counter.count(text) <= max_tokens:
            assert piece == text


def test_whitespace_counter_counts_words() -> None:
    counter = WhitespaceCounter()
    assert counter.count("  one two\nthree  ") == 3
    assert counter.truncate("one two three", 2) == "one two"
