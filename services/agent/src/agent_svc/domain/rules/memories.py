"""Utterance → memories: facts, preferences, commitments, opinions and decisions, by pattern.

Each sentence is read on its own, first-person statements only, and a sentence that is a question,
a hypothetical, someone else's words or a code block gives nothing: a missed memory costs little,
a wrong one is believed. The steps are modules of their own: ``normalise`` (openers, the filters),
``clauses`` (one sentence, several facts), ``patterns`` (clause → ``PatternMatch``), ``rewriting``
(first person → "The user …"), ``entities`` and ``dates`` (deadlines). Contents are written in the
third person ("The user is vegetarian.") so they stand alone when recalled in another conversation.
"""

from __future__ import annotations

import re
from dataclasses import replace

from agent_svc.domain.extraction import ExtractedMemory
from agent_svc.domain.rules.clauses import clauses
from agent_svc.domain.rules.dates import split_deadline
from agent_svc.domain.rules.entities import entities_in
from agent_svc.domain.rules.fronting import (
    asked_topic,
    fronted,
    offered_topic,
    opening_topic,
    we_said,
    with_topic,
)
from agent_svc.domain.rules.model import Facet, PatternMatch, Statement
from agent_svc.domain.rules.normalise import (
    is_conditional,
    is_english,
    is_hypothetical,
    is_question,
    is_reported,
    is_sarcastic,
    normalise,
)
from agent_svc.domain.rules.patterns import match_clause, mentions
from agent_svc.domain.rules.references import antecedents, resolve
from agent_svc.domain.rules.rewriting import (
    base_form,
    no_first_person_left,
    sentence_case,
    third_person,
    user_words,
)
from agent_svc.domain.rules.text import MAX_SENTENCE_CHARS, clean, sentences

__all__ = [
    "IMPORTANCE",
    "MAX_MEMORIES_PER_TURN",
    "Facet",
    "PatternMatch",
    "Statement",
    "base_form",
    "entities_in",
    "extract_memories",
    "is_reported",
    "split_deadline",
    "statements",
    "third_person",
]

# Importance per kind: a promise or a decision is what a later conversation most needs to honour;
# a preference shapes every answer; a fact is useful context; an opinion is the assistant's own.
IMPORTANCE = {"commitment": 0.8, "decision": 0.75, "preference": 0.7, "fact": 0.6, "opinion": 0.5}
MAX_MEMORIES_PER_TURN = 12


