"""Two rules on what a context spends its tokens on, once candidates are scored.

**Facts over the lines they came from.** Reflection learns facts from messages, and both are
recalled: "Noor said: I finally adopted a greyhound last week (2 March 2026). (on 9 March 2026)" and
"The user adopted a greyhound. (on 9 March 2026)". When a learnt memory and the message it was learnt
from (a shared turn in their provenance) both qualify, the fact is placed and the message is a
DUPLICATE of it — unless the question needs the message's wording: it asks for what was said ("say",
"said", "words", "quote", …), or some of its own content words are in the message and not in the
fact.

**Nothing relevant.** When no candidate a search found (memories, episodes, beliefs) is at least
``min_relevance`` similar to the message, nothing about it is remembered: the context says so in
one line ("Nothing relevant is remembered about this.") instead of filling the budget with the
nearest small talk. The ranked memories, beliefs, threads and opinions are then BELOW_THRESHOLD
(the manifest keeps them, with the best similarity found); the user's profile and what the caller
gave stay. Not said when a searched source was unavailable: an outage is not "nothing known".
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from assembler_svc.domain.dedupe import statement_of
from assembler_svc.domain.model import Candidate, Section, Source, UnavailableSource
from assembler_svc.domain.statements import statement

NOTHING_FOUND_ID = "nothing-relevant"
NOTHING_FOUND_TEXT = "Nothing relevant is remembered about this."
SEARCHED = frozenset({Source.MEMORY, Source.EPISODE, Source.OBSERVATION})
# What the context stops placing when nothing relevant was found: what was recalled for the message.
NEAREST = frozenset({Section.MEMORIES, Section.OBSERVATIONS, Section.OPINIONS})
_ASKS_WORDING = re.compile(r"\b(say|says|said|saying|word|words|wording|quote|quoted|exactly|verbatim|phrase)\b", re.I)


def best_similarity(candidates: Sequence[Candidate]) -> float:
    found = [c.similarity for c in candidates if c.source in SEARCHED and not c.pinned]
    return max(found, default=0.0)


def nothing_relevant(
    candidates: Sequence[Candidate], unavailable: Sequence[UnavailableSource], min_relevance: float
) -> bool:
    """Whether the searches found candidates and none is relevant enough to place."""
    if min_relevance <= 0 or any(gap.source in SEARCHED for gap in unavailable):
        return False
    if not any(c.source in SEARCHED and not c.pinned for c in candidates):
        return False
    return best_similarity(candidates) < min_relevance


def nothing_found_candidate() -> Candidate:
    return Candidate(Source.CALLER, NOTHING_FOUND_ID, Section.MEMORIES, NOTHING_FOUND_TEXT, pinned=True)


def facts_over_lines(candidates: Mapping[int, Candidate], message: str) -> dict[int, int]:
    """``{index of a message: index of the learnt memory placed instead}`` among ``candidates`` (the
    ones still placeable, by index)."""
    learnt_from: dict[str, list[int]] = {}
    for index, candidate in candidates.items():
        if candidate.source is Source.MEMORY and not candidate.quotes:
            for turn in candidate.turn_ids:
                learnt_from.setdefault(turn, []).append(index)
    if not learnt_from:
        return {}
    asked = statement(message).terms
    wording = _ASKS_WORDING.search(message) is not None
    replaced: dict[int, int] = {}
    for index, candidate in candidates.items():
        if not candidate.quotes or wording:
            continue
        facts = sorted({fact for turn in candidate.turn_ids for fact in learnt_from.get(turn, ())})
        if not facts:
            continue
        stated = frozenset().union(*(statement(statement_of(candidates[fact])).terms for fact in facts))
        if asked & statement(statement_of(candidate)).terms - stated:
            continue  # the question's own words are only in the message
        replaced[index] = facts[0]
    return replaced
