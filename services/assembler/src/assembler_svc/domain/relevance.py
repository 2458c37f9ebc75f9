"""Two rules on what a context spends its tokens on, once candidates are scored.

**Facts over the lines they came from.** Reflection learns facts from messages, and both are
recalled: "Noor said: I finally adopted a greyhound last week (2 March 2026). (on 9 March 2026)" and
"The user adopted a greyhound. (on 9 March 2026)". When a learnt memory of the message's own section
and the message it was learnt from (a shared turn in their provenance) both qualify, the fact is
placed where the message would have been (it ranks at least as high) and the message is a DUPLICATE
of it — unless the question needs the message's wording: it asks for what was said ("say", "said",
"words", "quote", …), or some of its own content words are in the message and not in the fact; or
the facts keep too little of the message: they state less than half of its content words (small
talk aside; ``statements.keeps_most``). Reflection learns one clause of a long message ("The user runs a bakery."
from "I run a bakery, and lately I'm reading about pricing in the hope of finding ideas for
it"): placing that instead would lose what the message says.
What the user profile states is placed whatever happens: a profile line learnt from the message
(a shared turn), or a belief of the profile whose content words the user's own message all says,
stands in for it whatever share of it it keeps, unless the question needs the message's wording.

**Nothing relevant.** When no candidate a search found (memories, episodes, beliefs) is at least
``min_relevance`` similar to the message, nothing about it is remembered: the context says so in
one line ("Nothing relevant is remembered about this.") instead of filling the budget with the
nearest small talk. The ranked memories, beliefs, threads and opinions are then BELOW_THRESHOLD
(the manifest keeps them, with the best similarity found); the user's profile and what the caller
gave stay. Not said when a searched source was unavailable: an outage is not "nothing known".

**Nobody of that name.** A question about a named person or thing ("What did Tomas study?") is
about that name, and a search by meaning cannot tell: the message is embedded without its names,
and "what did X study" is near anyone's studies. So when the message names someone or something
that no candidate mentions — no text, statement or speaker of any of them, not the user's own
names, not the entities of what was recalled — nothing about it is remembered, unless a candidate
is at least ``name_relevance`` similar to the message (then it is about something else the message
asks and stays). A name is a capitalised word that does not start a sentence, is not an acronym
("LGBTQ", "I"), and is not a common word written with a capital (a month, a day, a title, "Mom").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence

from assembler_svc.domain.dedupe import statement_of
from assembler_svc.domain.model import Candidate, Section, Source, UnavailableSource
from assembler_svc.domain.speakers import substance
from assembler_svc.domain.statements import Statement, keeps_most, same_polarity, statement

NOTHING_FOUND_ID = "nothing-relevant"
NOTHING_FOUND_TEXT = "Nothing relevant is remembered about this."
SEARCHED = frozenset({Source.MEMORY, Source.EPISODE, Source.OBSERVATION})
MIN_SHORT_NAME = 3  # letters a name needs to be read as short for a longer one ("Mel": "Melanie")
# What the context stops placing when nothing relevant was found: what was recalled for the message.
NEAREST = frozenset({Section.MEMORIES, Section.OBSERVATIONS, Section.OPINIONS})
_TOKEN = re.compile(r"\S+")
_EDGES = "\"'“”‘’()[]{}.,;:!?…*_"
_ENDS_SENTENCE = (".", "!", "?", ":", ";", "…")
_ABBREVIATIONS = frozenset("mr mrs ms dr st jr sr prof mt vs etc no".split())  # "Dr." ends no sentence
_WORDS = re.compile(r"[^\W\d_]+")
# Capitalised, yet no name of anyone or anything the user may have spoken of.
_COMMON = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday i i'm i've i'd i'll
    mr mrs ms miss dr sir madam mom mum dad mother father grandma grandpa granny aunt uncle
    god ok okay yes no hi hey hello thanks please""".split()
)
_ASKS_WORDING = re.compile(r"\b(say|says|said|saying|word|words|wording|quote|quoted|exactly|verbatim|phrase)\b", re.I)


def best_similarity(candidates: Sequence[Candidate]) -> float:
    found = [c.similarity for c in candidates if c.source in SEARCHED and not c.pinned]
    return max(found, default=0.0)


def nothing_relevant(
    candidates: Sequence[Candidate],
    unavailable: Sequence[UnavailableSource],
    min_relevance: float,
    *,
    message: str = "",
    known_names: Collection[str] = (),
    name_relevance: float = 0.0,
) -> str:
    """Why nothing relevant was found ("" when something was): no searched candidate is
    ``min_relevance`` similar to the message, or the message names someone no candidate mentions
    and none is ``name_relevance`` similar (see the module docstring)."""
    if min_relevance <= 0 or any(gap.source in SEARCHED for gap in unavailable):
        return ""
    if not any(c.source in SEARCHED and not c.pinned for c in candidates):
        return ""
    best = best_similarity(candidates)
    if best < min_relevance:
        return f"nothing relevant found: the best similarity {best:.3f} is under {min_relevance:.3f}"
    if best < name_relevance:
        unknown = unknown_names(message, candidates, known_names)
        if unknown:
            return f"nothing relevant found: no candidate mentions {', '.join(unknown)}"
    return ""


