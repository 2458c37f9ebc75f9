"""Who said a remembered message, and whether it carries anything worth placing.

**Who.** A message memory is a turn as said. Its line names the speaker, so a model never takes the
other side's words for the user's:

- a named speaker (the turn's ``speaker``, kept in the memory's provenance; imports with names):
  "Noor said: I adopted a greyhound." — the name the agent writes before the words ("Noor: …") is
  taken off first, so it is not said twice;
- else the turn's role, which the agent keeps in the memory's metadata (``role``): the user's words
  read "The user said: …", the assistant's own "You said: …" (the context speaks to the assistant);
- a message of neither (written by a client without a role) is placed as it is: no guess;
- an episode's summary quoting turns by role ("User: … Assistant: …") says who in the same words
  ("The user said: … You said: …"; ``quoted_roles``).

**Worth placing.** Small talk is not remembered for anyone: a message whose words, once greetings,
thanks, praise, agreement and the speakers' names are set aside, hold no content word ("That's
awesome, Noor! Keep it up!"), or only one and say nothing of the speaker ("Wow, love that
painting!", "Thanks! Is this your own painting?" — where "I love hiking" and "Yes, I'm vegan" stay)
— the same rule for both sides of a conversation between named people. In the agent's own sessions
(the assistant's turns, no speaker name), the assistant's reply must also carry something the user
may come back to: a commitment ("I'll send…"), a recommendation ("you could try…"), or an answer —
a statement (not a question back) of at least ``MIN_ANSWER`` content words or holding a number.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from assembler_svc.domain.statements import statement

USER = "user"
ASSISTANT = "assistant"
MIN_SUBSTANCE = 2  # content words a message needs unless it speaks of the speaker
MIN_ANSWER = 5

_FILLER_WORDS = """hi hey hello hiya yo bye goodbye morning evening night day week thanks thank thx ty cheers welcome
    pleasure great wow awesome amazing cool nice good lovely love loved beautiful sweet wonderful fantastic
    incredible fabulous brilliant gorgeous cute adorable congrats congratulations proud glad happy sorry
    yeah yes yep yup sure ok okay alright absolutely totally definitely exactly true right agree agreed
    indeed haha hahaha lol omg oh ah aw aww awww wow hmm um well so sounds sound seem seems look looks
    looking hear heard hearing know knew see take care soon later talk chat catch keep up doing going
    feel feeling thing things stuff lot lots always never ever again too much many totally super fun
    wish hope hoping luck best idea one ones let let's can't wait share sharing
    tell telling told say saying said get got think thought mean means meant glad"""
# As ``statements`` folds them ("thanks" → "thank"), and what a contraction leaves ("that's" → "that").
_FILLER = frozenset(_FILLER_WORDS.split()) | statement(_FILLER_WORDS).terms | {"that", "this", "it", "there", "what"}
_COMMITMENT = re.compile(
    r"\b(i['’]ll|i will|i['’]m going to|i am going to|let me|i can|i['’]ve (?:booked|sent|added|set|scheduled|saved)|"
    r"i have (?:booked|sent|added|set|scheduled|saved)|i promise|remind you)\b",
    re.IGNORECASE,
)
_RECOMMENDATION = re.compile(
    r"\b(you should|you could|you might|you may want|i['’]d (?:recommend|suggest)|i (?:recommend|suggest)|"
    r"try|consider|how about|what about|make sure|don['’]t forget|remember to|the best)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
_FIRST_PERSON = re.compile(r"\b(?:i|i['’](?:m|ve|d|ll)|me|my|mine|myself|we|we['’](?:re|ve|d|ll)|us|our|ours)\b", re.I)


def speaker_label(role: str, speaker: str) -> str:
    """Who said it, as a line begins: the name, else "The user" / "You", else "" (unknown)."""
    if speaker:
        return speaker
    if role == USER:
        return "The user"
    if role == ASSISTANT:
        return "You"
    return ""


_ROLE_LABEL = re.compile(r"(?<![\w'’])(User|Assistant):")


def quoted_roles(text: str) -> str:
    """A summary's role labels as a context names the speakers: "The user said:", "You said:"."""
    return _ROLE_LABEL.sub(lambda m: "The user said:" if m[1] == "User" else "You said:", text)


def words_of(content: str, speaker: str) -> str:
    """The message's own words: without the "Name: " the agent writes before a named speaker's."""
    text = content.strip()
    prefix = f"{speaker}:"
    if speaker and text.startswith(prefix):
        return text[len(prefix) :].strip()
    return text


def attributed(words: str, role: str, speaker: str) -> str:
    """ "Noor said: …", "The user said: …", "You said: …", or the words alone when nobody is known."""
    label = speaker_label(role, speaker)
    return f"{label} said: {words}" if label else words


def substance(words: str, names: Collection[str] = ()) -> frozenset[str]:
    """The content words of a message once small talk and the speakers' names are set aside."""
    named = {part.casefold() for name in names for part in name.split()}
    return frozenset(term for term in statement(words).terms if term not in _FILLER and term not in named)


def is_small_talk(words: str, names: Collection[str] = ()) -> bool:
    found = len(substance(words, names))
    return found == 0 or (found < MIN_SUBSTANCE and _FIRST_PERSON.search(words) is None)


def worth_coming_back_to(words: str) -> bool:
    """An assistant's reply in its own session: a commitment, a recommendation, or an answer."""
    if is_small_talk(words):
        return False
    if _COMMITMENT.search(words) or _RECOMMENDATION.search(words):
        return True
    asks_back = words.rstrip().endswith("?")
    return not asks_back and (len(substance(words)) >= MIN_ANSWER or _NUMBER.search(words) is not None)


def filler(words: str, role: str, speaker: str, names: Collection[str] = ()) -> bool:
    """Whether a message says nothing worth placing (see the module docstring)."""
    if role == ASSISTANT and not speaker:
        return not worth_coming_back_to(words)
    return is_small_talk(words, names)
