"""Kinds by meaning: a second reader for the first-person facts the patterns left unread.

The patterns read a clause from its start, so a fact said after small talk in one long unpunctuated
line ("ugh cant focus today my cat mochi keeps walking across the keyboard lol") or in words no
pattern knows ("kiwi makes my mouth swell up") is missed. This reader looks again at a turn the
patterns read, in two cheap steps and one check:

1. **Spans.** Each sentence the filters let through (no question mark, condition, sarcasm, figure
   of speech or words passed on) is read again from every place a first-person statement may start
   ("my …", "i'm …", "we …", after "so", "cos", "anyway" …), unless the words before that place
   hedge it ("if", "wish", "says", "not", "in the school play" …) since the line's last "but". The
   whole pattern pipeline (``memories.statements``) reads each span; a span no pattern reads and
   that opens a clause is offered to self-disclosure (an untyped memory).
2. **Slot readers.** A few kinds have a reader of their own that finds the value where the kind's
   words put it (a pet's name after "named"/"called" or next to the animal, a food before "makes
   my throat swell", a city before "thats where i live", a date before "is our anniversary") and
   says it again as the plain first-person clause the patterns know ("my cat is called Mochi"), so
   the fact is typed and worded in the user's frame exactly as if it had been said that way.
3. **The check.** A candidate is kept only when the packaged sentence embedding model puts the span
   nearest to prototype sentences of a kind (``kind_prototypes.py``: our own sentences) whose
   belief slots the candidate's facts fit, with a similarity over ``threshold`` and a margin over
   the nearest sentence of any other kind and of the "no fact" class (small talk, feelings of the
   moment, requests); a slot reader's candidate needs its kind or one of its family among the
   three nearest, an untyped memory a clear margin over no fact. Two readers that must agree: the
   words find the value, the meaning vouches for the kind. A fact already read by the patterns,
   a slot they filled or a memory self-disclosure wrote is not written twice.

Only candidates are embedded (most turns have none), in one batch per turn; the prototypes are
embedded once per process.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from agent_svc.domain.rules.figurative import figurative, reported
from agent_svc.domain.rules.kind_prototypes import NO_FACT, PROTOTYPES
from agent_svc.domain.rules.model import Statement
from agent_svc.domain.rules.normalise import (
    is_conditional,
    is_hypothetical,
    is_question,
    is_reported,
    is_sarcastic,
    normalise,
)
from agent_svc.domain.rules.text import MAX_SENTENCE_CHARS, sentences

_I = re.IGNORECASE

# Calibrated on the paraphrase suite's tuning half and tuning traps (docs/extraction.md).
THRESHOLD = 0.4
MARGIN = 0.05
READER_EASING = 0.15  # a slot reader's own words already name the kind: its bar is this much lower
UNTYPED_EASING = 0.05  # an untyped memory's bar is this much higher
MAX_SPANS_PER_SENTENCE = 8


class TextEmbedder(Protocol):
    """Sentence vectors (one row per text); the agent service's embedding port."""

    async def embed(self, texts: Sequence[str]) -> np.ndarray: ...


# The belief slots a kind's facts take; a candidate whose facts take none of them is not that kind.
KIND_SLOTS: dict[str, re.Pattern[str]] = {
    kind: re.compile(pattern)
    for kind, pattern in {
        "allergy": r"^allergy:",
        "diet": r"^diet$",
        "food_avoidance": r"^(?:no_[a-z_]+|diet)$",
        "preferred_name": r"^name$",
        "full_name": r"^name$",
        "pronouns": r"^pronouns$",
        "age": r"^age$",
        "birthday": r"^birthday$",
        "nationality": r"^nationality$",
        "partner": r"^family:(?:wife|husband|partner|spouse|boyfriend|girlfriend|fianc[eé]e?)$",
        "partner_job": r"^family:(?:wife|husband|partner|spouse|boyfriend|girlfriend|fianc[eé]e?):(?:job|employer)$",
        "relationship_status": r"^relationship_status$",
        "children": r"^count:children$",
        "child_name": r"^family:(?:daughter|son|eldest|youngest|child|baby|kid)$",
        "parent": r"^family:(?:mum|mom|mother|dad|father|parents)(?::[a-z_]+)?$",
        "sibling": r"^family:(?:[a-z]+_)?(?:brother|sister)(?::[a-z_]+)?$",
        "friend": r"^family:(?:[a-z]+_)?(?:friend|mate|pal)(?::[a-z_]+)?$",
        "pet_named": r"^pet:",
        "pet_kind": r"^pet:",
        "home_city": r"^home_city$",
        "moved": r"^home_city$",
        "hometown": r"^hometown$",
        "employer": r"^employer$",
        "job": r"^job$",
        "school": r"^school$",
        "anniversary": r"^anniversary$",
        "family_birthday": r"^family:[a-z_]+:birthday$",
        "contact_preference": r"^contact_(?:channel|time)$",
        "favourite": r"^favourite_[a-z_]+$",
    }.items()
}

