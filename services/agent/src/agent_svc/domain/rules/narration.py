"""A conversation's sentences told in the third person: what a summary says instead of quoting.

Every sentence is told by a narrator who names the speakers: the speaker's own "I", "me", "my" become
the speaker's name the first time (``"I went to a pottery class"`` by Noor → ``"Noor went to a
pottery class"``) and "they", "them", "their" after it; the listener's "you" and "your" become the
listener's name. A sentence that does not start with the speaker is reported (``"Noor said the
class was full"``). The speakers are named by the caller: the names the turns carry (an import
with speakers), else "the user" and "the assistant". The verb after a named singular subject
agrees with it ("I love" → "Noor loves", "I'm" → "Noor is"); a verb in the past or after a modal
stays as it was.

Filler is no part of a summary: greetings, thanks, compliments and cheering ("Wow, love that
painting!", "Thanks, that's really sweet.", "That trip sounds amazing!") are recognised by their
opening, a short sentence ending in praise, or no content word once the words of praise are set
aside.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from agent_svc.domain.rules.text import STOPWORDS, content_words

ROLE_NAMES = {"user": "the user", "assistant": "the assistant"}
_I = re.IGNORECASE

# Words that praise, cheer or thank: not content in a summary.
_PRAISE = frozenset(
    """love loved loving like awesome amazing great nice cool wonderful beautiful lovely glad happy proud sweet
    sounds sound fun wow good incredible fantastic inspiring super totally agree hear see right true exactly
    sorry hope wish luck care enjoy bet guess mean think feel feeling thing things stuff pretty cute brilliant
    congrats congratulations kind thank thanks appreciate appreciated means meant glad blast awesome impressive
    talented strong brave guts rock rocks admire admirable heartwarming touching fab fabulous gorgeous stunning
    excited exciting cheers keep tell telling share sharing chatting chat talk talking catch glad hearing""".split()
)
_FILLER_OPENING = re.compile(
    r"^(?:thanks|thank you|thx|ty\b|hi\b|hello|hey\b|bye|goodbye|see you|take care|good luck|congrat|"
    r"wow|aw+\b|omg|lol|haha|that'?s (?:so |really |very |super |totally )?(?:cool|great|awesome|amazing|nice|sweet|"
    r"kind|lovely|wonderful|fantastic|incredible|inspiring|beautiful|impressive|good|true|fair)|"
    r"sounds (?:so |really )?(?:great|fun|good|amazing|awesome|lovely|cool)|good to (?:see|hear)|glad to hear|"
    r"so (?:cool|great|glad|happy)|i'?m (?:so |really )?(?:glad|happy|proud) (?:for|of) you|you'?(?:ve| have) got|"
    r"you'?re (?:so|such|really|a)|keep (?:it up|going|up)|love (?:that|it|this|you)|you (?:rock|got this)|"
    r"no worries|no problem|you'?re welcome|my pleasure|anytime)",
    _I,
)
# Openers a retelling drops: interjections, discourse markers, a vocative before a comma.
_OPENER = re.compile(
    r"^(?:(?:yeah|yes|yep|yup|no|nope|wow|oh|ooh|ah|aw+|hey|hi|well|so|ok|okay|haha|hmm|um|honestly|actually|"
    r"anyway|anyways|right|sure|totally|absolutely|definitely|indeed|true|btw|by the way|"
    r"thanks|thank you)\b[\s,!.:;-]*|(?:noted|got it|gotcha|understood|great|perfect|cool|awesome|nice|lovely|amazing|"
    r"sure thing|of course|alright|all right|fair enough|no worries)[,!.]+\s*)+",
    _I,
)
_ADVERBS = frozenset(
    """just really also still always never actually even finally already recently usually often sometimes
    definitely totally honestly truly only now then too sort kind absolutely mostly probably certainly
    currently seriously generally""".split()
)
_UNCHANGED = frozenset(
    """can could will would should might must may shall can't couldn't won't wouldn't shouldn't mustn't didn't
    did was wasn't had hadn't used need""".split()
)
_IRREGULAR_PAST = frozenset(
    """went was were had did made took got saw felt found thought told said came knew gave kept left met ran
    bought brought began wrote heard sent spent built lost won taught caught drove flew fell forgot grew held
    hung led lent let lit meant paid put quit rode rose sang sat slept sold shot shut sang stood stole stuck
    swam threw understood woke wore became chose drew ate forgave hid hurt bit broke""".split()
)
_SINGULAR = {
    "am": "is",
    "are": "is",
    "have": "has",
    "do": "does",
    "go": "goes",
    "don't": "doesn't",
    "haven't": "hasn't",
    "aren't": "isn't",
    "were": "was",
    "weren't": "wasn't",
}
_PLURAL = {"am": "are", "was": "were", "wasn't": "weren't", "is": "are", "has": "have", "does": "do"}
# Words after which "you" starts a clause (its subject), not a verb's object.
_CLAUSE_START = frozenset(
    """and but so because if when that as since while though although cause think hope know guess bet said
    unless until once whether where how why what""".split()
)
_LETS = re.compile(r"^let'?s\s+", _I)
_PRAISED = re.compile(
    r"\b(?:sounds|looks|seems|is|was) (?:so |really |very |super |totally )?(?:great|fun|amazing|awesome|lovely|cool|"
    r"good|nice|wonderful|fantastic|incredible|beautiful|inspiring|impressive)\b(?:,\s*\w+)?[.!]*$",
    _I,
)
_CONTRACTED = {"'m": "am", "'ve": "have", "'ll": "will", "'d": "would", "'re": "are"}
_TOKEN = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|[^A-Za-z]+")


def is_filler(sentence: str) -> bool:
    """A greeting, thanks, compliment or cheer: nothing a summary should tell."""
    text = _OPENER.sub("", sentence.strip()).strip()
    if not text or _FILLER_OPENING.match(sentence.strip()) or _FILLER_OPENING.match(text):
        return True
    if _PRAISED.search(text) and len(text.split()) <= 8:
        return True
    return not [w for w in content_words(text) if w not in _PRAISE]


def tellable(sentence: str, is_question: bool) -> bool:
    """Whether a summary may tell ``sentence``: a statement, no filler, with two content words or,
    said of oneself ("I'm vegetarian", "My sister is a nurse"), one."""
    if is_question or is_filler(sentence):
        return False
    words = content_words(sentence)
    return len(words) >= 2 or (len(words) == 1 and bool(_OF_ONESELF.match(_OPENER.sub("", sentence.strip()))))


_OF_ONESELF = re.compile(r"^(?:i|i'm|i've|i'll|i'd|my|we|we're|our)\b", _I)


def speaker_names(turns: Sequence[tuple[str, str, str]]) -> dict[str, str]:
    """Each role's name from (role, text, speaker) turns: the first name the turns give it."""
    names: dict[str, str] = {}
    for role, _, speaker in turns:
        if speaker.strip() and role not in names:
            names[role] = speaker.strip()
    return names


