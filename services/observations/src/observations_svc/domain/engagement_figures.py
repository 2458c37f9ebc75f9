"""The precise-figure rule: a statement with a number in it must say where the number came from.

A *figure* is any digit left after removing what only locates a statement in time or names
a period: dates (2026-03-05, 5/3/2026, 5 March 2026, March 5, March 2026), times (14:30),
years after a temporal word (in 2025, since 2019), ordinals (3rd), quarters and halves
(Q3, H1, FY2025), and week/day/sprint labels (week 3). Everything else with a digit counts:
42%, 3.5x, $1.2M, 1,200 users, 3 customers. Number words ("three") do not: they are rarely
precise, and a rule that tried to parse them would be guessing. Conservative on purpose: a
false positive only asks the caller for a source.
"""

from __future__ import annotations

import re

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_NOT_FIGURES = [
    r"\b\d{4}-\d{1,2}-\d{1,2}(?:[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?\b",  # ISO date/time
    r"\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b",  # 5/3/2026, 05.03.26
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?\b",  # 5 March 2026
    rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b",  # March 5, 2026
    rf"\b{_MONTH}\s+\d{{4}}\b",  # March 2026
    r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?\b",  # 14:30, 9:05 pm
    r"\b\d{1,2}\s*[ap]\.?m\.?(?=\W|$)",  # 9am
    r"\b(?:(?:from|between)\s+)?(?:19|20)\d{2}\s*(?:-|–|to|and)\s*(?:19|20)\d{2}\b",  # from 2019 to 2021
    r"\b(?:in|since|by|until|till|before|after|during|from|through|around|circa|year)\s+(?:19|20)\d{2}s?\b",
    r"\b\d+(?:st|nd|rd|th)\b",  # ordinals
    r"\b(?:q[1-4]|h[12]|fy\s?\d{2,4})\b",  # periods
    r"\b(?:week|day|sprint|phase|stage|wave|iteration)\s+\d{1,3}\b",  # labels
]
_NOT_FIGURE = re.compile("|".join(f"(?:{pattern})" for pattern in _NOT_FIGURES), re.IGNORECASE)
_DIGIT = re.compile(r"\d")


def states_precise_figure(text: str) -> bool:
    """Whether ``text`` states a figure (see the module docstring for what is not one)."""
    return bool(_DIGIT.search(_NOT_FIGURE.sub(" ", text)))