# Where a first-person statement may start inside a longer sentence.
_FIRST_PERSON = re.compile(r"(?<![\w'])(?:i|i'm|im|i've|ive|i'd|my|our|we|we're|we've|me and)\b", _I)
_CONNECTOR = re.compile(
    r"\b(?:so|cos|coz|cause|because|anyway|anyways|but|and|tbh|honestly|lol|now|today|basically|actually|"
    r"also|plus|btw|fyi|oh|that)\s+",
    _I,
)
# A request said without its question mark: what follows it may still be a statement
# ("can you find a yoga class in york thats where i live").
_REQUEST = re.compile(r"^(?:(?:ok|okay|so|hey|hi|pls|please|um)\s+)*(?:can|could|would|will)\s+you\b", _I)
# Words before a span that make it no statement of the user's: a supposition, a wish, someone
# else's words, a denial, a question, a joke, a quotation, a part played ("in the school play i'm a …").
_HEDGED = re.compile(
    r"\b(?:if|unless|wish|wished|hope|hoping|would|wd|could|might|maybe|imagine|pretend\w*|dream\w*|says?|said|"
    r"saying|tell|tells|told|think|thinks|thought|reckons?|asks?|asked|whether|suppose|supposed|used to|not|"
    r"never|no longer|joke|joking|kidding|jk|lyrics?|song|film|movie|book|show|character|game|quote|when|"
    r"story|novel|series|episode|scene|script|acting|costume|halloween|fancy dress|role|roleplay|rumou?rs?|"
    r"legend|word is|apparently|supposedly|allegedly|heard)\b"
    r"|\b(?:the|a|my|our|this|that)\s+(?:[a-z]+\s+)?(?:play|panto|pantomime|musical|sketch|video)\b"
    r"|[?\"“”]",
    _I,
)


# Where a span ends: the next clause, a tag ("lol"), an emoji.
_END = re.compile(
    r"\s+(?:so|cos|coz|because|but|and|which|who|lol|haha|lmao|if|though|tho|just)\b|[,;:!.]|\s*[^\w\s'/&+-]", _I
)


def _clause_at(text: str) -> str:
    """``text`` up to where its first clause ends (three words at least)."""
    words = list(re.finditer(r"\S+", text))
    if len(words) <= 3:
        return text.strip()
    end = _END.search(text, words[2].start())
    return text[: end.start() if end else len(text)].strip()


# A hedge reaches no further back than a turn of the line ("we might get a dog but honestly im
# allergic to dog hair": the allergy is said plainly).
_TURN = re.compile(r"\b(?:but|anyway|anyways|however)\b", _I)


def _hedged(before: str) -> bool:
    """Whether the words before a span hedge it (only those since the line's last turn count)."""
    turns = list(_TURN.finditer(before))
    return bool(_HEDGED.search(before[turns[-1].end() :] if turns else before))


def _spans(sentence: str) -> list[tuple[int, str, bool]]:
    """Each span with where it starts and whether it opens a clause (after a connector or a comma),
    not a phrase inside one ("… back to my home country", "the gig i went to")."""
    connected = {m.end() for m in _CONNECTOR.finditer(sentence)}
    starts = sorted(({m.start() for m in _FIRST_PERSON.finditer(sentence)} | connected) - {0})
    spans: list[tuple[int, str, bool]] = []
    for start in starts:
        span = _clause_at(sentence[start:].strip(" ,;:"))
        if _hedged(sentence[:start]) or _HEDGED.match(span):
            continue
        if len(span.split()) >= 3:
            opens = start in connected or sentence[:start].rstrip()[-1:] in ",;:"
            spans.append((start, span, opens))
    return spans[:MAX_SPANS_PER_SENTENCE]


