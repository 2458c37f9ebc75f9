"""Whether a memory says something: a stored fact is a self-standing, informative statement about
someone's life, not the small talk around it.

Conversations between people who like each other are full of warmth that reads like a statement
once written in the third person: "The user is so grateful.", "The user won't give up.", "The user
definitely will.", "Decided: keep at it and follow our hopes.", "The user will send the assistant a
vid." None of it tells a later conversation anything about the user. A memory is kept when:

- it says something beyond feelings, resolve and agreement (``informative``): a content word that
  is none of "grateful", "excited", "give up", "keep going", "agree", "definitely" …; "The user is
  grateful for the chance to tell the club about their trek" says something, "The user is super thankful" does
  not;
- it is a whole clause (``is_fragment``): not the tail of one ("Since the user was 17 or so.", "For
  having the user's back."), nor one whose "it" was dropped ("Reminds the user how awesome life
  is."), a pointing gesture ("Here's one the user did last week.") or a sentence with a quoted title
  blanked out of it;
- a decision names a choice: "let's keep going / keep helping each other" cheers someone on and
  decides nothing (``is_exhortation``);
- a user's promise is about the user's life, not the chat: "The user will send the assistant a
  vid.", "… make the assistant proud", "… always be there for the assistant" are said to the listener
  about the conversation itself (``to_the_listener``); with a time said ("I'll send you the draft by
  Friday") it is a promise to keep;
- it is not a move in the conversation (``is_conversation_move``): checking in, offering an ear,
  joining in ("The user is in for the show."), pointing at a picture ("Check out the user's quilt.",
  "… - here's something the user just made"), trying one's best, "what we can do";
- it names what it is about (``is_placeholder``): "The user had a similar experience.", "The user
  has been puzzled about something.", "The user has a few plans." announce what the next sentence
  says; "The user is looking for someone to share a flat in Leeds" names it;
- a fact is about someone (``about_no_one``): "Staying calm is very important." is advice or a
  maxim; a fact naming the user, a person or a figure is kept ("Leo turns seven on 22 May.").
"""

from __future__ import annotations

import re

from agent_svc.domain.extraction import ExtractedMemory
from agent_svc.domain.rules.text import STOPWORDS, words

_I = re.IGNORECASE

# Feelings, resolve, agreement and the words that carry them: a memory of nothing else says nothing.
_SMALL_TALK = frozenset(
    """user user's users assistant assistant's their themselves them they
    happy happier thankful grateful excited exciting lucky proud nervous glad stoked thrilled blessed keen pumped
    psyched amazed touched moved relieved honored honoured humbled inspired awe speechless overjoyed ecstatic hyped
    moon over super truly pretty totally absolutely incredibly extremely kinda definitely certainly surely
    totally seriously literally honestly genuinely deeply beyond
    gonna wanna gotta keep keeps keeping kept going give giving gave up quit quitting stop stopping never ever
    push pushing pushed forward onward onwards staying stay stays stayed positive strong focused motivated
    determined confident believing believe believes myself best trying tries effort hang hanging matter whatever
    whenever comes coming way ways there agree agreed more hoping hope hopes hoped count counting posted
    posting ya feeling feel feels felt totally enough tho though anyway anyways all everything always forever
    support supported supporting there's cheer cheering rooting love loved loves lovely appreciate appreciated
    soon later sometime someday eventually happen happens happened""".split()
)

# A clause's tail said as a sentence: a subordinator opening it before its subject or an -ing form
# ("Since the user was 17 or so.", "For having the user's back."), with no main clause after it (a
# second "the user": "Since the user's late twenties the user has had IBS." is whole; "Since 2019
# the user has lived in Leeds" opens with a time, not a clause).
_SUBORDINATE_START = re.compile(
    r"^(?:since|for|plus|even though|even if|although|though|because|while|whereas|as|unless|like|with|without|"
    r"just like|especially|except|and|but|or|so that)\s+(?:the user\b|having|letting|being|getting|all the)",
    _I,
)
_THE_USER = re.compile(r"\bthe user\b", _I)
# "Reminds me how …", "Makes me feel …": the "it" or "that" before the verb was dropped.
_DROPPED_SUBJECT = re.compile(
    r"^(?:(?:really|also|totally|just|definitely|always|still)\s+)?(?:reminds|makes|made|gives|gave|helps|means|"
    r"meant|keeps|shows|brings|brought|sounds|looks|seems|takes|took|feels)\b",
    _I,
)
_POINTING = re.compile(r"^(?:here's|here is|here are|there's one|count the user in)\b", _I)
_EXHORTATION = re.compile(
    r"^decided:\s+(?:(?:just|always)\s+)?(?:keep|keeps|continue|never stop|stay|don't stop|don't give up)\b", _I
)
_HOLE = re.compile(r"\S {3,}\S")
_LISTENER = re.compile(r"\bthe assistant(?:'s)?\b", _I)


