"""What a clause says, with the words around it that say nothing: openers and discourse markers,
and the filters that keep a sentence out (questions, hypotheticals, someone else's words)."""

from __future__ import annotations

import re

_I = re.IGNORECASE

_LEAD = re.compile(
    r"^(?:(?:actually|well|oh|so|also|and|but|btw|by the way|fyi|just so you know|anyway|ok|okay|yes|yeah|yep|"
    r"right|great|cool|sure|alright|honestly|to be honest|for the record|update|hey|hi|hello|thanks|thank you|"
    r"perfect|sounds good|good|no|nope|fine|oh and|one more thing|just to be clear|quick update)\b[\s,:;!.-]*)+",
    _I,
)
_QUESTION_START = re.compile(
    r"^(?:am|is|are|was|were|does|did|should|shall|could|can|would|will|what|when|where|who|whom|why|how|which|"
    r"whose|have|has|isn't|aren't|do(?= (?:you|i|we|they)\b))(?![\w'])",
    _I,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|suppose|supposing|imagine|hypothetically|in case|someday|some day|one day|wish|were to|"
    r"might(?! want to)|perhaps|possibly|probably|could|maybe|wonder|(?<!by )(?<!in )(?<!on )may(?! want to)(?! \d))"
    r"\b",
    _I,
)
_REPORTING = re.compile(
    r"\b(?P<who>\w+)\s+(?:thinks|think|says|say|said|believes|claims|told me|reckons|feels|thought|mentioned)\b"
    r"|\baccording to\b",
    _I,
)


def strip_openers(text: str) -> str:
    """ "Actually, by the way, I live in Porto" → "I live in Porto"."""
    return _LEAD.sub("", text)


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
