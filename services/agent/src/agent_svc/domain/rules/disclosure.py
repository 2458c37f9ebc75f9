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
from agent_svc.domain.rules.memories import is_reported
from agent_svc.domain.rules.text import sentences

MIN_WORDS = 8
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
_VOCATIVE_LEAD = re.compile(r"^(?:hey\s+|hi\s+|oh\s+)?[A-Z][a-z]+,\s+")
_VOCATIVE_TAIL = re.compile(r",\s+[A-Z][a-z]+(?=[.!]*$)")

_PAST = frozenset(
    "went got had made took saw did was were found felt thought bought brought came met left ran began gave told "
    "knew wrote kept lost won spent built sent sat stood heard held taught caught paid said became chose drove flew "
    "grew ate fell forgot rode sang swam threw woke wore sold hung hit put set cut shut let read quit led bent fed "
    "fought lent slept spoke stole struck swore swept tore understood wept woke broke drew drank shook".split()
)
# The present-tense verbs the rewrite conjugates; an "I" before any other word is a shape it leaves out.
_PRESENT = frozenset(
    "love like enjoy adore go have do try play work live read watch teach run walk cook bake paint draw write "
    "study visit travel volunteer collect spend take make need want plan keep get use listen swim dance sing "
    "practice practise meditate own drive ride climb hike garden knit sew fish surf ski speak help care coach "
    "lead manage build fix grow raise support attend belong prefer hate dislike miss remember wear eat drink sleep "
    "wake start finish call text meet see hear buy sell rent share save earn pay follow host organise organize "
    "run teach mentor tutor babysit foster look stay commute cycle bike jog lift train compete perform record "
    "post blog stream design code program sketch photograph film edit fly sail row box skate skateboard".split()
)
_MODALS = frozenset("can could should would will might must may shall can't couldn't won't wouldn't shouldn't".split())
_ADVERBS = frozenset(
    "really just also finally recently still always usually often never actually even sometimes definitely "
    "totally already absolutely currently mostly".split()
)
_IRREGULAR_PRESENT = {"have": "has", "do": "does", "go": "goes", "am": "is", "be": "is"}
_CONTRACTIONS = [
    (re.compile(r"\bI'm\b", _I), "the user is"),
    (re.compile(r"\bI am\b", _I), "the user is"),
    (re.compile(r"\bI've\b", _I), "the user has"),
    (re.compile(r"\bI have been\b", _I), "the user has been"),
    (re.compile(r"\bI'll\b", _I), "the user will"),
    (re.compile(r"\bI don't\b", _I), "the user doesn't"),
    (re.compile(r"\bI do not\b", _I), "the user does not"),
    (re.compile(r"\bmyself\b", _I), "themselves"),
    (re.compile(r"\bmine\b", _I), "the user's"),
    (re.compile(r"\bmy\b", _I), "the user's"),
    (re.compile(r"\bme\b", _I), "them"),
]


def _third_person_verb(verb: str) -> str | None:
    low = verb.lower()
    if low in _PAST or low.endswith("ed") or low in _MODALS:
        return verb
    if low not in _PRESENT and low not in _IRREGULAR_PRESENT:
        return None
    if low in _IRREGULAR_PRESENT:
        return _IRREGULAR_PRESENT[low]
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    return verb + "s"


def _subject_i(sentence: str) -> str:
    """``I`` as a subject, with the verb after it (and an adverb between) in the third person."""

    def replace(match: re.Match[str]) -> str:
        adverb, verb = match.group("adverb") or "", match.group("verb")
        conjugated = _third_person_verb(verb)
        # Unknown: the "I" stays, and ``third_person`` leaves the sentence out.
        return match.group(0) if conjugated is None else f"the user {adverb}{conjugated}"

    return re.sub(rf"\bI\s+(?P<adverb>(?:(?:{'|'.join(_ADVERBS)})\s+)?)(?P<verb>[a-z][a-z']*)", replace, sentence)


def _imperative(first: str) -> bool:
    """ "Remind me to …", "Remember that my …", "Tell me …": a request, not an account."""
    low = first.lower().strip(",")
    return low in _PRESENT or low in {"remind", "tell", "please", "don't", "do", "let", "ask", "note", "show", "give"}


def third_person(sentence: str) -> str | None:
    """The sentence about the user in the third person, or None when it cannot be rewritten surely."""
    text = sentence
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    text = _subject_i(text)
    if re.search(r"\bI\b", text):
        return None  # an "I" left in a shape the rewrite does not know
    text = re.sub(r"\bthe user's own\b", "their own", text)
    return text[:1].upper() + text[1:]


def disclosures(text: str, role: str, taken: tuple[str, ...] = ()) -> list[ExtractedMemory]:
    """The user's self-disclosures in ``text`` as third-person facts; ``taken``: the excerpts the
    patterns already wrote, whose sentences are left to them."""
    if role != "user":
        return []
    found = []
    for sentence in sentences(text):
        plain = _VOCATIVE_TAIL.sub("", _VOCATIVE_LEAD.sub("", sentence.clean.strip()))
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
