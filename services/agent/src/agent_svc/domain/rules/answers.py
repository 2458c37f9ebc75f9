"""A short answer to the assistant's question about the user: "Madrid." after "Which city do you live
in?" says where the user lives, though no pattern reads "Madrid." alone. It is kept as a fact
memory that names the question, so it reads alone later; never as a belief (the slot is a guess).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_svc.domain.extraction import ExtractedMemory, Utterance
from agent_svc.domain.rules.normalise import is_hypothetical, is_question, normalise
from agent_svc.domain.rules.rewriting import third_person

MAX_ANSWER_WORDS = 14
IMPORTANCE = 0.5
_ABOUT_THE_USER = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)
_NO_ANSWER = re.compile(
    r"^(?:yes|yeah|yep|no|nope|ok|okay|sure|thanks|thank you|not really|i don't know|dunno|maybe|hmm|lol|haha|"
    r"none|nothing|n/a|pass|skip)[\s.!]*$",
    re.IGNORECASE,
)

# A reply that opens with a greeting, a name called out or a reaction answers nothing about the user.
_CHATTER = re.compile(
    r"^(?:[A-Z][a-z]+\s*!\s+)?(?:sounds (?:great|good|fun|amazing|lovely)|great to|good to|nice to|so good|wow|thanks|"
    r"thank you|congrats|congratulations|haha|lol|aw+|hey|hi|hello|yay|omg|glad)\b",
    re.IGNORECASE,
)

_IT_IS = re.compile(r"^(?:it's|it is|that's|that is|that would be|it'd be|it would be)\s+(?=\S)", re.IGNORECASE)

# A question for a name, a date or a place ("what's your name?", "when is your birthday?"), not a view.
_ASKS_WHAT_IT_IS = re.compile(r"\b(?:what's|what is|when's|when is|where's|where is)\s+your\b", re.IGNORECASE)


# "Any injuries or conditions to plan around?": asked of the user though "you" is left out.
_ELLIPTICAL = re.compile(
    r"^(?:any|anything|how many|what kind of|what sort of)\s+(?:\w+\s+){0,2}?(?:allerg|injur|condition|pets?\b|kids?\b|"
    r"child|sibling|brother|sister|diet|food|medic|health|hobb|language|car\b|cars\b|vehicle)",
    re.IGNORECASE,
)
# The question's topic, what a leading "it" or "that" in the answer stands for.
_YOUR_TOPIC = re.compile(r"\byour\s+(?P<x>[a-z]+(?:\s+[a-z]+)?)\s*\?$", re.IGNORECASE)
_LEADING_IT = re.compile(r"^(?:it|that)\b(?=(?:'s|\s+(?:is|was|has|had)\b))", re.IGNORECASE)


# "Tree nuts, and it's serious", "One brother, he's older": an aside that points back adds nothing
# the answer needs, and a memory leaning on "it" or "he" would not read alone.
_POINTING_TAIL = re.compile(r",\s*(?:and\s+|but\s+)?(?:it|he|she|they|that|this)(?:'s|'re|\s)[^,]*$", re.IGNORECASE)


def answered_question(turn: Utterance, earlier: Sequence[Utterance]) -> ExtractedMemory | None:
    """The user's short answer with the question it answers, or None."""
    if turn.role != "user" or not earlier or earlier[-1].role != "assistant":
        return None
    asked = earlier[-1].content.strip().split("\n")[-1].strip()
    question = re.split(r"(?<=[.!])\s+", asked)[-1]
    if not question.endswith("?") or len(question) > 160:
        return None
    if not (_ABOUT_THE_USER.search(question) or _ELLIPTICAL.match(question)):
        return None
    # "It's Mateus Silva." / "It's the 9th of December.": the "it" is the question's subject.
    answer = normalise(turn.content)
    if _ASKS_WHAT_IT_IS.search(question):
        answer = _IT_IS.sub("", answer)
    answer = _POINTING_TAIL.sub("", answer.rstrip(" .!"))
    if not answer or len(answer.split()) > MAX_ANSWER_WORDS or _NO_ANSWER.match(answer):
        return None
    if _CHATTER.match(answer):  # "Sounds great, Ana! Let's …", "Priya! Lovely to hear from you.": no answer
        return None
    if is_question(answer) or is_hypothetical(answer) or '"' in question:
        return None
    if topic := _YOUR_TOPIC.search(question):  # "How was your trip?" "It was lovely": "it" is the trip
        answer = _LEADING_IT.sub(f"the {topic.group('x')}", answer)
    said = third_person(answer, "user")
    return ExtractedMemory(
        kind="fact", content=f'Asked "{question}", the user answered: {said}.', speaker="user", importance=IMPORTANCE
    )