def named(role: str, names: Mapping[str, str]) -> str:
    return names.get(role) or ROLE_NAMES.get(role, role)


def third_person(sentence: str, speaker: str, listener: str) -> str:
    """``sentence`` said by ``speaker`` to ``listener``, told by a narrator (names as given:
    "the user" stays lower case inside a sentence, a sentence's first letter is raised)."""
    text = _OPENER.sub("", " ".join(sentence.split())).strip()
    text = _strip_vocatives(text, speaker, listener)
    if not text:
        return ""
    suggested = bool(_LETS.match(text))
    if suggested:
        text = _LETS.sub("", text)
    tokens = _TOKEN.findall(text)
    out: list[str] = []
    self_named = listener_named = False
    starts_with_self = False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        low = token.lower().replace("’", "'")
        first_word = not any(t.strip() and t[0].isalpha() for t in out)
        if low in ("i", "i'm", "i've", "i'll", "i'd"):
            after_and = next((t.lower() for t in reversed(out) if t.strip()), "") == "and"
            subject = speaker if not self_named or after_and else "they"
            if first_word:
                starts_with_self = True
            verb = _CONTRACTED.get(low[1:], "") if "'" in low else ""
            if verb:
                out.append(f"{subject} {_agree(verb, subject)}")
            else:
                out.append(subject)
                i = _agree_next(tokens, i + 1, out, subject)
                self_named = True
                continue
            self_named = True
        elif low in ("me", "myself"):
            out.append(("them" if low == "me" else "themselves") if self_named else speaker)
            self_named = True
        elif low in ("my", "mine"):
            if first_word:
                starts_with_self = True
            out.append("their" if self_named and low == "my" else "theirs" if self_named else f"{speaker}'s")
            self_named = True
        elif low in ("you", "you're", "you've", "you'll", "you'd"):
            verb = _CONTRACTED.get(low[3:], "") if "'" in low else ""
            listener_named = True
            if verb:
                out.append(f"{listener} {_agree(verb, listener)}")
            else:
                out.append(listener)
                previous = next((t.strip().lower() for t in reversed(out[:-1]) if t.strip()), "")
                if not previous or previous[-1] in ",.;:-" or previous in _CLAUSE_START:
                    i = _agree_next(tokens, i + 1, out, listener)
                    continue
        elif low in ("your", "yours"):
            out.append(("their" if low == "your" else "theirs") if listener_named else f"{listener}'s")
            listener_named = True
        elif low == "yourself":
            out.append("themselves")
        elif low in ("we", "we're", "we've", "we'll", "we'd"):
            verb = _CONTRACTED.get(low[2:], "") if "'" in low else ""
            out.append(f"they {verb}" if verb else "they")
        elif low in ("our", "ours", "us", "ourselves"):
            out.append({"our": "their", "ours": "theirs", "us": "them", "ourselves": "themselves"}[low])
        else:
            out.append(token)
        i += 1
    told = "".join(out).strip()
    told = re.sub(r"\s+([,.!?;:])", r"\1", told)
    told = re.sub(r"!+", ".", told).rstrip(" ,;:-")
    if told and told[-1] not in ".?":
        told += "."
    if suggested:
        told = f"{speaker} suggested they {_lower_first(told, force=True)}"
    elif not starts_with_self:
        told = f"{speaker} said {_lower_first(told)}"
    return told[0].upper() + told[1:]