def statements(text: str, role: str, before: str = "", before_role: str = "user") -> list[Statement]:
    """Everything the rules find in one turn, in the order it was said; ``before``, the turn said
    just before it (by ``before_role``), names whom a leading "he" or "she" may stand for."""
    if role not in ("user", "assistant"):
        return []
    found: list[Statement] = []
    known = antecedents(before, before_role) if role == "user" else []
    # What "it" or "them" at a clause's end may stand for: what the assistant just offered, or a
    # verbless question the user asked first ("Raisins in anything savoury? I hate that.").
    asked = offered_topic(before) if role == "user" and before_role == "assistant" else ""
    said_before = ""
    name_asked = role == "user" and before_role == "assistant" and bool(_NAME_ASKED.search(before))
    for sentence in sentences(text):
        if role == "user" and sentence.clean.rstrip().endswith("?"):
            asked = asked_topic(sentence.clean) or asked
        if len(sentence.clean) > MAX_SENTENCE_CHARS or (
            len(sentence.clean.split()) < 2
            and not _PRONOUN_SET.match(sentence.clean.strip())
            and not _SELF_QUESTION.match(said_before.strip())
        ):
            continue
        body = normalise(sentence.clean)
        if role == "user" and (request := _PRONOUN_REQUEST.match(body)):
            found += [s for s in [_statement(f"use {request.group('set')}", role, sentence.text.strip())] if s]
            continue
        if role == "user" and (answer := _self_answer(said_before, body)):
            found += [s for s in [_statement(fronted(answer), role, sentence.text.strip())] if s]
            continue
        said_before = sentence.clean
        if not body or is_question(body) or is_conditional(body) or is_reported(body):
            continue
        if is_sarcastic(sentence.clean):
            continue
        if not is_english(body) and not (role == "user" and is_english(fronted(body.rstrip(".!")))):
            continue
        topic = asked if role == "user" else ""
        greeted = bool(_GREETING.match(sentence.clean))
        subject = ""
        unreal = False
        for a, b in clauses(sentence.clean):
            clause_clean = sentence.clean[a:b]
            clause = normalise(clause_clean).rstrip(".!")
            if unreal or _CONDITION_OPENS.match(clause):
                unreal = True  # "I bet if I keep training, I'll run a marathon": the clauses after it too
                continue
            if is_hypothetical(clause) or _CONDITION_INSIDE.search(clause):
                topic = topic or opening_topic(clause)  # "I get hives if I eat strawberries, so I'm allergic"
                continue  # "I probably should know this": the hedge takes its own clause only
            if role == "user":
                said = clause
                clause = _carried(clause, subject)
                subject = _subject_of(clause) or subject
                # "My husband Oliver and I …" is read as "we …": the husband is still named
                together = we_said(clause) != clause and said[:2].lower() == "my"
                clause = we_said(clause)
                clause = with_topic(fronted(resolve(clause, known), greeted), topic)
                if name_asked and (chosen := _NAME_CHOSEN.match(clause)):
                    clause = f"call me {chosen.group('name')}"  # "I prefer Jules" to "What name do you prefer?"
                topic = topic or opening_topic(clause)
                known += antecedents(clause_clean, role)
            excerpt = sentence.text[a:b].strip().rstrip(",;")
            statement = _statement(clause, role, excerpt)
            if statement:
                found.append(statement)
            if role == "user":
                named = mentions(clause) + (mentions(f"with {said}") if said[:2].lower() in ("me", "my") else ())
                named += mentions(f"with my{said[2:]}") if together else ()
                found += [_from_match(match, role, excerpt) for match in named]
            if len(found) >= MAX_MEMORIES_PER_TURN:
                break
    once: dict[str, Statement] = {}
    for statement in found:  # one fact once: "Prawns give me hives - I'm allergic to them" is one allergy
        once.setdefault(statement.memory.content.lower(), statement)
    return list(once.values())[:MAX_MEMORIES_PER_TURN]


# "Could you stick to they/them pronouns when you talk about me?": asked, but a fact about the user.
_PRONOUN_REQUEST = re.compile(
    r"^(?:could|can|would|will)\s+you\s+(?:please\s+)?(?:use|stick to|stick with|go with|refer to me (?:as|with))\s+"
    r"(?P<set>(?:she|he|they|ze|xe)\s*/\s*[a-z]+)\b.*\b(?:me|i)\b",
    re.IGNORECASE,
)
# "Home town? Hobart." / "Best film ever made? The Godfather, easily.": the user asks and answers.
_SELF_QUESTION = re.compile(
    r"^(?:my\s+)?(?P<t>home ?town|hometown|(?:favou?rite|fave)\s+[a-z]+|"
    r"best\s+[a-z]+(?:\s+ever(?:\s+made|\s+written)?)?|job|age|birthday|nationality|star sign)\s*\?$",
    re.IGNORECASE,
)
_ANSWER = re.compile(r"^(?P<a>[A-Z0-9][\w' -]*(?:,\s*[A-Z][\w -]*)?)$")


def _self_answer(question: str, answer: str) -> str:
    """The clause a user's own question and answer make ("my hometown is Hobart, Tasmania"), or ""."""
    asked = _SELF_QUESTION.match(question.strip())
    said = _ANSWER.match(answer.rstrip(" .!")) if asked else None
    if not asked or not said or len(said.group("a").split()) > 6:
        return ""
    topic = re.sub(r"\s+", " ", asked.group("t").lower())
    topic = re.sub(r"^best\s+([a-z]+).*$", r"favourite \1", topic)
    topic = "hometown" if topic.replace(" ", "") == "hometown" else topic
    return f"my {topic} is {said.group('a')}"


