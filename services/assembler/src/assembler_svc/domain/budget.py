"""Filling one section within its token budget (ARCHITECTURE.md §5).

Greedy over the section's items in their final order (pinned first, then best first):

- the title line costs tokens and is charged first; each item is charged its rendered line plus the
  line break before it;
- an item that fits what is left is KEPT; one that does not is OVER_BUDGET and the next (smaller)
  items are still tried;
- an item longer than the section's whole budget (title included) is cut to what is left
  (``truncate.cut``) and marked truncated; only one item per section is cut, and an item whose cut
  is impossible or too short is OVER_BUDGET;
- a budget of 0 disables the section: every item is OVER_BUDGET.

BPE counts are not additive over concatenation (a line break can merge with the punctuation before
it, or not), so the charges are an estimate: the joined section text is counted at the end and the
last kept item dropped (OVER_BUDGET) while that count exceeds the budget. ``tokens`` of the section
is always the counter's count of its exact text, never more than its budget. A section that keeps
nothing is omitted, title and all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assembler_svc.domain.model import (
    SECTION_TITLES,
    Candidate,
    ContextItem,
    ContextSection,
    Outcome,
    Section,
    TokenCounter,
)
from assembler_svc.domain.render import section_text, title_line
from assembler_svc.domain.truncate import cut


@dataclass(frozen=True, slots=True)
class Line:
    """A candidate as it would be placed whole: its cleaned text, rendered line and that line's tokens."""

    candidate: Candidate
    text: str
    line: str
    tokens: int
    prose: bool


@dataclass(frozen=True, slots=True)
class Placement:
    """What budgeting did with one line: KEPT (maybe truncated, with its placed item) or OVER_BUDGET."""

    outcome: Outcome
    item: ContextItem | None = None

    @property
    def truncated(self) -> bool:
        return self.item is not None and self.item.truncated


@dataclass(frozen=True, slots=True)
class FilledSection:
    section: ContextSection | None
    placements: tuple[Placement, ...]


_OVER = Placement(Outcome.OVER_BUDGET)


def fill_section(section: Section, lines: Sequence[Line], budget: int, counter: TokenCounter) -> FilledSection:
    """Place ``lines`` (already in their final order) into ``section``; one placement per line."""
    if budget <= 0 or not lines:
        return FilledSection(None, (_OVER,) * len(lines))
    title_tokens = counter.count(title_line(section))
    separator = counter.count("\n")
    used = title_tokens
    kept: list[tuple[int, ContextItem, str]] = []  # (position, item, rendered line)
    cut_done = False
    for position, line in enumerate(lines):
        charge = line.tokens + separator
        if used + charge <= budget:
            kept.append((position, _item(line.candidate, line.text, line.tokens, False), line.line))
            used += charge
            continue
        if not cut_done and title_tokens + charge > budget:
            piece = cut(line.text, prose=line.prose, max_tokens=budget - used - separator, counter=counter)
            if piece is not None:
                kept.append((position, _item(line.candidate, piece.text, piece.tokens, True), piece.line))
                used += piece.tokens + separator
                cut_done = True
    while kept:
        text = section_text(section, [rendered for _, _, rendered in kept])
        tokens = counter.count(text)
        if tokens <= budget:
            break
        kept.pop()
    if not kept:
        return FilledSection(None, (_OVER,) * len(lines))
    placements = [_OVER] * len(lines)
    for position, item, _ in kept:
        placements[position] = Placement(Outcome.KEPT, item)
    items = tuple(item for _, item, _ in kept)
    return FilledSection(
        ContextSection(section, SECTION_TITLES[section], items, text, tokens, budget), tuple(placements)
    )


def _item(candidate: Candidate, text: str, tokens: int, truncated: bool) -> ContextItem:
    return ContextItem(candidate.source, candidate.id, text, tokens, truncated)
