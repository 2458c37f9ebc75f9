"""The fact patterns: one clause → a typed ``PatternMatch`` (kind, content, facets with their slots
and values), or None.

Patterns are tried in a fixed order and the first that matches a clause wins, so the same words
always give the same match. A clause reaches them normalised (``normalise.py``) and split
(``clauses.py``); contents are written in the third person (``rewriting.py``).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable

from agent_svc.domain.rules.dates import by_deadline as _by
from agent_svc.domain.rules.dates import split_deadline
from agent_svc.domain.rules.entities import NOT_NAMES as _NOT_NAMES
from agent_svc.domain.rules.entities import is_name as _is_name
from agent_svc.domain.rules.lexicon import CHANNEL, CHANNELS, CONDITIONS, LANGUAGES, PETS, SELF_STATES
from agent_svc.domain.rules.model import Facet, PatternMatch
from agent_svc.domain.rules.rewriting import base_form, third_person
from agent_svc.domain.rules.rewriting import subject_of as _subject
from agent_svc.domain.rules.rewriting import third_person_sentence as told
from agent_svc.domain.rules.text import MONTHS, TOPIC_OF
from agent_svc.domain.rules.text import tidy as _tidy

_I = re.IGNORECASE
_PRONOUN_OBJECT = re.compile(r"^(?:it|that|this|them|those|these|you|him|her|how|what|when|where|why|the way)\b", _I)

_CUT = re.compile(
    r",|\s+(?:with|since|for|because|but|and|where|which|who|near|at the|as of|last|this|next|in \d{4}|ago|"
    r"yesterday|recently|today)\b",
    _I,
)


def _cut(value: str) -> str:
    """A name or place ends where the sentence goes on about something else."""
    value = _CUT.split(value, maxsplit=1)[0]
    return _tidy(value)


# Each pattern is (regex, builder, speakers). A builder returns None when the match is not what it
# looked like ("I'm going to Paris" is travel, not a commitment).
Built = PatternMatch | None
Builder = Callable[[re.Match[str], str], Built]

_NEG = r"(?P<neg>no longer |don't |do not |didn't |never |not )?"
_REVERSAL = re.compile(r"\b(?:no longer|any ?more|not any longer)\b", _I)
_LET_ME_VERBS = {"check", "look", "find", "get", "follow", "confirm", "dig", "investigate", "verify", "send", "draft",
                 "write", "review", "research", "reach", "prepare", "schedule", "set", "book", "email", "call", "ping",
                 "fix", "update", "loop", "circle", "run", "test", "put"}  # fmt: skip
# What an assistant can promise to do: a concrete action ("I'll send the summary by Friday").
_ASSISTANT_ACTIONS = _LET_ME_VERBS | {"remind", "share", "note", "save", "track", "text", "message", "order", "plan",
                                     "compile", "summarise", "summarize", "make", "organise", "organize", "arrange",
                                     "reserve", "cancel", "add", "create", "draw", "list", "collect", "forward",
                                     "flag", "bring", "pull", "gather", "look", "reply", "respond", "notify",
                                     "alert", "ask", "keep", "suggest", "recommend", "propose", "include",
                                     "avoid", "stick", "use", "go", "start", "finish", "do"}  # fmt: skip
_DIET = (
    "vegetarian|vegan|pescatarian|pescetarian|keto|paleo|gluten-free|lactose intolerant|teetotal|halal|kosher|"
    "flexitarian|veggie|plant-based|plant based|lacto-vegetarian|ovo-vegetarian|raw vegan"
)
_DIET_FOODS = {"meat", "fish", "pork", "beef", "dairy", "gluten", "eggs", "seafood", "chicken", "alcohol", "sugar"}
_RELATIONS = (
    "wife|husband|partner|spouse|son|daughter|mother|mom|mum|father|dad|brother|sister|boyfriend|girlfriend|fiancée?"
    "|dog|cat|baby|grandmother|grandfather|grandma|grandpa|niece|nephew|aunt|uncle|cousin|kid|child|stepson"
    "|stepdaughter|twin|eldest|youngest"
)
_PET_RELATIONS = {"dog", "cat"}
_PETS = PETS
_JOB_SUFFIX = re.compile(r"(?:er|or|ist|ian|ant|ent|eer|ect|ive|nurse|chef|cto|ceo|cfo|dev|lead|student|pm)$", _I)
_NOT_JOBS = {"beginner", "newcomer", "fan", "user", "customer", "father", "mother", "lover", "believer", "member",
             "brother", "sister", "parent", "owner", "other", "number", "winner", "loser", "worrier", "dreamer",
             "bit", "little", "lot", "person", "vegetarian", "vegan", "fan of", "big", "huge", "riser", "sleeper",
             "eater", "drinker", "smoker", "talker", "learner", "thinker", "walker", "listener", "introvert",
             "extrovert", "optimist", "pessimist", "perfectionist", "procrastinator", "pleaser", "overthinker",
             "overachiever", "underachiever", "multitasker", "daydreamer", "homebody", "night owl"}  # fmt: skip
# "An early riser", "a picky eater", "a heavy sleeper": habits and traits shaped like a job title.
_TRAIT_WORDS = {"early", "late", "light", "heavy", "picky", "fussy", "fast", "slow", "good", "bad", "great",
                "terrible", "quick", "messy", "neat", "night", "morning", "social", "total", "complete", "real",
                "natural", "born", "avid", "keen", "occasional", "regular", "frequent", "casual", "serial"}  # fmt: skip
_VERB3 = {"prefer": "prefers", "like": "likes", "love": "loves", "enjoy": "enjoys", "adore": "adores",
          "hate": "hates", "dislike": "dislikes", "detest": "detests", "loathe": "loathes", "despise": "despises",
          "can't stand": "can't stand", "cannot stand": "cannot stand", "can't bear": "can't bear",
          "don't care for": "doesn't care for"}  # fmt: skip


def _denial(match: re.Match[str], clause: str) -> tuple[bool, bool]:
    """(denied, reversal): the words deny the value, and say it used to hold."""
    neg = (match.groupdict().get("neg") or "").strip().lower()
    reversal = bool(_REVERSAL.search(clause))
    return bool(neg) or reversal, reversal or neg in ("no longer", "left", "quit")


_PLEASANTRY = re.compile(
    r"^(?:keep (?:you|u) (?:posted|updated|in the loop)|let (?:you|u) know(?: how it goes)?|see (?:you|ya|u)\b|"
    r"talk (?:to (?:you|ya|u) )?(?:soon|later)|catch (?:you|up)\b|be (?:in touch|there for you)|miss (?:you|u)|"
    r"think of you|take care|stay in touch|check (?:in|back)(?: with you)?(?: later| soon)?$|"
    r"(?:definitely |surely )?(?:do|try) (?:that|it|my best)$|be careful|remember (?:that|this)$|keep that in mind|"
    r"keep it in mind|have (?:a look|a think)$|think about it$)",
    _I,
)


def _commitment(m: re.Match[str], speaker: str) -> Built:
    raw = m.group("task")
    first = raw.split(" ", 1)[0]
    lead = m.group("lead").lower()
    if not first or first[0].isupper() or first.lower() in {"the", "a", "an", "my", "be", "not", "never", "have"}:
        return None
    if lead.startswith("let me") and first.lower() not in _LET_ME_VERBS:
        return None
    if speaker == "assistant" and first.lower() not in _ASSISTANT_ACTIONS:
        return None  # "I'll give it a try", "I'll take it slow": small talk, not a promise with an action
    task, deadline = split_deadline(raw)
    if lead.startswith(("i need", "i have")) and not deadline:
        return None  # a need without a date is a goal (plan.py), not a promise
    if _PLEASANTRY.match(task):
        return None  # "I'll keep you posted", "see you soon": manners, not promises to remember
    if len(task) < 3:
        return None
    content = f"{_subject(speaker)} will {third_person(task, speaker)}{_by(deadline)}."
    return PatternMatch("commitment", content, task=task, deadline=deadline)


def _decision(m: re.Match[str], speaker: str) -> Built:
    what = _tidy(m.group("what"))
    who = (m.groupdict().get("who") or "").lower()
    if not what or _PRONOUN_OBJECT.match(what) or re.match(r"^\w+(?: with| for)? (?:that|it|this|them)$", what, _I):
        return None  # "let's do that" needs the earlier turn (extractor.py resolves it)
    what = base_form(what)
    content = f"{_subject(speaker)} decided to {third_person(what, speaker)}." if who == "i" else f"Decided: {what}."
    return PatternMatch("decision", content, (Facet("", what, content),))


def _opinion(m: re.Match[str], speaker: str) -> Built:
    what = _tidy(m.group("what"))
    if len(what) < 3 or len(what.split()) < 3 or re.match(r"^(?:in|of|about)\b", what, _I):
        return None  # "I believe in you", "I think so": encouragement, not a view
    advice = re.match(r"(?:that\s+)?you\s+(?:should|ought to|need to|must|might want to|may want to)\s+(.+)", what, _I)
    if advice:
        proposal = _tidy(advice.group(1))
        content = f"The assistant recommended that the user {third_person(proposal, speaker)}."
        return PatternMatch("opinion", content, proposal=proposal)
    verb = (m.groupdict().get("verb") or "").lower()
    if verb in {"recommend", "suggest", "advise", "propose"}:
        what = re.sub(r"^(?:that\s+)?you\s+", "", what, flags=_I)
        content = f"The assistant recommended {third_person(what, speaker)}."
        return PatternMatch("opinion", content, proposal=base_form(what))
    if verb:  # "I'd go with Postgres"
        proposal = f"{verb} {what}"
        content = f"The assistant recommended to {third_person(proposal, speaker)}."
        return PatternMatch("opinion", content, proposal=proposal)
    return PatternMatch("opinion", f"The assistant thinks {third_person(what, speaker)}.")


_SOMEWHERE_NEAR = re.compile(
    r"^(?:an?|the)\s+(?:[\w-]+\s+){0,3}?(?P<prep>near|outside|just outside|north of|south of|east of|west of|in)\s+"
    r"(?P<p>[A-Z].+)"
)


# Words after "live in" or "a week in" that are no place, in a clause written all in lower case.
_NOT_PLACES = {"fear", "hope", "denial", "peace", "luxury", "poverty", "comfort", "harmony", "squalor", "sin", "style",
               "bed", "town", "the", "a", "an", "my", "our", "their", "his", "her", "your", "this", "that", "it",
               "there", "here", "home", "hiding", "limbo", "pain", "debt", "sight", "love", "view", "range", "time",
               "advance", "general", "fact", "case", "order", "total", "person", "theory", "turn", "public", "student",
               "students", "halls", "hall", "dorm", "dorms", "residence", "accommodation", "shared", "rented",
               "council", "social", "house", "flat", "apartment", "caravan", "van", "boat", "tent", "village", "city",
               "suburbs", "countryside", "country", "centre", "center", "area", "part", "bit", "hotel", "hostel",
               "uni", "university", "college", "school", "work", "lodgings", "digs", "barracks", "care", "hospital",
               "prison", "rehab", "quarantine", "isolation", "lockdown", "secret", "silence",
               "private", "tandem", "parallel", "one", "two", "three", "few", "couple", "week", "month", "year",
               "weeks", "months", "years", "summer", "winter", "spring", "autumn", "june", "july", "may", "shelter",
               "gym", "beach", "park", "pub", "shops", "shop", "office", "library", "church", "store", "mall", "cinema",
               "museum", "zoo", "lake", "river", "sea", "mountains", "woods", "market", "festival", "concert",
               "doctor", "dentist", "vet", "airport", "station", "front", "back", "end", "middle", "moment", "pool",
               "club", "bar", "restaurant", "cafe", "kitchen", "garden", "studio", "event", "party"}  # fmt: skip
# A place written in lower case takes one word, or two when the first opens a place's name ("new york").
_PLACE_LEADS = {"new", "san", "santa", "los", "las", "st", "saint", "north", "south", "east", "west", "hong", "el",
                "la", "le", "port", "fort", "mount", "cape", "costa", "sri", "buenos", "rio", "tel", "abu",
                "kuala"}  # fmt: skip


def _proper(place: str, clause: str) -> str:
    """A place as the patterns take it: capitalised as written, or, in a clause written all in lower case
    ("i moved to seattle"), capitalised here when its first word is no common word."""
    if not place or place[0].isupper():
        return place
    chat = re.sub(r"\bI(?=\b|')", "i", clause)
    place = re.split(r"\s+(?:in|on|at|for|next|this|last|with|from|to|by|over|around|until|during|and)\b", place)[0]
    words = place.split()
    if chat != chat.lower() or any(w in _NOT_PLACES or w in _NOT_NAMES for w in words):
        return ""
    if len(words) > 2 or (len(words) == 2 and words[0] not in _PLACE_LEADS):
        return ""
    return " ".join(word.capitalize() for word in place.split())


def _lives(m: re.Match[str], speaker: str) -> Built:
    near = _SOMEWHERE_NEAR.match(m.group("v"))  # "a village near York": where it is, said by the town
    place = _proper(_cut(near.group("p") if near else m.group("v")), m.string)
    if not place:
        return None
    denied, reversal = _denial(m, m.string)
    moved = "move" in m.group(0).lower() or "relocat" in m.group(0).lower()
    if denied:
        content = f"The user {'no longer lives' if reversal else 'does not live'} in {place}."
    else:
        prep = near.group("prep") if near else "in"
        content = f"The user {'moved to' if moved else 'lives ' + prep} {place}."
    return PatternMatch("fact", content, (Facet("home_city", place, content, denied),))


def _works(m: re.Match[str], speaker: str) -> Built:
    org = _cut(m.groupdict().get("org") or "")
    job = _cut(re.sub(r"^(?:a|an)\s+", "", m.groupdict().get("job") or "", flags=_I))
    if org and not org[0].isupper():
        org = ""
    if not org and not job:
        return None
    denied, reversal = _denial(m, m.string)
    facets: list[Facet] = []
    verb = ("no longer works" if reversal else "does not work") if denied else "works"
    if org:
        facets.append(Facet("employer", org, f"The user {verb} at {org}.", denied))
    if job:
        facets.append(Facet("job", job, f"The user {verb} as {_article(job)}.", denied))
    content = f"The user {verb}" + (f" at {org}" if org else "") + (f" as {_article(job)}" if job else "") + "."
    return PatternMatch("fact", content, tuple(facets))


def _article(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def _job(m: re.Match[str], speaker: str) -> Built:
    job = _tidy(m.group("job"))
    last = job.split()[-1].lower() if job else ""
    first = job.split()[0].lower() if job else ""
    if not job or last in _NOT_JOBS or first in _NOT_JOBS or first in _TRAIT_WORDS or not _JOB_SUFFIX.search(last):
        return None
    if re.fullmatch(_DIET, job, _I) or re.fullmatch(_DEMONYMS, job, _I):
        return None  # "I'm a flexitarian", "I'm an Italian": a diet or a nationality, said like a trade
    org = _cut(re.sub(r"^the\s+(?=[A-Z])", "", m.groupdict().get("org") or ""))
    if last in _LEARNERS:  # "I'm a student at the University of Manchester": where the user studies
        where = f" at {org}" if org[:1].isupper() else ""
        content = f"The user is {_article(job)}{where}."
        return PatternMatch("fact", content, (Facet("school", org, content),) if where else ())
    denied, reversal = _denial(m, m.string)
    verb = ("is no longer" if reversal else "is not") if denied else "is"
    facets = [Facet("job", job, f"The user {verb} {_article(job)}.", denied)]
    if org and org[0].isupper():
        facets.append(Facet("employer", org, f"The user works at {org}.", denied))
    content = f"The user {verb} {_article(job)}" + (f" at {org}" if org and org[0].isupper() else "") + "."
    return PatternMatch("fact", content, tuple(facets))


_LEARNERS = {"student", "pupil", "undergraduate", "undergrad", "postgraduate", "postgrad", "schoolboy", "schoolgirl"}


def _fact(attribute: str, value: str, content: str) -> Built:
    """A fact whose one facet states the memory itself: ``attribute`` is ``value``."""
    return PatternMatch("fact", content, (Facet(attribute, value, content),))


def _family(m: re.Match[str], speaker: str) -> Built:
    rel, name = m.group("rel").lower(), _cut(m.group("name"))
    if not _is_name(name):
        return None
    if rel in _PET_RELATIONS or re.fullmatch(_PETS, rel):
        return _fact(f"pet:{_slugish(rel)}", name, f"The user's {rel} is called {name}.")
    return _fact(f"family:{_slugish(rel)}", name, f"The user's {rel} is called {name}.")


def _name(m: re.Match[str], speaker: str) -> Built:
    value = _cut(m.group("v"))
    words = value.split()
    if not words or not all(_is_name(word) for word in words):
        return None
    return _fact("name", value, f"The user's name is {value}.")


def _simple_fact(attribute: str, template: str) -> Builder:
    def build(m: re.Match[str], speaker: str) -> Built:
        value = _cut(m.group("v"))
        if not value:
            return None
        return _fact(attribute, value, template.format(value))

    return build


def _allergy(m: re.Match[str], speaker: str) -> Built:
    value = _cut(m.group("v"))
    if not value:
        return None
    denied, _ = _denial(m, m.string)
    content = f"The user is {'not ' if denied else ''}allergic to {value}."
    return PatternMatch("fact", content, (Facet(f"allergy:{_slugish(value)}", value, content, denied),))


def _slugish(value: str) -> str:
    """A slot's own word in the slot alphabet: "fiancé" → "fiance" (an accent would be cut off)."""
    plain = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", plain.lower()).strip("_")[:40]


