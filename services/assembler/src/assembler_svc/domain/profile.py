"""The user profile: what Lore has learnt about the user, as a few short lines a model reads first.

Built from two kinds of learnt items and the caller's own text:

- the caller's ``user_profile`` text: each of its lines, first, as given;
- **beliefs** about the user (active observations whose subject is the user): the newest truth of
  each slot — a superseded or invalidated belief is never active, so it never comes;
- **facts and preferences** learnt from the user's own words (reflection's ``speaker`` is the
  user; a memory written through the API carries no speaker and counts as the user's). What the
  assistant or another speaker said is never the user's profile, nor is a line that opens on
  "The assistant".

Only what is *core* goes in — a line whose words name one of the profile's topics, in this order:
preferred name, people and pets (with their names), home, work and studies, health, diet and
allergies, languages, strong likes and dislikes, current goals. Everything else is for the
memories section, and so is a topic line that is no standing fact: a dated event that is over
("went hiking last week", "(3 June 2025)") unless it looks ahead or starts something that goes on
("started a new job last month"), and a goal that names nothing beyond vague words ("The user's
goal is to stay positive"), a line said to or about the listener ("loves how you …", "likes me")
unless the listener is named in it, a liking of one thing just shown ("loves the red and blue"),
something shown in the turn ("here's …", "take a look"), a moment judged ("… was the best"), what
might be ("could add …"), what no longer holds ("used to …") and a sentence cut apart ("loves and
…"). In a conversation between named people, the other speaker as a line's object ("The user likes
me") is named ("The user likes Sam") when the caller knows who they are (``listener``). A line is
made to stand alone: an opening answer word or interjection ("Yup, …") and the listener's name said
to them ("Sam, …") go, and the user is named once, then
"their" and "them" ("The user lost their job"). Lines are deduplicated against those already taken
(beliefs before memories, the caller's lines before both): the same normalised statement, the
same content words (``statements.same_terms``), or every content word of one within the other,
with the same polarity.

**Budget**: ``DEFAULT_TOKENS`` (100), growing with what is known — the tokens every core line
would take, title included — up to the configured maximum (``LORE_ASSEMBLER_PROFILE_MAX_TOKENS``,
300). Lines are taken round-robin over the topics (the best line of each topic, then the second
best …) while they fit, so one talkative topic never crowds out the others, and shown grouped by
topic. Nothing learnt and no caller text: no profile at all.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from assembler_svc.domain.dedupe import normalise_text
from assembler_svc.domain.model import AssemblyPolicy, Candidate, Section, Source, TokenCounter
from assembler_svc.domain.render import BULLET, title_line
from assembler_svc.domain.statements import Statement, same_polarity, same_terms, statement

DEFAULT_TOKENS = 100
MAX_TOKENS = 300
# Learnt texts whose reading as a profile line is kept (``_core_reading``): a few users' worth.
LINES_CACHED = 8192

CALLER = "caller"
BELIEF = "belief"
FACT = "fact"
PREFERENCE = "preference"

# The profile's topics, in the order the lines are shown; a line's topic is the first that matches.
TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        (
            "name",
            r"\b(?:user's (?:first |full |preferred |nick)?name|user (?:is called|goes by)|prefers? to be called)\b",
        ),
        (
            "people",
            r"\b(?:wife|husband|partner|spouse|girlfriend|boyfriend|fianc[ée]e?|sons?|daughters?|kids?|children|"
            r"child|bab(?:y|ies)|mother|mom|mum|father|dad|parents?|sisters?|brothers?|siblings?|"
            r"grand(?:mother|father|ma|pa|son|daughter|parents?|kids?|children)|aunt|uncle|cousins?|nieces?|"
            r"nephews?|friends?|family|household|missus|married|twins?|adopt\w*|named|called)\b",
        ),
        (
            "pets",
            r"\b(?:dogs?|cats?|pupp(?:y|ies)|kittens?|pets?|horses?|hamsters?|rabbits?|bunn(?:y|ies)|parrots?|"
            r"birds?|turtles?|tortoises?|guinea pigs?|snakes?|lizards?|fish)\b",
        ),
        (
            "home",
            r"\b(?:lives?|living in|lived|moved|home|house|apartment|flat|hometown|grew up|is from|comes from|"
            r"originally from|born in|neighbou?rhood|relocat\w*)\b",
        ),
        (
            "work",
            r"\b(?:works?|worked|working|jobs?|employer|company|career|profession\w*|business|colleagues?|boss|"
            r"office|retired|studies|studying|student|degree|university|college|school|course|internship|"
            r"engineer|teacher|nurse|doctor|manager|designer|developer|counsel\w*|volunteer\w*|mentor\w*|"
            r"store|shop|studio|startup|clients?|customers?|projects?)\b",
        ),
        (
            "health",
            r"\b(?:health|diagnos\w*|illness|ill|sick|injur\w*|surgery|hospital|therapy|therapist|medication|"
            r"diabet\w*|asthma|pregnan\w*|disabilit\w*|anxiety|depression|chronic|recover\w*|condition)\b",
        ),
        ("diet", r"\b(?:vegan|vegetarian|pescatarian|diet|gluten|lactose|halal|kosher|allerg\w*|intoleran\w*)\b"),
        ("languages", r"\b(?:speaks?|language|fluent|native speaker|bilingual|learning \w+ish)\b"),
        (
            "likes",
            r"\b(?:loves?|likes?|enjoys?|favou?rite|prefers?|hates?|dislikes?|can't stand|passionate about|"
            r"hobb(?:y|ies)|fan of|(?:is|am|are|really|so|big|huge) into|"
            # pastimes: what a person does for its own sake
            r"paint(?:s|ing)?|art|drawing|pottery|music|guitar|piano|sing(?:s|ing)?|danc(?:e|es|ing)|yoga|"
            r"camping|hiking|climbing|running|swimming|cycling|reading|books?|writing|poetry|photography|"
            r"cooking|baking|garden(?:s|ing)?|knitting|gaming|video games|chess|football|soccer|basketball)\b",
        ),
        (
            "goals",
            r"\b(?:plans?|planning|wants? to|goals?|hopes? to|hoping to|dreams? of|aims? to|intends? to|"
            r"going to|saving (?:up )?for|training for|working towards?|preparing|decided to|will)\b",
        ),
    )
)
_TOPIC_ORDER = {name: index for index, (name, _) in enumerate(TOPICS)}
_KIND_TOPIC = {"operator_preference": "likes", "relationship_fact": "people"}

# A one-off event in the past: a past time named ("yesterday", "last Friday", "(12 May 2023)").
_PAST_TIME = re.compile(
    r"\b(?:yesterday|last (?:night|week(?:end)?|month|year|time|summer|winter|spring|autumn|fall|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)(?:day)?|fri|sat|sun))\b|\(\d{1,2} \w+ \d{4}\)"
)
# ... unless it looks ahead (a plan) or starts something that goes on (a habit, a job).
_AHEAD_OR_ONGOING = re.compile(
    r"\b(?:next|later|soon|tomorrow|upcoming|will|going to|gonna|plans?|planning|started|since|every|"
    r"each|once a|always|still)\b"
)
# A goal line names what it is after: "to give the kids a home", not "to stay positive".
_GOAL_SHAPE = re.compile(r"\b(?:goal|aim|dream|plan|hope|wish)s? (?:is|was|are|were) to\b")
_VAGUE = frozenset(
    """
    a about achieve achieving after all also am an and any anything are as aspirations at be been being has had was were
    best better big by can could day do does doing done each enough every everything few for from get
    getting go going gone good great happen happy have help helping how i if in into is it its just keep
    keeping learn life live lives living lot lots make making many me more most much my new now of on
    one ones only or other others our out own people person plans positive reach reaching same so some
    something stay staying such that the their them themselves there these they things this those
    through to try trying up upbeat user user's very vibes want way ways well what when where which
    while who will with work would you your goal goals aim aims authentically empower individuals
    savor savour enjoy moment moments things thing stuff dreams hope hopes hoping plan planning
    """.split()
)
_WORDS = re.compile(r"[a-z][a-z']*")
# A line about the listener, or a reaction to them ("loves how you got the light", "enjoys your
# day", "is proud of me"): said to or of the other speaker, it is no fact about the user, unless
# the other speaker is named in it (``naming_listener``).
_ADDRESSED = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'll|you'd|me)\b")
# A liking verb with nothing liked: the sentence was cut apart ("The user loves and acceptance …").
# The verb as a line says it of the user ("loves"), never the noun ("their love and support").
_NO_OBJECT = re.compile(r"\b(?:loves|likes|enjoys|hates|prefers)\s+(?:and|or|but|so|because)\b")
# A liking of one thing just shown or told ("loves the red and blue", "loves that theme", "loves
# all the details"): a reaction, where a standing like names a kind of thing ("loves horses").
# "like" alone is as often "as" ("a teen just like the user") and is not read as a liking.
_REACTION = re.compile(r"\b(?:loves?|likes|enjoys?)\s+(?:all )?(?:the|that|this|these|those|it)\b")
# Something shown in the turn ("here's what I made", "take a look", "check out my pottery in the
# pic"): a moment of the conversation, not a standing fact.
_SHOWING = re.compile(
    r"\b(?:here's|here is|here are|take a look|have a look|check (?:it |this |these )?out|look at (?:this|these|it)|"
    r"in the (?:pic|picture|photo)|(?:this|the) (?:pic|picture|photo) (?:of|i|the user))\b"
    # ... or a moment judged ("Seeing the kids so happy was the best"), or what might be ("could
    # add dance-inspired items"): neither is who the user is.
    r"|\b(?:was|is) (?:the best|awesome|amazing|incredible|so fun)\W*$|\b(?:could|might|should)\b"
)
# What no longer holds: "used to love the studio".
_FORMER = re.compile(r"\bused to\b")
# What a line opens on that leans on the turn before it: an answer word or interjection
# ("Yup, the user does …") or the other speaker's name, said to them ("Sam, the user's family …").
_OPENER = re.compile(
    r"^(?:(?:yes|yeah|yep|yup|yea|no|nope|oh|ah|aw+|wow|well|hey|hi|haha|lol|omg|ok|okay|sure|thanks|"
    r"sorry|totally|definitely|absolutely|right|so|and|but|also|now)\b[\s,!.\-]*)+",
    re.IGNORECASE,
)
_VOCATIVE = re.compile(
    r"^(?!(?:Yesterday|Today|Tonight|Tomorrow|Lately|Recently|Sometimes|Honestly|Actually|Anyway|Besides|"
    r"Plus|However|Still|Then|Later|Finally|Luckily|Sadly|Unfortunately|Fortunately|Normally|Usually|"
    r"Also|Now|Meanwhile|Otherwise|Overall|Initially|Eventually|Currently|Nowadays|Sorry|Please)\b)"
    r"[A-Z][a-z]+,\s+(?=[a-z])"
)
_ASSISTANT = re.compile(r"^\s*(?:the )?assistant\b", re.IGNORECASE)
_FROM_USER = ("", "user")


@dataclass(frozen=True, slots=True)
class Learnt:
    """One learnt item that may go into the profile: a belief about the user or a fact or preference
    memory of the user's own. ``speaker`` is who said what it was learnt from ("user",
    "assistant", a name; "" when not known); ``detail`` a belief's kind, a memory's type."""

    id: str
    text: str
    kind: str  # BELIEF | FACT | PREFERENCE
    confidence: float
    updated_at: datetime | None = None
    speaker: str = ""
    detail: str = ""
    turn_ids: tuple[str, ...] = ()  # the transcript turns a memory was learnt from


@dataclass(frozen=True, slots=True)
class ProfileLine:
    text: str
    kind: str
    source_id: str
    confidence: float
    updated_at: datetime | None = None
    topic: str = ""
    turn_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class UserProfile:
    """``text`` is the profile as a context shows it, title line included ("" when empty); ``tokens``
    the counter's count of exactly that text; ``budget_tokens`` what it was allowed."""

    lines: tuple[ProfileLine, ...] = ()
    text: str = ""
    tokens: int = 0
    budget_tokens: int = 0

    @property
    def learnt_ids(self) -> frozenset[str]:
        return frozenset(line.source_id for line in self.lines if line.source_id)