# An untyped memory that ends on a filler tells a later conversation nothing ("The user is learning a ton.").
_VAGUE = re.compile(
    r"\b(?:a ton|tons|a lot|lots|loads|so much|my time|the user's time|things|stuff|everything|anything|it all)\.?$", _I
)
_CLAUSE = re.compile(r"The user (?!'s)\w+ \w+")


_PET = (
    r"(?:dog|puppy|pup|cat|kitten|rabbit|bunny|hamster|guinea pig|goldfish|fish|parrot|budgie|tortoise|"
    r"turtle|snake|lizard|horse|pony|ferret|rat|mouse|greyhound|labrador|lab|collie|border collie|spaniel|"
    r"terrier|poodle|beagle|pug|dachshund|retriever|husky|whippet|lurcher|tabby)"
)
_NOW = r"(?!(?:old|late|former|previous|first|dead|childhood|last)\b)"  # a pet the user has no more
_NAME = r"(?P<name>[a-z][a-z'-]{1,15})"
_NOT_A_NAME = frozenset(
    "a an the and but so is was he she it they keeps has had who which that too very just really always never "
    "now hes shes its from at in on for with".split()
)
_DATE = (
    r"(?P<date>(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)"
    r"[a-z]*|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\s+\d{1,2}(?:st|nd|rd|th)?)"
)
_RELATIVE = (
    r"(?P<who>mum|mom|mother|dad|father|grandad|grandpa|granddad|grandma|gran|nan|nana|granny|sister|brother|"
    r"son|daughter|wife|husband|partner|boyfriend|girlfriend|aunt|uncle|niece|nephew|cousin)"
)
_PLACE = r"(?P<place>[a-z][a-z'-]+(?:\s+(?:upon\s+)?[a-z][a-z'-]+)?)"
_NOT_A_PLACE = frozenset("the a my our town city village house flat home work bed here there".split())

# Someone else named before a reader's words: the pet, the allergy, the date may be theirs.
_OTHERS = re.compile(
    r"\b(?:his|her|their|he|she|they|he's|she's|hes|shes|they're|theyre)\b|\b(?:my|our)\s+(?:[a-z]+\s+)?(?:sister|brother|"
    r"friend|mate|neighbou?r|mum|mom|dad|mother|father|son|daughter|wife|husband|partner|boyfriend|girlfriend|"
    r"boss|colleague|cousin|aunt|uncle|flatmate|housemate|kids?|children)\b(?!'s\s+birthday)"
    r"|\bthe\s+(?:kids|neighbou?rs?|people|family|guy|girl|man|woman|couple|lady|bloke)\b|\bnext\s+door\b"
    r"|\b(?!(?:it|that|there|what|here|he|she|who)'s)[a-z]+'s\s+(?!birthday)",
    _I,
)