def _diet(m: re.Match[str], speaker: str) -> Built:
    diet = m.group("v").lower()
    denied, reversal = _denial(m, m.string)
    verb = ("is no longer" if reversal else "is not") if denied else "is"
    content = f"The user {verb} {diet}."
    return PatternMatch("preference", content, (Facet("diet", diet, content, denied),))


def _family_named(m: re.Match[str], speaker: str) -> Built:
    """ "My sister Ana lives in Lisbon and works as an accountant": the name after the noun is the
    belief; the memory is the whole clause in the third person, when it rewrites surely."""
    named = _family(m, speaker)
    if named is None:
        return None
    whole = told(_tidy(re.sub(r"^our\b", "my", m.string, flags=_I)))  # "our dog Pepper …": the household's
    return dataclasses.replace(named, content=whole.rstrip(".!") + ".") if whole else named


_FEMALE = "wife|girlfriend|gf|mother|mom|mum|sister|daughter|grandmother|grandma|nan|niece|aunt|fiancée|stepdaughter"
_MALE = "husband|boyfriend|bf|father|dad|brother|son|grandfather|grandpa|grandad|nephew|uncle|fiancé|stepson"
_OTHERS = (
    _RELATIONS + "|gf|bf|hubby|nan|grandad|stepson|stepdaughter|friend|best friend|best mate|mate|pal|boss|manager|"
    "colleague|coworker|neighbour|neighbor|flatmate|roommate|parents|kids|children|twin|twin sister|twin brother|"
    "big brother|big sister|little brother|little sister|older brother|older sister|younger brother|younger sister|"
    "half-brother|half-sister|eldest|youngest|in-laws|mother-in-law|father-in-law|spouse|twins|boys|girls"
)
_JOB_RE = re.compile(r"^(?:is|'s|works as)\s+(?:an?\s+)(?P<job>[a-z][\w-]*(?: (?!at\b|for\b|in\b)[a-z][\w-]*){0,2})"
                     r"(?:\s+(?:at|for)\s+(?P<org>[A-Z][\w&-]*(?: [A-Z][\w&-]*)*))?", _I)  # fmt: skip


