"""Engagement hygiene: what reflection may write into the org's engagement state (seed 000,
docs/engagement.md "What reflection writes"). Pure: the use case reads the state, asks these rules,
and makes the calls.

- A hypothesis is *formed* only from what the agent concludes: a supporting line from an assistant
  turn. A user's hunch ("I think…") only adds evidence to a matching hypothesis; alone it forms
  nothing. Unknowns are the agent's open questions: only an assistant turn adds one.
- A proposal *matches* an active hypothesis when their normalised statements are equal (case,
  punctuation, a leading article or "that" ignored): precision first, no fuzzy matching.
- The agent restating its own hypothesis is not evidence; a user's line is (support or contradiction).
- No hypothesis is formed whose statement states a precise figure: reflection has no source to cite
  for it (the observations service's figure rule, below, decides what a figure is).
- Promotion follows the service's rule: confidence at least the threshold and no outstanding
  contradiction; an active hypothesis whose confidence falls to ``ARCHIVE_AT`` is archived.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

PROMOTION_THRESHOLD = 0.8  # observations' DEFAULT_PROMOTION_THRESHOLD (docs/engagement.md)
# (S + 1) / (S + C + 2) from the 0.5 prior: five contradicting lines against the agent's one.
ARCHIVE_AT = 0.25

_LEAD = re.compile(r"^(?:that|the|a|an)\s+")
_NOT_WORD = re.compile(r"[^\w%$€£]+")


def normalise(statement: str) -> str:
    """The statement's identity for matching: lower case, punctuation gone, a leading article dropped."""
    text = " ".join(_NOT_WORD.sub(" ", statement.casefold()).split())
    while True:
        stripped = _LEAD.sub("", text)
        if stripped == text:
            return text
        text = stripped


@dataclass(frozen=True, slots=True)
class ActiveHypothesis:
    id: str
    statement: str
    confidence: float
    outstanding_contradictions: int
    evidence_count: int = 0
    active: bool = True


@dataclass(frozen=True, slots=True)
class EngagementView:
    hypotheses: tuple[ActiveHypothesis, ...] = ()
    unknowns: tuple[str, ...] = ()  # the open unknowns' questions


def knows_unknown(question: str, view: EngagementView) -> bool:
    key = normalise(question)
    return any(normalise(open_question) == key for open_question in view.unknowns)


def match(statement: str, active: Sequence[ActiveHypothesis]) -> ActiveHypothesis | None:
    key = normalise(statement)
    return next((hypothesis for hypothesis in active if normalise(hypothesis.statement) == key), None)


def may_form(roles: Sequence[str]) -> bool:
    """Only the agent's own conclusion forms a hypothesis (``roles``: of its supporting lines)."""
    return "assistant" in roles


def counts_as_evidence(role: str, hypothesis: ActiveHypothesis) -> bool:
    """The agent's line seeds a hypothesis it forms (one with no evidence yet); restating it later
    adds nothing. A user's line always counts."""
    return role == "user" or hypothesis.evidence_count == 0


def may_add_unknown(role: str) -> bool:
    return role == "assistant"


def should_promote(hypothesis: ActiveHypothesis, threshold: float = PROMOTION_THRESHOLD) -> bool:
    return hypothesis.active and hypothesis.confidence >= threshold and hypothesis.outstanding_contradictions == 0


def should_archive(hypothesis: ActiveHypothesis) -> bool:
    return hypothesis.active and hypothesis.confidence <= ARCHIVE_AT


# The precise-figure rule, as the observations service applies it to evidence and findings
# (observations_svc/domain/engagement_figures.py): a digit left after removing dates, times, years
# after a temporal word, ordinals, periods and labels. Kept in step by tests on both sides.
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_NOT_FIGURES = [
    r"\b\d{4}-\d{1,2}-\d{1,2}(?:[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?\b",
    r"\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b",
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?\b",
    rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b",
    rf"\b{_MONTH}\s+\d{{4}}\b",
    r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?\b",
    r"\b\d{1,2}\s*[ap]\.?m\.?(?=\W|$)",
    r"\b(?:(?:from|between)\s+)?(?:19|20)\d{2}\s*(?:-|–|to|and)\s*(?:19|20)\d{2}\b",
    r"\b(?:in|since|by|until|till|before|after|during|from|through|around|circa|year)\s+(?:19|20)\d{2}s?\b",
    r"\b\d+(?:st|nd|rd|th)\b",
    r"\b(?:q[1-4]|h[12]|fy\s?\d{2,4})\b",
    r"\b(?:week|day|sprint|phase|stage|wave|iteration)\s+\d{1,3}\b",
]
_NOT_FIGURE = re.compile("|".join(f"(?:{pattern})" for pattern in _NOT_FIGURES), re.IGNORECASE)
_DIGIT = re.compile(r"\d")


def states_precise_figure(text: str) -> bool:
    return bool(_DIGIT.search(_NOT_FIGURE.sub(" ", text)))