# Kind-specific slot readers: the value where the kind's words put it, said again plainly.
_READERS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    (
        "pet_named",
        re.compile(
            rf"\b(?:my|our|the|a|an)\s+(?:{_NOW}[a-z]+\s+){{0,2}}(?P<pet>{_PET})\b.{{0,60}}?\b(?:(?:her|his|its)\s+name\s+is|"
            rf"(?<!was\s)(?<!were\s)(?:named|called)|we\s+(?:called|named|call)\s+(?:him|her|it))\s+{_NAME}",
            _I,
        ),
        "my {pet} is called {name}",
    ),
    ("pet_named", re.compile(rf"\bnamed\s+(?:our|my)\s+(?P<pet>{_PET})\s+{_NAME}", _I), "my {pet} is called {name}"),
    (
        "pet_named",
        re.compile(rf"\b(?:my|our)\s+(?P<pet>{_PET})\s+{_NAME}\s+(?:keeps|is|has|loves|hates)\b", _I),
        "my {pet} is called {name}",
    ),
    (
        "pet_named",
        re.compile(
            rf"\b(?:walking|feeding|with)\s+{_NAME}\s+(?:now\s+)?(?:she'?s|he'?s)\s+(?:my|our)\s+(?:[a-z]+\s+)?(?P<pet>{_PET})\b",
            _I,
        ),
        "my {pet} is called {name}",
    ),
    (
        "allergy",
        re.compile(
            r"\b(?P<food>[a-z][a-z ]{1,20}?)\s+(?:makes?|gives?)\s+"
            r"(?:my\s+(?:mouth|throat|lips|face|skin|tongue|eyes)\s+"
            r"(?:swell|itch|burn|close|tingle)|me\s+(?:hives|a\s+rash))",
            _I,
        ),
        "i'm allergic to {food}",
    ),
    (
        "allergy",
        re.compile(
            r"\bi\s+react\s+(?:really\s+|very\s+|quite\s+)?badly\s+to\s+(?P<food>[a-z][a-z ]{1,20}?)\b(?=\s+so\b|,|$)",
            _I,
        ),
        "i'm allergic to {food}",
    ),
    (
        "allergy",
        re.compile(
            r"\bi\s+have\s+an?\s+(?:bad\s+|severe\s+)?allergy\s+to\s+"
            r"(?P<food>[a-z][a-z ]{1,20}?)\b(?=\s+so\b|,|$|\s+and\b)",
            _I,
        ),
        "i'm allergic to {food}",
    ),
    ("food_avoidance", re.compile(r"\bno\s+(?P<food>[a-z][a-z ]{1,15}?)\s+for\s+me\b", _I), "i don't eat {food}"),
    (
        "food_avoidance",
        re.compile(
            r"\b(?:i\s+)?(?:dont|don't|do not)\s+drink\s+"
            r"(?P<food>alcohol|coffee|caffeine|milk|beer|wine|booze|fizzy drinks)\b",
            _I,
        ),
        "i don't drink {food}",
    ),
    (
        "food_avoidance",
        re.compile(
            r"\b(?P<food>[a-z]+)\s+(?:give|gives)\s+me\s+(?:a\s+)?(?:stomach\s?ache|heartburn|migraines?|headaches?)\b",
            _I,
        ),
        "i avoid {food}",
    ),
    ("home_city", re.compile(rf"\bliving\s+in\s+{_PLACE}\s+(?:means|is)\b", _I), "i live in {place}"),
    ("home_city", re.compile(rf"\bwe'?ve\s+been\s+in\s+{_PLACE}\s+for\b", _I), "i live in {place}"),
    (
        "home_city",
        re.compile(rf"\bin\s+{_PLACE}\s+(?:thats|that's|that is)\s+where\s+(?:i|we)\s+live\b", _I),
        "i live in {place}",
    ),
    (
        "home_city",
        re.compile(rf"^home\s+is\s+{_PLACE}\b(?=\s+(?:these\s+days|now|after)\b|$)", _I),
        "i live in {place}",
    ),
    (
        "anniversary",
        re.compile(rf"\b{_DATE}\s+is\s+our\s+(?:wedding\s+)?anniversary\b", _I),
        "our anniversary is {date}",
    ),
    (
        "anniversary",
        re.compile(rf"\bcelebrate\s+our\s+(?:wedding\s+)?anniversary\s+on\s+{_DATE}", _I),
        "our anniversary is {date}",
    ),
    (
        "anniversary",
        re.compile(rf"\bour\s+(?:wedding\s+)?anniversary\s+is\s+on\s+{_DATE}", _I),
        "our anniversary is {date}",
    ),
    (
        "family_birthday",
        re.compile(rf"\bmy\s+{_RELATIVE}\s+was\s+born\s+on\s+{_DATE}", _I),
        "my {who}'s birthday is {date}",
    ),
    (
        "family_birthday",
        re.compile(rf"\bmy\s+{_RELATIVE}'?s\s+birthday\s+is\s+(?:on\s+)?{_DATE}", _I),
        "my {who}'s birthday is {date}",
    ),
    (
        "contact_preference",
        re.compile(r"\btext\s+me\s+(?:dont|don't|do not|not)\s+(?:ring|call)\b", _I),
        "texts are best",
    ),
    (
        "contact_preference",
        re.compile(r"\b(?:just\s+)?send\s+(?:me\s+)?a\s+voice\s+(?:note|message)\b", _I),
        "i prefer voice notes",
    ),
)


def _value_ok(kind: str, groups: dict[str, str]) -> bool:
    name = groups.get("name")
    if name is not None and name.lower() in _NOT_A_NAME:
        return False
    place = groups.get("place")
    if place is not None and (place.lower() in _NOT_A_PLACE or place.split()[0].lower() in _NOT_A_NAME):
        return False
    food = groups.get("food")
    return food is None or food.split()[0].lower() not in _NOT_A_NAME


