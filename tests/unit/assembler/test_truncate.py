from __future__ import annotations

from assembler_svc.adapters.tiktoken_counter import TiktokenCounter
from assembler_svc.domain.truncate import ELLIPSIS, MIN_CUT_TOKENS, cut, sentence_ends, word_ends
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.assembler.test_token_counters import WhitespaceCounter

WORDS = WhitespaceCounter()
BPE = TiktokenCounter()


def test_sentence_and_word_ends() -> None:
    text = "One two. Three? Four e.g.five\nSix"
    assert sentence_ends(text) == [8, 15, 29]
    assert word_ends("a bc  d") == [1, 4]


def test_cut_at_the_last_sentence_that_fits() -> None:
    text = "First sentence here. Second one is here. Third is much longer than the others."
    piece = cut(text, prose=False, max_tokens=9, counter=WORDS)
    assert piece is not None
    assert piece.text == "First sentence here. Second one is here."
    assert piece.line == "- " + piece.text
    assert piece.tokens == 8
    assert piece.at_sentence


def test_prose_cuts_before_a_line_break() -> None:
    text = "I am Lore, a patient assistant\nI speak plainly and briefly to everyone I meet"
    piece = cut(text, prose=True, max_tokens=8, counter=WORDS)
    assert piece is not None
    assert piece.text == "I am Lore, a patient assistant"
    assert piece.line == piece.text


def test_without_a_sentence_that_fits_cut_at_a_word_with_an_ellipsis() -> None:
    text = "one two three four five six seven eight nine ten eleven twelve. Thirteen."
    piece = cut(text, prose=False, max_tokens=10, counter=WORDS)
    assert piece is not None
    assert piece.text == "one two three four five six seven eight nine" + ELLIPSIS  # "- " is a word here
    assert not piece.at_sentence
    assert piece.tokens == 10


def test_a_dangling_comma_is_dropped_before_the_ellipsis() -> None:
    piece = cut("alpha beta gamma, delta epsilon zeta eta theta iota kappa", prose=True, max_tokens=3, counter=WORDS)
    assert piece is None  # fewer than MIN_CUT_TOKENS
    piece = cut("a b c d e f g h, i j k l m n", prose=True, max_tokens=MIN_CUT_TOKENS, counter=WORDS)
    assert piece is not None
    assert piece.text == "a b c d e f g h" + ELLIPSIS


def test_a_word_cut_under_the_minimum_is_refused() -> None:
    assert cut("word " * 50, prose=False, max_tokens=MIN_CUT_TOKENS - 1, counter=WORDS) is None
    assert cut("anything", prose=False, max_tokens=0, counter=WORDS) is None


def test_a_single_endless_word_cannot_be_cut() -> None:
    assert cut("x" * 5000, prose=False, max_tokens=50, counter=BPE) is None


texts = st.lists(
    st.sampled_from(
        ["The", "user", "likes", "tea", "café", "über", "日本", "wrote:", "3.14", "ok.", "why?", "so!", "\n"]
    ),
    min_size=1,
    max_size=80,
).map(" ".join)


@settings(max_examples=80, deadline=None)
@given(text=texts, max_tokens=st.integers(1, 60), prose=st.booleans())
def test_a_cut_fits_is_a_prefix_and_ends_at_a_boundary(text: str, max_tokens: int, prose: bool) -> None:
    for counter in (WORDS, BPE):
        piece = cut(text, prose=prose, max_tokens=max_tokens, counter=counter)
        if piece is None:
            continue
        assert piece.tokens == counter.count(piece.line) <= max_tokens
        if piece.at_sentence:
            assert text.startswith(piece.text)
            rest = text[len(piece.text) :]
            assert piece.text[-1] in ".!?" or rest.startswith((" \n", "\n"))
        else:
            assert piece.text.endswith(ELLIPSIS)
            assert text.startswith(piece.text.removesuffix(ELLIPSIS))
            assert piece.tokens >= MIN_CUT_TOKENS
