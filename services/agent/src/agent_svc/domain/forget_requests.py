"""Spoken memory control: whether a user's turn asks the assistant to forget something, and what.

"Forget what I said about my address", "please forget my ex's name", "delete my phone number",
"don't remember that", "scratch that", "forget it": each is a request to forget. The request names
what to forget (``about``: "my address", "my ex's name") or points back at what was just said
(``about`` empty: "that", "it", "what I just said"), in the same turn ("My door code is 4417 —
actually, don't remember that.": ``said_before`` holds the words before the request) or in the
turn before.

Recognition is for precision, like the rest of forgetting: only an imperative at the start of a
sentence (after "please", "can you", "oh", "actually", ...) counts, so "don't forget to call Mum",
"I always forget my keys" and "delete the old drafts in my inbox" are not requests to forget.
``delete``, ``remove`` and ``erase`` count only for what the user said or a detail of theirs ("my
address"), never for a thing an assistant could act on ("my account", "my emails").

Also here, pure: the content words a request's ``about`` is matched with, whether a memory's text
names them, and the working-memory summary rewritten without the sentences that said what was
forgotten.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = [
    "AMBIGUOUS",
    "FORGOTTEN",
    "NOTHING_MATCHED",
    "ForgetOutcome",
    "ForgetRequest",
    "ForgottenItem",
    "antecedent_position",
    "content_words",
    "forget_request",
    "names_any",
    "summary_without",
    "topic_words",
    "without_forgotten",
]

# What a request to forget came to (lore.agent.v1.ForgetStatus).
FORGOTTEN, NOTHING_MATCHED, AMBIGUOUS = "forgotten", "nothing_matched", "ambiguous"


@dataclass(frozen=True, slots=True)
class ForgetRequest:
    """``about``: what to forget as the user said it, empty when the request points back ("that").
    ``said_before``: the turn's words before the request (what "that" may point at)."""

    about: str
    said_before: str = ""

    @property
    def points_back(self) -> bool:
        return not self.about


@dataclass(frozen=True, slots=True)
class ForgottenItem:
    """A memory archived or a belief invalidated: ``type`` is the memory's type or "belief"."""

    id: str
    type: str
    text: str


@dataclass(frozen=True, slots=True)
class ForgetOutcome:
    status: str  # FORGOTTEN | NOTHING_MATCHED | AMBIGUOUS
    forgotten: tuple[ForgottenItem, ...] = ()


_SENTENCE = re.compile(r"[^.!?;\n]+(?:[.!?;]+|\n|$)")
# What may come before the imperative: politeness, discourse markers, "can you", "I want you to".
_OPENER = (
    r"(?:(?:oh|ok|okay|hey|so|and|but|actually|wait|hmm|um|also|right|sorry|no|well|honestly|please|kindly"
    r"|on second thoughts?|come to think of it)\b[\s,—–-]*)*"
    r"(?:(?:can|could|would|will) you(?: please)?\s+|i(?:'d| would) like you to\s+|i want you to\s+"
    r"|i need you to\s+|you (?:can|should|may|could)\s+|please\s+|just\s+)*"
)
_VERB = (
    r"(?P<verb>forget(?: about)?|(?:do not|don't|dont|never) (?:remember|keep|store|save|record|note)"
    r"|stop remembering|delete|remove|erase|wipe|scratch|strike|disregard|unlearn)"
)
_REQUEST = re.compile(rf"^\s*{_OPENER}{_VERB}\b(?P<rest>.*)$", re.I | re.S)
# What the user said, the way the request names it.
_WHAT_I_SAID = re.compile(
    r"^(?:all |everything |anything |what |the (?:thing|part|bit|stuff) )?(?:that )?(?:i(?:'ve)? (?:just )?"
    r"(?:said|told you|mentioned|wrote|shared|typed|gave you)|you (?:know|learned|learnt|heard))"
    r"(?: (?:just now|earlier|before|a moment ago|yesterday))?\s*(?:(?:about|regarding|on|of|concerning)\s+)?",
    re.I,
)
_ABOUT = re.compile(r"^(?:all |everything |anything )?(?:about|regarding|concerning)\s+", re.I)
_TRAILER = re.compile(
    r"(?:[\s,]+(?:from (?:your|the) (?:memory|records?|notes?)|please|for me|as well|too|ok|okay|thanks|thank you"
    r"|for now|for good|forever|permanently|entirely|completely|right away|now|altogether|then))+\s*$",
    re.I,
)
# A request that points back: "that", "it", "what I just said", "the last thing".
_POINTER = re.compile(
    r"^(?:(?:all|about|everything|any of) )?(?:that|this|it|those|these|them|all that|that one"
    r"|that last (?:bit|part|one)|the last (?:thing|message|bit|part|one)|everything|all of (?:that|it|this)"
    r"|what i (?:just )?said|)$",
    re.I,
)
# "forget to …", "forget that I …" (a clause, not what to forget), "forget it's …".
_NOT_AN_OBJECT = re.compile(r"^(?:to\b|that (?:i|you|we|it|he|she|they)\b|how\b|where\b|when\b|why\b|if\b)", re.I)
# Things an assistant could act on: "delete my account" asks for an action, not for forgetting.
_ACTIONABLE = frozenset(
    """account accounts email emails e-mail e-mails mail mails inbox file files folder folders photo photos picture
    pictures document documents doc docs draft drafts message messages chat chats calendar event events meeting
    meetings appointment appointments booking bookings reservation reservations order orders cart subscription
    subscriptions alarm alarms reminder reminders note notes playlist playlists song songs app apps profile post
    posts comment comments tweet tweets repo repository branch commit commits table row rows column database
    contact contacts card cards task tasks todo todos list lists recording recordings video videos backup
    backups history cookies cache password""".split()
)
# Verbs whose object must be the user's own detail or words ("delete my address").
_NEEDS_OWN_OBJECT = frozenset({"delete", "remove", "erase", "wipe"})
# Verbs that only ever point back ("scratch that").
_POINT_BACK_ONLY = frozenset({"scratch", "strike", "disregard"})