def _said_again(template: str, groups: dict[str, str]) -> str:
    values = {key: value.strip() for key, value in groups.items() if value}
    if "name" in values:
        values["name"] = values["name"][:1].upper() + values["name"][1:]
    if "place" in values:
        values["place"] = " ".join(word[:1].upper() + word[1:] for word in values["place"].split())
    if "date" in values:
        values["date"] = re.sub(r"^the\s+", "", values["date"], flags=_I)
    return template.format(**values)


_GOES_BY = re.compile(r"\b(?:calls?\s+me|call\s+me|go(?:es)?\s+by|known\s+as)\b", _I)


_WORDS = re.compile(r"[a-z0-9']+")


def _content_words(memory: str) -> set[str]:
    return set(_WORDS.findall(memory.lower())) - {"the", "user", "user's", "is", "a", "an", "has", "s"}


def _names(statement: Statement) -> bool:
    return any(facet.attribute == "name" for facet in statement.facets)


# Kinds a span about one of them is often nearest instead ("i react badly to shellfish" reads as a diet).
_FAMILY: dict[str, tuple[str, ...]] = {
    "allergy": ("food_avoidance", "diet", "health_condition"),
    "food_avoidance": ("diet", "allergy", "strong_dislike"),
    "pet_named": ("pet_kind",),
    "home_city": ("moved", "hometown"),
    "anniversary": ("family_birthday", "birthday", "partner"),
    "family_birthday": ("birthday", "anniversary"),
    "contact_preference": (),
}


def _fits(kind: str, statement: Statement) -> bool:
    slots = KIND_SLOTS.get(kind)
    return slots is not None and any(slots.search(facet.attribute) for facet in statement.facets)


