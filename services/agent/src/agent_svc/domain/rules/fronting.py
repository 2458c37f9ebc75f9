"""A user's clause put in the shape the patterns read: the subject said, the fact first.

People drop the "I" ("moved to Glasgow in September", "got a job at the hospital", "name is Ahmed
Karimi") and put what they talk about first ("Crowded beaches are my idea of hell", "Of all the
sports, tennis is my favourite", "Onions, they make me ill"). ``fronted`` rewrites those shapes to
the first-person clause they mean ("I moved to Glasgow …", "I hate crowded beaches", "my favourite
sport is tennis", "I can't tolerate onions"); every other clause is returned unchanged. A name
written in lower case right after "call me" or "my name is" is capitalised, so it reads as one.

Each shape is a closed list of words: a clause that only resembles one is left as it was.
"""

from __future__ import annotations

import re

from agent_svc.domain.rules.text import STOPWORDS

_I = re.IGNORECASE

# "moved to Glasgow" → "I moved to Glasgow": a past-tense verb that opens a clause with no subject.
_PAST = re.compile(
    r"^(?:just\s+|recently\s+)?(?:moved|relocated|graduated|booked|started|finished|joined|retired|studied|"
    r"trained|grew up|turned|quit|married|adopted|bought|spent|lived|worked|visited)\b",
    _I,
)
# "got a job at …" (an event) / "got a nut allergy" (what the user has).
_GOT = re.compile(r"^(?:just\s+)?got\s+(?!to\b|it\b|that\b|this\b|you\b)", _I)
_GOT_EVENT = re.compile(r"^(?:just\s+)?got\s+(?:a\s+|the\s+)?(?:new\s+)?(?:job|role|position|married|engaged)\b", _I)
# "doing a course in web design" → "I'm doing …".
_ONGOING = re.compile(
    r"^(?:currently\s+)?(?:doing|studying|learning|training|heading|flying|travelling|traveling|living|working)\b"
    r"|^(?:just\s+)?back\s+from\b|^off\s+to\b",
    _I,
)
# "Back in 2015 I lived in Seoul" → "I lived in Seoul back in 2015": a time said first that keeps the
# subject past the third word (a shorter one, "Last year I …", is read where it stands).
_PAST_TIME_FIRST = re.compile(
    r"^(?:(?P<t>back in \d{4}|as a (?:kid|child|teenager|student))\s*,?\s+(?P<rest>i\s.+)"
    r"|(?P<u>every (?:day|morning|evening|night|week|weekend|summer|winter|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday))\s*,?\s+(?P<we>we\s.+))$",
    _I,
)
# "Doing research makes sense", "Working out together is great": the -ing form is the subject.
_FINITE = re.compile(
    r"\b(?:is|are|was|were|makes|made|brings|helps|means|feels|seems|sounds|gives|keeps|would|will|can|could|"
    r"should|must|has|takes|matters|works|beats)\b(?!')",
    _I,
)
_NAME_IS = re.compile(r"^name\s+is\b", _I)
_BORN = re.compile(r"^born\s+(?:on\s+)?(?:the\s+)?\d", _I)