def topic_of(text: str, detail: str = "") -> str:
    """The profile topic ``text`` is about, "" when none (then it is no core fact)."""
    low = text.casefold()
    for name, pattern in TOPICS:
        if pattern.search(low):
            return name
    return _KIND_TOPIC.get(detail, "")


def is_one_off_past(text: str) -> bool:
    """Whether ``text`` tells a dated event that is over ("went hiking last week"): no core fact,
    unless it looks ahead or starts something that goes on ("started a new job last month")."""
    low = text.casefold()
    return bool(_PAST_TIME.search(low)) and not _AHEAD_OR_ONGOING.search(low)


def is_vague_goal(text: str) -> bool:
    """Whether ``text`` is a goal that names nothing ("The user's goal is to stay positive"): what
    follows "goal is to" must hold two words beyond the vague ones; a plan told otherwise, one."""
    low = text.casefold()
    shape = _GOAL_SHAPE.search(low)
    rest = low[shape.end() :] if shape else low
    concrete = [word for word in _WORDS.findall(rest) if word not in _VAGUE]
    return len(concrete) < (2 if shape else 1)


def standing_alone(text: str) -> str:
    """``text`` without what leans on the turn it was said in: an opening answer word or
    interjection, the listener's name said to them; capitalised again."""
    rest = _VOCATIVE.sub("", _OPENER.sub("", text.strip()))
    rest = _VOCATIVE.sub("", _OPENER.sub("", rest))
    rest = their(rest)
    return rest[:1].upper() + rest[1:] if rest else ""