class KindReader:
    """The second reader (module doc); ``embedder`` is the service's sentence embedding port."""

    def __init__(self, embedder: TextEmbedder, threshold: float = THRESHOLD, margin: float = MARGIN) -> None:
        self._embedder = embedder
        self.threshold = threshold
        self.margin = margin
        self._labels: list[str] = []
        self._vectors: np.ndarray | None = None

    async def _prototypes(self) -> tuple[list[str], np.ndarray]:
        if self._vectors is None:
            labels = [kind for kind, said in PROTOTYPES.items() for _ in said] + ["none"] * len(NO_FACT)
            texts = [s for said in PROTOTYPES.values() for s in said] + list(NO_FACT)
            self._vectors = _unit(np.asarray(await self._embedder.embed(texts), dtype=np.float32))
            self._labels = labels
        return self._labels, self._vectors

    async def nearest(self, spans: Sequence[str]) -> list[list[tuple[str, float]]]:
        """Per span, each kind (and "none") with its best similarity, best first."""
        if not spans:
            return []
        labels, prototypes = await self._prototypes()
        vectors = _unit(np.asarray(await self._embedder.embed(list(spans)), dtype=np.float32))
        similar = vectors @ prototypes.T
        out: list[list[tuple[str, float]]] = []
        for row in similar:
            best: dict[str, float] = {}
            for label, score in zip(labels, row, strict=True):
                best[label] = max(best.get(label, -1.0), float(score))
            out.append(sorted(best.items(), key=lambda item: -item[1]))
        return out

    async def read(self, text: str, found: Sequence[Statement], told: Sequence[str] = ()) -> list[Statement]:
        """Statements about the user the patterns missed in ``text`` (a user's turn, already read);
        ``told``: the memories the turn's other disclosures wrote, which an untyped one may not repeat."""
        from agent_svc.domain.rules.disclosure import disclosures  # both import what imports this module
        from agent_svc.domain.rules.memories import statements

        taken_slots = {facet.attribute for s in found for facet in s.facets}
        taken = {s.memory.content.lower() for s in found}
        read = [s.excerpt.lower() for s in found if s.excerpt]
        candidates: list[tuple[str, str, Statement]] = []  # (kind or "", span, statement)
        for sentence in sentences(text):
            clean = sentence.clean.strip()
            if len(clean) > MAX_SENTENCE_CHARS or len(clean.split()) < 4:
                continue
            body = normalise(clean)
            if not body or clean.endswith("?") or (is_question(body) and not _REQUEST.match(body)):
                continue
            if is_conditional(body) or is_sarcastic(clean) or figurative(clean) or reported(clean):
                continue
            # Someone else's words are judged up to the candidate's end: "my grandad was born on the
            # 1st of april which he says explains a lot" reports only after the date.
            reports = is_reported(body)
            # A supposition is judged span by span: "we might get a dog but im allergic to dog hair".
            lowered = clean.lower()
            for kind, reader, template in _READERS:
                match = reader.search(lowered)
                if not match:
                    continue
                before = lowered[: match.start()]
                if _hedged(before) or is_hypothetical(normalise(match.group(0))):
                    continue
                if reports and is_reported(normalise(lowered[: match.end()])):
                    continue
                ours = bool(re.search(r"\b(?:my|our)\s", match.group(0)))
                if not ours and _OTHERS.search(before):
                    continue
                if any(match.group(0) in excerpt for excerpt in read):
                    continue
                if kind == "pet_named" and not ours and not _FIRST_PERSON.search(before) and len(before.split()) > 2:
                    continue  # "the kids next door have a tortoise called …": whose is it?
                groups = {key: value for key, value in match.groupdict().items() if value}
                if not _value_ok(kind, groups):
                    continue
                for statement in statements(_said_again(template, groups), "user"):
                    candidates.append((kind, match.group(0), statement))
            # A name and the name the user goes by in one line: which is which is the patterns' call.
            nicknamed = bool(_GOES_BY.search(lowered))
            for start, span, opens in _spans(clean):
                if any(span.lower() in excerpt for excerpt in read) or is_hypothetical(normalise(span)):
                    continue  # the patterns read these words already, or they suppose
                if reports and is_reported(normalise(clean[: start + len(span)])):
                    continue
                read_here = statements(span, "user")
                if not read_here:  # what self-disclosure would keep, had the line begun here
                    read_here = [Statement(m, span) for m in disclosures(span, "user")]
                for statement in read_here:
                    if nicknamed and _names(statement):
                        continue
                    # An untyped memory must be a whole clause about the user ("The user is a
                    # midwife."), never a phrase cut from the middle of one ("The user's home country.").
                    content = statement.memory.content
                    if not statement.facets and not (opens and _CLAUSE.match(content) and not _VAGUE.search(content)):
                        continue
                    candidates.append(("", span, statement))
        told_words = [set(_WORDS.findall(memory.lower())) for memory in told]
        fresh = [
            (kind, span, s)
            for kind, span, s in candidates
            if s.memory.content.lower() not in taken
            and not {f.attribute for f in s.facets} & taken_slots
            and not (not s.facets and any(_content_words(s.memory.content) <= words for words in told_words))
        ]
        if not fresh:
            return []
        spans = list(dict.fromkeys(span for _, span, _ in fresh))
        try:
            ranked = dict(zip(spans, await self.nearest(spans), strict=True))
        except Exception:  # the model failed (closed, out of memory): the patterns' reading stands
            return []
        kept: list[Statement] = []
        for kind, span, statement in fresh:
            if self._vouched(kind, statement, ranked[span]):
                key = statement.memory.content.lower()
                slots = {f.attribute for f in statement.facets}
                if key in taken or slots & taken_slots:
                    continue
                taken.add(key)
                taken_slots |= slots
                kept.append(statement)
        return kept

    def _vouched(self, kind: str, statement: Statement, ranked: list[tuple[str, float]]) -> bool:
        """A span is nearest a kind its facts' slots fit, by ``margin`` over any kind they do not fit
        and over no fact. A slot reader's words (``kind`` given: the reader knows the kind) need
        only be near it or a kind of its family, among the nearest three and not nearest no fact."""
        if ranked[0][0] == "none":
            return False
        if kind:
            family = {kind, *_FAMILY.get(kind, ())}
            return any(label in family and score >= self.threshold - READER_EASING for label, score in ranked[:3])
        if not statement.facets:
            # An untyped memory ("The user lives with crohns disease."): a kind, clearly, over no fact.
            score = ranked[0][1]
            no_fact = next(s for label, s in ranked if label == "none")
            return score >= self.threshold + UNTYPED_EASING and score - no_fact >= 2 * self.margin
        fitting = next(((label, score) for label, score in ranked if _fits(label, statement)), None)
        if fitting is None or fitting[1] < self.threshold:
            return False
        other = next((score for label, score in ranked if not _fits(label, statement)), -1.0)
        return fitting[1] - other >= self.margin


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)