def _relative(m: re.Match[str], speaker: str) -> Built:
    """ "My wife is a dentist": a fact about the wife, never the user's; her job, home and employer
    are beliefs on her own slots (``family:wife:job``)."""
    rel = re.sub(r"\s+", " ", m.group("rel").lower())
    # "My girlfriend runs her own law firm": "her" is the girlfriend's, so the memory still reads alone
    whole = told(re.sub(r"\b(?:her|his)\b(?=\s+(?:own\b|[a-z]))", "their", _tidy(m.string)))
    if not whole or len(m.group("rest").split()) < 2:
        return None
    content = whole.rstrip(".!") + "."
    key = f"family:{_slugish(rel)}"
    facets: list[Facet] = []
    name = _cut(m.groupdict().get("name") or "")
    if name and _is_name(name):
        facets.append(Facet(key, name, f"The user's {rel} is called {name}."))
    rest = m.group("rest")
    job = _JOB_RE.match(rest)
    if job and _JOB_SUFFIX.search(job.group("job").split()[-1]) and job.group("job").split()[-1] not in _NOT_JOBS:
        facets.append(Facet(f"{key}:job", _tidy(job.group("job")), content))
        if job.group("org") and job.group("org")[0].isupper():
            facets.append(Facet(f"{key}:employer", _cut(job.group("org")), content))
    place = re.match(r"^(?:lives|is based|lives and works)\s+in\s+(?P<v>[A-Z].+)", rest)
    if place:
        facets.append(Facet(f"{key}:home_city", _cut(place.group("v")), content))
    org = re.match(r"^works\s+(?:at|for)\s+(?P<v>[A-Z].+)", rest)
    if org:
        facets.append(Facet(f"{key}:employer", _cut(org.group("v")), content))
    return PatternMatch("fact", content, tuple(facets))


def mentions(clause: str) -> tuple[PatternMatch, ...]:
    """Someone named in passing ("I live in Leeds with my husband Tom"): who they are to the user."""
    found = []
    chat = re.sub(r"\bI(?=\b|')", "i", clause)
    if chat == chat.lower():  # "me and my gf mia are going hiking": a name in lower-case chat
        clause = _LOWER_MENTION.sub(lambda m: f"{m.group('lead')} {m.group('name').capitalize()} ", clause)
    for match in _MENTION.finditer(clause):
        if match.start() == 0:
            continue  # the clause is about them: the patterns read it
        rel, name = match.group("rel").lower(), _cut(match.group("name"))
        rel = {"gf": "girlfriend", "bf": "boyfriend", "hubby": "husband", "wifey": "wife"}.get(rel, rel)
        if _is_name(name):
            content = f"The user's {rel} is called {name}."
            owner = "pet" if rel in _PET_RELATIONS or re.fullmatch(_PETS, rel) else "family"
            found.append(
                PatternMatch("fact", content, (Facet(f"{owner}:{_slugish(rel)}", name, content),), clause=clause)
            )
    for match in _ALLERGY_MENTION.finditer(clause):
        value = match.group("x")
        if match.start() == 0 or value.split()[0] in _NOT_NAMES - {"tree"}:
            continue
        content = f"The user is allergic to {value}."
        found.append(
            PatternMatch("fact", content, (Facet(f"allergy:{_slugish(value)}", value, content),), clause=clause)
        )
    return tuple(found)


def _age(m: re.Match[str], speaker: str) -> Built:
    value = int(m.group("v"))
    if not 1 <= value <= 120:
        return None
    content = f"The user is {value} years old."
    return PatternMatch("fact", content, (Facet("age", str(value), content),))


def _count(m: re.Match[str], speaker: str) -> Built:
    """ "I have three kids now": a count is one value, so a new count supersedes the old."""
    number, what = m.group("n").lower(), m.group("what").lower()
    what = {"kids": "children", "child": "children", "kid": "children"}.get(what, what)
    content = f"The user has {number} {what}."
    key = f"pet:{what}:count" if what in {"dogs", "cats"} else f"count:{_slugish(what)}"
    return PatternMatch("fact", content, (Facet(key, number, content),))


def _name_correction(m: re.Match[str], speaker: str) -> Built:
    """ "It's Jo, not Joe": the user corrects the name they were called."""
    value, old = _cut(m.group("v")), _cut(m.group("old"))
    if not (_is_name(value) and _is_name(old)) or value == old:
        return None
    return _fact("name", value, f"The user's name is {value}.")


_DEMONYMS = (
    "american|british|english|scottish|welsh|irish|french|german|italian|spanish|portuguese|dutch|belgian|swiss|"
    "austrian|danish|swedish|norwegian|finnish|icelandic|polish|czech|slovak|hungarian|romanian|bulgarian|greek|"
    "turkish|russian|ukrainian|canadian|mexican|brazilian|argentinian|chilean|colombian|peruvian|venezuelan|"
    "cuban|jamaican|nigerian|ghanaian|kenyan|ethiopian|egyptian|moroccan|south african|indian|pakistani|"
    "bangladeshi|sri lankan|nepali|chinese|japanese|korean|vietnamese|thai|filipino|indonesian|malaysian|"
    "singaporean|australian|aussie|kiwi|new zealander|israeli|lebanese|iranian|iraqi|syrian|saudi|emirati"
)
_STATUS = "married|single|divorced|separated|engaged|widowed|a widow|a widower|in a relationship|happily married"


def _nationality(m: re.Match[str], speaker: str) -> Built:
    value = re.sub(r"\s+", " ", m.group("v")).strip()
    value = " ".join(word.capitalize() for word in value.split())
    half = "half " if m.groupdict().get("half") else ""
    also = m.groupdict().get("w")  # "half Italian, half Japanese": both said, the first is the slot's
    more = f" and {'half ' if m.groupdict().get('half2') else ''}{also.capitalize()}" if also else ""
    content = f"The user is {half}{value}{more}."
    return PatternMatch("fact", content, (Facet("nationality", value, content),))


def _status(m: re.Match[str], speaker: str) -> Built:
    value = re.sub(r"^(?:a|happily)\s+", "", m.group("v").lower())
    denied, _ = _denial(m, m.string)
    content = f"The user is {'not ' if denied else ''}{m.group('v').lower()}."
    return PatternMatch("fact", content, (Facet("relationship_status", value, content, denied),))


def _pronouns(m: re.Match[str], speaker: str) -> Built:
    value = re.sub(r"\s*/\s*", "/", m.group("v").lower())
    content = f"The user's pronouns are {value}."
    return PatternMatch("fact", content, (Facet("pronouns", value, content),))


_MONTH_NAMES = r"\b(?:" + "|".join(MONTHS) + r")\b"


def _dated(attribute: str, template: str) -> Builder:
    """A date of the user's or a relative's life: "my daughter's birthday is 4 June"."""

    def build(m: re.Match[str], speaker: str) -> Built:
        said = m.group("v")
        # "Bonfire Night, the fifth of November": a date said after the name of the day stays with it
        value = _tidy(said) if re.search(r",\s*(?:the\s+)?\w+\s+of\s+[A-Z][a-z]+\W*$", said) else _cut(said)
        if not value or not re.search(r"\d|day\b|night\b|eve\b|" + _MONTH_NAMES, value, _I):
            return None
        rel = (m.groupdict().get("rel") or "").lower()
        key = f"family:{_slugish(rel)}:{attribute}" if rel else attribute
        content = template.format(rel=rel, v=value)
        return PatternMatch("fact", content, (Facet(key, value, content),))

    return build


