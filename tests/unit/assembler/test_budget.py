from __future__ import annotations

from assembler_svc.domain.budget import Line, fill_section
from assembler_svc.domain.model import Candidate, Outcome, Section, Source
from assembler_svc.domain.render import render_line
from assembler_svc.domain.truncate import ELLIPSIS

from tests.unit.assembler.test_token_counters import WhitespaceCounter

WORDS = WhitespaceCounter()


def line(key: str, words: int, *, prose: bool = False, text: str | None = None) -> Line:
    body = text if text is not None else " ".join(f"{key}{i}" for i in range(words))
    rendered = render_line(body, prose)
    candidate = Candidate(Source.MEMORY, key, Section.MEMORIES, body)
    return Line(candidate, body, rendered, WORDS.count(rendered), prose)


def outcomes(lines: list[Line], budget: int, counter: object = WORDS) -> list[Outcome]:
    filled = fill_section(Section.MEMORIES, lines, budget, counter)  # type: ignore[arg-type]
    return [placement.outcome for placement in filled.placements]


KEPT, OVER = Outcome.KEPT, Outcome.OVER_BUDGET


def test_title_is_charged_and_items_kept_greedily() -> None:
    # "## What I remember" is 4 words; each line is its words + the bullet.
    lines = [line("a", 4), line("b", 4), line("c", 4)]
    filled = fill_section(Section.MEMORIES, lines, 14, WORDS)
    assert [p.outcome for p in filled.placements] == [KEPT, KEPT, OVER]
    assert filled.section is not None
    assert filled.section.text == "## What I remember\n- a0 a1 a2 a3\n- b0 b1 b2 b3"
    assert filled.section.tokens == 14 == filled.section.budget_tokens
    assert [item.id for item in filled.section.items] == ["a", "b"]
    assert [item.tokens for item in filled.section.items] == [5, 5]


def test_an_item_that_does_not_fit_is_skipped_and_smaller_ones_still_tried() -> None:
    assert outcomes([line("a", 4), line("big", 8), line("small", 2)], 14) == [KEPT, OVER, KEPT]


def test_a_zero_budget_disables_the_section() -> None:
    filled = fill_section(Section.MEMORIES, [line("a", 1)], 0, WORDS)
    assert filled.section is None
    assert [p.outcome for p in filled.placements] == [OVER]


def test_a_section_that_keeps_nothing_is_omitted_title_and_all() -> None:
    filled = fill_section(Section.MEMORIES, [line("a", 3)], 5, WORDS)  # 4 title + 4 line > 5, cut too short
    assert filled.section is None
    assert [p.outcome for p in filled.placements] == [OVER]


def test_an_item_longer_than_the_whole_budget_is_cut_once() -> None:
    long_text = "First sentence is short. " + "filler " * 40 + "end."
    lines = [line("long", 0, text=long_text), line("long2", 0, text=long_text), line("small", 2)]
    filled = fill_section(Section.MEMORIES, lines, 20, WORDS)
    assert [p.outcome for p in filled.placements] == [KEPT, OVER, KEPT]
    assert filled.placements[0].truncated
    assert filled.section is not None
    first = filled.section.items[0]
    assert first.text == "First sentence is short."
    assert first.truncated
    assert first.tokens == 5


def test_a_cut_without_sentence_ends_with_an_ellipsis() -> None:
    filled = fill_section(Section.MEMORIES, [line("w", 40)], 16, WORDS)
    assert filled.section is not None
    (item,) = filled.section.items
    assert item.truncated
    assert item.text.endswith(ELLIPSIS)
    assert filled.section.tokens <= 16


def test_an_item_that_fits_the_section_alone_is_not_cut_just_because_space_ran_out() -> None:
    assert outcomes([line("a", 6), line("b", 6)], 12) == [KEPT, OVER]


class SuperadditiveCounter:
    """Words plus the square of the line breaks: joining lines costs more than the parts."""

    name = "superadditive"

    def count(self, text: str) -> int:
        return len(text.split()) + text.count("\n") ** 2

    def truncate(self, text: str, max_tokens: int) -> str:
        return WORDS.truncate(text, max_tokens)


def test_the_joined_text_is_recounted_and_the_last_items_dropped_until_it_fits() -> None:
    counter = SuperadditiveCounter()
    lines = [line("a", 2), line("b", 2), line("c", 2)]
    filled = fill_section(Section.MEMORIES, lines, 20, counter)
    # charges: title 4, each line 3 + "\n" 1 → 16 ≤ 20; but the joined text counts 4 + 9 + 9 = 22.
    assert [p.outcome for p in filled.placements] == [KEPT, KEPT, OVER]
    assert filled.section is not None
    assert filled.section.tokens == counter.count(filled.section.text) <= 20