# Moves in the conversation rather than facts of the user's life.
_CONVERSATION_MOVE = re.compile(
    r"\bwanted to (?:check in|say hi|say hello|catch up)\b"
    r"|\bis (?:always |just )?here (?:to|for) (?:lend|help|listen|chat|talk|the assistant)\b"
    r"|\bis (?:\w+ )?in for (?:the|it|that|this)\b"
    r"|\bis getting there\b"
    r"|^(?:check out|take a look at|have a look at|look at)\b"
    r"|\bhere's (?:something|one|a pic|a photo|a picture)\b"
    r"|\bwill (?:do|try) (?:their|the user's) (?:very )?best\b"
    r"|\bwhat we can do\b"
    r"|\bhowever the user can\b",
    _I,
)
# A stand-in for what the next sentence says, and the words that say no more than it does.
_PLACEHOLDER = re.compile(
    r"\b(?:something|someone|somebody|anything|a similar \w+|the same thing|a few (?:plans|things|ideas|options))\b",
    _I,
)
_VAGUE = frozenset(
    """something someone somebody anything similar same thing things few plans ideas options experience new
    different did done doing had has have got gotten lately recently just also last weekend week month year
    yesterday today tonight""".split()
)
_ASIDE = re.compile(r"\([^)]*\)")
_NAME_OR_NUMBER = re.compile(r"\d|(?<=\w)[\s,:;(]+(?!The\b|User\b)[A-Z][a-z]")


def informative(content: str) -> bool:
    """Whether ``content`` says something beyond feelings, resolve and agreement: a figure, a name or
    a content word of another kind."""
    if _NAME_OR_NUMBER.search(content):
        return True
    return any(len(word) > 2 and word not in STOPWORDS and word not in _SMALL_TALK for word in words(content))


def is_fragment(content: str) -> bool:
    """A clause's tail, a pointing gesture or a sentence with a hole (a quoted title blanked as
    someone else's words: "The user loved      by Amy Ellis Nutt.") written as a memory."""
    text = content.strip()
    if _HOLE.search(text):
        return True
    if _SUBORDINATE_START.match(text) and "," not in text and len(_THE_USER.findall(text)) <= 1:
        return True
    return bool(_DROPPED_SUBJECT.match(text) or _POINTING.match(text))


def is_conversation_move(memory: ExtractedMemory) -> bool:
    """Checking in, offering to help, joining in, pointing at a picture: the chat, not the user's
    life. A promise with a time or a name said ("… do their best to finish the thesis by June") is kept."""
    if memory.kind == "commitment" and (
        memory.deadline.strip().lower() not in _VAGUE_DEADLINE or _NAME_OR_NUMBER.search(memory.content)
    ):
        return False
    return bool(_CONVERSATION_MOVE.search(memory.content.strip()))


def is_placeholder(content: str) -> bool:
    """ "The user did something new.": a stand-in for what it is about (a resolved date in brackets
    names nothing), with at most one other content word and no name or figure: "anything spicy" names a
    class of things, "something" alone does not."""
    text = _ASIDE.sub("", content)
    if not _PLACEHOLDER.search(text) or _NAME_OR_NUMBER.search(text):
        return False
    said = [w for w in words(text) if len(w) > 2 and w not in STOPWORDS and w not in _SMALL_TALK and w not in _VAGUE]
    return len(said) <= 1


_SOMEONE = re.compile(r"\b(?:the user|they|them|their|themselves|he|him|she|his|her|we|us|our|i|me|my|you|your)\b", _I)


def about_no_one(memory: ExtractedMemory) -> bool:
    """A fact naming no one and no figure: a maxim or advice ("Staying calm is key.", "It is all about
    balance."). A capitalised first word may be a name ("Leo loves dinosaurs."): only an -ing form or
    a function word opens one."""
    content = memory.content.strip()
    first = (words(content) or [""])[0]
    return (
        memory.kind == "fact"
        and (first.endswith("ing") or first in STOPWORDS)
        and not _SOMEONE.search(content)
        and not _NAME_OR_NUMBER.search(content)
    )


def is_exhortation(content: str) -> bool:
    """ "Decided: keep going and …": a cheer, not a choice."""
    return bool(_EXHORTATION.match(content.strip()))


_VAGUE_DEADLINE = frozenset({"", "soon", "later", "sometime", "someday", "eventually", "one day"})


def to_the_listener(memory: ExtractedMemory) -> bool:
    """A user's promise to the one they are talking to with no time said, about the chat itself
    ("I'll send you a vid"); "I'll send you the draft by Friday" is a promise to keep."""
    return (
        memory.kind == "commitment"
        and memory.speaker == "user"
        and memory.deadline.strip().lower() in _VAGUE_DEADLINE
        and bool(_LISTENER.search(memory.content))
    )


def worth_keeping(memory: ExtractedMemory) -> bool:
    """Whether ``memory`` is a self-standing, informative statement worth storing."""
    content = memory.content
    if memory.kind == "decision":
        return not is_exhortation(content) and informative(content)
    if to_the_listener(memory) or is_fragment(content) or is_conversation_move(memory) or is_placeholder(content):
        return False
    if about_no_one(memory):
        return False
    return informative(content)