def _temporary(m: re.Match[str], speaker: str) -> Built:
    """ "This week I'm in Lisbon for work": kept with its time, never a standing fact (no belief)."""
    said = told(_tidy(m.string))
    return PatternMatch("fact", said.rstrip(".!") + ".") if said else None


def _goal(m: re.Match[str], speaker: str) -> Built:
    what = _tidy(m.group("v"))
    if len(what.split()) < 2 or _PRONOUN_OBJECT.match(what):
        return None
    content = f"The user's goal is to {third_person(what, speaker)}."
    return PatternMatch("fact", content)


def _pet(m: re.Match[str], speaker: str) -> Built:
    kind, pet, name = _tidy(m.group("kind")).lower(), m.group("pet").lower(), _cut(m.group("name"))
    if not _is_name(name):
        return None
    return _fact(f"pet:{pet}", name, f"The user has {_article(kind)} called {name}.")


def _cannot_eat(m: re.Match[str], speaker: str) -> Built:
    food = _cut(m.group("v"))
    if not food:
        return None
    content = f"The user can't {m.group('verb').lower()} {food}."
    return PatternMatch("preference", content, (Facet("", f"no {food}", content, negative=True),))


def _reminder(m: re.Match[str], speaker: str) -> Built:
    """ "Remind me to call the dentist on Monday": the assistant's commitment, with its deadline."""
    task, deadline = split_deadline(m.group("task"))
    task = _tidy(task)
    if len(task) < 3:
        return None
    content = f"The assistant will remind the user to {third_person(task, 'user')}{_by(deadline)}."
    return PatternMatch("commitment", content, task=f"remind the user to {task}", deadline=deadline, owner="assistant")


def _trip(m: re.Match[str], speaker: str) -> Built:
    """ "I'm flying to Lisbon next Friday": a plan, kept as said (a memory, never a belief: plans change)."""
    written = m.group("place")  # the patterns ignore case: a place is capitalised as written
    place = _proper(_cut(written), m.string)
    if not place or place.split()[0].lower() in _NOT_NAMES:
        return None
    said = _tidy(m.string.replace(_cut(written), place, 1))
    we = re.match(r"^we(?:'re| are)\s+", said, _I)
    we_have = re.match(r"^we(?:'ve| have)\s+", said, _I)
    what = (
        f"The user's household is {said[we.end() :]}"
        if we
        else f"The user's household has {said[we_have.end() :]}"
        if we_have
        else told(said)
    )
    return PatternMatch("fact", what.rstrip(".!") + ".") if what else None


def _remember_that(m: re.Match[str], speaker: str) -> Built:
    """ "Remember that my mum's birthday is on 3 June": the fact, as the user's."""
    what = told(_tidy(m.group("what")))
    if not what or len(what.split()) < 3:
        return None
    return PatternMatch("fact", what.rstrip(".!") + ".")


def _eats(m: re.Match[str], speaker: str) -> Built:
    food = _cut(m.group("v"))
    if not food:
        return None
    attribute = "diet" if food.lower() in _DIET_FOODS else ""
    content = f"The user doesn't eat {food}."
    return PatternMatch("preference", content, (Facet(attribute, f"no {food}", content, negative=not attribute),))


def _likes(m: re.Match[str], speaker: str) -> Built:
    verb = re.sub(r"\s+", " ", m.group("verb").lower())
    value = _tidy(m.group("v"))
    alt = _tidy(m.groupdict().get("alt") or "")
    if not value or _PRONOUN_OBJECT.match(value):
        return None
    neg = (m.groupdict().get("neg") or "").strip().lower()
    reversal = bool(_REVERSAL.search(m.string)) or neg == "no longer"
    phrase = f"{value} over {alt}" if alt else value
    if verb == "prefer" and not neg and value.lower() in CHANNELS:  # "I prefer texts to calls": how to reach them
        channel = CHANNELS[value.lower()]
        content = f"The user prefers to be contacted by {channel}."
        return PatternMatch("preference", content, (Facet("contact_channel", channel, content),))
    if neg and reversal:
        content = f"The user no longer {verb}s {value}."
        return PatternMatch("preference", content, (Facet("", value, content, denied=True),))
    if neg:
        content = f"The user doesn't {verb} {value}."
        return PatternMatch("preference", content, (Facet("", value, content, negative=True),))
    content = f"The user {_VERB3.get(verb, verb)} {phrase}."
    negative = verb not in {"prefer", "like", "love", "enjoy", "adore"}
    return PatternMatch("preference", content, (Facet("", value, content, negative=negative),))


def _rather(m: re.Match[str], speaker: str) -> Built:
    value, alt = _tidy(m.group("v")), _tidy(m.groupdict().get("alt") or "")
    if not value or _PRONOUN_OBJECT.match(value):
        return None
    content = f"The user would rather {third_person(value, 'user')}" + (f" than {alt}" if alt else "") + "."
    negative = value.lower().startswith("not ")
    return PatternMatch("preference", content, (Facet("", value, content, negative=negative),))


def _favourite(m: re.Match[str], speaker: str) -> Built:
    topic, value = _tidy(m.group("topic")).lower(), _cut(m.group("v"))
    if not value or _PRONOUN_OBJECT.match(value):
        return None
    attribute = {"programming language": "language", "language": "language", "drink": "drink", "editor": "editor",
                 "database": "database", "db": "database", "os": "os", "cloud": "cloud"}.get(topic)  # fmt: skip
    content = f"The user's favourite {topic} is {value}."
    return PatternMatch("preference", content, (Facet(attribute or f"favourite_{_slugish(topic)}", value, content),))


def _uses(m: re.Match[str], speaker: str) -> Built:
    value = _cut(m.group("v"))
    known = [w for w in re.findall(r"[a-z0-9+#-]+", value.lower()) if w in TOPIC_OF]
    if not value or not known:
        return None  # "I use a lot of sticky notes" is not worth a belief
    verb = m.group("verb").lower()
    content = f"The user {'switched to' if 'switch' in verb or 'moved' in verb else 'uses'} {value}."
    return PatternMatch("preference", content, (Facet("", value, content),))


def _channel(m: re.Match[str], speaker: str) -> Built:
    """ "Text me rather than calling": how the user wants to be reached."""
    said = m.group("v").lower()
    channel = {"e-mail": "email", "message": "messages"}.get(said) or CHANNELS.get(said, said)
    content = f"The user prefers to be contacted by {channel}."
    return PatternMatch("preference", content, (Facet("contact_channel", channel, content),))


_ROUTINE_VERBS = {"order", "watch", "play", "go", "walk", "cook", "eat", "visit", "call", "swim", "run", "cycle",
                  "hike", "bake", "clean", "shop", "meet", "host", "volunteer", "attend", "do", "take",
                  "have"}  # fmt: skip
_HOUSEHOLD_VERBS = {"just adopted": "just adopted", "took in": "took in", "adopted": "adopted", "rescued": "rescued",
                    "have": "has", "got": "has", "own": "owns", "keep": "keeps", "rent": "rents", "live in": "lives in",
                    "live on": "lives on",
                    "bought": "bought", "just bought": "just bought", "'ve got": "has", "have got": "has"}  # fmt: skip


_OWNING = {"have", "got", "'ve got", "have got", "own", "adopted", "rescued", "just adopted", "took in"}
_NOT_KEPT = re.compile(r"^(?:the|each|in|it|things|going|busy|trying|our|an eye|up|on|track|quiet|calm|faith)\b", _I)
_NOT_OWNED = re.compile(
    r"^(?:an?\s+|some\s+|regular\s+)*(?:blast|ball|laugh|time|chat|look|go|try|think|word|break|rest|party|parties|"
    r"meeting|meetings|event|events|talk|feeling|dream|plan|plans|idea|lot|bit|great|good|lovely|fun)\b",
    _I,
)
_COUNTED = re.compile(r"^(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|twin)\s", _I)


def _household(m: re.Match[str], speaker: str) -> Built:
    """ "We have a Ford Focus": the user's household, said as "we"."""
    verb = re.sub(r"\s+", " ", m.group("verb").lower())
    what = _tidy(m.group("v"))
    if len(what.split()) < 2 or _PRONOUN_OBJECT.match(what):
        return None
    if verb in _OWNING and not (_COUNTED.match(what) or re.search(r"\bevery\b", what, _I)):
        return None  # "we've got the right attitude": things counted ("a pup", "two cats") or a routine
    if verb in _OWNING and _NOT_OWNED.search(what):
        return None  # "we have a blast together", "we have regular meetings": no thing kept
    if verb == "keep" and _NOT_KEPT.match(what):
        return None  # "we keep bees" is owning; "we keep each other going" is not
    return PatternMatch("fact", f"The user's household {_HOUSEHOLD_VERBS.get(verb, verb)} {what}.")


def _best_time(m: re.Match[str], speaker: str) -> Built:
    """ "Mornings are best for calls" → contacted in the mornings."""
    word = m.group("v").lower()
    when = {"weekends": "at weekends", "weekdays": "on weekdays"}.get(word, f"in the {word}")
    content = f"The user prefers to be contacted {when}."
    return PatternMatch("preference", content, (Facet("contact_time", when, content),))


