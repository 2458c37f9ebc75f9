"""Deadlines as said ("by Friday") and the dates relative times meant.

What the rules extract is dated against the turn's own time: "next Friday" said on Tuesday
24 November 2026 becomes "next Friday (4 December 2026)". The rules themselves live in
``lore_language.dates``, shared with the assembler, which dates the messages it hands back alike.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime

from lore_language.dates import with_dates

from agent_svc.domain.extraction import ExtractedMemory
from agent_svc.domain.rules.text import tidy as _tidy

_I = re.IGNORECASE


def dated(memory: ExtractedMemory, said_at: datetime) -> ExtractedMemory:
    """The memory with the dates its relative times meant; a commitment is about the future, so a
    bare "Friday" or "June 3" in it is the next one. Reflection and episodes date alike, so a
    commitment's thread names it exactly as its memory does."""
    future = memory.kind == "commitment"
    return dataclasses.replace(
        memory,
        content=with_dates(memory.content, said_at, future),
        deadline=with_dates(memory.deadline, said_at, future) if memory.deadline else "",
    )


# --- deadlines, as said --------------------------------------------------------------------------

_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_PART = r"(?:\s+(?:morning|afternoon|evening|night))?"
_WHEN = (
    rf"(?:later\s+)?today|tonight|tomorrow{_PART}|(?:this|next|coming)\s+(?:{_DAY}|week(?:end)?|month|year|"
    rf"morning|afternoon|evening|quarter|sprint)|(?:the\s+)?end\s+of\s+(?:the\s+)?(?:day|week|month|year|quarter|"
    rf"sprint)|eod|eow|asap|{_DAY}{_PART}|{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}|in\s+(?:a|an|one|two|three|four|five|a\s+few|a\s+couple\s+of"
    rf"|\d+)\s+(?:minutes?|hours?|days?|weeks?|months?)"
)
_DEADLINE = re.compile(
    rf"(?:,\s*)?\b(?P<prep>by|before|on|until|till|no later than|within|due)?\s*\b(?P<when>{_WHEN})\b", _I
)


def by_deadline(deadline: str) -> str:
    """ "Friday" → " (by Friday)"; a deadline that says its own relation is kept: " (in two weeks)"."""
    if not deadline:
        return ""
    own = deadline.split(" ", 1)[0].lower() in {"before", "until", "till", "within", "in"}
    return f" ({deadline})" if own else f" (by {deadline})"


def split_deadline(task: str) -> tuple[str, str]:
    """``"send the report by Friday"`` → ``("send the report", "Friday")``; the deadline as said."""
    match = _DEADLINE.search(task)
    if not match:
        return _tidy(task), ""
    prep = (match.group("prep") or "").lower()
    when = re.sub(r"\s+", " ", match.group("when"))
    deadline = f"{prep} {when}" if prep in {"before", "until", "till", "no later than", "within"} else when
    rest = _tidy(task[: match.start()] + " " + task[match.end() :])
    return rest, deadline
