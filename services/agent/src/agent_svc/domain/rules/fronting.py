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

from agent_svc.domain.rules.lexicon import (
    ALLERGIC_REACTION,
    AVOIDING,
    CHANNEL,
    CITY_DWELLER,
    CITY_DWELLERS,
    DEMONYM_NOUNS,
    FAMILY,
    LANGUAGES,
    NUMBER_WORD,
    ORIGIN_DWELLER,
    ORIGIN_DWELLERS,
    PETS,
    RELATION_CANON,
    number_value,
)
from agent_svc.domain.rules.normalise import aspect
from agent_svc.domain.rules.text import STOPWORDS

_I = re.IGNORECASE

# "moved to Glasgow" → "I moved to Glasgow": a past-tense verb that opens a clause with no subject.
_PAST = re.compile(
    r"^(?:just\s+|recently\s+)?(?:moved|relocated|graduated|booked|started|finished|joined|retired|studied|"
    r"trained|grew up|turned|quit|married|adopted|bought|spent|lived|worked|visited|went|had|flew|drove|travelled|"
    r"traveled|got back|came back|returned|left|switched|became|signed up|took up|picked up)\b",
    _I,
)
# "got a job at …" (an event) / "got a nut allergy" (what the user has).
_GOT = re.compile(r"^(?:just\s+)?got\s+(?!to\b|it\b|that\b|this\b|you\b)", _I)
_GOT_EVENT = re.compile(r"^(?:just\s+)?got\s+(?:a\s+|the\s+)?(?:new\s+)?(?:job|role|position|married|engaged)\b", _I)
# "doing a course in web design" → "I'm doing …".
_ONGOING = re.compile(
    r"^(?:currently\s+|still\s+|now\s+)?(?:doing|studying|learning|training|heading|flying|travelling|traveling|"
    r"living|working|hoping|planning|trying|aiming|saving|spending|taking|going|practising|"
    r"practicing|teaching|raising|expecting)\b"
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
# "Been a nurse for twenty years", "Been in Valencia since 2019": the perfect of "be", subject dropped.
_BEEN = re.compile(
    r"^(?:just\s+|always\s+)?been\s+(?=(?:an?\s+(?!long\b|while\b|bit\b|lot\b|few\b|great\b|good\b|tough\b|"
    r"rough\b|busy\b|crazy\b|hard\b|wild\b)\w+|(?-i:in|at)\s+[A-Z]|(?:(?:happily\s+)?(?:married|single|divorced|"
    r"engaged|widowed|separated)|vegan|vegetarian|pescatarian|pescetarian|veggie|type\s+[12]|diabetic|allergic|sober|"
    r"teetotal|dealing|suffering|struggling|living|working|learning|studying|teaching|taking|on\s+[a-z]+\s+"
    r"(?:since|for))\b))",
    _I,
)
# "Love a good crossword", "Live in Leeds with my partner": a present verb of the user's, subject dropped.
_PRESENT = re.compile(
    r"^(?:really\s+|absolutely\s+|totally\s+|also\s+|still\s+)?(?:(?:love|adore|hate|loathe|detest|despise)"
    r"(?=\s+an?\s)|live|speak|own|drive|ride|teach|volunteer|suffer from|work (?:as|at|for|in|from|nights|weekends))\b",
    _I,
)
# "Strictly vegetarian, no fish either": a diet said with no subject (never "vegan food is …").
_DIET_FIRST = re.compile(
    r"^(?:strictly\s+|strict\s+|mostly\s+|fully\s+|completely\s+|totally\s+|an?\s+)?(?:vegetarian|vegan|"
    r"pescatarian|pescetarian|flexitarian|veggie|teetotal|plant-based)(?=\s*(?:$|,|;|\.|!|\s(?:since|for|now|these|"
    r"and|though|mostly|here)\b))",
    _I,
)
# "Big fan of Thai food": a liking said with no subject.
_FAN = re.compile(r"^(?:an?\s+)?(?:big|huge|massive|great|real|total|lifelong|long-time)\s+fan\s+of\b", _I)
# "Birthday's on the 9th of June", "Wedding anniversary: 16 October": the user's own, "my" dropped.
_ATTRIBUTE_FIRST = re.compile(
    r"^(?:birthday|bday|(?:wedding\s+)?anniversary|hometown|home town|date of birth|dob)(?:\s+is\b|'s\b|\s*:|"
    r"\s+falls\b)",
    _I,
)
# "On citalopram since January": a treatment or plan the user is on, subject dropped.
_ON = re.compile(
    r"^on\s+(?!(?:the|my|our|your|his|her|their|a|an|it|that|this|time|board|top|holiday|leave|call|duty|shift|track|"
    r"hold|second|foot|purpose|fire|way|average|paper|balance|reflection|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays|\d)\b)"
    r"[a-z][\w-]+\s+(?:since|for|every|daily|twice|once|at|in the)\b",
    _I,
)
# "Divorced, two kids", "married with three children": a status said with no subject.
_STATUS_FIRST = re.compile(r"^(?:happily\s+|recently\s+|newly\s+)?(?:married|single|divorced|engaged|widowed|"
                           r"separated|retired)\b(?!\s+(?:on|in|at|to|last|this|since|a|an|my)\b)", _I)  # fmt: skip
_DIAGNOSED = re.compile(r"^(?:recently\s+|just\s+)?diagnosed\s+with\b", _I)
# "Last month we were in Venice", "On Fridays I swim": a time said first moves after the clause.
_TIME_FIRST = re.compile(
    r"^(?P<t>(?i:(?:last|next)\s+(?:week|weekend|month|year|summer|winter|spring|autumn|fall|christmas|easter|"
    r"january|february|march|april|may|june|july|august|september|october|november|december)|"
    r"in\s+(?:19|20)\d\d|yesterday|(?:a|one|two|three|four|five|six|\d+)\s+(?:days|weeks|months|years?)\s+ago|"
    r"on\s+(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays)|at\s+weekends|"
    r"every\s+(?:single\s+)?(?:day|morning|evening|night|week|weekend|month|summer|winter|year|other day|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?:\s+(?:morning|evening|night|afternoon))?|"
    r"most\s+(?:days|mornings|evenings|nights|weekends)|(?:once|twice|three times)\s+a\s+(?:day|week|month|year)|"
    r"in the (?:mornings|evenings)|in my (?:free|spare) time|since\s+(?:(?:19|20)\d\d|last \w+|january|february|march|"
    r"april|may|june|july|august|september|october|november|december)))"
    r"\s*,?\s+(?P<rest>(?i:i|we)(?:'m|'ve|'re)?\s.+)$"
)
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
_LOWER_NAMES = re.compile(
    r"^(?P<lead>(?i:my|our)\s+[a-z]+(?: [a-z]+)?(?:'s name is|\s+(?:is|are)\s+(?:called|named)))\s+"
    r"(?P<names>[a-z]+(?:(?:\s*,\s*|\s+and\s+)[a-z]+){0,3})$"
)
# In a clause written all in lower case, a word between "my <relative or pet>" and its verb is a name.
_LOWER_APPOSITION = re.compile(
    r"^(?P<lead>(?:my|our)\s+(?:" + FAMILY + "|" + PETS + r"))\s+(?P<name>[a-z]{3,12})\s+"
    r"(?P<rest>(?:is|was|has|loves|lives|works|just|turned|turns|and|[a-z]{2,}s)\b.*)$"
)
_NOT_APPOSED = frozenset(
    "food bowl bed toys toy lead collar walker sitter friend friends vet insurance house car phone job boss team group "
    "life name birthday age old new little big best eldest youngest older younger baby sister brother mum dad mother "
    "father wife husband partner son daughter kid kids child family dog cat puppy kitten pet pets hair health school "
    "work uni college boyfriend girlfriend cousin aunt uncle nan grandma grandpa twin twins who that which also".split()
)
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
_NAME_HERE = re.compile(r"^(?P<name>[A-Z][a-z]+ [A-Z][a-z]+) here(?:,.*)?$")
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


def _time_last(match: re.Match[str]) -> str:
    """ "Last month we were in Venice" → "we were in Venice last month"."""
    time, rest = match.group("t"), match.group("rest")
    return f"{rest.rstrip(' .!')} {time[0].lower()}{time[1:]}"


def implied_subject(clause: str) -> str:
    """ "moved to Glasgow" → "I moved to Glasgow"; a clause with a subject is returned unchanged."""
    text = clause.strip()
    if match := _PAST_TIME_FIRST.match(text):
        time, rest = (
            (match.group("t"), match.group("rest")) if match.group("t") else (match.group("u"), match.group("we"))
        )
        return f"{rest.rstrip(' .!')} {time[0].lower()}{time[1:]}"
    if (match := _TIME_FIRST.match(text)) and len(match.group("t").split()) >= 3:
        return _time_last(match)  # "Every Sunday morning I …": the "I" past the third word
    if text[:2] != "I " and not text[:2] == "I'":
        text = text[:1].lower() + text[1:]  # "Got a …" → "I've got a …"
    else:
        return text
    if _NAME_IS.match(text):
        text = "my " + text
    elif _DIAGNOSED.match(text):
        text = "I was " + text
    elif _BORN.match(text):
        text = "I was " + text
    elif _GOT.match(text):
        text = ("I " if _GOT_EVENT.match(text) else "I've ") + text
    elif _STATUS_FIRST.match(text) or _DIET_FIRST.match(text):
        text = "I'm " + text
    elif _FAN.match(text):
        text = "I'm " + ("" if text.lower().startswith(("a ", "an ")) else "a ") + text
    elif _ATTRIBUTE_FIRST.match(text):
        text = "my " + text
    elif _PAST.match(text):
        text = "I " + text
    elif _ON.match(text):
        text = "I'm " + text
    elif _BEEN.match(text):
        text = "I've " + text
    elif _PRESENT.match(text):
        text = "I " + text
    elif _ONGOING.match(text) and not _FINITE.search(text):
        text = "I'm " + re.sub(r"^(?:currently|still|now)\s+", "", text, flags=_I)
    else:
        return clause.strip()
    return text


def fronted(clause: str, greeted: bool = False) -> str:
    """The clause as the patterns read it (unchanged when no shape here fits); ``greeted``: the
    sentence opened with a greeting, so "I'm Sasha" is a name, not a description."""
    text = aspect(implied_subject(clause))
    if not text:
        return clause
    for _ in range(2):  # "Last month we were in Venice" → "we were in Venice last month" → read again
        said = canonical(text, greeted)
        if not said:
            break
        text = aspect(said)
    if (
        (match := _LOWER_APPOSITION.match(text))
        and text == text.lower()
        and match.group("name") not in _NOT_NAMES | _NOT_APPOSED
    ):
        text = (
            f"{match.group('lead')} {match.group('name').capitalize()} {match.group('rest')}"  # "our dog buster is 10"
        )
    if match := _LOWER_NAMES.match(text):  # "our kids are called finn and rosie"
        names = re.split(r"(\s*,\s*|\s+and\s+)", match.group("names"))
        if not any(w.lower() in _NOT_NAMES for w in names[::2]):
            return match.group("lead") + " " + "".join(w if i % 2 else w.capitalize() for i, w in enumerate(names))
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
    r"^(?P<x>[A-Za-z][a-z]+(?: [a-z]+)?)\s+(?:(?:bring|brings|give|gives|make|makes|set|sets|leave|leaves)\s+me\b|"
    r"(?:terrify|terrifies|scare|scares|frighten|frightens|disgust|disgusts|annoy|annoys|bore|bores|"
    r"creep|creeps|freak|freaks)\s+me\b|"
    r"(?:tastes?|smells?|looks?|feels?)\s+(?:like|so|really|awful|horrible|disgusting|gross|amazing|great)\b)"
)
_ENDS_ON_REFERENCE = re.compile(
    r"^(?P<head>i(?:'m| am) allergic to|i can't (?:eat|have|tolerate)|i (?:really\s+)?(?:hate|loathe|love|avoid|"
    r"can't stand))\s+(?:them|it|that)(?P<tail>\s+(?:after|before|at|in|on|during)\b.*)?$",
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
    if reacts := _REACTS_TO.match(clause.strip()):
        x = reacts.group("x") or reacts.group("y") or reacts.group("z")
        return _lower_first(x) if _topic_ok(x) else ""
    match = _OPENING_TOPIC.match(clause.strip()) or _CANNOT_NEAR.match(clause.strip()) or _CULPRIT.match(clause.strip())
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
    """ "I'm allergic to them" after "Eggs bring me out in a rash" → "I'm allergic to eggs"; a bare
    "anaphylactic allergy" after "Can't go near peanuts" → "I'm allergic to peanuts"."""
    if topic and _BARE_ALLERGY.match(clause.strip()):
        return f"I'm allergic to {topic}"
    match = _ENDS_ON_REFERENCE.match(clause.strip()) if topic else None
    return f"{match.group('head')} {topic}{match.group('tail') or ''}" if match else clause


_BARE_ALLERGY = re.compile(
    r"^(?:i(?:'m| am)\s+(?:really\s+|very\s+|badly\s+|severely\s+)?allergic(?:\s+to\s+(?:them|it|that))?$)|"
    r"^(?:(?:i(?:'ve| have)?\s+(?:got\s+)?)?(?:an?\s+)?)(?:(?:severe|serious|anaphylactic|deadly|life-threatening|bad|"
    r"proper|real|nasty|full-blown)\s+)*(?:allergy|allergic reaction)(?:\s+to (?:them|it|that))?$",
    _I,
)
# "Turns out the rash was hair dye": what caused a reaction.
_CULPRIT = re.compile(
    r"^(?:(?:it\s+)?turns out\s+)?the\s+(?:rash|reaction|culprit|cause|trigger|problem|hives)\s+(?:was|is|came from)\s+"
    r"(?:the\s+)?(?P<x>[a-z]+(?: [a-z]+)?)$",
    _I,
)
# "I break out in hives if I eat strawberries", "Nuts are a no-go": what a later "I'm allergic" is about.
_REACTS_TO = re.compile(
    r"^i\s+(?:break out in (?:hives|a rash|spots)|get (?:hives|a rash|itchy|ill|sick)|come out in (?:hives|a rash)|"
    r"swell up|react badly)\s+(?:if|when|whenever|after)\s+i\s+(?:eat|touch|have|drink|use)\s+"
    r"(?:any\s+)?(?P<x>[a-z]+(?: [a-z]+)?)$|"
    r"^(?P<y>[a-z]+(?: [a-z]+)?)\s+(?:is|are)\s+(?:a\s+)?(?:no-go|no go|off limits|off-limits|a no|big no|"
    r"out of the question)$|"
    r"^(?P<z>[a-z]+(?: [a-z]+)?)\s+(?:keeps|keep)\s+me\s+(?:up|awake)\b.*$",
    _I,
)
_CANNOT_NEAR = re.compile(
    r"^(?:i\s+)?(?:can't|cannot|can not)\s+(?:go near|touch|be near|be around|eat|have)\s+"
    r"(?P<x>[a-z]+(?: [a-z]+)?)$",
    _I,
)


# The canonical clause a fact's other wordings mean, kind by kind (``lexicon.py`` holds the words):
# each shape below rewrites to the one plain form the patterns read ("Everyone calls me Kat" →
# "call me Kat", "Shellfish gives me hives" → "I'm allergic to shellfish").
_NAME = r"[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
_REL = r"(?i:" + FAMILY + "|" + PETS + r")"
_ADJ = r"(?i:(?:(?:little|old|oldest|youngest|eldest|older|younger|big|beloved|lovely|rescue|new|dear|best|baby|twin|"
_ADJ += r"step|half|closest|good|lazy|grumpy|black|white|ginger|tabby)\s+)*)"
# The rest of a clause that speaks of nobody else ("for my mum" makes it the mum's).
_MINE = r"(?!.*\b(?i:my|his|her|their|your|our|him|them)\b).*"
_AGE = r"(?P<n>\d{1,3}|" + NUMBER_WORD + r")"
_CANONICAL: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), template)
    for pattern, template in (
        # the name the user goes by
        (r"^(?i:(?:everyone|everybody|people|(?:all\s+)?my friends|friends|most people|my family|family)\s+calls?\s+me)"
         r"\s+(?P<name>" + _NAME + r")\b", "call me {name}"),
        (r"^(?P<name>" + _NAME + r") is what (?i:everyone|everybody|people|my friends|friends|most people|my family)"
         r" calls? me$", "call me {name}"),
        (r"^(?i:i\s*(?:go by|prefer to be called|like to be called|'d like to be called|'d rather be called|"
         r"'d prefer to be called|would rather be called|'d rather you called me|would rather you called me|"
         r"prefer to go by|'d prefer to go by|'d rather go by|like to go by|'d like to go by|"
         r"'d prefer you called me|answer to))\s+(?P<name>" + _NAME + r")\b", "call me {name}"),
        (r"^(?i:it's|its|i'm)\s+(?P<name>" + _NAME + r")\s+(?i:to (?:my )?(?:friends|family|everyone|most people))\b",
         "call me {name}"),
        (r"^(?i:it's|its|i'm|i am)\s+(?P<name>" + _NAME + r"),?\s+(?i:nobody|no one)\s+(?i:calls|uses)\s+(?:me\s+)?"
         + _NAME + r"\b", "call me {name}"),
        (r"^(?i:just\s+)?(?P<name>" + _NAME + r")\s+(?i:is fine|works|will do|is good)\b,?\s+(?i:no need for|not|"
         r"rather than|never)\s+" + _NAME + r"\b", "call me {name}"),
        (r"^(?i:my\s+(?:nick ?name|preferred name|short name)\s+is)\s+(?P<name>" + _NAME + r")$", "call me {name}"),
        (r"^(?i:i\s+(?:usually|mostly|normally|always|tend to|actually)\s+go\s+by|i\s+go\s+by\s+my\s+(?:middle|second|"
         r"first)\s+name,?|feel free to call me|i'd like you to call me|i would like you to call me|"
         r"i'd prefer you to call me)"
         r"\s+(?P<name>" + _NAME + r")\b", "call me {name}"),
        (r"^(?:" + _NAME + r",?\s+(?i:but\s+|or\s+just\s+|or\s+)?)?(?P<name>" + _NAME + r")\s+(?i:for short)$",
         "call me {name}"),
        (r"^(?i:the name is|full name\s*:|name\s*:|you're talking to|you are talking to|my (?:first|given) name is)\s+"
         r"(?P<name>" + _NAME + r"(?: " + _NAME + r")?)$", "my name is {name}"),
        (r"^(?i:i'm|i am)\s+(?P<name>" + _NAME + r")'s\s+(?i:mum|mom|dad|mother|father|"
         r"parent)$", "my child is called {name}"),
        (r"^(?i:i prefer)\s+(?P<name>" + _NAME + r")\s+(?i:to|over|rather than)\s+(?P<long>" + _NAME + r")$",
         "call me {name}"),
        # who is whose: "Noodle is my cat", "Meet Rosie, my beagle", "Juno, my greyhound, hates rain"
        (r"^(?P<name>" + _NAME + r")(?:'s| is)\s+(?i:my|our)\s+" + _ADJ + r"(?P<rel>" + _REL + r")$",
         "my {rel} is called {name}"),
        (r"^(?i:we|i)\s+(?i:call|called|named)\s+(?i:my|our|the)\s+(?P<rel>" + _REL + r")\s+(?P<name>" + _NAME + r")$",
         "my {rel} is called {name}"),
        (r"^(?i:my|our)\s+" + _ADJ + r"(?P<rel>" + _REL + r"),?\s+(?i:who(?:'s| is)\s+(?:called|"
         r"named))\s+(?P<name>" + _NAME
         + r"),?\s*(?P<rest>.*)$", "my {rel} {name} {rest}"),
        (r"^(?P<name>" + _NAME + r")\s+\((?i:my|our)\s+" + _ADJ + r"(?P<rel>" + _REL + r")\)\s*(?P<rest>[a-z].+)$",
         "my {rel} {name} {rest}"),
        (r"^(?i:my|our)\s+(?P<rel>(?i:kids|children|sons|daughters|boys|girls|twins|cats|dogs|pets)),\s*(?P<a>" + _NAME
         + r")\s+(?i:and)\s+(?P<b>" + _NAME + r"),.*$", "my {rel} are called {a} and {b}"),
        (r"^(?i:meet|this is|say hi to|say hello to)\s+(?P<name>" + _NAME + r"),?\s+(?i:my|"
         r"our)\s+" + _ADJ + r"(?P<rel>" + _REL + r")$",
         "my {rel} is called {name}"),
        (r"^(?P<name>" + _NAME + r"),\s*(?i:my|our)\s+" + _ADJ + r"(?P<rel>" + _REL + r"),\s*(?P<rest>[a-z].+)$",
         "my {rel} {name} {rest}"),
        (r"^(?i:my|our)\s+" + _ADJ + r"(?P<rel>" + _REL + r"),\s*(?P<name>" + _NAME + r"),\s*(?P<rest>[a-z].+)$",
         "my {rel} {name} {rest}"),
        (r"^(?i:i|we)(?i:'ve| have)?\s+(?i:just\s+|recently\s+)?(?i:got|adopted|rescued|bought|took in|have|own|"
         r"'ve got|have got)\s+(?i:a|an|another)\s+(?P<kind>(?:[\w-]+\s+){0,2}?(?P<rel>" + _REL + r"))"
         r"(?:,\s*|\s+(?i:and\s+(?:we\s+)?)?(?i:called|named)\s+(?i:(?:him|her|it)\s+)?)(?P<name>" + _NAME + r")$",
         "I have a {kind} called {name}"),
        (r"^(?i:we(?:'re| are))\s+(?i:an?)\s+(?P<n>\w+)-(?P<pet>dog|cat|horse)\s+(?i:household|family|home)$",
         "we have {n} {pet}s"),
        (r"^(?i:i'm|i am|we're|we are)\s+(?i:owned by)\s+(?P<x>.+)$", "we have {x}"),
        (r"^(?P<pet>(?i:dog|cat|rabbit|horse))\s+(?i:mum|mom|dad|parent|owner)(?i:\s+here)?$", "I have a {pet}"),
        (r"^(?i:i|we)(?i:'ve| have)\s+had\s+(?i:my|our)\s+(?P<pet>(?i:" + PETS + r"))\s+(?i:for|since)\b.*$",
         "I have a {pet}"),
        # an age: "I'm thirty-two", "Age: 29", "Being 24", "a 37-year-old"
        (r"^" + _AGE + r"\s+(?i:years old|years young|y/o|yo)$", "I'm {n}"),
        (r"^(?i:my age is|i'm aged|i am aged)\s+" + _AGE + r"$", "I'm {n}"),
        (r"^(?i:i\s+)?(?i:just\s+)?(?i:hit|reached)\s+" + _AGE + r"(?i:\s+this year|\s+last month|\s+last week)?$",
         "I'm {n}"),
        (r"^(?i:i'm|i am)\s+" + _AGE + r"(?i:\s+years old)?$", "I'm {n}"),
        (r"^(?i:age|aged)\s*:?\s+" + _AGE + r"$", "I'm {n}"),
        (r"^(?i:being)\s+" + _AGE + r"(?=\s+and\b|$)", "I'm {n}"),
        (r"^(?i:as\s+)?(?i:i'm\s+|i am\s+)?(?i:an?)\s+" + _AGE + r"[- ]year[- ]old\b", "I'm {n}"),
        # allergies: "a peanut allergy", "allergic to latex", "shellfish gives me hives"
        (r"^(?i:(?:i(?:'ve| have)?\s+(?:got\s+|had\s+)?|i've got\s+|got\s+)?(?:an?\s+)?)"
         r"(?i:(?:severe|serious|bad|mild|deadly|life-threatening|nasty|slight|proper|diagnosed|known|real)\s+)*"
         r"(?P<x>(?!(?i:food|skin|seasonal|my|the|anaphylactic|full-blown|allergic)\b)[A-Za-z][\w-]*"
         r"(?:\s+(?!allergy)[a-z][\w-]*)?)\s+"
         r"(?i:allergy)(?i:\s+(?:here|too|as well|actually))?$", "I'm allergic to {x}"),
        (r"^(?P<x>[A-Za-z][a-z]+(?: [a-z]+)?)\s+(?i:is|are)\s+(?i:my)\s+(?i:(?:big|main|only|worst|biggest|one|"
         r"real|serious|known)\s+)?(?i:allergy)$", "I'm allergic to {x}"),
        (r"^(?i:i\s+(?:have|'ve got|have got)\s+(?:an?\s+)?(?:(?:severe|serious|bad|mild)\s+)?allerg(?:y|ies)\s+to)\s+"
         r"(?P<x>.+)$", "I'm allergic to {x}"),
        (r"^(?i:(?:my\s+)?(?:only\s+)?allerg(?:y|ies)\s*(?:is|are|:)\s*(?:to\s+)?)(?P<x>[a-z].+)$",
         "I'm allergic to {x}"),
        (r"^(?i:(?:(?:severely|very|really|quite|deathly|highly|badly|mildly)\s+)*allergic\s+to)\s+(?P<x>.+)$",
         "I'm allergic to {x}"),
        (r"^(?P<x>[A-Za-z][a-z]+(?: [a-z]+)?)\s+(?i:" + ALLERGIC_REACTION + r")\b.*$", "I'm allergic to {x}"),
        (r"^(?i:i\s+(?:always\s+)?(?:carry|have|keep)\s+an?\s+epi-?pen\s+(?:for|because of))\s+(?P<x>.+)$",
         "I'm allergic to {x}"),
        (r"^(?P<x>[A-Za-z][a-z]+(?: [a-z]+)?)\s+(?i:is|are)\s+(?i:dangerous|deadly|lethal|life-threatening|poison)\s+"
         r"(?i:for|to)\s+me$", "I'm allergic to {x}"),
        # staying off a food: "I avoid gluten", "no caffeine after noon for me", "gluten intolerant"
        (r"^(?i:i\s+(?:try not to|try to never|never|don't|do not)\s+(?:drink|touch)|i\s+try\s+not\s+to\s+eat)\s+"
         r"(?P<x>.+)$", "I avoid {x}"),
        (r"^(?i:i(?:'ve| have)?\s+cut)\s+(?P<x>[a-z][\w -]{1,30}?)\s+(?i:out)\b.*$", "I avoid {x}"),
        (r"^(?i:anything|everything|food)\s+(?i:with)\s+(?P<x>[a-z][\w -]{1,30}?)\s+(?i:in it)\s+(?i:is)\s+"
         r"(?i:off-limits|off limits|a no|out|a no-go|not an option|off the menu)(?i:\s+for me)?$", "I avoid {x}"),
        (r"^(?P<x>[A-Za-z][a-z]+(?: [a-z]+)?)\s+(?i:is|are)\s+(?i:off-limits|off limits|off the menu|"
         r"out of the question|"
         r"banned)(?i:\s+for me)?$", "I avoid {x}"),
        (r"^(?i:i(?:'ll| will)?\s+eat\s+(?:anything|everything)\s+(?:except|but|apart from|other than))\s+(?P<x>.+)$",
         "I don't eat {x}"),
        (r"^(?i:i\s+(?:only\s+)?eat\s+(?:strictly\s+|only\s+)?)(?P<d>(?i:kosher|halal))(?i:\s+only)?\b.*$", "I'm {d}"),
        (r"^(?i:i\s+keep)\s+(?P<d>(?i:kosher|halal))\b.*$", "I'm {d}"),
        (r"^(?i:i\s+(?:always\s+|strictly\s+|try to\s+|tend to\s+|generally\s+)?(?:" + AVOIDING + r"))\s+(?P<x>.+)$",
         "I avoid {x}"),
        (r"^(?i:no|zero)\s+(?P<x>(?!(?:problem|worries|rush|idea|need|way|chance|pressure|one|thanks|more|"
         r"wonder|doubt|matter|hurry|stress|drama|"
         r"offence|offense|comment|plans?|time|judgement|judgment|excuses|complaints)\b)[a-z][\w-]+"
         r"(?: [a-z][\w-]+)?(?: (?:after|before) [\w ]+?)?)\s+(?i:for me)(?i: please| thanks)?$", "I avoid {x}"),
        (r"^(?i:i'm|i am)\s+(?i:a bit\s+|slightly\s+|quite\s+)?(?P<x>gluten|lactose|dairy|wheat|fructose|histamine|"
         r"caffeine|egg|soy|nut)[- ](?i:intolerant)\b.*$", "I can't tolerate {x}"),
        (r"^(?i:i'm|i am)\s+(?i:a bit\s+|slightly\s+)?(?i:intolerant)\s+(?i:to|of)\s+(?P<x>.+)$",
         "I can't tolerate {x}"),
        (r"^(?P<x>[A-Za-z][a-z]+(?: [a-z]+)?)\s+(?i:doesn't|does not|don't|do not)\s+(?i:sit well|agree)\s+with me$",
         "I can't tolerate {x}"),
        (r"^(?P<x>[A-Za-z][a-z]+(?: [a-z]+)?)\s+(?i:upsets?|upset|wrecks?|plays havoc with)\s+my\s+"
         r"(?i:stomach|tummy|gut|digestion)$", "I can't tolerate {x}"),
        (r"^(?P<x>[A-Za-z][a-z]+(?: [a-z]+)?)\s+(?i:makes?|made)\s+me\s+(?i:feel\s+)?(?i:ill|sick|awful|rough|unwell|"
         r"bloated|queasy|nauseous|poorly|terrible)$", "I can't tolerate {x}"),
        # how to reach the user: "Email is best for me", "the best way to reach me is WhatsApp"
        (r"^(?P<x>(?i:" + CHANNEL + r"))\s+(?i:is|are|works?)\s+(?i:(?:always|usually|much|far|definitely)\s+)?"
         r"(?i:the\s+)?(?i:best|easiest|quickest|fastest|better|easier|preferred|ideal)\b" + _MINE + r"$",
         "contact me by {x}"),
        (r"^(?i:the\s+)?(?i:best|easiest|quickest|fastest)\s+(?i:way)\s+(?i:to\s+)?(?i:reach|contact|get hold of|"
         r"get in touch with|get)\s+(?i:me\s+)?(?i:is\s+)(?i:by\s+|on\s+|via\s+|through\s+|over\s+)?"
         r"(?P<x>(?i:" + CHANNEL + r"))\b" + _MINE + r"$", "contact me by {x}"),
        (r"^(?i:i'm|i am)\s+(?i:easiest|best|quickest|easier)\s+(?i:to reach|reached|contacted|to contact|"
         r"to get hold of)\s+"
         r"(?i:by|on|via|over|through)\s+(?P<x>(?i:" + CHANNEL + r"))\b" + _MINE + r"$", "contact me by {x}"),
        (r"^(?i:just\s+)?(?i:drop|shoot|send|give)\s+me\s+(?i:an?\s+)?(?P<x>(?i:email|text|message|whatsapp|dm|call))\b"
         + _MINE + r"$", "contact me by {x}"),
        (r"^(?i:you can\s+|please\s+)?(?i:reach|contact|get hold of)\s+(?i:me\s+)?(?i:by|on|via|over|through)\s+"
         r"(?P<x>(?i:" + CHANNEL + r"))\b" + _MINE + r"$", "contact me by {x}"),
        # nationality: "I hold a Spanish passport"
        (r"^(?i:i\s+(?:have|hold|'ve got|have got|carry)\s+(?:an?\s+)?(?:(?:dual|joint)\s+)?)(?P<x>[A-Z][a-z]+)\s+"
         r"(?i:passport|citizenship|nationality)\b.*$", "I'm {x}"),
        (r"^(?i:my\s+nationality\s+is)\s+(?P<x>[A-Z][a-z]+)$", "I'm {x}"),
        (r"^(?i:i'm|"
         r"i am)\s+(?i:an?\s+)(?i:proud\s+)?(?P<noun>(?i:" + "|".join(DEMONYM_NOUNS) + r"))\b.*$", "I'm {noun}"),
        (r"^(?P<x>[A-Z][a-z]+)\s+(?i:by birth|born and bred|through and through|to the core)\b.*$", "I'm {x}"),
        # likes and dislikes said of the thing: "Mayonnaise is disgusting", "The Beatles are my favourite band"
        (r"^(?P<x>[A-Za-z][\w' -]{1,40}?)\s+(?i:is|are)\s+(?i:absolutely\s+|just\s+|so\s+|truly\s+|utterly\s+)?"
         r"(?i:disgusting|vile|gross|revolting|unbearable|my pet hate|my pet peeve|my biggest pet peeve)$",
         "I hate {x}"),
        (r"^(?P<x>[A-Za-z][\w' -]{1,40}?)\s+(?i:disgusts?|repulses?|sickens?)\s+me$", "I hate {x}"),
        (r"^(?i:i\s+have\s+(?:a|an)\s+(?:real\s+|strong\s+|huge\s+|deep\s+|serious\s+)?(?:aversion|hatred|loathing)\s+"
         r"(?:to|of|for))\s+(?P<x>.+)$", "I hate {x}"),
        (r"^(?P<x>[A-Za-z][\w' -]{1,40}?)\s+(?i:makes? my skin crawl|gets? on my nerves|drives? me (?:mad|crazy|"
         r"nuts|up the wall)|"
         r"is the bane of my (?:life|existence))$", "I hate {x}"),
        (r"^(?i:i(?:'ve| have)\s+never\s+(?:liked|enjoyed|been a fan of)|i'm not keen on|i am not keen on|"
         r"i'm not fond of|"
         r"i have zero interest in|zero interest in)\s+(?P<x>.+)$", "I dislike {x}"),
        (r"^(?i:i'm|i am)\s+(?i:a sucker for|partial to)\s+(?P<x>.+)$", "I like {x}"),
        (r"^(?i:i have)\s+(?i:a soft spot for)\s+(?P<x>.+)$", "I like {x}"),
        (r"^(?i:i\s+)?(?i:can't get enough of|cannot get enough of)\s+(?P<x>.+)$", "I love {x}"),
        (r"^(?i:nothing beats|you can't beat)\s+(?P<x>.+?)(?:\s+(?i:for me))?$", "I love {x}"),
        (r"^(?P<x>[A-Za-z][\w' -]{1,40}?)\s+(?i:is|are)\s+(?i:my guilty pleasure|right up my (?:street|alley)|"
         r"my passion|"
         r"my escape|how i (?:relax|unwind)|my hobby|my main hobby)$", "I love {x}"),
        (r"^(?P<x>[A-Za-z][\w' -]{1,30}?ing)\s+(?i:keeps me sane|relaxes me|is what i live for)$", "I love {x}"),
        (r"^(?P<x>(?:The\s+)?[A-Z][\w'-]*(?: [A-Z][\w'-]*)*|[a-z][\w' -]{1,40}?)\s+(?i:is)\s+(?i:the best)\s+"
         r"(?P<topic>[a-z][a-z ]{1,25}?)\s+(?i:ever|of all time|ever made|ever written|in the world)$",
         "my favourite {topic} is {x}"),
        (r"^(?i:my)\s+(?i:number one|no\. ?1|top|go-to)\s+(?P<topic>[a-z][a-z ]{1,25}?)\s+(?i:is)\s+(?P<x>.+)$",
         "my favourite {topic} is {x}"),
        (r"^(?i:nothing|few things)\s+(?i:annoys|irritates|bugs|winds up|frustrates)\s+me\s+more\s+than\s+(?P<x>.+)$",
         "I hate {x}"),
        (r"^(?P<x>(?:The\s+)?[A-Z][\w'-]*(?: [A-Z][\w'-]*)*|[A-Za-z][\w' -]{1,40}?)\s+(?i:is|are|'s)\s+(?i:my|the)\s+"
         r"(?i:absolute\s+|all-time\s+|very\s+|clear\s+|total\s+)?(?i:favou?rite|fave)\s+(?P<topic>[a-z][a-z ]{1,25}?)"
         r"(?i:\s+of all time|\s+ever)?$", "my favourite {topic} is {x}"),
        (r"^(?i:my\s+(?:all-time\s+)?(?:favou?rite|fave))\s+(?P<topic>[a-z][a-z ]{1,25}?)\s+(?i:has to be|would be|"
         r"would have to be|is definitely|is easily|is still|is always|of all time is|ever is)\s+(?P<x>.+)$",
         "my favourite {topic} is {x}"),
        # home: "I call Melbourne home", "Home for me is Cape Town", "I'm a Londoner"
        (r"^(?i:i|we)(?i:'ve| have)?\s+(?i:just\s+|recently\s+|finally\s+)?(?i:settled)\s+(?i:down\s+)?(?i:in)\s+"
         r"(?P<x>[A-Z][\w-]*(?: [A-Z][\w-]*)*)\b(?P<rest>.*)$", "I moved to {x}{rest}"),
        (r"^(?i:i'm|i am|we're|we are)\s+(?P<x>[A-Z][\w-]*(?: [A-Z][\w-]*)*)-based$", "I live in {x}"),
        (r"^(?i:i'm|i am)\s+(?i:now\s+)?(?i:an?\s+)(?P<x>[A-Z][\w-]*(?: [A-Z][\w-]*)*)\s+(?i:resident|local)$",
         "I live in {x}"),
        (r"^(?i:i'm|i am)\s+(?i:local to)\s+(?P<x>[A-Z][\w-]*(?: [A-Z][\w-]*)*)$", "I live in {x}"),
        (r"^(?i:i|we)(?i:'ve| have)?\s+(?i:swapped|traded|left)\s+(?:[A-Z][\w-]*(?: [A-Z][\w-]*)*|(?i:the city|"
         r"london))\s+"
         r"(?i:for)\s+(?P<x>[A-Z][\w-]*(?: [A-Z][\w-]*)*)\b(?P<rest>.*)$", "I moved to {x}{rest}"),
        (r"^(?i:i|we)(?i:'ve| have)?\s+(?i:upped sticks|packed up)\s+(?i:and\s+moved\s+)?(?i:to)\s+"
         r"(?P<x>[A-Z][\w-]*(?: [A-Z][\w-]*)*)\b(?P<rest>.*)$", "I moved to {x}{rest}"),
        (r"^(?i:after|since|following)\s+[^,]{3,40}?\s+(?P<rest>(?i:i|we)\s+(?i:now\s+)?(?i:live|work|moved)\b.+)$",
         "{rest}"),
        (r"^(?i:i|we)\s+(?i:call)\s+(?P<x>[A-Z][\w-]*(?: [A-Z][\w-]*)*)\s+(?i:home)$", "I live in {x}"),
        (r"^(?i:home for (?:me|us) is|my home is in|our home is in|home is in)\s+(?P<x>[A-Z][\w-]*(?: [A-Z][\w-]*)*)$",
         "I live in {x}"),
        (r"^(?i:i'm|i am)\s+(?i:a|an)\s+(?i:proud\s+|true\s+)?(?P<city>(?i:" + CITY_DWELLER + r"))\b.*$",
         "I live in {city}"),
        (r"^(?i:i'm\s+|i am\s+)?(?i:originally\s+)(?i:an?\s+)?(?P<x>[A-Z][\w-]*(?: [A-Z][\w-]*)*)\s+"
         r"(?i:girl|boy|lad|lass|native|kid)$", "I'm from {x}"),
        (r"^(?i:i'm|i am)\s+(?i:an?\s+)(?P<x>[A-Z][\w-]*(?: [A-Z][\w-]*)*)\s+(?i:native)$", "I'm from {x}"),
        # a relationship's state: "we split up last year", "I got divorced in 2019"
        (r"^(?i:we're|we are)\s+(?P<y>(?i:in an?\s+(?:[\w-]+\s+)?relationship|expecting)\b.*)$", "I'm {y}"),
        (r"^(?i:we)\s+(?i:got together|started dating|started going out)\s+(?i:on\s+)?(?P<v>.*\d.*)$",
         "our anniversary is {v}"),
        (r"^(?i:we)\s+(?i:met)\s+(?i:on\s+)?(?P<v>.*\d.*?)\s+(?i:and)\s+(?i:still\s+)?(?i:celebrate)\b.*$",
         "our anniversary is {v}"),
        (r"^(?i:(?:the|my)\s+(?:doctor|gp|consultant|specialist|psychiatrist|nurse|cardiologist))\s+(?i:has|'s|has put|"
         r"put|started|has started)\s+(?i:me)\s+(?i:on)\s+(?P<x>(?!(?i:a|an|the|my|hold|notice)\b).+)$", "I take {x}"),
        (r"^(?i:we|i)\s+(?i:just\s+|recently\s+)?(?i:split up|broke up|separated|split)\b.*$", "I'm separated"),
        (r"^(?i:we|i)\s+(?i:just\s+|recently\s+)?(?i:got divorced|divorced|are divorced|'re divorced)\b.*$",
         "I'm divorced"),
        (r"^(?i:we|i)(?i:'ve| have)?\s+(?i:just\s+|recently\s+|finally\s+)?(?i:got engaged)\b.*$", "I'm engaged"),
        # pets kept: "There's a corn snake in my son's room", "Our house is full of rabbits", "I'm a dog owner"
        (r"^(?i:there(?:'s| is| are))\s+(?P<x>(?i:an?|two|three|four|five|six|\d+|some|several)\s+(?:[\w-]+\s+){0,2}?"
         r"(?i:" + PETS + r")s?)\s+(?i:in|at)\s+(?i:my|our)\b.*$", "we have {x}"),
        (r"^(?i:my|our)\s+(?i:house|home|flat|place|garden)\s+(?i:is\s+full\s+of)\s+(?P<x>(?:[\w-]+\s+){0,2}?"
         r"(?i:" + PETS + r")s?)\b.*$", "we have {x}"),
        (r"^(?i:i'm|i am)\s+(?i:an?\s+)(?i:proud\s+)?(?P<pet>(?i:dog|cat|horse|rabbit|bird|chicken))\s+"
         r"(?i:owner|mum|mom|dad|parent|keeper)\b.*$", "I have a {pet}"),
        (r"^(?i:i|we)\s+(?i:share)\s+(?i:my|our)\s+(?i:home|house|flat|place|life|bed)\s+(?i:with)\s+"
         r"(?P<x>(?:(?i:an?|two|three|four|\d+)\s+)?(?:[\w-]+\s+){0,2}?(?i:" + PETS + r")s?)\b.*$", "we have {x}"),
        # dates: "I turn 30 on 11 December", "Mum's birthday is on 9 May", "we tied the knot on 1 September"
        (r"^(?i:i\s+(?:turn|'ll turn|will turn|am turning|'m turning))\s+(?:[\w-]+|a year older)\s+(?i:on|every)\s+"
         r"(?i:the\s+)?(?P<v>.+)$", "my birthday is {v}"),
        (r"^(?i:i\s+celebrate\s+my\s+(?:birthday|bday)\s+on)\s+(?P<v>.+)$", "my birthday is {v}"),
        (r"^(?i:my\s+(?:birthday|bday)\s*(?:'s|is|falls)?\s+on)\s+(?P<v>.+)$", "my birthday is {v}"),
        (r"^(?i:(?:my|our)\s+)?(?P<rel>(?i:" + FAMILY + r"))\s+(?i:turns|will turn|is turning|'ll turn)\s+[\w-]+\s+"
         r"(?i:on)\s+(?P<v>.+)$", "my {rel}'s birthday is {v}"),
        (r"^(?i:(?:my|our)\s+)?(?P<rel>(?i:" + FAMILY + r"))(?:'s|s'|s)\s+(?i:birthday|bday)\s+"
         r"(?i:falls\s+on|'s|is\s+on|is)\s+(?P<v>.+)$", "my {rel}'s birthday is {v}"),
        (r"^(?i:(?:my|our)\s+)?(?P<rel>(?i:twins|kids|children|boys|girls|sons|daughters))\s+(?i:were)\s+(?i:born)\s+"
         r"(?i:on)\s+(?P<v>.+)$", "my {rel}'s birthday is {v}"),
        (r"^(?i:we)\s+(?i:married|wed|were married|tied the knot|got hitched|got wed)\s+(?i:on\s+)?(?P<v>.+)$",
         "we got married on {v}"),
        (r"^(?i:we\s+celebrate\s+our\s+(?:wedding\s+)?anniversary\s+(?:on|every))\s+(?:the\s+)?(?P<v>.+)$",
         "our anniversary is {v}"),
        (r"^(?i:we(?:'ve| have) been married since|i got married on|i married on|i was married on)\s+(?P<v>.*\d.*)$",
         "we got married on {v}"),
        (r"^(?i:it's|it is)\s+(?i:our)\s+(?i:(?:wedding\s+)?anniversary)\s+(?P<v>(?i:on|this|next)\s+.+)$",
         "our anniversary is {v}"),
        (r"^(?i:our)\s+(?:[\w-]+\s+)?(?i:(?:wedding\s+)?anniversary)\s+(?i:is coming up|comes up|"
         r"is)\s+(?i:on)\s+(?P<v>.+)$",
         "our anniversary is {v}"),
        (r"^(?P<v>(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[A-Z][a-z]+|[A-Z][a-z]+\s+\d{1,2}(?:st|nd|rd|"
         r"th)?))\s+(?i:is)\s+"
         r"(?i:our)\s+(?i:(?:wedding\s+)?anniversary)$", "our anniversary is {v}"),
        (r"^(?P<v>(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[A-Z][a-z]+|[A-Z][a-z]+\s+\d{1,2}(?:st|nd|rd|"
         r"th)?))\s+(?i:is)\s+"
         r"(?i:my)\s+(?i:birthday)$", "my birthday is {v}"),
        (r"^(?i:dob|d\.o\.b\.?|date of birth)\s*:?\s*(?P<v>\d.+)$", "I was born on {v}"),
        (r"^(?i:i(?:'ll| will)\s+be)\s+[\w-]+\s+(?i:on)\s+(?P<v>.*\d.*)$", "my birthday is {v}"),
        (r"^(?i:it's|it is)\s+(?i:my|our)\s+(?P<rel>(?i:" + FAMILY + r"))(?:'s|"
         r"s)\s+(?i:birthday)\s+(?P<v>(?i:on|this|next)"
         r"\s+.+)$", "my {rel}'s birthday is {v}"),
        (r"^(?i:my|our)\s+(?P<rel>(?i:" + FAMILY + r"))\s+(?i:celebrates)\s+(?i:her|his|"
         r"their)\s+(?i:birthday)\s+(?i:on)\s+"
         r"(?P<v>.+)$", "my {rel}'s birthday is {v}"),
        (r"^(?i:(?:my|our)\s+)?(?P<rel>(?i:" + FAMILY + r"))(?:'s)\s+(?:\d+(?:st|nd|rd|th)|\w+ieth)\s+(?i:birthday\s+)?"
         r"(?i:is)\s+(?i:on\s+)?(?P<v>.+)$", "my {rel}'s birthday is {v}"),
        (r"^(?i:our|my)\s+(?i:wedding|wedding day)\s+(?i:was|is)\s+(?i:on\s+)?(?P<v>.+)$", "our anniversary is {v}"),
        (r"^(?i:our|my)\s+(?:[\w-]+\s+)?(?i:(?:wedding\s+)?anniversary)\s+(?i:falls\s+on|is\s+on|is|'s)\s+(?P<v>.+)$",
         "our anniversary is {v}"),
        (r"^(?:[\w-]+)\s+(?i:years?)\s+(?i:married)\s+(?i:this|on|next)\s+(?P<v>.+)$", "our anniversary is {v}"),
        # the name, said with who uses it or where: "Everyone at work calls me Benji", "call me by my nickname, Sully"
        (r"^(?i:(?:(?:everyone|everybody|people|friends|family|colleagues|mates|folks|most|all|my|at|work|home|school|"
         r"the|office|just|usually|always|generally|mostly|back|in|uni|university|college|still|tend|to)\s+){1,6})"
         r"calls?\s+me\s+(?P<name>" + _NAME + r")\b", "call me {name}"),
        (r"^(?i:(?:you can|you may|feel free to|please|just)\s+){0,3}(?i:call me)\s+(?i:by\s+)?(?i:my\s+(?:nick ?name|"
         r"middle name|short name|second name)),?\s+(?P<name>" + _NAME + r")\b", "call me {name}"),
        (r"^(?i:the name is|my name is|i'm|i am|it's)\s+" + _NAME + r"(?:\s+" + _NAME + r")?,?\s+(?i:but)\s+"
         r"(?i:please\s+|just\s+|do\s+)?(?i:use|call me|go with|stick to|go by|stick with)\s+(?P<name>" + _NAME + r")$",
         "call me {name}"),
        (r"^(?i:first name|forename|given name)\s*(?i:is|:)?\s+(?P<a>" + _NAME + r"),?\s+(?i:and\s+)?(?i:my\s+)?"
         r"(?i:surname|last name|family name)\s*(?i:is|:)?\s+(?P<b>" + _NAME + r")$", "my name is {a} {b}"),
        # the thing said first: "Sesame is something I'm allergic to", "Gardening is something I really enjoy"
        (r"^(?P<x>[A-Za-z][\w' -]{1,40}?)\s+(?i:is|are)\s+(?i:something|one thing|the (?:one )?thing|a thing|what)\s+"
         r"(?P<rest>(?i:i|i'm|i am|i've|i have)\s+(?!(?:it|that|this|them)\b)[\w' ]+?)$", "{rest} {x}"),
        (r"^(?i:you(?:'d| would| could| might)\s+call\s+me)\s+(?P<y>(?i:an?)\s+[\w -]{2,40}?)(?:,.*)?$", "I'm {y}"),
        # a parent named without "my": "mum lives with my sister in Perth"
        (r"^(?P<rel>(?i:mum|mom|mam|dad|nan|nana|grandma|grandpa|granny|mother|father))\s+(?P<rest>(?i:is|was|lives|"
         r"works|has|runs|teaches|loves|just|still|'s|retired|passed)\b.*)$", "my {rel} {rest}"),
        # "I'm a Geordie": where the user comes from
        (r"^(?i:i'm|i am)\s+(?i:an?)\s+(?i:proud\s+|true\s+|born and bred\s+)?"
         r"(?P<origin>(?i:" + ORIGIN_DWELLER + r"))\b.*$",
         "I'm from {origin}"),
        (r"^(?P<lang>(?i:" + LANGUAGES + r"))\s+(?i:at home|at work|with my [a-z]+|with family|natively|fluently|"
         r"mostly|at school)\b.*$", "I speak {lang}"),
        (r"^(?i:(?:please\s+)?(?:don't|do not|never)\s+call\s+me)\s+" + _NAME + r",?\s+(?P<name>" + _NAME + r")\s+"
         r"(?i:is fine|works|will do|is good|is ok|is okay|please)\b.*$", "call me {name}"),
        (r"^(?i:i'm|i am|we're|we are)\s+(?i:in)\s+(?P<place>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)$", "I live in {place}"),
        (r"^(?i:no|zero)\s+(?P<thing>(?i:car|tv|telly|smartphone|pets?))\s+(?i:here|for me|for us)$",
         "I don't have a {thing}"),
        (r"^(?i:i\s+(?:come|hail)\s+from)\s+(?P<place>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)\b.*$", "I'm from {place}"),
        (r"^(?i:it's|it is)\s+(?i:my)\s+(?i:birthday)\s+(?P<v>(?i:on)\s+.*\d.*)$", "my birthday is {v}"),
        (r"^(?i:i'm|i am)\s+(?i:an?)\s+(?i:remote)\s+(?i:worker|employee)$", "I work remotely"),
        (r"^(?i:i'm|i am)\s+(?i:an?)\s+(?i:shift)\s+(?i:worker)$", "I work shifts"),
        (r"^(?i:i'm|i am)\s+(?i:an?)\s+(?i:night)\s+(?i:worker|shift worker)$", "I work nights"),
        (r"^(?i:i'm|i am)\s+(?i:an?)\s+(?i:part-time|part time)\s+(?i:worker|employee)$", "I work part-time"),
        (r"^(?i:please\s+)?(?i:leave out|hold the|leave off|skip the|don't add|don't put in)\s+"
         r"(?P<x>[a-z][\w-]*(?: [a-z][\w-]*)?)(?=\s+(?:i|i'm|it|they|as|because|cause|cos|since|please|pls)\b|\s*$).*$",
         "I avoid {x}"),
        (r"^(?i:as\s+(?:someone|somebody|a person|one))\s+(?i:who(?:'s| is))\s+(?P<y>[\w' -]{1,40})$", "I'm {y}"),
        (r"^(?i:living with)\s+(?P<y>[\w' -]{2,40}?)\s+(?i:means|makes|has made|has meant)\b.*$", "I live with {y}"),
        (r"^(?i:i)\s+(?i:have|'ve got|have got)\s+(?i:an?)\s+" + _ADJ + r"(?P<rel>" + _REL + r"),\s*(?P<name>" + _NAME
         + r")$", "my {rel} is called {name}"),
        (r"^(?i:i|we)(?i:'ve| have)\s+had\s+(?i:my|our)\s+" + _ADJ + r"(?P<pet>(?i:" + PETS + r"))\s+"
         r"(?i:for|since)\b.*$",
         "I have a {pet}"),
        # how to reach the user: "The best time to reach me is after 6pm", "Best to reach me by phone"
        (r"^(?i:the\s+)?(?i:best|easiest|ideal|only)\s+(?i:time|times)\s+(?i:to\s+)?(?i:reach|contact|call|ring|"
         r"get hold of|message|text)\s+(?i:me\s+)?(?i:is|are)\s+(?P<v>.+)$", "contact me {v}"),
        (r"^(?i:it's\s+|it is\s+)?(?i:best|easiest)\s+(?i:to)\s+(?i:reach|contact|call|ring|get hold of)\s+(?i:me)\s+"
         r"(?P<v>.+)$", "contact me {v}"),
        # "Nothing with mushrooms, please"
        (r"^(?i:nothing|no food|no dishes)\s+(?i:with)\s+(?P<x>[a-z][\w -]{1,30}?)(?:\s+(?i:in it|in))?"
         r"(?:\s+(?i:for me|please))?$", "I avoid {x}"),
        # "Most weekends you'll find me out birdwatching"
        (r"^(?:[\w ]{0,25}?\s)?(?i:you(?:'ll| will)?|you can)\s+(?i:(?:usually|always|often|normally)\s+)?(?i:find)\s+"
         r"(?i:me)\s+(?i:(?:out|down|up|off)\s+)?(?P<x>[a-z]+ing)\b.*$", "I love {x}"),
        # "We've got flights booked to Bali for October"
        (r"^(?i:i|we)(?i:'ve| have)?\s+(?i:got\s+)?(?i:(?:a|an|our|my|the)\s+)?(?i:flights?|tickets?|trip|holiday)\s+"
         r"(?i:booked)\s+(?i:to|for)\s+(?P<place>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)(?P<rest>.*)$",
         "I'm flying to {place}{rest}"),
        # "Mum of two here", "proud dad of three"
        (r"^(?i:(?:a\s+)?(?:proud\s+|busy\s+|single\s+|working\s+)?)(?P<r>(?i:mum|mom|mother|dad|father|parent))\s+"
         r"(?i:of)\s+(?P<count>" + NUMBER_WORD + r"|\d)(?i:\s+here)?\b.*$", "I'm a {r} of {count}"),
    )
)  # fmt: skip
# "Being Scottish", "As a nurse": a clause of its own before "I …" describes the user.
_BEING = re.compile(r"^(?i:being)\s+(?P<x>(?!a\b|an\b|the\b)[\w' -]{2,40})$")
_AS_A = re.compile(
    r"^(?i:as\s+(?P<a>an?))\s+(?P<x>(?!(?:result|rule|matter|reminder|favour|favor|treat|bonus|joke|kid|child|"
    r"teenager|student|family|team|couple|whole|side|heads|general|consequence|precaution|gift|thank)\b)"
    r"[\w' -]{2,40})$"
)
# "My wife and I", "me and my sister", "Priya and I": the user among others, said as "we".
_AND_I_LEAD = re.compile(
    r"^(?:(?i:my|our)\s+(?:" + _REL + r")(?:\s+" + _NAME + r")?|" + _NAME + r")\s+(?i:and\s+(?:i|me))\s+(?P<rest>.+)$"
    r"|^(?i:me and)\s+(?:(?i:my|our|the)\s+)?(?:(?:"
    + _REL
    + r")\s+)?(?:"
    + _NAME
    + r"|[a-z]+)\s+(?P<rest2>(?i:are|were|"
    r"have|went|live|moved|got|own|keep|spent|met|share|just|both|will|love)\b.*)$"
)
_GREETED_NAME = re.compile(r"^(?i:i'm|i am|this is)\s+(?P<name>" + _NAME + r"(?: " + _NAME + r")?)$")
_FULL_NAME = re.compile(r"^(?i:i'm|i am|this is)\s+(?P<name>" + _NAME + r" " + _NAME + r")$")