_POSSESSIVE = re.compile(r"\b(the user)'s\b", re.IGNORECASE)
# The user as the object of a preposition or of a verb ("helped the user", "for the user"), not
# as the subject of a clause of its own ("… and the user is").
_OBJECT = re.compile(
    r"\b(to|for|with|about|of|from|by|at|on|helped|helps|motivates|motivated|invited|keeps|kept|gives|gave|"
    r"makes|made|told|taught|showed|inspires|inspired|reminds|reminded) the user\b(?!'s| (?:is|was|has|had|will)\b)",
    re.IGNORECASE,
)


def their(text: str) -> str:
    """``text`` with "the user's" after the first mention of the user written "their", as a person
    would say it ("The user lost the user's job" → "The user lost their job")."""
    first = re.search(r"\bthe user\b", text, re.IGNORECASE)
    if first is None:
        return text
    head, tail = text[: first.end()], text[first.end() :]
    return head + _OBJECT.sub(r"\1 them", _POSSESSIVE.sub("their", tail))


def is_about_user(text: str) -> bool:
    """Whether ``text`` can be a fact about the user: not said to or about the listener ("you"),
    not a sentence cut apart ("loves and …")."""
    low = text.casefold()
    return not any(pattern.search(low) for pattern in (_ADDRESSED, _NO_OBJECT, _REACTION, _FORMER, _SHOWING))