def _partner(m: re.Match[str], speaker: str) -> Built:
    name = _cut(m.group("name"))
    return _fact("family:partner", name, f"The user's partner is called {name}.") if _is_name(name) else None


def _contact(m: re.Match[str], speaker: str) -> Built:
    when = _tidy(re.sub(r"\s+(?:pls|please)\b.*$", "", m.group("v").split(",")[0], flags=_I))
    if not re.search(
        r"\b(?:morning|afternoon|evening|night|weekend|weekday|before|after|between|am|pm|during|hours|lunch|\d)",
        when,
        _I,
    ):
        return None
    neg = bool((m.groupdict().get("neg") or "").strip())
    content = f"The user {'does not want' if neg else 'prefers'} to be contacted {when}."
    return PatternMatch("preference", content, (Facet("contact_time", f"not {when}" if neg else when, content),))


def _avoids(m: re.Match[str], speaker: str) -> Built:
    """ "I stay away from dairy", "No caffeine after noon for me": a memory; the slot would be a guess
    (an avoided food may be an allergy, a diet or a habit), so no belief."""
    what = _tidy(m.group("v"))
    if not what or _PRONOUN_OBJECT.match(what) or len(what.split()) > 8:
        return None
    return PatternMatch("preference", f"The user avoids {third_person(what, 'user')}.")


def _named_list(m: re.Match[str], speaker: str) -> Built:
    """ "Our kids are called Finn and Rosie": one memory naming them all (no single slot holds two)."""
    names = re.split(r",\s*(?:and\s+)?|\s+and\s+", m.group("names"))
    if not names or not all(_is_name(n) for n in names):
        return None
    rel = m.group("rel").lower()
    rel = {"kids": "children"}.get(rel, rel)
    return PatternMatch("fact", f"The user's {rel} are called {', '.join(names[:-1])} and {names[-1]}.")


_TRIP_PLACE = re.compile(
    r"^\s*(?:(?:a|an|two|three|four|five|six|ten|\d+|the|our|my|last|this)\s+)?(?:[\w-]+\s+){0,3}?"
    r"(?:(?:to|in|around|through|across|from|at|round|down|of)\s+)(?:the\s+)?(?P<place>[A-Z][\w-]*)"
)
_TRIP_PLACE_CHAT = re.compile(_TRIP_PLACE.pattern.replace("[A-Z]", "[a-z]"))


def _trip_past(m: re.Match[str], speaker: str) -> Built:
    """ "We spent two weeks in Thailand in March": a trip, kept as said (a memory, never a belief)."""
    rest = m.group("rest")
    chat = re.sub(r"\bI(?=\b|')", "i", m.string)
    place = _TRIP_PLACE.match(rest) or (_TRIP_PLACE_CHAT.match(rest) if chat == chat.lower() else None)
    if not place or place.group("place").lower() in _NOT_NAMES | _NOT_PLACES or len(rest.split()) > 20:
        return None
    verb = m.group("verb").lower()
    if verb in {"had", "did"} and not re.search(
        r"\b(?:holiday|trip|week|weekend|fortnight|days|break|tour|cruise)\b", rest, _I
    ):
        return None  # "I had lunch in Soho" is no trip
    if m.group("who").lower() == "we":
        verb = {"were": "was"}.get(verb, verb)
        return PatternMatch(
            "fact",
            f"The user's household {verb}{third_person(_tidy(rest), 'user')}.".replace(
                f"household {verb}", f"household {verb} "
            ).replace("  ", " "),
        )
    said = told(_tidy(m.string))
    return PatternMatch("fact", said.rstrip(".!") + ".") if said else None


def _self_state(m: re.Match[str], speaker: str) -> Built:
    """ "I'm asthmatic", "I'm self-employed": what the user is, kept as said (a memory, no belief)."""
    rest = re.sub(r"\bour\b", "their", third_person(m.group("rest"), "user"))
    return PatternMatch("fact", f"The user is {m.group('v').lower()}{rest}.")


def _condition(m: re.Match[str], speaker: str) -> Built:
    """ "I suffer from migraines", "I live with chronic back pain": a condition of the user's."""
    verb = {
        "have had": "has had",
        "'ve had": "has had",
        "have": "has",
        "'ve got": "has",
        "have got": "has",
        "got": "has",
    }.get(m.group("verb").lower(), m.group("verb").lower())
    verb = verb.replace("suffer", "suffers").replace("live with", "lives with").replace("struggle", "struggles")
    return PatternMatch("fact", f"The user {verb.replace('deal with', 'deals with')} {_tidy(m.group('v'))}.")


def _vehicle(m: re.Match[str], speaker: str) -> Built:
    """ "Our car is a Kia Sportage": the household's vehicle (a memory)."""
    return PatternMatch("fact", f"The user's {m.group('what').lower()} is {_article(_tidy(m.group('v')))}.")


def _home_is(m: re.Match[str], speaker: str) -> Built:
    """ "Our house is a Victorian terrace": what the user's home is."""
    return PatternMatch("fact", f"The user's home is {_article(_tidy(m.group('v')))}.")


def _pets_kept(m: re.Match[str], speaker: str) -> Built:
    """ "We have rescue rabbits": animals the user keeps, counted or not (a memory; the count is a guess)."""
    said = told(_tidy(m.string))  # "I have two cats, Tom and Jerry": the names with them
    if said and not m.string.lower().startswith("we"):
        return PatternMatch("fact", said.rstrip(".!") + ".")
    what = _tidy(m.group("v"))
    return PatternMatch("fact", f"The user {'keeps' if m.group('verb').lower() == 'keep' else 'has'} {what}.")


_HOBBY_VERBS = (
    "knit|crochet|sew|quilt|paint|draw|sketch|sing|dance|swim|run|jog|cycle|climb|boulder|surf|ski|snowboard|bake|"
    "cook|garden|fish|freelance|write|skate|row|box|golf|meditate|hike|sail|kayak|juggle|game|volunteer|teach|"
    "tutor|commute|cycle|drive|vlog|blog|stream"
)


def _takes(m: re.Match[str], speaker: str) -> Built:
    """ "I take sertraline in the mornings": what the user takes (a memory)."""
    what = _tidy(m.group("v"))
    if (
        not what
        or _PRONOUN_OBJECT.match(what)
        or re.match(
            r"^(?:a|the)\s+(?:look|while|break|minute|second|"
            r"moment)\b",
            what,
        )
    ):
        return None
    return PatternMatch("fact", f"The user takes {third_person(what, 'user')}.")


def _work_pattern(m: re.Match[str], speaker: str) -> Built:
    """ "I only work Thursdays and Fridays": when and how the user works."""
    return PatternMatch("fact", f"The user works {third_person(_tidy(m.group('v')), 'user')}.")


def _has_relative(m: re.Match[str], speaker: str) -> Built:
    """ "I've got a stepson who lives with us half the week": the relative, without the clause leaning on "us"."""
    return PatternMatch("fact", f"The user has {_tidy(m.group('v'))}.")


def _named_birthday(m: re.Match[str], speaker: str) -> Built:
    """ "Leo turns seven on 22 May": someone named, whose birthday it is (a memory: whose Leo is is unsaid)."""
    name, when = m.group("name"), _cut(m.group("v"))
    if not _is_name(name) or not re.search(r"\d", when):
        return None
    return PatternMatch("fact", f"{name}'s birthday is {when}.")


def _one_verb(m: re.Match[str], speaker: str) -> Built:
    """ "I knit.", "I freelance.": what the user does, said in two words."""
    verb = m.group("v").lower()
    return PatternMatch("fact", f"The user {verb}{'es' if verb.endswith(('sh', 'ch', 'x', 'o')) else 's'}.")


def _we_routine(m: re.Match[str], speaker: str) -> Built:
    """ "We order takeaway on Fridays": the household's routine."""
    verb = m.group("verb").lower()
    verb = "has" if verb == "have" else verb + ("es" if verb.endswith(("sh", "ch", "x", "o")) else "s")
    return PatternMatch("fact", f"The user's household {verb} {third_person(_tidy(m.group('v')), 'user')}.")