_WORD = re.compile(r"[a-z0-9][a-z0-9'’-]*")
_STOP = frozenset(
    """a about all also an and any anything are as at be been being but by can could did do does don't dont
    every everything for forget from had has have having he her hers him his i i'd i'm i've if in into is it
    it's its just me mine my myself of on or our ours please remember said says she so some something tell
    that the their them then there these they this those to told too us was we were what when where which who
    will with would you your yours user user's assistant stuff thing things bit part whole entire""".split()
)


def forget_request(text: str) -> ForgetRequest | None:
    """The request to forget this turn makes, or None when it makes none. The first sentence that
    is a request wins; the sentences before it are ``said_before``."""
    before: list[str] = []
    for match in _SENTENCE.finditer(text):
        sentence = match.group(0).strip()
        if not sentence:
            continue
        for clause in _clauses(sentence):
            found = _request_in(clause)
            if found is not None:
                return ForgetRequest(found, " ".join([*before, sentence[: sentence.find(clause)]]).strip(" ,—–-"))
        before.append(sentence)
    return None


def _clauses(sentence: str) -> list[str]:
    """The sentence, and what follows each comma or dash in it ("My code is 4417, scratch that")."""
    parts = [sentence]
    for mark in re.finditer(r"[,—–]\s*|\s-\s", sentence):
        parts.append(sentence[mark.end() :])
    return [part for part in parts if part]


def _request_in(clause: str) -> str | None:
    """``about`` ("" when pointing back) if the clause is a request to forget, else None."""
    match = _REQUEST.match(clause)
    if match is None:
        return None
    verb = match.group("verb").lower().split()[0]
    rest = match.group("rest").strip().rstrip(".!?;").strip()
    rest = _TRAILER.sub("", rest).strip(" ,")
    if _NOT_AN_OBJECT.match(rest):
        return None
    said = _WHAT_I_SAID.match(rest)
    if said:
        rest = rest[said.end() :].strip()
    else:
        rest = _ABOUT.sub("", rest).strip()
    rest = _TRAILER.sub("", rest).strip(" ,")
    if _POINTER.match(rest):
        # "forget it" points back; "delete it"/"remove that" too, but only with forget-like verbs or
        # when the user named their own words ("delete what I just said").
        if verb in _NEEDS_OWN_OBJECT and not said and not re.search(r"\bmemory\b", clause, re.I):
            return None
        return ""
    if verb in _POINT_BACK_ONLY and not said:
        return None  # "scratch the plan", "disregard the noise": not about memory
    if verb in _NEEDS_OWN_OBJECT and not said and not _own_detail(rest):
        return None
    if verb.startswith(("don", "do", "never")) and not said and not _own_detail(rest):
        return None  # "don't remember the meeting being that long"
    if len(rest) > 200 or not content_words(rest):
        return None
    return rest


def _own_detail(phrase: str) -> bool:
    """ "my address", "my ex's name", "my phone number": the user's own detail, not a thing to act on."""
    words = phrase.lower().split()
    if not words or words[0] not in {"my", "our"}:
        return False
    return not any(word.strip("'’s.,") in _ACTIONABLE for word in words[1:3])


def content_words(text: str) -> frozenset[str]:
    """The words a match is judged on: lower case, possessives and plurals folded, stop words gone."""
    words = set()
    for word in _WORD.findall(text.lower().replace("’", "'")):
        word = word.removesuffix("'s").strip("'-")
        if word in _STOP or len(word) < 2:
            continue
        words.add(_stem(word))
    return frozenset(words)


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


