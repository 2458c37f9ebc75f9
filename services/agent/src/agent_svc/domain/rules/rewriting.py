"""Rewriting first person for a later reader: "I'm vegan" → "The user is vegan."

``third_person`` swaps the person words of a phrase as the speaker meant them; ``third_person_sentence``
rewrites a whole sentence about the user, conjugating the verb after "I", or gives None when the
rewrite is not certain ("I'd": had or would?).
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

_PERSON = {
    "user": {"i": "the user", "me": "the user", "my": "their", "mine": "theirs", "myself": "themselves",
             "i'm": "the user is", "i've": "the user has", "i'll": "the user will", "i'd": "the user would",
             "you": "the assistant", "your": "the assistant's",
             "yours": "the assistant's", "yourself": "itself", "am": "are"},
    "assistant": {"i": "the assistant", "me": "the assistant", "my": "its", "mine": "its", "myself": "itself",
                  "i'm": "the assistant is", "i've": "the assistant has", "i'll": "the assistant will",
                  "i'd": "the assistant would", "you": "the user", "your": "the user's",
                  "yours": "the user's", "yourself": "themselves", "am": "is", "you're": "the user is",
                  "you've": "the user has", "you'll": "the user will"},
}  # fmt: skip
_PERSON_WORD = re.compile(
    r"\b(?:i'm|i've|i'll|i'd|you're|you've|you'll|i|me|my|mine|myself|you|your|yours|yourself)\b", _I
)


def third_person(text: str, speaker: str) -> str:
    """Rewrite first and second person for someone reading it later, as the speaker meant it."""
    table = _PERSON.get(speaker, _PERSON["user"])
    return _PERSON_WORD.sub(lambda m: table.get(m.group(0).lower(), m.group(0)), text)


_LEFT_FIRST_PERSON = re.compile(r"\b(?:my|me|myself|mine)\b")  # lower case: "Me Before You" is a title
_LEFT_FOR_USER = {"my": "their", "me": "them", "myself": "themselves", "mine": "theirs"}


def no_first_person_left(content: str) -> str:
    """A fact framed about the user keeps no "my" or "me" of the words it was made from.

    Patterns rewrite the subject and keep the rest as said, so "I love fixing up my own bikes" came
    out as "The user loves fixing up my own bikes", which a later reader takes as their own bikes.
    """
    return user_words(content) if content.lower().startswith("the user") else content


def user_words(phrase: str) -> str:
    """The user's leftover "my"/"me" in a phrase of a fact about them, as a reader says it."""
    return _LEFT_FIRST_PERSON.sub(lambda m: _LEFT_FOR_USER[m.group(0)], phrase)


def subject_of(speaker: str) -> str:
    return "The assistant" if speaker == "assistant" else "The user"


_GERUNDS = {"using": "use", "making": "make", "moving": "move", "writing": "write", "caching": "cache",
            "changing": "change", "removing": "remove", "storing": "store", "having": "have", "taking": "take",
            "giving": "give", "creating": "create", "updating": "update", "migrating": "migrate", "choosing": "choose",
            "rewriting": "rewrite", "deleting": "delete", "scheduling": "schedule", "going": "go", "doing": "do",
            "sticking": "stick", "switching": "switch", "adding": "add", "trying": "try",
            "keeping": "keep"}  # fmt: skip


def base_form(phrase: str) -> str:
    """``"using Postgres"`` → ``"use Postgres"``: a proposal said as a gerund, as an action."""
    head, _, rest = phrase.partition(" ")
    low = head.lower()
    if low in _GERUNDS:
        head = _GERUNDS[low]
    elif low.endswith("ing") and len(low) > 5:
        head = head[:-3]
        if len(head) > 2 and head[-1] == head[-2] and head[-1] not in "aeiousl":
            head = head[:-1]
    return f"{head} {rest}".strip()


def sentence_case(content: str) -> str:
    content = re.sub(r"\s+", " ", content).strip()
    content = re.sub(r"\.\.$", ".", content)
    return content[:1].upper() + content[1:]


_PAST = frozenset(
    "went got had made took saw did was were found felt thought bought brought came met left ran began gave told "
    "knew wrote kept lost won spent built sent sat stood heard held taught caught paid said became chose drove flew "
    "grew ate fell forgot rode sang swam threw woke wore sold hung hit put set cut shut let read quit led bent fed "
    "fought lent slept spoke stole struck swore swept tore understood wept woke broke drew drank shook".split()
)
# The present-tense verbs the rewrite conjugates; an "I" before any other word is a shape it leaves out.
PRESENT_VERBS = frozenset(
    "love like enjoy adore go have do try play work live read watch teach run walk cook bake paint draw write "
    "study visit travel volunteer collect spend take make need want plan keep get use listen swim dance sing "
    "practice practise meditate own drive ride climb hike garden knit sew fish surf ski speak help care coach "
    "lead manage build fix grow raise support attend belong prefer hate dislike miss remember wear eat drink sleep "
    "wake start finish call text meet see hear buy sell rent share save earn pay follow host organise organize "
    "leave suffer freelance "
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
    (re.compile(r"\bme\b", _I), "the user"),
]


def _third_person_verb(verb: str) -> str | None:
    low = verb.lower()
    if low in _PAST or low.endswith("ed") or low in _MODALS:
        return verb
    if low not in PRESENT_VERBS and low not in _IRREGULAR_PRESENT:
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


def third_person_sentence(sentence: str) -> str | None:
    """The sentence about the user in the third person, or None when it cannot be rewritten surely."""
    text = sentence
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    text = _subject_i(text)
    if re.search(r"\bI\b", text):
        return None  # an "I" left in a shape the rewrite does not know
    text = re.sub(r"\bthe user's own\b", "their own", text)
    return text[:1].upper() + text[1:]
