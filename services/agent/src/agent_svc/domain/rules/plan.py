"""The user's plan as the conversation states it: a goal, what is done, what comes next.

A goal is only taken from the user's own words ("I want to…", "I'm trying to…", "my goal is…",
"help me…"); progress ("done with…", "I've finished…") and the next step ("next, …",
"first … then …") may come from either side. Nothing stated → None.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_svc.domain.extraction import Plan
from agent_svc.domain.rules.text import MAX_SENTENCE_CHARS, sentences, tidy

_I = re.IGNORECASE
_GOAL = re.compile(
    r"(?:^|\b(?:so|and|but|now)\s+)(?:i(?:'m| am) (?:trying|looking|hoping|planning) to|i (?:want|need|hope|plan|"
    r"intend) to|i(?:'d| would) like to|we(?:'re| are) trying to|we (?:want|need) to|(?:my|our|the) (?:main )?"
    r"(?:goal|aim|objective) (?:is|here is) (?:to )?|(?:can|could|would) you (?:please )?help me (?:to )?|"
    r"(?:please )?help me (?:to )?)(?P<x>.+)",
    _I,
)
_PROGRESS = re.compile(
    r"(?:^|\b)(?:i(?:'m| am)|we(?:'re| are)) (?:done|finished) with (?P<x>.+)|(?:^|\b)(?:i|we)(?:'ve| have)? "
    r"(?:already )?(?:finished|completed|done|set up|installed|fixed|migrated|deployed|shipped) (?P<y>.+)|"
    r"(?P<z>that (?:fixed it|worked|did the trick)|it works now)|^(?:all\s+)?(?:done|finished) with (?P<w>.+)",
    _I,
)
_NEXT = re.compile(
    r"^(?:next|then|after that|afterwards|the next step is|next step:?)[,:]?\s+(?:is\s+)?(?:to\s+)?(?P<x>.+)|"
    r"^first,?\s+(?P<first>.+?),?\s+(?:and\s+)?then\s+(?P<then>.+)",
    _I,
)


def _first(pattern: re.Pattern[str], text: str, user_only: bool, role: str) -> re.Match[str] | None:
    if user_only and role != "user":
        return None
    for sentence in sentences(text):
        if len(sentence.clean) > MAX_SENTENCE_CHARS:
            continue
        match = pattern.search(sentence.clean.strip())
        if match:
            return match
    return None


def _phrase(match: re.Match[str], *groups: str) -> str:
    for group in groups:
        value = match.groupdict().get(group)
        if value:
            return tidy(value)[:200]
    return tidy(match.group(0))[:200]


def turn_plan(role: str, text: str) -> Plan | None:
    """What one turn says about the plan (goal may be "" when only progress or a next step is said)."""
    goal_match = _first(_GOAL, text, True, role)
    progress_match = _first(_PROGRESS, text, False, role)
    next_match = _first(_NEXT, text, False, role)
    goal = _phrase(goal_match, "x") if goal_match else ""
    progress = _phrase(progress_match, "x", "y", "w", "z") if progress_match else ""
    next_step = ""
    if next_match:
        next_step = _phrase(next_match, "x", "first")
        if next_match.group("first") and next_match.group("then") and not progress:
            next_step = _phrase(next_match, "first")
    if not (goal or progress or next_step):
        return None
    return Plan(goal=goal, progress=progress, next_step=next_step)


def extract_plan(turn: tuple[str, str], earlier: Sequence[tuple[str, str]] = ()) -> Plan | None:
    """The plan after ``turn``, if the turn says anything about it; the goal may come from ``earlier``.

    Without a goal anywhere there is no plan: progress on nothing named is not worth keeping.
    """
    now = turn_plan(*turn)
    if now is None:
        return None
    goal = now.goal
    if not goal:
        for role, text in reversed(earlier):
            found = turn_plan(role, text)
            if found and found.goal:
                goal = found.goal
                break
    return Plan(goal=goal, progress=now.progress, next_step=now.next_step) if goal else None
