"""A sentence's independent clauses: "I'm vegan and I live in Porto" says two things."""

from __future__ import annotations

import re

from agent_svc.domain.rules.normalise import strip_openers

_I = re.IGNORECASE
# A clause ends where a new subject starts: after ";", a dash, or a comma or "and"/"but"/"so" before
# "I", "my", "we" or a pronoun standing for someone just named ("… and she runs a bakery").
_SUBJECT = r"(?:i|i'm|im|i'll|i've|i'd|i am|we|we've|we'll|we're|my|let's|let me|he|she|he's|she's)\b"
# After "and" or "but", a verb that goes on with the subject already said ("… but live in Edinburgh now").
_GOES_ON = r"(?:(?:now|also|still|currently)\s+)?(?:live|moved|relocated|settled|work|teach|study|go by|have|own)\b"
# A status said after a comma goes on with the subject: "I'm 35, married with two kids, and …".
_STATUS = r"(?:happily\s+|recently\s+|newly\s+)?(?:married|single|divorced|engaged|widowed|separated|retired)\b"
_CLAUSE_BREAK = re.compile(
    rf";\s*|,\s*but\s+|\s+[-–—]+\s+|:\s+(?={_SUBJECT})|,\s*(?:and\s+|but\s+|so\s+)?(?={_SUBJECT})|"
    rf"(?<!^me)(?<!^Me),?\s+(?:and|but|so)\s+(?={_SUBJECT})|,?\s+(?:and|but)\s+(?={_GOES_ON})|"
    rf",\s*(?:and\s+)?(?={_STATUS})|"
    r",?\s+but\s+(?=(?:please\s+|just\s+)*(?:call me|go by)\b)",
    _I,
)
# "As a nonbinary person I use xe/xem": the description ends where the "I" starts, comma or not.
_AS_A_LEAD = re.compile(r"^as\s+(?:an?|someone|somebody|one)\s+[\w' -]{2,40}?(?=\s*,\s*|\s+i\s)", _I)


def clauses(sentence: str) -> list[tuple[int, int]]:
    """Spans of the sentence's independent clauses ("I'm vegan and I live in Porto" → two)."""
    spans, start = [], 0
    if lead := _AS_A_LEAD.match(sentence):
        spans, start = [(0, lead.end())], lead.end() + 1 + (sentence[lead.end() :].lstrip().startswith(",") * 1)
    for match in _CLAUSE_BREAK.finditer(sentence, start):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(sentence)))
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        before = strip_openers(sentence[merged[-1][0] : merged[-1][1]].strip()).strip(" ,.!") if merged else ""
        if merged and (
            not before
            or _MY_ALONE.match(before)
            or (_NAMED.match(before) and _MY_LEAD.match(sentence[a:b]))
            or _MY_ALONE.match(sentence[a:b].strip(" ,.!"))
        ):
            a = merged.pop()[0]  # "Oh, I work at Acme": an opener is no clause of its own
        merged.append((a, b))
    return [(a, b) for a, b in merged if sentence[a:b].strip()]


# A name or "my <relation>" alone is no clause: "Juno, my greyhound, hates the rain", "My wife and I …".
_NAMED = re.compile(r"^(?:(?:meet|this is|say hi to)\s+)?[A-Z][a-z]+(?:-[A-Z][a-z]+)?$", _I)
_MY_LEAD = re.compile(r"^\s*(?:my|our)\b", _I)
_MY_ALONE = re.compile(r"^(?:my|our)\s+[\w'-]+(?:\s+[\w'-]+)?$", _I)  # "Say hi to Biscuit, my spaniel"