def is_core(text: str, topic: str) -> bool:
    """Whether a learnt line about ``topic`` is a standing fact worth the profile's few lines."""
    if is_one_off_past(text) or not is_about_user(text):
        return False
    return not ((topic == "goals" or _GOAL_SHAPE.search(text.casefold())) and is_vague_goal(text))


def is_users(item: Learnt) -> bool:
    """Whether ``item`` is the user's own: never what the assistant or another speaker said."""
    return item.speaker.strip().casefold() in _FROM_USER and not _ASSISTANT.match(item.text)


def caller_lines(text: str) -> list[ProfileLine]:
    lines = []
    for raw in text.splitlines():
        line = " ".join(raw.strip().removeprefix("- ").removeprefix("* ").split())
        if line:
            lines.append(ProfileLine(line, CALLER, "", 1.0, topic=topic_of(line)))
    return lines


def core_lines(learnt: Iterable[Learnt], listener: str = "") -> list[ProfileLine]:
    """The user's own core items as lines, best first within each topic: beliefs before memories,
    then the most confident, then the newest. ``listener``: the other speaker's name, when known."""
    lines = []
    for item in learnt:
        text, topic = _core_reading(item.text, item.detail, listener)
        if topic and is_users(item):
            line = ProfileLine(text, item.kind, item.id, item.confidence, item.updated_at, topic, item.turn_ids)
            lines.append(line)
    return sorted(lines, key=_rank)