def _strip_vocatives(text: str, speaker: str, listener: str) -> str:
    """Without the listener's (or speaker's) name called out: "Thanks, Noor!" → "Thanks!"."""
    for name in {speaker, listener} - set(ROLE_NAMES.values()):
        first = name.split()[0]
        called = rf"(?:{re.escape(first)}|{re.escape(first[:3])}[a-z]{{0,3}})" if len(first) > 3 else re.escape(first)
        text = re.sub(rf"^{called}\s*[,!:-]\s*", "", text, flags=_I)
        text = re.sub(rf",\s*{called}\s*(?=[.!?]*$)", "", text, flags=_I)
    return text.strip()


def _agree_next(tokens: list[str], i: int, out: list[str], subject: str) -> int:
    """Copy the space and adverbs after a subject, then the verb agreeing with ``subject``."""
    while i < len(tokens):
        token = tokens[i]
        low = token.lower()
        if not token.strip() or low in _ADVERBS:
            out.append(token)
            i += 1
            continue
        if token[0].isalpha():
            out.append(_agree(token, subject))
            return i + 1
        return i
    return i


def _agree(verb: str, subject: str) -> str:
    """``verb`` as said after "I" or "you", agreeing with ``subject`` (a name, or "they")."""
    low = verb.lower().replace("’", "'")
    if subject == "they":
        return _PLURAL.get(low, verb)
    if low in _SINGULAR:
        return _SINGULAR[low]
    if low in _UNCHANGED or low in _IRREGULAR_PAST or low.endswith("ed") or not low.isalpha():
        return verb
    if low in ("is", "has", "does") or low.endswith("ing") or len(low) < 3 or verb[0].isupper():
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _lower_first(text: str, *, force: bool = False) -> str:
    """The sentence's first letter lowered when its first word is a common one (not a name)."""
    word = text.split(" ", 1)[0]
    low = word.lower().strip(",.;:")
    common = low in _COMMON_STARTS or low in STOPWORDS or low.endswith("ing")
    if len(word) > 1 and word[1:].islower() and (common or force):
        return text[0].lower() + text[1:]
    return text


_COMMON_STARTS = frozenset(
    """the a an it its it's this that these those they there their them he she his her we what when where which
    who how why if so and but or because after before since while during last next this every some many most
    all both each one two three my your our not no yes just really also still then now maybe perhaps sometimes
    usually gonna wanna gotta got thinking by for with about in on at to from getting taking""".split()
)


def told(sentences: Sequence[tuple[str, str]], names: Mapping[str, str]) -> list[str]:
    """(role, sentence) pairs, each told in the third person (empty ones dropped)."""
    found = []
    for role, sentence in sentences:
        other = "assistant" if role == "user" else "user"
        text = third_person(sentence, named(role, names), named(other, names))
        if text:
            found.append(text)
    return found


def in_names(text: str, names: Mapping[str, str]) -> str:
    """A text phrased with "the user" and "the assistant" (a memory's) with the speakers' names."""
    for role, role_name in ROLE_NAMES.items():
        if names.get(role):
            text = re.sub(rf"\b{role_name}\b", names[role], text, flags=_I)
    return text


def who_talked(names: Mapping[str, str], topics: Sequence[str]) -> str:
    """The summary's opening: who talked, about what."""
    user, assistant = named("user", names), named("assistant", names)
    about = ""
    if topics:
        listed = list(topics)
        about = " about " + (", ".join(listed[:-1]) + " and " + listed[-1] if len(listed) > 1 else listed[0])
    opening = f"{user} and {assistant} talked{about}."
    return opening[0].upper() + opening[1:]