def we_said(clause: str) -> str:
    """ "My wife and I got married in June" → "we got married in June" (the wife is named apart)."""
    match = _AND_I_LEAD.match(clause.strip())
    if not match:
        return clause
    return "we " + (match.group("rest") or match.group("rest2"))


_SYNONYM = re.compile(
    r"^(?P<my>(?i:my|our))\s+(?P<rel>(?i:gf|bf|hubby|missus|wifey|other half|better half|baby girl|baby boy|"
    r"little girl|little boy|little one))\b"
)
_COUNTED_LEAD = re.compile(r"^(?:The\s+(?=[A-Z])|(?i:an?|two|three|four|five|six|\d+|some|several)\s+)")
_FAMILY_HAS = re.compile(r"^(?i:(?:our|my|the)\s+(?:family|household))\s+(?i:has|have|owns|keeps)\s+(?P<x>.+)$")


def canonical(text: str, greeted: bool = False) -> str:
    """The plain clause another wording of a fact means, or "" when none of the shapes fits."""
    if match := _SYNONYM.match(text):
        return f"{match.group('my')} {RELATION_CANON[match.group('rel').lower()]}{text[match.end() :]}"
    if match := _TIME_FIRST.match(text):
        return _time_last(match)
    if match := _FAMILY_HAS.match(text):
        return f"we have {match.group('x')}"
    for pattern, template in _CANONICAL:
        match = pattern.match(text)
        if not match:
            continue
        values = {k: v for k, v in match.groupdict().items() if v is not None}
        if "name" in values and values["name"].lower() in _NOT_NAMES | _NOT_A_NAME:
            continue
        if "x" in values and not _topic_ok(_COUNTED_LEAD.sub("", values["x"])):
            continue
        if "rel" in values:
            values["rel"] = RELATION_CANON.get(values["rel"].lower(), values["rel"].lower())
        if "n" in values:
            age = number_value(values["n"])
            if age is None or not 1 <= age <= 120:
                continue
            values["n"] = str(age)
        if "noun" in values:
            values["noun"] = DEMONYM_NOUNS[values["noun"].lower()]
        if "city" in values:
            values["city"] = CITY_DWELLERS[values["city"].lower()]
        if "origin" in values:
            values["origin"] = ORIGIN_DWELLERS[values["origin"].lower()]
        if "long" in values and not values["long"].lower().startswith(values["name"].lower()[:2]):
            continue  # "I prefer Nick to Nicholas" names; "I prefer Python to Java" does not
        if "x" in values and match.start("x") == 0:  # a capital that only starts the clause says nothing
            values["x"] = _lower_first(values["x"].strip())
        return template.format(**values)
    if (match := _BEING.match(text)) and not any(w in _POINTERS for w in match.group("x").lower().split()):
        return f"I'm {match.group('x')}"
    if match := _AS_A.match(text):
        return f"I'm {match.group('a').lower()} {match.group('x')}"
    if (
        greeted
        and (match := _GREETED_NAME.match(text))
        and match.group("name").lower() not in _NOT_A_NAME | _STATES
        and not match.group("name").lower().endswith(("ed", "ing"))
    ):
        return f"my name is {match.group('name')}"
    if (match := _FULL_NAME.match(text)) and not any(w.lower() in _NOT_A_NAME for w in match.group("name").split()):
        return f"my name is {match.group('name')}"
    return ""


# Capitalised words after "I'm" that are no name: nationalities, faiths, places said as people.
_NOT_A_NAME = frozenset(
    "english british scottish welsh irish french german italian spanish american canadian australian jewish "
    "catholic muslim christian hindu sikh buddhist protestant mormon quaker black white asian latina latino "
    "autistic deaf dyslexic vegan vegetarian new north south east west saint san los las el la le de van von "
    "mr mrs ms miss dr sir lady lord professor prof doctor captain".split()
)
# "Hi, I'm back": how the user is, not who.
_STATES = frozenset(
    "back here new fine good okay ok sorry sure ready happy busy free late home done lost stuck glad well alright "
    "great tired sick hungry excited curious confused nervous anxious bored stressed exhausted early".split()
)