@functools.lru_cache(maxsize=LINES_CACHED)
def _core_reading(said: str, detail: str, listener: str) -> tuple[str, str]:
    """A learnt text as a profile line and its topic; no topic when it is no core fact. Memoised:
    a user's facts come back turn after turn, and reading one is a dozen regular expressions."""
    text = naming_listener(standing_alone(" ".join(said.split())), listener)
    topic = topic_of(text, detail) if text else ""
    return (text, topic) if topic and is_core(text, topic) else (text, "")


# The other speaker as the object of a line about the user: "me" (whoever wrote the line down)
# anywhere, "you" where a clause ends or a preposition or adverb follows ("loves you", "thanked you for").
_LISTENER = re.compile(
    r"\bme\b|\byou\b(?=\s*(?:[.,!?;:)\-]|$|(?:and|but|so|too|a lot|so much|very much|more|again|back|"
    r"for|to|with|about|in|on|at|through|when|because|since)\b))",
    re.IGNORECASE,
)


def naming_listener(text: str, listener: str) -> str:
    """``text`` with the other speaker, as an object ("The user likes me"), named ("The user likes
    Sam") when their name is known; unnamed, the line stays as it is and is no fact about the
    user (``is_about_user``): "me" or "you" read without the conversation names nobody."""
    name = listener.strip()
    return _LISTENER.sub(name, text) if name else text


def _rank(line: ProfileLine) -> tuple[int, int, float, float, str]:
    when = -line.updated_at.timestamp() if line.updated_at is not None else float("inf")
    return (_TOPIC_ORDER[line.topic], 0 if line.kind == BELIEF else 1, -line.confidence, when, line.source_id)


def _same(a: tuple[str, Statement], b: tuple[str, Statement]) -> bool:
    if not same_polarity(a[1], b[1]):
        return False
    if a[0] == b[0] or same_terms(a[1], b[1]):
        return True
    small, large = (a[1].terms, b[1].terms) if len(a[1].terms) <= len(b[1].terms) else (b[1].terms, a[1].terms)
    return len(small) >= 2 and small <= large


def deduplicated(lines: Sequence[ProfileLine]) -> list[ProfileLine]:
    """``lines`` without those repeating an earlier one.

    Two lines can be the same (``_same``) only when their texts are equal or they share a term, so
    a line is compared only with the kept lines found through its text and its terms: the same
    answer as comparing every pair, without the square of a long list."""
    kept: list[ProfileLine] = []
    seen: list[tuple[str, Statement]] = []
    by_text: dict[str, list[int]] = {}
    by_term: dict[str, list[int]] = {}
    for line in lines:
        key = (normalise_text(line.text), statement(line.text))
        near = set(by_text.get(key[0], ()))
        for term in key[1].terms:
            near.update(by_term.get(term, ()))
        if any(_same(key, seen[place]) for place in near):
            continue
        by_text.setdefault(key[0], []).append(len(seen))
        for term in key[1].terms:
            by_term.setdefault(term, []).append(len(seen))
        kept.append(line)
        seen.append(key)
    return kept