# A condition said inside a clause ("… if I eat strawberries") takes the clause with it.
_CONDITION_INSIDE = re.compile(r"\b(?:if|unless|whenever i|in case)\b", re.IGNORECASE)
# A condition that opens a clause ("if I keep pushing", "I'm sure if …", "but if …") governs what follows it.
_CONDITION_OPENS = re.compile(r"^(?:[\w']+\s+){0,3}?(?:if|unless|in case|suppose|supposing|assuming)\b", re.IGNORECASE)
# The assistant asked what to call the user; "I prefer Jules" then names, it does not like.
_NAME_ASKED = re.compile(r"\b(?:name|call you|address you)\b[^?]*\?", re.IGNORECASE)
_NAME_CHOSEN = re.compile(
    r"^(?i:i\s*(?:prefer|like|'d like|would like|go by|'d go with|'ll go with))\s+(?P<name>[A-Z][a-z]+)$"
)
_GREETING = re.compile(r"^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|greetings)\b", re.IGNORECASE)
_PRONOUN_SET = re.compile(r"^(?:she|he|they|ze|xe)\s*/\s*(?:her|hers|him|his|them|they|she|he|zir|hir|xem)\W*$", re.I)
# A clause that goes on with the first one's subject: "I'm from Glasgow but live in Edinburgh now".
_SUBJECT_LEAD = re.compile(r"^(?P<s>i|we)(?=\s|')", re.IGNORECASE)
_CARRIED_VERB = re.compile(
    r"^(?:now\s+|also\s+|still\s+|then\s+|currently\s+)?(?:live|work|moved|relocated|settled|teach|study|speak|"
    r"go by|use|run|own|drive|have|keep|love|hate|like|enjoy|play|volunteer|work as|am|'m)\b",
    re.IGNORECASE,
)


def _subject_of(clause: str) -> str:
    match = _SUBJECT_LEAD.match(clause)
    return match.group("s") if match else ""


def _carried(clause: str, subject: str) -> str:
    """A clause with no subject of its own after "I …" or "we …" takes that subject."""
    if not subject or not _CARRIED_VERB.match(clause):
        return clause
    return f"{'I' if subject.lower() == 'i' else 'we'} {clause}"


_BEFORE_BLANK = re.compile(r"(?P<word>[\w']+) {3,}")


def object_quoted_away(content: str, said: str) -> bool:
    """A fact ending on the word before a quoted title or code, which the rules blank as someone
    else's words: "I'm reading 'Dune'" would be stored as "The user is reading.", its object lost."""
    ending = content.rstrip(" .!").lower()
    blanked = clean(said)
    return any(
        said[m.end("word") : m.end()].strip() and ending.endswith(m.group("word").lower())
        for m in _BEFORE_BLANK.finditer(blanked)
    )


def _statement(clause: str, role: str, excerpt: str) -> Statement | None:
    if len(clause) < 4:
        return None
    match = match_clause(clause, role)
    return None if match is None else _from_match(match, role, excerpt)


def _from_match(match: PatternMatch, role: str, excerpt: str) -> Statement:
    clause = match.clause
    if role == "user":
        match = _without_first_person(match)
    memory = ExtractedMemory(
        kind=match.kind,
        content=sentence_case(match.content),
        speaker=role,
        importance=IMPORTANCE[match.kind],
        entities=entities_in(clause),
        owner=match.owner or (role if match.kind == "commitment" else ""),
        deadline=match.deadline,
    )
    return Statement(
        memory=memory,
        excerpt=excerpt,
        facets=match.facets,
        project=_project(clause) if match.kind == "decision" else "",
        proposal=match.proposal,
        task=match.task,
    )


def _without_first_person(match: PatternMatch) -> PatternMatch:
    facets = tuple(
        replace(facet, value=user_words(facet.value), summary=no_first_person_left(facet.summary))
        for facet in match.facets
    )
    return replace(match, content=no_first_person_left(match.content), facets=facets)


_PROJECT = re.compile(r"\b(?:for|on|in)\s+(?:the\s+)?(?P<p>[A-Z][\w-]+)\s+project\b|\bproject\s+(?P<q>[A-Z][\w-]+)")


def _project(clause: str) -> str:
    match = _PROJECT.search(clause)
    return (match.group("p") or match.group("q")).lower() if match else ""


def extract_memories(text: str, role: str) -> tuple[ExtractedMemory, ...]:
    """The memories one turn adds (empty for system and tool turns, questions and small talk)."""
    return tuple(s.memory for s in statements(text, role))
