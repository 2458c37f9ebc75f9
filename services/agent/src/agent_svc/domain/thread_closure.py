"""Open threads a later conversation closes. Pure: no I/O.

Precision first: a wrong closure hides something still open, a missed one leaves a thread the
user or the API can still resolve. A thread of an earlier episode is closed by a turn said after
that episode ended, in one of two shapes:

- **asked again, answered this time**: a user question covering the thread's key terms, followed
  (before the user's next question) by an assistant turn that answers: some sentence that is not
  a question, and no "I don't know" / "I'll check";
- **reported**: a statement (user or assistant, not a question) covering the key terms with a
  resolution cue ("sent", "done", "booked", "fixed", "found out", "decided"...) and no negation or
  "not yet"/"still" in the same sentence;
- **answered**, for a thread that is a question (``open_threads.is_question``): a statement (user
  or assistant) holding *every* key term of the question and something the question did not say
  (a figure or another content word: "The pharmacy opens at 9 on weekdays." answers "What time
  does the pharmacy open?"), with no negation, hedge or asking ("I still wonder when the pharmacy
  opens" answers nothing).

"Covering" means sharing at least ``max(2, ⌈0.6·k⌉)`` of the thread topic's ``k`` key terms
(content words, lightly stemmed: -s, -ed, -e). A topic with fewer than two key terms is never closed by
reflection: too vague to match safely. Merely mentioning the topic again ("still waiting on the
visa") never closes it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from agent_svc.domain.rules.text import content_words, sentences
from agent_svc.domain.transcript import Turn

MIN_TERMS = 2
COVERAGE = 0.6
MAX_RESOLUTION_CHARS = 300
_I = re.IGNORECASE
_CUE = re.compile(
    r"\b(?:done|sent|finished|completed|submitted|shipped|booked|bought|paid|renewed|signed|delivered|"
    r"fixed|solved|sorted(?: out)?|resolved|answered|decided|chose|picked|went with|got|received|"
    r"found out|figured out|turned out|it works|works now|approved|came through|arrived)\b",
    _I,
)
_NEGATED = re.compile(
    r"\b(?:not|no|nothing|never|yet|still|haven't|hasn't|didn't|don't|doesn't|won't|can't|couldn't|wasn't|isn't|"
    r"aren't|without|forgot|waiting|pending|hope|hoping|plan|going to|will|should|need to|might|maybe)\b|n't\b",
    _I,
)
_INTERROGATIVE = re.compile(
    r"^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|am|was|were|do|does|did|can|could|would|will|"
    r"should|shall|may|might|have|has|had|isn't|aren't|don't|doesn't|didn't|can't|won't|any idea|any chance)\b",
    _I,
)
_WORD = re.compile(r"[A-Za-z]")
_ASKING = re.compile(
    r"\b(?:ask|asked|asking|wonder|wondered|wondering|question|curious|unsure|figure out|find out|look up|"
    r"check|checking|guess|think|if|whether)\b",
    _I,
)
_NO_ANSWER = re.compile(
    r"\b(?:i don't know|i do not know|not sure|no idea|i'll check|i will check|let me check|get back to you|"
    r"i'll find out|i'll look into|can't tell|cannot tell)\b",
    _I,
)


@dataclass(frozen=True, slots=True)
class OpenThreadRef:
    """An open thread of an earlier episode, as the memory service lists it."""

    episode_id: str
    index: int
    topic: str
    context: str
    ended_at: datetime


@dataclass(frozen=True, slots=True)
class Closure:
    thread: OpenThreadRef
    resolution: str  # what closed it, quoted from the turn


def key_terms(text: str) -> frozenset[str]:
    return frozenset(_stem(word) for word in content_words(text))


def _stem(word: str) -> str:
    """A light stem, so "renewed" meets "renew" and "reports" "report": -s, then -ed, then -e."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ed"):
        word = word[:-2]
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


def is_question(topic: str) -> bool:
    """Whether ``topic`` reads as a question with something to ask about."""
    text = topic.strip()
    return bool(text.endswith("?") or _INTERROGATIVE.match(text)) and closable(text)


def closable(task: str) -> bool:
    """Whether a later report can close a thread of this task: enough key terms that are words."""
    return sum(1 for term in key_terms(task) if _WORD.search(term)) >= MIN_TERMS


def _covers(text: str, terms: frozenset[str]) -> bool:
    return len(terms & key_terms(text)) >= max(MIN_TERMS, math.ceil(COVERAGE * len(terms)))


def _answers(turn: Turn) -> bool:
    said = sentences(turn.content)
    return bool(said) and not _NO_ANSWER.search(turn.content) and not all(s.is_question for s in said)


def _quote(turn: Turn, text: str) -> str:
    who = "The user" if turn.role == "user" else "The assistant"
    return f'{who} said: "{" ".join(text.split())}"'[:MAX_RESOLUTION_CHARS]


def _answers_question(text: str, terms: frozenset[str]) -> bool:
    """Whether the statement ``text`` answers a question of these key terms: all of them, and more."""
    said = key_terms(text)
    new = said - terms
    return (
        terms <= said
        and (bool(new) or bool(re.search(r"\d", text)))
        and not _NEGATED.search(text)
        and not _ASKING.search(text)
    )


def _closing(terms: frozenset[str], turns: Sequence[Turn], question: bool = False) -> str:
    """The resolution note when ``turns`` close a thread of these key terms (a question's when
    ``question``), else ""."""
    for position, turn in enumerate(turns):
        if turn.role not in ("user", "assistant"):
            continue
        for sentence in sentences(turn.content):
            if not _covers(sentence.clean, terms):
                continue
            if not sentence.is_question:
                if _CUE.search(sentence.clean) and not _NEGATED.search(sentence.clean):
                    return _quote(turn, sentence.text)
                if question and _answers_question(sentence.clean, terms):
                    return _quote(turn, sentence.text)
            elif turn.role == "user":
                for later in turns[position + 1 :]:
                    if later.role == "user":
                        break
                    if later.role == "assistant":
                        if _answers(later):
                            return _quote(later, later.content)
                        break
    return ""


def closures(threads: Sequence[OpenThreadRef], turns: Sequence[Turn]) -> list[Closure]:
    """The threads that ``turns`` (a later conversation, in order) close, each with its note."""
    found = []
    for thread in threads:
        terms = key_terms(thread.topic)
        if len(terms) < MIN_TERMS:
            continue
        after = [turn for turn in turns if turn.created_at > thread.ended_at]
        note = _closing(terms, after, is_question(thread.topic))
        if note:
            found.append(Closure(thread, note))
    return found
