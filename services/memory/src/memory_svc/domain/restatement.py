"""One fact once: whether a memory learnt from a conversation restates one already kept.

Precision first: two different facts must never become one. A draft restates a kept memory when
both are of the same type and exact scope (the caller checks those) and either

- their **normalised text** is equal: case, punctuation, spacing and the "the user" framing
  ("The user is allergic to peanuts." = "the user is allergic to peanuts"), or
- they are **near-duplicates that agree on every content word**: the cosine of their vectors is at
  least ``NEAR`` *and* their significant terms are the same set. Significant terms are the words
  left after framing and grammar words go, lightly stemmed (``lexical.stem``, then a derivational
  "-ic"/"-y" fold so "allergic" meets "allergy"), with numbers (number words read as digits),
  names and negation ("not", "never", "no", "n't") kept as terms. So "is allergic to peanuts" and
  "has a peanut allergy" are one fact, while "3 kids" / "4 kids", "Anna" / "Emma", "eats meat" /
  "does not eat meat" and "works as a pharmacist" / "is a pharmacist" stay apart whatever the
  cosine says.

Pure: no I/O.
"""

from __future__ import annotations

import re
import unicodedata

from memory_svc.domain.lexical import stem
from memory_svc.domain.model import MemoryType

# Cosine at or above which two memories may be the same fact (they must also agree on the terms).
NEAR = 0.88
# What is folded: knowledge learnt from a conversation. Messages and tool results are records of
# what was said or done (each one counts), and summaries and digests are written per session or day.
FOLDED_TYPES = frozenset(
    {
        MemoryType.FACT,
        MemoryType.PREFERENCE,
        MemoryType.SKILL,
        MemoryType.INSIGHT,
        MemoryType.COMMITMENT,
        MemoryType.OPINION,
        MemoryType.DECISION,
    }
)
# The provenance source of the writes that are folded: what reflection learnt. A client's own
# write through the API is kept as asked (RunConsolidation folds those on demand).
FOLDED_SOURCE = "reflection"

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_NOT = re.compile(r"n['’]t\b|\bcannot\b", re.IGNORECASE)
_FRAMING = frozenset("the user user users i me my mine myself".split())
_NEGATION = frozenset(("not", "no", "never", "nor", "none", "nobody", "nothing", "neither"))
# Grammar and filler words; negations are never among them.
_GRAMMAR = frozenset(
    """a an and are as at be been being but by did do does doing for from had has have having he her hers
    him his in into is it its of on or our ours she so than that the their theirs them they this those to
    too was we were which who whom will would you your s t d ll m re ve also just really actually very
    currently now still quite truly indeed""".split()
)
_NUMBERS = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}


def normalised(content: str) -> str:
    """The text with case, accents' composition, punctuation, spacing and the "the user" framing
    set aside: equal for two writings of one sentence."""
    words = _TOKEN.findall(unicodedata.normalize("NFKC", content).casefold())
    while words[:2] == ["the", "user"]:
        words = words[2:]
        if words[:1] == ["s"]:  # "the user's ..."
            words = words[1:]
    return " ".join(words)


def terms(content: str) -> frozenset[str]:
    """The significant terms of ``content``: content words stemmed, numbers as digits, negation as
    ``not``; framing and grammar words left out."""
    text = _NOT.sub(" not", unicodedata.normalize("NFKC", content).casefold())
    found = set()
    for word in _TOKEN.findall(text):
        if word in _NEGATION:
            found.add("not")
        elif word in _NUMBERS:
            found.add(_NUMBERS[word])
        elif word not in _FRAMING and word not in _GRAMMAR:
            found.add(_fold(stem(word)))
    return frozenset(found)


def _fold(word: str) -> str:
    """A derivational fold after stemming: "allergic"/"allergy" → "allerg" (long words only)."""
    if len(word) > 5 and word.isalpha():
        if word.endswith("ic"):
            return word[:-2]
        if word.endswith("y"):
            return word[:-1]
    return word


def restates(draft: str, kept: str, cosine: float) -> bool:
    """Whether a draft whose content is ``draft`` says the same fact as the kept ``kept`` (of the
    same type and scope), their vectors at ``cosine``."""
    if normalised(draft) == normalised(kept):
        return bool(normalised(draft))
    if cosine < NEAR:
        return False
    mine = terms(draft)
    return bool(mine) and mine == terms(kept)
