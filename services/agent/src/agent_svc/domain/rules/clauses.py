"""A sentence's independent clauses: "I'm vegan and I live in Porto" says two things."""

from __future__ import annotations

import re

_I = re.IGNORECASE
_CLAUSE_BREAK = re.compile(
    r";\s*|,\s*(?=(?:let me|i'll|i will)\b)|"
    r",?\s+(?:and|but|so)\s+(?=(?:i|i'm|i'll|i've|i'd|we|we've|we'll|my|let's)\b)",
    _I,
)


def clauses(sentence: str) -> list[tuple[int, int]]:
    """Spans of the sentence's independent clauses ("I'm vegan and I live in Porto" → two)."""
    spans, start = [], 0
    for match in _CLAUSE_BREAK.finditer(sentence):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(sentence)))
    return [(a, b) for a, b in spans if sentence[a:b].strip()]
