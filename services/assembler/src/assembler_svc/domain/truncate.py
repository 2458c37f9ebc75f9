"""Cutting one item that is longer than its section's whole budget (ARCHITECTURE.md §5).

The cut is the longest prefix whose rendered line fits ``max_tokens``, ending

1. at a sentence boundary: after ``.``, ``!`` or ``?`` followed by whitespace or the end, or before
   a line break; a whole sentence reads better than more words;
2. failing that, at a word boundary, followed by "…" so the reader (and the model) sees the cut;
   such a cut is worth its place only with at least ``MIN_CUT_TOKENS`` tokens.

``counter.truncate`` gives an upper bound on the prefix first, so only the few boundaries just
under it are counted exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from assembler_svc.domain.model import TokenCounter
from assembler_svc.domain.render import render_line

ELLIPSIS = "…"
MIN_CUT_TOKENS = 8
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|(?=\n)")
_WORD_END = re.compile(r"(?<=\S)\s")
_DANGLING = ",;:-–—([{\"'"


@dataclass(frozen=True, slots=True)
class Cut:
    text: str
    line: str
    tokens: int
    at_sentence: bool


def sentence_ends(text: str) -> list[int]:
    """Lengths of the prefixes of ``text`` that end a sentence, ascending."""
    return sorted({match.end() for match in _SENTENCE_END.finditer(text) if match.end() > 0})


def word_ends(text: str) -> list[int]:
    """Lengths of the prefixes of ``text`` that end a word, ascending."""
    return [match.start() for match in _WORD_END.finditer(text)]


def cut(text: str, *, prose: bool, max_tokens: int, counter: TokenCounter) -> Cut | None:
    """The longest cut of ``text`` whose rendered line has at most ``max_tokens`` tokens, or None."""
    if max_tokens < 1 or not text:
        return None
    bound = len(counter.truncate(text, max_tokens))
    for end in reversed([end for end in sentence_ends(text) if end <= bound]):
        piece = text[:end].rstrip()
        if not piece:
            continue
        line = render_line(piece, prose)
        tokens = counter.count(line)
        if tokens <= max_tokens:
            return Cut(piece, line, tokens, at_sentence=True)
    for end in reversed([end for end in word_ends(text) if end <= bound]):
        piece = text[:end].rstrip().rstrip(_DANGLING).rstrip()
        if not piece:
            continue
        piece += ELLIPSIS
        line = render_line(piece, prose)
        tokens = counter.count(line)
        if tokens <= max_tokens:
            return Cut(piece, line, tokens, at_sentence=False) if tokens >= MIN_CUT_TOKENS else None
    return None
