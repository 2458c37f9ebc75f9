"""When two pieces of text state the same thing, for near-duplicate removal across beliefs, memories
and episodes (``dedupe.py``).

- **Polarity** first: a statement and its negation are never the same, however close their words or
  vectors ("The user is vegetarian." and "The user is no longer vegetarian." embed at a cosine
  above 0.9). A text is negated when it holds a negation or a word of ending ("not", "n't", "no
  longer", "never", "quit", "stopped", "former", …); two texts may merge only when both are negated
  or neither is. So "doesn't eat meat" and "is vegetarian" never merge either: a missed duplicate
  costs a few tokens, a wrong merge hides what is now true.
- **Terms**: the content words, lower case, stopwords and speaker words ("user", "assistant") out,
  a plural or third-person ``s`` folded. Two statements of at least ``MIN_TERMS`` terms each are the
  same when their Jaccard overlap is at least ``SAME_TERMS`` — symmetric on purpose: a message that
  says a fact *and more* ("My sister Ana lives in Lisbon and works as an accountant") is not a
  duplicate of the fact alone, so the extra it carries is not lost.
- **A message is a turn as said**: what stands in for it (a near-duplicate by its vector, a fact
  learnt from it) must state at least ``KEEPS`` of its content words (``keeps_most``). Two turns of
  one speaker on one topic embed close ("I'm giving private coaching sessions to the
  swimmers at the club" and "I'm thrilled to coach young swimmers" above 0.85) yet say different
  things; a fact learnt from a long turn often keeps one clause of it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

MIN_TERMS = 3
SAME_TERMS = 0.75
# One call reads a text's statement several times (duplicates, facts over lines, small talk), and a
# user's texts come back turn after turn: memoised (a Statement is immutable).
STATEMENTS_CACHED = 4096
KEEPS = 0.5  # the share of a message's content words what stands in for it must state

_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor without cannot quit quits stopped former formerly ex anymore".split()
)
_NEGATED_SUFFIX = ("n't", "n’t")
_STOPWORDS = frozenset(
    """a an the and or but if then so of to in on at by for with from as into about over under than
    is are was were be been being am do does did has have had having will would shall should can could
    may might must i me my mine we us our you your yours he him his she her hers it its they them their
    this that these those there here what which who whom whose when where why how all any some each
    very really just also too more most much many such own same other user user's users assistant
    assistant's agent agent's""".split()
)


@dataclass(frozen=True, slots=True)
class Statement:
    negated: bool
    terms: frozenset[str]


@functools.lru_cache(maxsize=STATEMENTS_CACHED)
def statement(text: str) -> Statement:
    words = _WORD.findall(text.casefold())
    negated = any(word in _NEGATIONS or word.endswith(_NEGATED_SUFFIX) for word in words)
    terms = frozenset(_fold(word) for word in words if word not in _STOPWORDS and word not in _NEGATIONS)
    return Statement(negated, terms)


def same_polarity(a: Statement, b: Statement) -> bool:
    return a.negated == b.negated


def same_terms(a: Statement, b: Statement) -> bool:
    """Whether ``a`` and ``b`` say the same by their words (polarity checked separately)."""
    if len(a.terms) < MIN_TERMS or len(b.terms) < MIN_TERMS:
        return False
    shared = len(a.terms & b.terms)
    return shared / len(a.terms | b.terms) >= SAME_TERMS


def keeps_most(content: frozenset[str], terms: frozenset[str]) -> bool:
    """Whether ``terms`` (what one text states) hold at least ``KEEPS`` of ``content`` (another's
    content words): whether placing the one loses little of what the other says."""
    return len(content & terms) >= KEEPS * len(content)


def _fold(word: str) -> str:
    word = word.replace("’", "'").removesuffix("'s")
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word
