"""What the user tells about themselves in their own words, when no pattern recognised it.

Most of what people say about their lives fits no fixed slot: "I went to a pottery class with my
sister last weekend and loved it." The patterns of ``memories.py`` write slot facts and beliefs
from the shapes they are sure of; this module keeps the rest of a user's self-disclosure as a
``fact`` memory in the third person, and never as a belief (no facets, so no claims).

Precision first, by shape: a sentence is kept when it is a statement (not a question, hypothetical
or report of someone else's words), speaks of the user in its first three words ("I", "my", "me"),
says enough to stand alone (``MIN_WORDS``), is not about the listener ("you") or a group ("we"),
and is no pleasantry, hedge or reaction ("thanks", "I hope", "I'm so glad", "that's great").
Measured on LoCoMo (bench/extraction_quality.py) these shapes carry a speaker's facts about
two times in three; everything else the user said stays in their message memory.

The rewrite to the third person is exact for the shapes it accepts, and a sentence it cannot
rewrite with certainty ("I'd …": had or would?) is left out.
"""

from __future__ import annotations

import re

from agent_svc.domain.extraction import ExtractedMemory
from agent_svc.domain.rules.fronting import implied_subject
from agent_svc.domain.rules.normalise import is_english, is_hypothetical, is_reported, is_sarcastic, normalise
from agent_svc.domain.rules.rewriting import PRESENT_VERBS as _PRESENT
from agent_svc.domain.rules.rewriting import third_person_sentence as third_person
from agent_svc.domain.rules.text import sentences

MIN_WORDS = 3
MAX_WORDS = 60
IMPORTANCE = 0.45  # below a pattern's fact (0.6): less sure of what matters in it
_I = re.IGNORECASE

_SELF = re.compile(r"\b(?:i|my|me|i'm|i've|i'll)\b", _I)
_LISTENER_OR_GROUP = re.compile(
    r"\b(?:you|your|yours|you're|you've|you'll|you'd|ya|u|we|our|ours|us|we're|we've)\b", _I
)
_UNSURE = re.compile(r"\bi'd\b|\bif\b|\bunless\b|\bmaybe\b|\bperhaps\b|\bwonder\b|\bwish\b|\bimagine\b|^me\b", _I)
_NOT_DISCLOSURE = re.compile(
    r"^(?:thanks|thank|wow|awesome|cool|great|nice|haha|lol|oh|hey|hi|hello|bye|yeah|yes|no|ok|okay|sure|"
    r"congrats|congratulations|that's|that is|sounds|good luck|take care|see you|glad|so glad|same|love that|"
    r"i (?:think|hope|wish|bet|guess|believe|feel like|can't wait|cannot wait|love that|know|agree|totally|"
    r"really appreciate|appreciate|understand|hear|get it|can imagine|can see|mean|see|suppose|reckon)|"
    r"i'm (?:sure|so happy|so glad|glad|happy for|excited for|proud of|sorry|not sure|thinking)|"
    r"let me|let's)\b",
    _I,
)
# Leading and trailing names said to the listener: "James, I …", "… last week, James."
_VOCATIVE_LEAD = re.compile(r"^(?:hey\s+|hi\s+|oh\s+)?[A-Z][a-z]+,\s+(?!my\b)")
_VOCATIVE_TAIL = re.compile(r",\s+[A-Z][a-z]+(?=[.!]*$)")


def _imperative(first: str) -> bool:
    """ "Remind me to …", "Remember that my …", "Tell me …": a request, not an account."""
    low = first.lower().strip(",")
    return low in _PRESENT or low in {"remind", "tell", "please", "don't", "do", "let", "ask", "note", "show", "give"}


def disclosures(text: str, role: str, taken: tuple[str, ...] = ()) -> list[ExtractedMemory]:
    """The user's self-disclosures in ``text`` as third-person facts; ``taken``: the excerpts the
    patterns already wrote, whose sentences are left to them."""
    if role != "user":
        return []
    found = []
    for sentence in sentences(text):
        if is_sarcastic(sentence.clean) or is_hypothetical(sentence.clean):
            continue
        plain = _VOCATIVE_TAIL.sub("", _VOCATIVE_LEAD.sub("", sentence.clean.strip()))
        if not is_english(plain) and not is_english(implied_subject(plain)):
            continue  # "Currently learning French": English once its dropped "I" is said
        plain = implied_subject(normalise(plain, intensifiers=False))
        words = plain.split()
        if not (MIN_WORDS <= len(words) <= MAX_WORDS) or sentence.is_question or plain.endswith("?"):
            continue
        # A sentence a pattern read (even a clause of it) is left to it: two memories of one sentence.
        if any(excerpt and excerpt in sentence.text for excerpt in taken):
            continue
        if not _SELF.search(" ".join(words[:3])) or _NOT_DISCLOSURE.match(plain) or _imperative(words[0]):
            continue
        if _LISTENER_OR_GROUP.search(plain) or _UNSURE.search(plain) or '"' in plain or is_reported(plain):
            continue
        rewritten = third_person(plain.rstrip(" !"))
        if rewritten is None:
            continue
        if not rewritten.endswith((".", "!")):
            rewritten += "."
        found.append(
            ExtractedMemory(
                kind="fact", content=rewritten.rstrip("!") or rewritten, speaker="user", importance=IMPORTANCE
            )
        )
    return found