def _round_robin(lines: Sequence[ProfileLine]) -> list[ProfileLine]:
    by_topic: dict[str, list[ProfileLine]] = {}
    for line in lines:
        by_topic.setdefault(line.topic, []).append(line)
    order: list[ProfileLine] = []
    depth = 0
    while len(order) < len(lines):
        for topic in sorted(by_topic, key=lambda name: _TOPIC_ORDER[name]):
            if depth < len(by_topic[topic]):
                order.append(by_topic[topic][depth])
        depth += 1
    return order


def render(lines: Sequence[ProfileLine]) -> str:
    return "\n".join([title_line(Section.USER_PROFILE), *(BULLET + line.text for line in lines)]) if lines else ""


def build_profile(
    caller_text: str,
    learnt: Iterable[Learnt],
    counter: TokenCounter,
    *,
    budget_tokens: int = 0,
    max_tokens: int = MAX_TOKENS,
    listener: str = "",
) -> UserProfile:
    """The profile within ``budget_tokens``, or (0) within what is known, between ``DEFAULT_TOKENS``
    and ``max_tokens``. The caller's lines come first and are kept while they fit. ``listener``:
    the name of the one other speaker of the user's conversations, when the caller knows it."""
    given = deduplicated(caller_lines(caller_text))
    everything = deduplicated([*given, *core_lines(learnt, listener)])
    found = everything[len(given) :]
    if not everything:
        return UserProfile()
    if budget_tokens <= 0:
        needed = counter.count(render(everything))
        budget_tokens = max(min(DEFAULT_TOKENS, max_tokens), min(needed, max_tokens))
    chosen: list[ProfileLine] = []
    for line in [*given, *_round_robin(found)]:
        if counter.count(render(_ordered([*chosen, line]))) <= budget_tokens:
            chosen.append(line)
    shown = _ordered(chosen)
    text = render(shown)
    return UserProfile(tuple(shown), text, counter.count(text) if text else 0, budget_tokens)


def _ordered(lines: Sequence[ProfileLine]) -> list[ProfileLine]:
    """``lines`` in the order they are shown: the caller's first, as given, the learnt ones by topic."""
    learnt = sorted((line for line in lines if line.kind != CALLER), key=_rank)
    return [*(line for line in lines if line.kind == CALLER), *learnt]


# In a context, the memories section keeps at least this much of its own budget when the profile
# grows into it (it may still take the tokens other sections leave unused).
MEMORIES_FLOOR = 50


def profile_candidates(profile: UserProfile) -> list[Candidate]:
    """The learnt lines as the context's user-profile items (given context: pinned, in the profile's
    order); the caller's own text goes in as the caller's, as before."""
    source = {BELIEF: Source.OBSERVATION, FACT: Source.MEMORY, PREFERENCE: Source.MEMORY}
    return [
        Candidate(
            source=source[line.kind],
            id=line.source_id,
            section=Section.USER_PROFILE,
            text=line.text,
            pinned=True,
            occurred_at=line.updated_at,
            statement=line.text,
            turn_ids=line.turn_ids,
        )
        for line in profile.lines
        if line.kind in source
    ]


def profile_policy(policy: AssemblyPolicy, profile: UserProfile) -> AssemblyPolicy:
    """``policy`` with the user-profile section's budget grown to what the profile needs, taken from
    the memories section's share (which keeps ``MEMORIES_FLOOR``); a budget the caller set is kept."""
    budgets = dict(policy.budgets)
    section, memories = Section.USER_PROFILE, Section.MEMORIES
    if not profile.lines or section in policy.fixed or memories in policy.fixed:
        return policy
    grow = min(profile.budget_tokens - budgets[section], budgets[memories] - MEMORIES_FLOOR)
    if grow <= 0:
        return policy
    budgets[section] += grow
    budgets[memories] -= grow
    return dataclasses.replace(policy, budgets=budgets)