# Words too general to pick a memory on their own when the request says more ("my ex's NAME": "ex").
_GENERIC = frozenset({"name", "number", "detail", "info", "information", "data", "address", "stuff"})
# The words a memory says a detail with ("my address" is where the user lives): folded like content words.
_SAID_WITH: dict[str, frozenset[str]] = {
    "address": frozenset(
        {
            "live",
            "lived",
            "living",
            "road",
            "street",
            "avenue",
            "lane",
            "home",
            "house",
            "flat",
            "apartment",
            "postcode",
            "zip",
            "moved",
        }
    ),
    "home": frozenset({"live", "lived", "living", "road", "street", "house", "flat", "apartment", "moved"}),
    "name": frozenset({"called", "named"}),
    "job": frozenset({"work", "worked", "working", "role", "employer", "career", "profession"}),
    "work": frozenset({"job", "worked", "working", "role", "employer", "career"}),
    "birthday": frozenset({"born", "birth"}),
    "age": frozenset({"old", "year", "born"}),
    "phone": frozenset({"mobile", "cell", "number"}),
    "email": frozenset({"e-mail", "mail"}),
}


def topic_words(about: str) -> frozenset[str]:
    """The words a memory must name to be about ``about``: its distinctive content words (or, when it
    has none, its general ones), with the words such a detail is said with ("address": "live", "road")."""
    words = content_words(about)
    base = {word for word in words if word not in _GENERIC} or set(words)
    return frozenset(base.union(*(_SAID_WITH.get(word, frozenset()) for word in base)))


def names_any(text: str, words: frozenset[str]) -> bool:
    """Whether ``text`` has one of ``words`` (content words, folded alike)."""
    return bool(words & content_words(text))


def summary_without(summary: str, forgotten: Iterable[str], about: frozenset[str]) -> str:
    """The working-memory summary without a sentence that says what was forgotten: one naming a word of
    ``about``, or sharing at least half of the distinctive words of a forgotten text."""
    gone = [content_words(text) for text in forgotten]
    kept = []
    for match in _SENTENCE.finditer(summary):
        sentence = match.group(0)
        words = content_words(sentence)
        if about & words:
            continue
        if any(text and len(text & words) * 2 >= len(text) for text in gone):
            continue
        kept.append(sentence.strip())
    return " ".join(part for part in kept if part)


_DIGEST_LIST = re.compile(r"^(?P<title>[A-Z][a-z ]{1,20}): (?P<items>.+?)\.?$")


def digest_without(digest: str, forgotten: Iterable[str], about: frozenset[str]) -> str:
    """A daily digest (domain/digest.py: a dated first line, one line per conversation, then lists
    such as "Decided: a; b.") without what says what was forgotten, by the rule of ``summary_without``;
    "" when no conversation line nor list item is left (the digest then goes as a whole)."""
    gone = list(forgotten)
    head, *lines = digest.strip().splitlines() or [""]
    kept = []
    for line in lines:
        if line.startswith("- "):
            told = summary_without(line[2:], gone, about)
            if told:
                kept.append(f"- {told}")
        elif listed := _DIGEST_LIST.match(line):
            items = [item for item in listed["items"].split("; ") if summary_without(item, gone, about)]
            if items:
                kept.append(f"{listed['title']}: " + "; ".join(items) + ".")
        elif summary_without(line, gone, about):
            kept.append(line)
    return "\n".join([head, *kept]) if kept else ""


T = TypeVar("T")


def without_forgotten(turns: Sequence[T]) -> list[T]:
    """The turns without those a later one asked to forget, nor the requests themselves: what a summary
    (the working memory's, an episode's) may be made of. A turn has ``role`` and ``content``. A request
    pointing back drops the user's turn it points at (the one before it, or the one before the
    assistant's reply to it); a request naming something drops the earlier turns that name it."""
    dropped: set[int] = set()
    for position, turn in enumerate(turns):
        request = forget_request(turn.content) if turn.role == "user" else None
        if request is None:
            continue
        dropped.add(position)
        if request.points_back:
            target = antecedent_position(turns[:position])
            if not request.said_before and target is not None:
                dropped.add(target)
            continue
        words = topic_words(request.about)
        dropped.update(index for index in range(position) if words & content_words(turns[index].content))
    return [turn for index, turn in enumerate(turns) if index not in dropped]


def antecedent_position(earlier: Sequence[T]) -> int | None:
    """Where the user's turn is that a request pointing back means: the turn just before it, or the one
    before that when the assistant answered in between. None when neither is the user's."""
    for index in range(len(earlier) - 1, max(len(earlier) - 3, -1), -1):
        if earlier[index].role == "user":
            return index
    return None