_ALL, _USER, _ASSISTANT = ("user", "assistant"), ("user",), ("assistant",)
_PATTERNS: tuple[tuple[re.Pattern[str], Builder, tuple[str, ...]], ...] = tuple(
    (re.compile(pattern, _I), builder, speakers)
    for pattern, builder, speakers in (
        # decisions (before commitments: "I've decided to ..." is not a promise)
        (r"^(?P<who>we|i)(?:'ve| have)?\s+(?:finally\s+|just\s+)?(?:decided|agreed|chose|settled|committed)\s+"
         r"(?:to |on |that (?:we|i)(?:'ll| will| should| are going to)? )?(?P<what>.+)", _decision, _ALL),
        (r"^(?:the |our |my )?(?:final )?decision(?: is|:)\s*(?:to |that we(?:'ll| will)? )?(?P<what>.+)", _decision,
         _ALL),
        (r"^let's\s+(?P<what>(?:go with|go for|use|switch to|stick with|move to|migrate to|adopt|pick|choose|keep|"
         r"drop|ship|do)\b.+)", _decision, _ALL),
        (r"^we(?:'ll| will| are going to|'re going to|'re| are| have to| should)\s+(?P<what>(?:go with|going with|"
         r"use|using|switch to|switching to|stick with|sticking with|move to|moving to|migrate to|migrating to|"
         r"adopt|pick|choose|ship)\b.+)", _decision, _ALL),
        # opinions the assistant gives
        (r"^i(?:'d| would)?\s+(?:strongly\s+|really\s+)?(?P<verb>recommend|suggest|advise|propose)(?:\s+that)?\s+"
         r"(?P<what>.+)", _opinion, _ASSISTANT),
        (r"^i(?:'d| would)\s+(?P<verb>go with|pick|use|choose)\s+(?P<what>.+)", _opinion, _ASSISTANT),
        (r"^(?:i think|i believe|i feel|in my (?:opinion|view|experience)|my (?:advice|recommendation|suggestion|"
         r"take|view) (?:is|would be)|personally)[,:]?\s+(?:that\s+)?(?P<what>.+)", _opinion, _ASSISTANT),
        (r"^(?P<what>you (?:should|ought to|might want to)\s+.+)", _opinion, _ASSISTANT),
        # commitments, either speaker
        (r"^(?P<lead>i(?:'ll| will| shall)|i(?:'m| am) going to|i promise(?: to| that i(?:'ll| will)| i(?:'ll| will))?"
         r"|i commit to|let me|i (?:need|have) to)\s+(?:definitely\s+|also\s+|just\s+)?(?P<task>.+)", _commitment,
         _ALL),
        # facts about the user
        (r"^(?:my name is|(?:(?:you can|please|pls|just|simply)\s+)*call me|i'm called|i am called)"
         r"\s+(?P<v>[A-Z][\w-]*(?: [A-Z][\w-]*)?)", _name, _USER),
        (r"^i(?: still)?\s+" + _NEG + r"(?:currently\s+)?(?:live|reside|stay)\s+in\s+(?P<v>.+)", _lives, _USER),
        (r"^(?:i(?:'m| am)|we(?:'re| are))\s+" + _NEG + r"(?:currently\s+|now\s+)?(?:based|living|located|settled)\s+"
         r"(?:in|just outside|outside|near)\s+(?P<v>.+)", _lives, _USER),
        (r"^(?:i'm|i am|we're|we are)\s+(?:now\s+)?(?:in|living in)\s+(?P<v>[A-Z][\w-]*(?: [A-Z][\w-]*)*)\s+now$",
         _lives, _USER),
        (r"^(?:i|we)(?:'ve| have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)\s+(?:house\s+|back\s+)?"
         r"(?:from\s+[A-Z][\w-]*(?: [A-Z][\w-]*)*\s+)?to\s+(?P<v>[A-Z].+)", _lives, _USER),
        (r"^(?:i|we)(?:'ve| have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:settled)\s+(?:down\s+)?in\s+(?P<v>[A-Z].+)",
         _lives, _USER),
        (r"^i\s+(?:now\s+|currently\s+)?" + _NEG + r"(?:work|am working|'m working)\s+(?:at|for)\s+(?P<org>.+?)"
         r"(?:\s+as\s+(?P<job>.+))?$", _works, _USER),
        (r"^i(?:'ve| have)?\s+(?:just\s+)?(?:started|got|taken|landed)\s+(?:a\s+)?(?:new\s+)?(?:job|role|position)\s+"
         r"(?:at|with)\s+(?P<org>[A-Z].+?)(?:\s+as\s+(?P<job>.+))?$", _works, _USER),
        (r"^i(?:'ve| have)?\s+(?P<neg>left|quit)\s+(?P<org>[A-Z][\w&-]*(?: [A-Z][\w&-]*)*)$", _works, _USER),
        (r"^i\s+" + _NEG + r"work\s+(?:in\s+[\w&' -]{2,25}?\s+)?as\s+(?P<job>.+?)(?:\s+(?:at|for)\s+(?P<org>.+))?$",
         _works, _USER),
        (r"^i(?:'ve| have)?\s+(?:just\s+)?(?:joined|started at|got a job at)\s+(?P<org>[A-Z].+)", _works, _USER),
        (r"^i(?:'m| am)\s+(?:now\s+)?" + _NEG + r"(?:a|an)\s+(?P<job>[a-z][\w-]*"
         r"(?: (?!at\b|for\b|in\b|and\b|with\b)[a-z][\w-]*){0,2})"
         r"(?:\s+(?:at|for)\s+(?P<org>.+))?(?:[\s,]|$)", _job, _USER),
        (r"^(?:my|our)\s+(?P<rel>" + _RELATIONS + "|" + _PETS + r")(?:'s name is| is called| is named| name is|"
         r"'s called|"
         r"'s named| is)\s+"
         r"(?P<name>[A-Z][\w-]*)",
         _family, _USER),
        (r"^i have an?\s+(?:(?:twin|older|younger|big|little|baby|step|half)\s+)?(?P<rel>" + _RELATIONS + r")\s+"
         r"(?:called|named)\s+(?P<name>[A-Z][\w-]*)", _family, _USER),
        (r"^my\s+(?P<rel>friend|best friend|mate|best mate|colleague|neighbour|neighbor|flatmate)"
         r"(?:'s name is| is called| is named)\s+(?P<name>[A-Z][\w-]*)", _family, _USER),
        (r"^(?:my|our)\s+(?P<rel>" + _RELATIONS + "|" + _PETS + r")\s+(?P<name>[A-Z][a-z][\w-]*)"
         r"\s+(?:is|was|has|lives|works|just|will|and|(?-i:[a-z][a-z']+))\b", _family_named, _USER),
        (r"^my\s+(?P<rel>" + _OTHERS + r")(?:\s+(?P<name>[A-Z][a-z][\w-]*))?\s+(?P<rest>(?:is|'s|was|works|lives|"
         r"runs|teaches|has|owns|drives|studies|plays|loves|likes|hates|does|just|became|turned|retired|"
         r"recommended|introduced|helped|invited|gave|taught|"
         r"passed away|died)\b.+)", _relative, _USER),
        (r"^i have an?\s+(?P<kind>(?:[a-z]+\s+){0,2}(?P<pet>" + _PETS + r"))"
         r"\s+(?:called|named)\s+(?P<name>[A-Z][\w-]*)", _pet, _USER),
        (r"^i(?:'m| am)\s+(?:originally\s+)?from\s+(?P<v>[A-Z].+)", _simple_fact("hometown", "The user is from {}."),
         _USER),
        (r"^i(?:'m| am)\s+(?P<v>\d{1,3})(?:\s+(?:years old|years of age|yo|y/o))?$", _age, _USER),
        (r"^(?:no,?\s+|actually,?\s+)*(?:it's|it is|i'm|i am|my name is|my name's)\s+(?P<v>[A-Z][\w-]*),?\s+not\s+"
         r"(?P<old>[A-Z][\w-]*)$", _name_correction, _USER),
        (r"^(?:i|we)(?:'ve| have)?\s+(?:now\s+)?(?:have|got)\s+(?:got\s+)?(?P<n>no|one|two|three|four|five|six|seven|"
         r"eight|nine|ten|\d{1,2})\s+(?P<what>kids|children|cars|dogs|cats|bikes|grandchildren|grandkids)"
         r"(?:\s+now)?$", _count, _USER),
        (r"^i(?:'m| am)\s+(?P<v>\d{1,3})\s+(?:years old|yo)\b", _simple_fact("age", "The user is {} years old."),
         _USER),
        (r"^my birthday is\s+(?:on\s+)?(?P<v>.+)", _dated("birthday", "The user's birthday is {v}."), _USER),
        (r"^i(?:'m| am)\s+(?P<neg>not\s+)?(?:severely\s+|very\s+)?allergic to\s+(?P<v>.+)", _allergy, _USER),
        (r"^i(?:'m| am)\s+(?:an?\s+)?(?P<half>half\s+)?(?P<v>" + _DEMONYMS + r")(?:\s+citizen)?\b"
         r"(?:\s*(?:,|and|/)\s*(?P<half2>half\s+)?(?P<w>" + _DEMONYMS + r")\b)?", _nationality,
         _USER),
        (r"^i(?:'ve| have)?\s+(?:became|become)\s+an?\s+(?P<v>" + _DEMONYMS + r")\s+citizen\b", _nationality, _USER),
        (r"^i(?:'m| am)\s+" + _NEG + r"(?:recently\s+|now\s+)?(?P<v>" + _STATUS + r")\b(?!\s+to\s)", _status, _USER),
        (r"^(?:(?:please\s+)?(?:i\s+)?(?:go by|use|prefer|stick to|call me|refer to me as|refer to me with|"
         r"refer to me using)\s+|"
         r"my pronouns are\s+|pronouns(?: are)?:?\s+)?"
         r"(?P<v>(?:she|he|they|ze|xe)\s*/"
         r"\s*(?:her|hers|him|his|them|they|she|he|zir|hir|xem))\b", _pronouns, _USER),
        (r"^(?:i\s+was\s+)?born\s+(?:on\s+)?(?:the\s+)?(?P<v>\d.+)", _dated("birthday", "The user was born on {v}."),
         _USER),
        (r"^(?:my|our)\s+(?P<rel>" + _OTHERS + r")(?:'s|s)\s+(?:birthday|bday)\s+is\s+(?:on\s+)?(?:the\s+)?(?P<v>.+)",
         _dated("birthday", "The user's {rel}'s birthday is {v}."), _USER),
        (r"^(?:our|my)\s+(?:wedding\s+)?anniversary\s+is\s+(?:on\s+)?(?:the\s+)?(?P<v>.+)",
         _dated("anniversary", "The user's wedding anniversary is {v}."), _USER),
        (r"^we\s+got\s+married\s+(?:on\s+)?(?:the\s+)?(?P<v>.+)",
         _dated("anniversary", "The user got married on {v}."), _USER),
        (r"^(?:i|we)\s+(?:now\s+)?" + _NEG + r"(?:live|reside)\s+(?:in|just outside|outside|near)\s+(?P<v>.+)", _lives,
         _USER),
        (r"^(?P<v>[A-Z][\w-]*(?: [A-Z][\w-]*)*) is where i live$", _lives, _USER),
        (r"^i\s+grew\s+up\s+in\s+(?P<v>[A-Z].+)", _simple_fact("hometown", "The user grew up in {}."), _USER),
        (r"^(?:i\s+was\s+)?born\s+(?:and\s+(?:raised|bred)\s+)?in\s+(?P<v>[A-Z].+)",
         _simple_fact("hometown", "The user was born in {}."), _USER),
        (r"^my\s+(?:company|employer)\s+is\s+(?P<org>[A-Z].+)", _works, _USER),
        (r"^i(?:'m| am)\s+(?:on|in)\s+the\s+[\w -]{2,30}?\s+team\s+at\s+(?P<org>[A-Z].+)", _works, _USER),
        (r"^(?:i(?:'m| am)\s+)?(?:strict\s+|lifelong\s+)?(?P<v>" + _DIET + r")\s+here\b", _diet, _USER),
        (r"^i\s+only\s+eat\s+(?P<v>" + _DIET + r")\b", _diet, _USER),
        (r"^we(?:'re| are)\s+(?:all\s+)?(?:an?\s+)?(?P<v>" + _DIET + r")\b", _diet, _USER),
        (r"^(?:our|my)\s+(?:household|family|home)\s+is\s+(?:fully\s+|completely\s+|all\s+|strictly\s+)?"
         r"(?P<v>" + _DIET + r")\b", _diet, _USER),
        (r"^i\s+(?:don't|do not)\s+(?P<verb>have|own)\s+(?P<v>an?\s+(?:car|bike|tv|telly|smartphone|pet|dog|cat))\b",
         lambda m, s: PatternMatch("fact", f"The user doesn't {m.group('verb').lower()} {m.group('v').lower()}."),
         _USER),
        (r"^(?:my|our)\s+(?:family\s+)?(?P<pet>dog|cat|horse|rabbit|pony)\s+is\s+an?\s+(?P<v>(?:[\w-]+\s+){0,2}?"
         r"(?:" + _PETS + r"))$", lambda m, s: PatternMatch("fact", f"The user's {m.group('pet').lower()} is "
                                                              f"{_article(m.group('v').lower())}."), _USER),
        (r"^i(?:'m| am)?\s+(?:follow|following|on|eat|do)\s+(?:an?\s+)?(?:strict\s+)?(?P<v>" + _DIET + r")\s+"
         r"diet\b", _diet, _USER),
        (r"^i(?:'ve| have)\s+been\s+(?:a\s+)?(?P<v>" + _DIET + r")\b", _diet, _USER),
        (r"^(?:i(?:'m| am)\s+)?(?:trying|working|aiming|hoping|planning|determined|desperate|keen|striving|"
         r"saving up)\s+(?:to|towards)\s+(?P<v>.+)", _goal, _USER),
        (r"^i\s+(?:want|plan|hope|aim|intend)\s+to\s+(?P<v>.+)", _goal, _USER),
        (r"^(?:i'd|i would)\s+like\s+to\s+(?P<v>.+)", _goal, _USER),
        (r"^(?:my|the)\s+(?:goal|plan|aim)\s+is\s+to\s+(?P<v>.+)", _goal, _USER),
        (r"^(?:this (?:week|weekend|month|morning|afternoon|evening)|tonight|today|for now|at the moment|"
         r"until [\w ]{2,30}?)[,\s]+i(?:'m| am)\s+.+", _temporary, _USER),
        (r"^we(?:'ve| have)?\s+(?P<verb>have got|'ve got|got|have|own|keep|rent|live in|live on|just bought|bought|"
         r"adopted|rescued|just adopted|took in)\s+"
         r"(?P<v>.+)", _household, _USER),
        (r"^(?:i|we)\s+(?P<verb>have|keep|own)\s+(?P<v>(?:(?:an?|two|three|four|five|six|\d+|some|several|a few|"
         r"lots of)\s+)?(?:[\w-]+\s+){0,2}?(?:" + _PETS + r")s?)\b", _pets_kept, _USER),
        (r"^(?P<rel>mum|mom|dad|mam|nan|grandma|grandpa)(?:'s name is| is called| is named)\s+(?P<name>[A-Z][\w-]*)",
         _family, _USER),
        (r"^(?:my\s+)?(?P<rel>mum|mom|dad|mother|father|" + _OTHERS + r")\s+was\s+born\s+on\s+(?:the\s+)?(?P<v>.+)",
         _dated("birthday", "The user's {rel} was born on {v}."), _USER),
        (r"^i(?:'m| am)\s+(?:engaged|married)\s+to\s+(?:an?\s+[\w ]+?\s+(?:named|called)\s+)?(?P<name>[A-Z][\w-]*)",
         _partner, _USER),
        (r"^(?:my|our)\s+(?P<rel>kids|children|sons|daughters|boys|girls|twins|cats|dogs|pets|rabbits)\s+are\s+"
         r"(?:called\s+|named\s+)?(?P<names>[A-Z][a-z]+(?:,\s*[A-Z][a-z]+)*,?\s+and\s+[A-Z][a-z]+)$", _named_list,
         _USER),
        (r"^(?P<who>i|we)\s+(?:just\s+|recently\s+|finally\s+)?(?P<verb>went|flew|travelled|traveled|drove|got back|"
         r"came back|returned|spent|had|were|was|visited|toured|backpacked|stayed|did)\b(?P<rest>.+)", _trip_past,
         _USER),
        (r"^(?:i(?:'m| am)|we(?:'re| are))\s+(?:going|flying|travelling|traveling|heading|off)\s+(?:on\s+)?"
         r"(?:(?:a|an|our|my)\s+)?(?:[\w-]+\s+)?(?:holiday|trip|vacation|break|honeymoon|cruise|getaway)\s+"
         r"(?:to|in|around)\s+(?P<place>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)\b", _trip, _USER),
        (r"^(?:i|we)(?:'ve| have)?\s+(?:just\s+)?(?:booked|planned|got)\s+(?:a|an|our|my)\s+(?:[\w-]+\s+)?"
         r"(?:holiday|trip|vacation|break|honeymoon|cruise|getaway|flights?|week|weekend)\s+(?:to|in|around)\s+"
         r"(?P<place>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)\b", _trip, _USER),
        (r"^(?:i|we)(?:'re| are|'m| am)?\s+(?:leave|leaving|fly|flying|off)\s+(?:out\s+)?(?:for|to)\s+"
         r"(?P<place>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)\b", _trip, _USER),
        (r"^(?:i(?:'m| am)|we(?:'re| are))\s+(?:doing|taking|going on)\s+(?:a|an)\s+(?:[\w-]+\s+)?(?:cruise|trip|tour|"
         r"road trip|holiday|trek|hike)\s+(?:around|to|through|of|in|across|along)\s+(?:the\s+)?"
         r"(?P<place>[A-Z][\w-]*(?:\s+[\w-]+)*)", _trip, _USER),
        (r"^(?:i(?:'m| am)|we(?:'re| are))\s+visiting\s+(?:(?:my\s+|our\s+)?[\w ]+?\s+in\s+)?"
         r"(?P<place>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)\b", _trip, _USER),
        (r"^(?:i'll|i will|we'll|we will)\s+be\s+in\s+(?P<place>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)\s+"
         r"(?:from|next|on|in|this|for|between|until|over)\b", _trip, _USER),
        (r"^(?:please\s+)?(?:contact|reach) me by (?P<v>" + CHANNEL + r")$", _channel, _USER),
        (r"^i\s+(?:take|am taking|'m taking|inject|have to take|need to take)\s+(?P<v>.+)$", _takes, _USER),
        (r"^my\s+(?:home ?town|"
         r"hometown)\s+is\s+(?P<v>[A-Z].+)", _simple_fact("hometown", "The user is from {}."), _USER),
        (r"^i\s+(?:only\s+|usually\s+|mostly\s+|normally\s+|now\s+)?work\s+(?P<v>(?:on\s+)?(?:mondays|tuesdays|"
         r"wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays|nights|evenings|mornings|lates|earlies|"
         r"shifts|nine to five|9 to 5|from home|remotely|part-time|part time|full-time|full time|flexi-?time|"
         r"[\w-]+ days a week|[\w-]+ hours a week)\b.*)$", _work_pattern, _USER),
        (r"^i(?:'ve| have)?\s+(?:got\s+)?(?P<v>(?:a|an|one|two|three|four|five|\d)\s+(?:[\w-]+\s+)?(?:son|daughter|"
         r"stepson|stepdaughter|child|kid|baby|toddler|teenager|brother|sister|stepbrother|stepsister|half-brother|"
         r"half-sister|twin|grandchild|grandson|granddaughter)s?)\s+(?:who|that|which)\b.*$", _has_relative, _USER),
        (r"^(?P<name>[A-Z][a-z]+)\s+(?:turns|will turn|is turning|'ll turn)\s+[\w-]+\s+on\s+(?:the\s+)?(?P<v>.+)$",
         _named_birthday, _USER),
        (r"^i\s+(?P<v>" + _HOBBY_VERBS + r")$", _one_verb, _USER),
        (r"^we\s+(?:usually\s+|always\s+|often\s+|normally\s+)?(?P<verb>" + "|".join(sorted(_ROUTINE_VERBS)) + r")\s+"
         r"(?P<v>.+?\s+(?:every \w+(?: \w+)?|on (?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays|"
         r"weekends|weekdays)|at weekends|each \w+|(?:once|twice|three times) a \w+))$", _we_routine, _USER),
        (r"^i(?:'m| am)\s+(?:now\s+|currently\s+)?(?P<v>" + SELF_STATES + r")(?P<rest>\b.*)$", _self_state, _USER),
        (r"^i(?:'m| am)\s+(?P<v>an?\s+(?:proud\s+|busy\s+|single\s+|working\s+)?(?:mum|mom|mother|dad|father|parent)"
         r"\s+of\s+(?:[a-z]+|\d+))\b", lambda m, s: PatternMatch("fact", f"The user is {m.group('v')}."), _USER),
        (r"^i\s+(?P<verb>suffer from|live with|have had|'ve had|struggle with|deal with|have|'ve got|have got|got)\s+"
         r"(?P<v>(?:[\w'-]+\s+){0,3}?"
         r"(?:" + CONDITIONS + r"))\b.*$", _condition, _USER),
        (r"^(?:my|our)\s+(?:house|home|place|flat|apartment)\s+is\s+(?:a|an)\s+(?P<v>[\w -]{3,40})$", _home_is, _USER),
        (r"^(?:my|our)\s+(?P<what>car|van|motorbike|motorcycle|bike|scooter|camper|camper van|boat)\s+is\s+(?:an?\s+)?"
         r"(?P<v>(?:[\w-]+\s+){0,2}?[A-Z][\w-]*(?:\s+[\w-]+){0,2})$", _vehicle, _USER),
        (r"^i avoid (?P<v>.+)", _avoids, _USER),
        (r"^i\s+(?:speak|can speak)\s+(?P<v>(?:" + LANGUAGES + r")\b.*)$",
         lambda m, s: PatternMatch("fact", f"The user speaks {_tidy(m.group('v'))}."), _USER),
        # preferences of the user
        (r"^i(?:'m| am)\s+" + _NEG + r"(?:an?\s+)?(?:strict\s+|strictly\s+|mostly\s+|fully\s+)?(?P<v>" + _DIET + r")\b",
         _diet, _USER),
        (r"^i(?:'ve| have)?\s+(?:gone|went|became|become|turned)\s+(?P<v>" + _DIET + r")\b", _diet, _USER),
        (r"^i\s+(?:don't|do not|never|no longer)\s+eat\s+(?P<v>.+)", _eats, _USER),
        (r"^i\s+(?:can't|cannot|can not|am not able to|'m not able to)\s+"
         r"(?P<verb>eat|have|tolerate|digest)\s+(?P<v>.+)", _cannot_eat, _USER),
        (r"^(?:please\s+)?remind me to\s+(?P<task>.+)", _reminder, _USER),
        (r"^(?:i(?:'m| am)|we(?:'re| are))\s+(?:going|flying|travelling|traveling|heading|driving|off)\s+"
         r"(?:back\s+)?to\s+(?P<place>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)\b", _trip, _USER),
        (r"^(?:please\s+)?remember that\s+(?P<what>.+)", _remember_that, _USER),
        (r"^i\s+" + _NEG + r"(?:really\s+|much\s+|definitely\s+|generally\s+|usually\s+|always\s+)?"
         r"(?P<verb>prefer|like|love|enjoy|adore)\s+(?P<v>.+?)(?:\s+(?:over|to|rather than|more than|instead of)\s+"
         r"(?P<alt>.+))?$", _likes, _USER),
        (r"^i\s+(?:really\s+|absolutely\s+|just\s+)?(?P<verb>hate|dislike|detest|loathe|despise|can't stand|"
         r"cannot stand|can't bear|don't care for)\s+(?P<v>.+)", _likes, _USER),
        (r"^i(?:'m| am) (?:not a fan of|not into)\s+(?P<v>.+)", lambda m, s: _likes_as(m, "dislike"), _USER),
        (r"^i(?:'m| am) (?:a (?:big |huge )?fan of|really into|into|keen on|fond of)\s+(?P<v>.+)",
         lambda m, s: _likes_as(m, "like"), _USER),
        (r"^i(?:'d| would)\s+(?:much\s+)?rather\s+(?P<v>.+?)(?:\s+than\s+(?P<alt>.+))?$", _rather, _USER),
        (r"^(?:my\s+)?(?:all-time\s+)?(?:favou?rite|fave)\s+(?P<topic>[\w -]{2,30}?)\s+is\s+(?P<v>.+)", _favourite,
         _USER),
        (r"^i(?:'ve| have)?\s+(?:mostly\s+|usually\s+|always\s+|now\s+|just\s+|mainly\s+)?(?P<verb>use|switched to|"
         r"moved to|code in|write|am using|'m using)\s+(?P<v>.+)", _uses, _USER),
        (r"^(?:please\s+)?(?:only\s+|just\s+)?(?P<v>text|email|e-mail|message|whatsapp) me\b"
         r"(?:\s+(?:rather than|instead of)\b.*)?$",
         _channel, _USER),
        (r"^(?P<v>mornings|evenings|afternoons|weekends|weekdays)\s+(?:are|work)\s+(?:much\s+|usually\s+)?"
         r"(?:the\s+)?(?:best|better|easiest|easier|ideal)\b.*", _best_time, _USER),
        (r"^(?:no\s+)?(?P<neg>calls|texts|messages)\s+(?P<v>(?:after|before)\s+\d.+)", _contact, _USER),
        (r"^(?:please\s+)?(?:only\s+)?(?P<neg>don't |do not |never )?(?:call|contact|reach|ring|text|message|email|"
         r"ping) me\s+"
         r"(?P<v>.+)", _contact, _USER),
    )
)  # fmt: skip


