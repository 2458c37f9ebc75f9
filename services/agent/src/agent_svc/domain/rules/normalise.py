"""What a clause says, without the words around it that say nothing, and the filters that keep a
sentence out (questions, hypotheticals, wishes, someone else's words, a language the rules do not read).

The same statement must give the same fact whatever surrounds it: openers and discourse markers
("quick note:", "by the way", "honestly", "fun fact"), trailing meta clauses (", so keep that in
mind", ", just so you know", ", if that helps") and intensifiers after "I'm" ("really", "severely")
are taken off before the patterns read the clause, so "Quick note: I'm really allergic to peanuts,
so keep that in mind." reads as "I'm allergic to peanuts".
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

_LEAD = re.compile(
    r"^(?:(?:actually|well|oh|so|also|and|but|btw|by the way|fyi|just so you know|anyway|ok|okay|yes|yeah|yep|"
    r"right|great|cool|sure|alright|honestly|to be honest|for the record|update|hey|hi|hello|thanks|thank you|"
    r"perfect|sounds good|good|no(?=[\s,.!:;-]*(?:[,.!:;-]|i\b|i'm\b|my\b|we\b|it's\b|not\b|actually\b|sorry\b))|"
    r"nope|fine|oh and|one more thing|just to be clear|quick update|quick note|"
    r"fun fact|full disclosure|side note|random fact|heads up|just so (?:you|u) know|just so you're aware|"
    r"not that you asked|for what it's worth|fwiw|like i said|as i said|as i mentioned|ooh|ah|um|uh|hmm|"
    r"pls|please note|note|in fact|to be fair|frankly|basically|so yeah|oh by the way|also btw|lol|haha)"
    r"\b[\s,:;!.-]*)+",
    _I,
)
# Trailing asides that say nothing about the fact: ", so keep that in mind", ", just so you know".
_META_TAIL = re.compile(
    r"(?:[,;:\s-]+(?:so\s+|and\s+|but\s+)?(?:please\s+)?(?:keep (?:that|this|it) in mind|bear (?:that|this|it) in mind|"
    r"just so (?:you|u) know|just so you're aware|if that helps|if that matters|in case it matters|"
    r"for what it's worth|fwiw|for the record|by the way|btw|fyi|lol|haha|thanks|thank you|cheers|sadly|"
    r"unfortunately|honestly|to be honest|if you need it|if you must know|as you know|you know|though|"
    r"nice to meet you|pleased to meet you|good to meet you|nice to e-meet you|literally|easily|at all|please))+"
    r"[\s.!,]*$",
    _I,
)
# "I'm really allergic" → "I'm allergic": degree words between the subject and what it says.
_INTENSIFIER = re.compile(
    r"^(?P<head>i(?:'m| am)?|i've|i have)\s+(?:(?:really|very|so|super|seriously|severely|extremely|quite|pretty|"
    r"totally|absolutely|genuinely|truly|definitely|incredibly|terribly|awfully|highly|deeply|mildly|slightly|"
    r"deathly|horribly|badly|dangerously|massively|hugely|super|quite badly|also|too)\s+)+",
    _I,
)
# "I've been living in", "I'm currently working at": the same standing fact as "I live in", "I work at".
_ASPECT = re.compile(
    r"^(?P<s>i|we)(?:'ve|'m|'re| have| am| are)\s+(?:been\s+)?(?:currently\s+|presently\s+|now\s+)?"
    r"(?P<v>living|working)(?=\s+(?:in|at|for|as|near|just outside|outside)\b)",
    _I,
)
_ASPECT_FORMS = {"i": "I", "we": "we", "living": "live", "working": "work"}
# "my actual name is", "my full name is": the name.
_NAME_QUALIFIER = re.compile(r"\bmy\s+(?:actual|real|full|legal|proper|official|birth)\s+name\s+is\b", _I)
# Chat spelling of the first person at a clause's start: "im allergic", "ive got".
_LOWER_I = re.compile(r"^(?:im|ive|i)(?=\s)", _I)
_LOWER_I_FORMS = {"im": "I'm", "ive": "I've", "i": "I"}
# The rules read English: a clause with none of these common words is another language, and gives nothing.
_ENGLISH = re.compile(
    r"\b(?:i|i'm|im|my|me|the|a|an|is|are|am|and|to|of|in|on|at|for|with|have|has|do|don't|not|no|it|it's|we|"
    r"our|you|your|he|she|they|was|be|this|that|just|from|by|as|so|but|or|yes|please|call|work|live)\b",
    _I,
)
_SARCASM = re.compile(r"^(?:yeah,? right\b|oh,? great\b|oh,? sure\b|sure,|apparently\b|as if\b)|\bin spirit\b", _I)
_QUESTION_START = re.compile(
    r"^(?:am|is|are|was|were|does|did|should|shall|could|can|would|will|what|when|where|who|whom|why|how|which|"
    r"whose|have|has|isn't|aren't|do(?= (?:you|i|we|they)\b))(?![\w'])",
    _I,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|suppose|supposing|assuming|assume|pretend|say i|imagine|hypothetically|in case|someday|"
    r"some day|one day|wish|were to|"
    r"might(?! want to)|perhaps|possibly|probably|could|maybe|wonder|"
    r"(?<!by )(?<!in )(?<!on )(?<!of )(?<!\d )(?<!\dth )(?<!\dst )(?<!\dnd )(?<!\drd )"
    r"may(?! want to)(?! \d)(?!\s*[.!,]|\s*$))"
    r"\b",
    _I,
)
_REPORTING = re.compile(
    r"\b(?P<who>\w+)\s+(?:thinks|think|says|say|said|believes|claims|told|tells|reckons|thought|mentioned|"
    r"feels(?=\s+(?:that|i|we|you|my|it|it's|the|he|she|they)\b))\b"
    r"|\baccording to\b",
    _I,
)


def strip_openers(text: str) -> str:
    """ "Actually, by the way, I live in Porto" → "I live in Porto"."""
    return _LEAD.sub("", text)


def normalise(text: str, intensifiers: bool = True) -> str:
    """The clause as the patterns read it: no opener, no trailing aside, no intensifier after "I'm"
    (kept with ``intensifiers=False``, for a sentence kept in the speaker's words)."""
    text = strip_openers(text.strip())
    text = _META_TAIL.sub("", text).strip()
    text = _LOWER_I.sub(lambda m: _LOWER_I_FORMS[m.group(0).lower()], text)
    if intensifiers:
        text = _INTENSIFIER.sub(lambda m: m.group("head") + " ", text)
    text = re.sub(r"\bname's\b", "name is", text, flags=_I)
    text = _NAME_QUALIFIER.sub("my name is", text)
    text = aspect(text)
    return text.strip()


def aspect(text: str) -> str:
    """ "I've been living in Dublin" → "I live in Dublin": the same standing fact."""
    return _ASPECT.sub(lambda m: f"{_ASPECT_FORMS[m.group('s').lower()]} {_ASPECT_FORMS[m.group('v').lower()]}", text)


def is_english(text: str) -> bool:
    """A sentence the rules can read: one common English word at least (short answers aside)."""
    return bool(_ENGLISH.search(text))


def is_sarcastic(text: str) -> bool:
    """ "Yeah right, I'm a rocket scientist": said, not meant."""
    return bool(_SARCASM.search(text.strip()))


def is_question(text: str) -> bool:
    return text.rstrip().endswith("?") or bool(_QUESTION_START.match(text))


def is_hypothetical(text: str) -> bool:
    return bool(_HYPOTHETICAL.search(text))


def is_reported(text: str) -> bool:
    """Someone else's words or views ("my friend says …", "according to …")."""
    for match in _REPORTING.finditer(text):
        if match.group("who") is None or match.group("who").lower() not in {"i", "we"}:
            return True
    return False
