"""References: a fact stored must name its subject.

A clause that starts with "he", "she", "his" or "her" is about someone named just before — in the
same turn or the one before it ("My wife is on nights this week." / "She's a midwife.") — and is
read with that person put back ("my wife is a midwife"). Whatever still leans on a pronoun or a
demonstrative ("it", "they", "this", "those", "that feeling", "make that happen" …) after that
cannot be read alone later, so it is not stored (``stands_alone``).
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
FEMALE = frozenset(
    "wife girlfriend gf mother mom mum sister daughter grandmother grandma nan niece aunt fiancée stepdaughter "
    "missus".split()
)
MALE = frozenset(
    "husband boyfriend bf father dad brother son grandfather grandpa grandad nephew uncle fiancé stepson hubby".split()
)
_EITHER = frozenset("partner spouse friend cousin boss manager colleague neighbour neighbor kid child baby".split())
_PETS = frozenset("dog cat puppy kitten rabbit hamster parrot horse pony tortoise".split())
_PERSON = "|".join(sorted(FEMALE | MALE | _EITHER | _PETS, key=len, reverse=True))
_NAMED = re.compile(
    rf"\b(?P<whose>my|your)\s+(?P<rel>(?:(?:big|little|older|younger|twin|best)\s+)?(?:{_PERSON}))\b", _I
)
_LEADING = re.compile(r"^(?P<p>he's|she's|he|she|his|her)\b(?:\s+(?P<next>\w+))?", _I)
# "she/her" names pronouns, it does not lean on one.
# "this week" names a time, not something said before.
_TIME = r"(?:week|weekend|month|year|morning|afternoon|evening|summer|winter|spring|autumn|time|term|semester)s?"
# "that" leans on something only at a clause's end ("I hate that."), not as "I think that …"; "IT" in
# capitals is the trade ("works in IT"), not "it".
_REFERENCE = re.compile(
    rf"(?<!/)\b(?!(?-i:IT)\b)(?:it|they|them|(?:this|these|those)(?!\s+{_TIME}\b)|he|she|him|her|"
    r"that(?=\s*[.!?,;]|\s*$))\b"
    r"(?!\s*/)",
    _I,
)


# "that" before a noun points back ("that feeling", "that trip", "make that happen"), unless it is a
# conjunction ("realised that self-care matters") or opens a relative clause ("the book that changed
# my life", "a job that pays well"): what follows is then a subject, a verb or an adverb.
_NOT_POINTED_AT = (
    "the a an he she it they we i you his her their my our your its this these those there here is was are were be "
    "been has had have will would can could should shall may might must do does did not never also just really "
    "only still even so too to of in on at for with about as and or but if when while because makes made which "
    "who what whom took gave ran won got kept left bit saw found went came brought taught sold built told thought "
    "felt meant lost paid sent spent stood held led read wrote drove grew knew became began broke chose fell flew "
    "forgot hid hung lay lit rode rose sang sat slept spoke stole swam threw understood woke wore put set let cut "
    "hit hurt"
).split()
_POINTING_THAT = re.compile(
    r"\bthat\s+(?!(?:" + "|".join(_NOT_POINTED_AT) + r")\b)(?!the user\b)(?![a-z]+(?:ly|ed|s)\b)[a-z]", _I
)
# Verbs and adjectives "that" follows as a conjunction.
_SAYING = frozenset(
    """know knows knew known think thinks thought realise realises realizes realised realize realized said say
    says feel felt believe believed
    learn learned learnt find found hope hoped mean meant show showed notice noticed decide decided sure glad
    proud happy sad aware agree agreed remember remembered forget forgot hear heard see saw read understand
    understood guess reckon suppose admit admitted promise promised prove proved discover discovered""".split()
)


def _first_reference(text: str) -> re.Match[str] | None:
    """The first pronoun or demonstrative in ``text`` whose referent it does not name."""
    found = [m for m in (_REFERENCE.search(text),) if m]
    for that in _POINTING_THAT.finditer(text):
        before = text[: that.start()].split()
        if not before or before[-1].lower().strip(",") not in _SAYING:
            found.append(that)
            break
    return min(found, key=lambda m: m.start()) if found else None


def antecedents(text: str, speaker: str = "user") -> list[str]:
    """The user's people (and pets) the text names, in order: "my <relation>" said by the user,
    "your <relation>" said by the assistant."""
    whose = "my" if speaker == "user" else "your"
    named = [m for m in _NAMED.finditer(text) if m.group("whose").lower() == whose]
    return [re.sub(r"\s+", " ", m.group("rel").lower()) for m in named]


def _fits(pronoun: str, relation: str) -> bool:
    head = relation.split()[-1]
    if pronoun.startswith("she") or pronoun == "her":
        return head in FEMALE or head in _EITHER or head in _PETS
    return head in MALE or head in _EITHER or head in _PETS


def resolve(clause: str, known: list[str]) -> str:
    """ "She's a midwife" after "my wife …" → "my wife is a midwife"; unchanged when nobody fits
    (the memory it would give does not stand alone and is dropped)."""
    match = _LEADING.match(clause)
    if not match:
        return clause
    pronoun = match.group("p").lower()
    fitting = [relation for relation in known if _fits(pronoun, relation)]
    if len(set(fitting)) != 1:
        return clause  # nobody, or two people it could be: not guessed
    who = f"my {fitting[-1]}"
    if pronoun in ("he's", "she's"):
        verb = "has" if (match.group("next") or "").lower() in {"got", "been", "had"} else "is"
        replacement = f"{who} {verb}"
    elif pronoun == "his" or (pronoun == "her" and (match.group("next") or "").lower() not in {"", "to", "about"}):
        replacement = f"{who}'s"
    else:
        replacement = who
    return replacement + clause[len(match.group("p")) :]


def stands_alone(text: str) -> bool:
    """No pronoun or demonstrative whose referent the text does not name."""
    return _first_reference(text) is None


_TRAILING_CLAUSE = re.compile(r",?\s+(?:and|but|so|because|which|as|since|though|although|while)\s+|,\s+")
MIN_KEPT_WORDS = 5


def standing_part(text: str) -> str | None:
    """The text, or its leading clauses when only a later clause leans on a reference ("The user went
    to a pottery class with their sister and loved it." → "… with their sister."); None when the
    reference comes first."""
    if stands_alone(text):
        return text
    reference = _first_reference(text)
    assert reference is not None
    cut = None
    for boundary in _TRAILING_CLAUSE.finditer(text, 0, reference.start()):
        cut = boundary.start()
    if cut is None:
        return None
    kept = text[:cut].rstrip(" ,;:-")
    if len(kept.split()) < MIN_KEPT_WORDS or not stands_alone(kept):
        return None
    return kept + "."