# "Crowded beaches are my idea of hell" → "I hate crowded beaches".
_HATED = re.compile(
    r"^(?P<x>[a-z][\w' -]{1,40}?)\s+(?:is|are|'s)\s+(?:my idea of hell|the worst|my (?:worst )?nightmare|"
    r"a (?:hard |big )?no for me|a no-go for me|not for me)$",
    _I,
)
# "Tennis is my absolute favourite", "Of all the sports, tennis is my favourite".
_FAVOURITE = re.compile(
    r"^(?:of all (?:the )?(?P<topic>[a-z]+?)s?,\s*)?(?P<x>[a-z][\w' -]{1,40}?)\s+(?:is|are|'s)\s+"
    r"(?:my|the)\s+(?:absolute\s+|all-time\s+|very\s+|clear\s+)?(?:favou?rite|fave)$",
    _I,
)
# "Rock climbing is my thing" → "I love rock climbing".
_LOVED = re.compile(
    r"^(?P<x>[a-z][\w' -]{1,40}?)\s+(?:is|are|'s)\s+(?:my (?:thing|jam|passion|happy place|favourite thing)|"
    r"my absolute favourite thing)$",
    _I,
)
# "Dairy doesn't agree with me", "Onions, they make me ill" → "I can't tolerate dairy".
_NOT_TOLERATED = re.compile(
    r"^(?P<x>[a-z][\w' -]{1,30}?)(?:,\s*(?:they|it))?\s+(?:doesn't|does not|don't|do not)\s+agree with me$"
    r"|^(?P<y>[a-z][\w' -]{1,30}?)(?:,\s*(?:they|it))?\s+(?:makes?|made)\s+me\s+(?:ill|sick|poorly|bloated)$",
    _I,
)
# A name said in lower case: "call me nat", "my name is ahmed karimi" (one to three words, the clause's end).
_LOWER_NAME = re.compile(
    r"^(?P<lead>(?:(?:pls|please|just)\s+)?call me|my name is)\s+(?P<name>[a-z]+(?: [a-z]+){0,2})(?=\s*,|$)", _I
)
# "Most people know me as Bea", "Lars Eriksen here" (a greeting's name).
_KNOWN_AS = re.compile(
    r"^(?i:(?:most\s+|all\s+my\s+)?(?:people|friends|everyone)\s+knows?\s+me\s+as)\s+"
    r"(?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?)$"
)
# "I prefer Dr Okafor in emails": a title and a name are how to address the user.
_TITLED = re.compile(
    r"^(?i:i\s+(?:prefer|go by))\s+(?P<name>(?:Professor|Prof|Dr|Doctor|Mr|Mrs|Ms|Miss|Mx)\.? [A-Z][a-z]+)\b"
)
# "Hugo's my oldest friend" → "my friend is called Hugo"; "A good friend of mine, Yusuf, lives …" and
# "Anouk, a friend from work, recommended …" → "my friend Yusuf lives …".
_FRIEND = r"(?P<rel>friend|best friend|mate|best mate|colleague|neighbour|neighbor|flatmate)"
_NAME_IS_MY_FRIEND = re.compile(
    r"^(?P<name>[A-Z][a-z]+)(?:'s| is)\s+(?i:my\s+(?:(?:oldest|closest|dearest|old|good|best)\s+)?" + _FRIEND + r")$"
)
_FRIEND_OF_MINE = re.compile(
    r"^(?i:an?\s+(?:(?:good|close|old|dear)\s+)?" + _FRIEND + r"\s+of mine),\s*(?P<name>[A-Z][a-z]+),\s*(?P<rest>.+)$"
)
_NAME_A_FRIEND = re.compile(
    r"^(?P<name>[A-Z][a-z]+),\s*(?i:(?:an?|my)\s+(?:(?:good|close|old)\s+)?" + _FRIEND + r"(?:\s+from\s+[\w ]{2,20}?)?)"
    r",\s*(?P<rest>[a-z].+)$"
)
# "We named the baby Otis" → "our baby is called Otis".
_WE_NAMED = re.compile(
    r"^(?i:we\s+(?:named|called)\s+(?:the|our)\s+(?P<rel>baby|son|daughter|dog|cat|puppy|kitten))\s+"
    r"(?P<name>[A-Z][a-z]+)$"
)
_NAME_HERE = re.compile(r"^(?P<name>[A-Z][a-z]+ [A-Z][a-z]+) here$")
_NOT_NAMES = STOPWORDS | {"back", "later", "soon", "anytime", "whenever", "tomorrow", "tonight", "today", "maybe"}
_QUESTION_WORDS = frozenset("what when where who why how which whose really seriously sorry pardon".split())
_SUBJECTS = frozenset("i i'm i've my me we our you he she they it this that there here the a an".split())
# What belongs to someone named or pointed at: "your cooking", "that place", "his music".
_POINTERS = _SUBJECTS | frozenset("your yours his her their its these those what which who everything nothing".split())


def _lower_first(text: str) -> str:
    """ "Crowded beaches" → "crowded beaches"; a name ("Slack", "NYC") keeps its capital."""
    first = text.split()[0]
    return text if first[1:2].isupper() or first.lower() in _SUBJECTS else text[0].lower() + text[1:]


def _topic_ok(x: str) -> bool:
    return not any(w in _POINTERS for w in x.lower().split()) and x.lower() not in STOPWORDS


def implied_subject(clause: str) -> str:
    """ "moved to Glasgow" → "I moved to Glasgow"; a clause with a subject is returned unchanged."""
    text = clause.strip()
    if match := _PAST_TIME_FIRST.match(text):
        time, rest = (
            (match.group("t"), match.group("rest")) if match.group("t") else (match.group("u"), match.group("we"))
        )
        return f"{rest.rstrip(' .!')} {time[0].lower()}{time[1:]}"
    if text[:2] != "I " and not text[:2] == "I'":
        text = text[:1].lower() + text[1:]  # "Got a …" → "I've got a …"
    else:
        return text
    if _NAME_IS.match(text):
        text = "my " + text
    elif _BORN.match(text):
        text = "I was " + text
    elif _GOT.match(text):
        text = ("I " if _GOT_EVENT.match(text) else "I've ") + text
    elif _PAST.match(text):
        text = "I " + text
    elif _ONGOING.match(text) and not _FINITE.search(text):
        text = "I'm " + text
    else:
        return clause.strip()
    return text