def _likes_as(m: re.Match[str], verb: str) -> Built:
    value = _tidy(m.group("v"))
    if not value or _PRONOUN_OBJECT.match(value):
        return None
    content = f"The user {'dislikes' if verb == 'dislike' else 'likes'} {value}."
    return PatternMatch("preference", content, (Facet("", value, content, negative=verb == "dislike"),))


# In lower-case chat, the word after "my <relative>" and before a verb is taken as a name ("my gf mia are").
_LOWER_MENTION = re.compile(
    r"\b(?P<lead>my\s+(?:" + _RELATIONS + r"|gf|bf|hubby|wifey))\s+(?P<name>(?!(?:and|who|is|are|was|were|has|have|"
    r"just|also|still|always|never|really|now|too|food|friend|friends|the|a|an|to|in|at|on|for)\b)[a-z]{3,12})\s+"
    r"(?=(?:and|are|is|was|were|has|have|just|who|went|got|live|lives|love|loves)\b)"
)
_MENTION = re.compile(
    r"\b(?:my|our)\s+(?P<rel>"
    + _RELATIONS
    + r"|gf|bf|hubby|wifey)(?:\s+|,\s*(?=[A-Z][a-z][\w-]*\s*(?:,|$)))(?P<name>[A-Z][a-z][\w-]*)\b"
)
# "I carry an EpiPen because of my peanut allergy": the user's allergy, said in passing.
_ALLERGY_MENTION = re.compile(
    r"\bmy\s+(?:(?:severe|serious|bad|mild|nasty)\s+)?(?P<x>(?!(?:food|skin|seasonal|big|main|only|worst|biggest|one|"
    r"known|new|real|first|other|latest|usual|own|pet|bad)\b)[a-z]+(?:\s+[a-z]+)?)\s+"
    r"allerg(?:y|ies)\b"
)


def match_clause(clause: str, role: str) -> PatternMatch | None:
    """The first pattern said by ``role`` that matches the clause and builds, with the clause kept."""
    for pattern, builder, speakers in _PATTERNS:
        if role not in speakers:
            continue
        match = pattern.match(clause)
        if not match:
            continue
        built = builder(match, role)
        if built is not None:
            return dataclasses.replace(built, clause=clause)
    return None
