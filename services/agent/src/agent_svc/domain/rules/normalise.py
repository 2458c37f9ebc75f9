"""What a clause says, without the words around it that say nothing, and the filters that keep a
sentence out (questions, hypotheticals, wishes, someone else's words, a language the rules do not read).

The same statement must give the same fact whatever surrounds it: openers and discourse markers
("quick note:", "by the way", "honestly", "fun fact"), trailing meta clauses (", so keep that in
mind", ", just so you know", ", if that helps") and intensifiers after "I'm" ("really", "severely")
are taken off before the patterns read the clause, so "Quick note: I'm really allergic to peanuts,
so keep that in mind." reads as "I'm allergic to peanuts". So are a hedge or a "how I know" lead ("I
think", "turns out", "we found out last month that"), chat spelling ("cant", "yrs", "my husbands a
chef") and the perfect of a state that still holds ("I've been vegan for years" → "I am vegan …").
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

_LEAD = re.compile(
    r"^(?:(?:actually|well|oh|so|also|and|but|btw|by the way|fyi|just so you know|anyway|ok|okay|yes|yeah|yep|"
    r"right|great|cool|sure|alright|honestly|to be honest|for the record|update|hey|hi|hello|thanks|thank you|"
    r"perfect|sounds good|good|no(?=[\s,.!:;-]*(?:[,.!:;-]|i\b|i'm\b|my\b|we\b|it's\b|not\b|actually\b|sorry\b))|"
    r"nope|fine|oh and|one more thing|just to be clear|quick update|quick note|"
    r"fun fact|full disclosure|side note|random fact|heads up|just so (?:you|u) know|just so you're aware|"
    r"just flagging(?: that)?|flagging(?: that)?|just a heads up|a heads up|just a reminder|reminder|"
    r"not that you asked|for what it's worth|fwiw|like i said|as i said|as i mentioned|ooh|ah|um|uh|hmm|"
    r"pls|please note|note|in fact|to be fair|frankly|basically|so yeah|oh by the way|also btw|lol|haha)"
    r"\b[\s,:;!.-]*)+",
    _I,
)
# Trailing asides that say nothing about the fact: ", so keep that in mind", ", just so you know".
_META_TAIL = re.compile(
    r"(?:[,;:\s-]+(?:so\s+|and\s+|but\s+)?(?:please\s+)?(?:keep (?:that|this|it) in mind|bear (?:that|this|it) in mind|"
    r"just so (?:you|u) know|just so you're aware|if that helps|if that matters|in case it matters|"
    r"for what it's worth|fwiw|for the record|by the way|btw|fyi|lol|haha|thanks|thank you|cheers|sadly|"
    r"unfortunately|honestly|to be honest|if you need it|if you must know|as you know|you know|though|"
    r"nice to meet you|pleased to meet you|good to meet you|nice to e-meet you|literally|easily|at all|please|"
    r"not sure (?:if|whether) (?:that|it)(?:'s| is| matters)(?: relevant| important| useful)?|"
    r"(?:in case|if) (?:that|it)(?:'s| is) (?:useful|relevant|important|helpful)|if you need to know|"
    r"so you can too|if you like|if you want|if you're wondering|for context|for reference|and counting|"
    r"every time|hands down|no contest|without a doubt|for sure|of course|i guess|i think|i suppose|i reckon|"
    r"if you need (?:them|it|that|to know)|"
    r"doctor's orders|doctors orders|on medical advice|for health reasons|for religious reasons|for my health))+"
    r"[\s.!,]*$",
    _I,
)
# "I'm really allergic" → "I'm allergic": degree words between the subject and what it says.
_INTENSIFIER = re.compile(
    r"^(?P<head>i(?:'m| am)?|i've|i have)\s+(?:(?:really|very|so|super|seriously|severely|extremely|quite|pretty|"
    r"totally|absolutely|genuinely|truly|definitely|incredibly|terribly|awfully|highly|deeply|mildly|slightly|"
    r"deathly|horribly|badly|dangerously|massively|hugely|super|quite badly|also|too|currently|presently)\s+)+",
    _I,
)
# "I've been living in", "I'm currently working at": the same standing fact as "I live in", "I work at".
_ASPECT = re.compile(
    r"^(?P<s>i|we)(?:'ve|'m|'re| have| am| are)\s+(?:been\s+)?(?:currently\s+|presently\s+|now\s+)?"
    r"(?P<v>living|working)(?=\s+(?:in|at|for|as|near|just outside|outside)\b)",
    _I,
)
_ASPECT_FORMS = {"i": "I", "we": "we", "living": "live", "working": "work"}
# "my actual name is", "my full name is": the name.
_NAME_QUALIFIER = re.compile(r"\bmy\s+(?:actual|real|full|legal|proper|official|birth)\s+name\s+is\b", _I)
# Chat spelling of the first person at a clause's start: "im allergic", "ive got".
_LOWER_I = re.compile(r"^(?:im|ive|i)(?=\s)", _I)
_LOWER_I_FORMS = {"im": "I'm", "ive": "I've", "i": "I"}
# The rules read English: a clause with none of these common words is another language, and gives nothing.
_ENGLISH = re.compile(
    r"\b(?:i|i'm|im|my|me|the|a|an|is|are|am|and|to|of|in|on|at|for|with|have|has|do|don't|not|no|it|it's|we|"
    r"our|you|your|he|she|they|was|be|this|that|just|from|by|as|so|but|or|yes|please|call|work|live|can't|cannot|"
    r"won't|isn't|never|since|been|really|very)\b",
    _I,
)
_SARCASM = re.compile(r"^(?:yeah,? right\b|oh,? great\b|oh,? sure\b|sure,|apparently\b|as if\b)|\bin spirit\b", _I)
_QUESTION_START = re.compile(
    r"^(?:am|is|are|was|were|does|did|should|shall|could|can|would|will|what|when|where|who|whom|why|how|which|"
    r"whose|have|has|isn't|aren't|do(?= (?:you|i|we|they)\b))(?![\w'])",
    _I,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|suppose|supposing|assuming|assume|pretend|say i|imagine|hypothetically|in case|someday|"
    r"some day|one day|wish|were to|"
    r"might(?! want to)|perhaps|possibly|probably|could|maybe|wonder|"
    r"(?<!by )(?<!in )(?<!on )(?<!of )(?<!\d )(?<!\dth )(?<!\dst )(?<!\dnd )(?<!\drd )"
    r"may(?! want to)(?! \d)(?!\s*[.!,]|\s*$))"
    r"\b",
    _I,
)
_REPORTING = re.compile(
    r"\b(?P<who>\w+)\s+(?:thinks|think|says|say|said|believes|claims|told|tells|reckons|thought|mentioned|"
    r"feels(?=\s+(?:that|i|we|you|my|it|it's|the|he|she|they)\b))\b"
    r"|\baccording to\b",
    _I,
)


# A hedge or a "how I know" lead before a first-person clause says nothing about the fact itself:
# "I think I'm allergic to hazelnuts", "Turns out I have high blood pressure", "We found out last
# month that I'm allergic to dust mites" → the clause after it.
_HEDGE = re.compile(
    r"^(?:(?:i(?:\s+(?:think|guess|believe|reckon|suppose|suspect|would say)|'d say)|"
    r"i'm (?:pretty |fairly |quite )?sure|"
    r"pretty sure|(?:it\s+)?turns out|as it turns out|(?:i|we)(?:'ve| have)?\s+(?:recently\s+|just\s+|finally\s+)?"
    r"(?:found out|learned|learnt|discovered|realised|realized)(?:\s+(?:recently|last\s+\w+|this\s+\w+|"
    r"(?:a|one|two|three|\d+)\s+\w+\s+ago))?|(?:my|the)\s+(?:doctor|gp|consultant|specialist|allergist|dentist|"
    r"nurse|therapist|psychiatrist|physio|optician|dermatologist)\s+(?:says|said|confirmed|told me|thinks|reckons|"
    r"found|diagnosed)(?:\s+(?:recently|last\s+\w+|this\s+\w+|(?:a|one|two|three|\d+)\s+\w+\s+ago))?|"
    r"for\s+(?:\w+\s+){0,2}reasons?|"
    r"(?:(?:when|whenever|before|as)\s+you\s+[\w' ]{2,40}?,?\s+)?(?:please\s+)?(?:remember|note|bear in mind|"
    r"keep in mind|don't forget))(?:\s+that)?[\s,]+)+"
    r"(?=(?:i'm|im|i am|i've|ive|i have|i was|i had|i\s+(?:have|take|suffer|get|work|live|speak|only|eat|can't|"
    r"cannot|don't|break)|my|we're|we've|we have|we are|you'd call me|you would call me)\b)",
    _I,
)
# Chat spelling of common contractions: "cant", "dont", "ive" → "can't", "don't", "I've".
_CHAT_FORMS = {"cant": "can't", "dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "isnt": "isn't",
               "arent": "aren't", "wasnt": "wasn't", "havent": "haven't", "hasnt": "hasn't", "wont": "won't",
               "couldnt": "couldn't", "shouldnt": "shouldn't", "wouldnt": "wouldn't", "ive": "I've",
               "yrs": "years", "yr": "year", "bday": "birthday", "b-day": "birthday", "u": "you", "ur": "your",
               "r": "are", "pls": "please", "plz": "please", "thx": "thanks", "n": "and"}  # fmt: skip
_CHAT = re.compile(r"(?<![\w'/-])(?:" + "|".join(sorted(_CHAT_FORMS, key=len, reverse=True)) + r")(?![\w'/-])")
# "my husbands a chef", "my daughters birthday": a possessive written without its apostrophe.
_RELATIVES = (
    r"wife|husband|partner|spouse|boyfriend|girlfriend|fianc[eé]e?|son|daughter|mum|mom|dad|mother|father|"
    r"brother|sister|sis|bro|grandma|grandpa|grandmother|grandfather|nan|aunt|uncle|cousin|niece|nephew|"
    r"friend|mate|boss|dog|cat|baby|kid|child"
)
_BARE_POSSESSIVE = re.compile(
    r"\b(?P<my>my|our)\s+(?P<rel>" + _RELATIVES + r")s\s+(?=(?:a|an|birthday|name|job|car|bday)\b)",
    _I,
)
# "Our anniversary's on …", "my hometown's Aberdeen": "'s" after the attribute is "is".
_ATTRIBUTE_IS = re.compile(
    r"\b(?P<a>birthday|bday|anniversary|hometown|home town|surname|nationality|diet|job|car|age|"
    r"(?:favou?rite|fave)\s+[a-z]+)'s\b(?!\s+(?:name|birthday|car|job|age|present|gift|party)\b)",
    _I,
)


# "it's Liz by the way not Elizabeth": a discourse marker inside a clause says nothing either.
_MARKER_INSIDE = re.compile(
    r"(?<=\w)\s*,?\s+(?:by the way|btw|fyi|if possible|where possible|when possible|if you can)\b(?=\s*,|\s+\w|\s*$)",
    _I,
)
# "I could eat Italian food every day": a liking, not a hypothetical.
_COULD_LIVE_ON = re.compile(
    r"^i could (?:happily\s+|honestly\s+)?(?:eat|drink|live on|listen to|watch)\s+(?P<x>[\w' -]{2,40}?)\s+"
    r"(?:every day|all day|forever|every night|every week|for ever)\b.*$",
    _I,
)
# "Wedding anniversary: 16 October": a date's label and its value.
_ATTRIBUTE_COLON = re.compile(r"\b(?P<a>birthday|bday|anniversary|hometown|home town)\s*:\s*", _I)


def strip_openers(text: str) -> str:
    """ "Actually, by the way, I live in Porto" → "I live in Porto"."""
    return _LEAD.sub("", text)


# "My wife's a nurse", "my dad's from Cork": "'s" after "my <relative>" before a description is "is".
_RELATIVE_IS = re.compile(
    r"\b(?P<my>my|our)\s+(?P<rel>" + _RELATIVES + r")'s\s+(?=(?:a|an|the|from|in|at|still|now|just|never|always|"
    r"really|so|very|called|named|retired|married|pregnant|vegan|vegetarian|based|originally|currently|also)\b)",
    _I,
)


def chat_spelling(text: str) -> str:
    """ "i cant have dairy", "my husbands a chef" → "i can't have dairy", "my husband is a chef"."""
    text = _CHAT.sub(lambda m: _CHAT_FORMS[m.group(0)] if m.group(0).islower() else m.group(0), text)
    text = _BARE_POSSESSIVE.sub(lambda m: f"{m.group('my')} {m.group('rel')}'s ", text)
    return _RELATIVE_IS.sub(lambda m: f"{m.group('my')} {m.group('rel')} is ", text)


def normalise(text: str, intensifiers: bool = True) -> str:
    """The clause as the patterns read it: no opener, no trailing aside, no intensifier after "I'm"
    (kept with ``intensifiers=False``, for a sentence kept in the speaker's words)."""
    text = strip_openers(chat_spelling(text.strip()))
    text = re.sub(r"^its\b(?=\s+(?!own\b)\w)", "it's", text, flags=_I)  # "its Liz" opening a clause is "it's"
    text = strip_openers(_HEDGE.sub("", text))
    text = _MARKER_INSIDE.sub("", text)
    text = _COULD_LIVE_ON.sub(lambda m: f"I love {m.group('x')}", text)
    text = _META_TAIL.sub("", text).strip()
    text = _LOWER_I.sub(lambda m: _LOWER_I_FORMS[m.group(0).lower()], text)
    if intensifiers:
        text = _INTENSIFIER.sub(lambda m: m.group("head") + " ", text)
    text = re.sub(r"\bname's\b", "name is", text, flags=_I)
    text = _ATTRIBUTE_IS.sub(lambda m: f"{m.group('a')} is", text)
    text = _ATTRIBUTE_COLON.sub(lambda m: f"{m.group('a')} is ", text)
    text = _NAME_QUALIFIER.sub("my name is", text)
    text = aspect(text)
    return text.strip()


# "I've been in Valencia for three years": where the user lives, said with how long.
_BEEN_IN = re.compile(
    r"^(?P<s>(?i:i|we))(?i:'ve| have)\s+(?i:been)\s+(?i:living\s+|based\s+)?(?i:in)\s+"
    r"(?P<p>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)"
    r"(?=\s+(?:for|since)\s)",
)
# "I've been happily married for 20 years", "been type 2 diabetic since 2019": a state that still holds.
_BEEN_STATE = re.compile(
    r"^(?P<s>i|we)(?:'ve| have)\s+been\s+(?!(?:a|an|in|to|at|there|here|so|too|very|really|told|asked)\b)"
    r"(?!(?:happily\s+)?married\s+since\b)"
    r"(?P<rest>(?![\w-]+ing\b)[\w' -]+?\s+(?:for|since)\s+.+)$",
    _I,
)
# "I've been dealing with back pain for years" → "I deal with back pain".
_BEEN_COPING = re.compile(r"^(?P<s>i|we)(?:'ve| have)\s+been\s+(?P<v>dealing|suffering|struggling|coping|living)"
                          r"\s+(?=with\b|from\b)", _I)  # fmt: skip
_COPING_FORMS = {"dealing": "deal", "suffering": "suffer", "struggling": "struggle", "coping": "cope",
                 "living": "live"}  # fmt: skip


def aspect(text: str) -> str:
    """ "I've been living in Dublin" → "I live in Dublin": the same standing fact."""
    text = _BEEN_IN.sub(lambda m: f"{_ASPECT_FORMS[m.group('s').lower()]} live in {m.group('p')}", text)
    text = _BEEN_COPING.sub(
        lambda m: f"{_ASPECT_FORMS[m.group('s').lower()]} {_COPING_FORMS[m.group('v').lower()]} ", text
    )
    if match := _BEEN_STATE.match(text):
        text = f"{'I am' if match.group('s').lower() == 'i' else 'we are'} {match.group('rest')}"
    return _ASPECT.sub(lambda m: f"{_ASPECT_FORMS[m.group('s').lower()]} {_ASPECT_FORMS[m.group('v').lower()]}", text)


def is_english(text: str) -> bool:
    """A sentence the rules can read: one common English word at least (short answers aside)."""
    return bool(_ENGLISH.search(text))


def is_sarcastic(text: str) -> bool:
    """ "Yeah right, I'm a rocket scientist": said, not meant."""
    return bool(_SARCASM.search(text.strip()))


def is_question(text: str) -> bool:
    return text.rstrip().endswith("?") or bool(_QUESTION_START.match(text))


def is_hypothetical(text: str) -> bool:
    return bool(_HYPOTHETICAL.search(text))


# What makes a whole sentence unreal ("If I move to Leeds, I'll …"), as against a modal hedge
# ("probably", "maybe") that only takes its own clause: "As a 31-year-old, I probably should know this".
_CONDITIONAL = re.compile(
    r"\b(?:if|unless|suppose|supposing|assuming|assume|pretend|say i|imagine|hypothetically|in case|someday|"
    r"some day|one day|wish|were to)\b",
    _I,
)


def is_conditional(text: str) -> bool:
    """The sentence opens on a condition or a wish ("If I move to Leeds, I'll …"): every clause is unreal.
    A condition later in a sentence ("I get hives if I eat strawberries") takes its own clause only."""
    match = _CONDITIONAL.search(text)
    return bool(match) and not text[: match.start()].strip(" ,")


def is_reported(text: str) -> bool:
    """Someone else's words or views ("my friend says …", "according to …")."""
    for match in _REPORTING.finditer(text):
        if match.group("who") is None or match.group("who").lower() not in {"i", "we"}:
            return True
    return False