def fronted(clause: str) -> str:
    """The clause as the patterns read it (unchanged when no shape here fits)."""
    text = implied_subject(clause)
    if not text:
        return clause
    if match := _LOWER_NAME.match(text):
        words = match.group("name").split()
        if not any(w.lower() in _NOT_NAMES for w in words):
            return f"{match.group('lead')} {' '.join(w.capitalize() for w in words)}"
        return text
    if match := _KNOWN_AS.match(text):
        return f"call me {match.group('name')}"
    if match := _TITLED.match(text):
        return f"call me {match.group('name')}"
    if match := _NAME_IS_MY_FRIEND.match(text):
        return f"my {match.group('rel').lower()} is called {match.group('name')}"
    if match := _FRIEND_OF_MINE.match(text) or _NAME_A_FRIEND.match(text):
        return f"my {match.group('rel').lower()} {match.group('name')} {match.group('rest')}"
    if match := _WE_NAMED.match(text):
        return f"our {match.group('rel').lower()} is called {match.group('name')}"
    if match := _HOME_IS.match(text):
        return f"I live {(match.group('prep') or 'in').lower()} {match.group('x')}"
    if match := _NAME_HERE.match(text):
        return f"my name is {match.group('name')}"
    if (match := _FAVOURITE.match(text)) and _topic_ok(match.group("x")):
        x = _lower_first(match.group("x"))
        topic = match.group("topic")
        return f"my favourite {topic.lower()} is {x}" if topic else f"I love {x}"
    if (match := _HATED.match(text)) and _topic_ok(match.group("x")):
        return f"I hate {_lower_first(match.group('x'))}"
    if (match := _LOVED.match(text)) and _topic_ok(match.group("x")):
        return f"I love {_lower_first(match.group('x'))}"
    if (match := _NOT_TOLERATED.match(text)) and _topic_ok(x := match.group("x") or match.group("y")):
        return f"I can't tolerate {_lower_first(x)}"
    return text


# "Eggs bring me out in a rash - I'm allergic to them": the thing the sentence opened with.
_OPENING_TOPIC = re.compile(
    r"^(?P<x>[A-Za-z][a-z]+(?: [a-z]+)?)\s+(?:bring|brings|give|gives|make|makes|set|sets|leave|leaves)\s+me\b"
)
_ENDS_ON_REFERENCE = re.compile(
    r"^(?P<head>i(?:'m| am) allergic to|i can't (?:eat|have|tolerate)|i (?:really\s+)?(?:hate|loathe|love|avoid|"
    r"can't stand))\s+(?:them|it|that)$",
    _I,
)
# "Raisins in anything savoury?" said just before, or the assistant's "Do you fancy karaoke on Friday?".
_ASKED_TOPIC = re.compile(r"^(?P<x>[A-Za-z][a-z]+(?: [a-z]+)?)(?:\s+(?:in|on|with|at|for)\b[^?]*)?\?$")
_OFFERED_TOPIC = re.compile(
    r"\b(?:do|would) you (?:fancy|like|enjoy|want|eat|mind)\s+"
    r"(?P<x>[a-z]+(?: (?!tonight|tomorrow|today|later|now|sometime|again|together)[a-z]+)?)"
    r"(?=\s+(?:on|at|in|this|tonight|tomorrow|later|with|for)\b|\s*\?)",
    _I,
)
_HOME_IS = re.compile(
    r"^(?i:home(?:'s| is))\s+(?:(?i:an?|the)\s+[a-z ]{2,40}?\s+(?P<prep>(?i:near|outside|in|just outside))\s+)?"
    r"(?P<x>[A-Z][\w-]*(?:,? [A-Z][\w-]*)*)$"
)


def opening_topic(clause: str) -> str:
    """What a sentence's first clause is about, when it opens with it ("Eggs bring me out in …"), else ""."""
    match = _OPENING_TOPIC.match(clause.strip())
    if not match or not _topic_ok(match.group("x")):
        return ""
    return _lower_first(match.group("x"))


def asked_topic(sentence: str) -> str:
    """What a verbless question was about ("Raisins in anything savoury?" → "raisins"), else ""."""
    match = _ASKED_TOPIC.match(sentence.strip())
    if not match or not _topic_ok(match.group("x")) or match.group("x").lower().split()[0] in _QUESTION_WORDS:
        return ""
    return _lower_first(match.group("x"))


def offered_topic(turn: str) -> str:
    """What the assistant offered in a yes/no question ("Do you fancy karaoke on Friday?" → "karaoke")."""
    match = _OFFERED_TOPIC.search(turn)
    return match.group("x") if match and _topic_ok(match.group("x")) else ""


def with_topic(clause: str, topic: str) -> str:
    """ "I'm allergic to them" after "Eggs bring me out in a rash" → "I'm allergic to eggs"."""
    match = _ENDS_ON_REFERENCE.match(clause.strip()) if topic else None
    return f"{match.group('head')} {topic}" if match else clause