def names_in(message: str) -> list[str]:
    """The names a message speaks of, as written, in order, once each (see the module docstring)."""
    found: list[str] = []
    starts = True
    for token in _TOKEN.findall(message):
        core = token.strip(_EDGES)
        if core.endswith(("'s", "’s")):
            core = core[:-2]
        named = (
            not starts
            and core[:1].isupper()
            and core.isalpha()
            and not core.isupper()
            and core.casefold() not in _COMMON
        )
        if named and core not in found:
            found.append(core)
        ends = token.rstrip("\"'“”‘’)]").endswith(_ENDS_SENTENCE) and core.casefold() not in _ABBREVIATIONS
        starts = ends or not core
    return found


def unknown_names(message: str, candidates: Iterable[Candidate], known_names: Collection[str] = ()) -> list[str]:
    """The names in ``message`` that no candidate's text or statement mentions (a whole word, any
    case) and that are not among ``known_names`` (the user's own, the speakers and entities known)."""
    names = names_in(message)
    if not names:
        return []
    known = {word for name in known_names for word in _WORDS.findall(name.casefold())}
    wanted = [name for name in names if name.casefold() not in known]
    if not wanted:
        return []
    # Written with a capital: what a short name may be the start of ("Mel" of "Melanie", not "Tim" of "time").
    capitalised = set(known)
    for candidate in candidates:
        for text in (candidate.text, candidate.statement):
            words = _WORDS.findall(text or "")
            known.update(word.casefold() for word in words)
            capitalised.update(word.casefold() for word in words if word[:1].isupper())
    return [name for name in wanted if not _mentioned(name.casefold(), known, capitalised)]


def _mentioned(name: str, words: Collection[str], capitalised: Collection[str]) -> bool:
    """``name`` is one of ``words``, or the start of a word written with a capital ("Mel" for "Melanie")."""
    return name in words or (len(name) >= MIN_SHORT_NAME and any(word.startswith(name) for word in capitalised))


def nothing_found_candidate() -> Candidate:
    return Candidate(Source.CALLER, NOTHING_FOUND_ID, Section.MEMORIES, NOTHING_FOUND_TEXT, pinned=True)


def facts_over_lines(
    candidates: Mapping[int, Candidate], message: str, shown: Mapping[int, Candidate] | None = None
) -> dict[int, int]:
    """``{index of a message: index of the learnt item placed instead}`` among ``candidates`` (the
    ones still placeable, by index). ``shown``: what the context places whatever happens, by index
    (the user profile's learnt lines): a line of it learnt from a message, or a belief of it stating
    what the user said, stands in for that message whatever share of it it keeps."""
    if _ASKS_WORDING.search(message) is not None:
        return {}
    shown = shown or {}
    learnt_from: dict[str, list[int]] = {}
    for index, candidate in [*candidates.items(), *shown.items()]:
        if candidate.source is Source.MEMORY and not candidate.quotes:
            for turn in candidate.turn_ids:
                learnt_from.setdefault(turn, []).append(index)
    beliefs = [(index, statement(statement_of(c))) for index, c in shown.items() if c.source is Source.OBSERVATION]
    if not learnt_from and not beliefs:
        return {}
    asked = statement(message).terms
    replaced: dict[int, int] = {}
    for index, candidate in candidates.items():
        if not candidate.quotes:
            continue
        said = statement(statement_of(candidate))
        from_turn = {fact for turn in candidate.turn_ids for fact in learnt_from.get(turn, ())}
        # What the context shows anyway (the user profile) stands in for the message whatever share
        # of it it keeps: the message is spent only when the question needs its wording.
        standing = sorted(fact for fact in from_turn if fact in shown)
        if candidate.by_user:
            standing += [fact for fact, belief in beliefs if _states(belief, said)]
        if standing:
            stated = frozenset().union(*(statement(statement_of(shown[fact])).terms for fact in standing))
            if not asked & said.terms - stated:
                replaced[index] = standing[0]
                continue
        facts = sorted(
            fact
            for fact in from_turn
            if fact in candidates and candidates[fact].section is candidate.section  # it takes the line's place
        )
        if not facts:
            continue
        stated = frozenset().union(*(statement(statement_of(candidates[fact])).terms for fact in facts))
        if asked & said.terms - stated:
            continue  # the question's own words are only in the message
        if not keeps_most(substance(statement_of(candidate)), stated):
            continue  # the facts keep too little of what the message says
        replaced[index] = facts[0]
    return replaced


MIN_BELIEF_TERMS = 2  # the content words a belief needs to be read as stating a message by its words


def _states(belief: Statement, said: Statement) -> bool:
    """Whether a belief states what a message says: every content word of it (two or more) in the
    message, with the same polarity ("The user likes pottery" of "I like pottery and the kiln")."""
    return len(belief.terms) >= MIN_BELIEF_TERMS and belief.terms <= said.terms and same_polarity(belief, said)
