"""Memories → claims: the subset of what was said that the agent should now believe.

A claim's slot, with its kind and subject, is the observation's key, so it must come out the same
every time the same attribute is mentioned: fixed attributes come from the pattern (``home_city``,
``employer``, ``job``, ``family:<relation>``, ``diet``, ``contact_time`` …), a preference's slot is
the topic of its object from a small vocabulary (``TOPICS`` in ``text.py``: ``drink``, ``database``,
``language``, ``editor`` …), else a slug of the object. A dislike always uses the slug, so "I hate
Java" never overwrites "I prefer Python" on ``language``. A denial ("I'm not vegetarian any more")
is a claim on the same slot with ``contradicts=True``; a new value ("actually I prefer coffee now")
is a plain claim on the same slot, which supersedes the old one.
"""

from __future__ import annotations

import re

from agent_svc.domain.extraction import ExtractedClaim
from agent_svc.domain.rules.memories import Statement, statements
from agent_svc.domain.rules.text import TOPIC_OF, slug

# Facts about the user's ties to other people and organisations are relationship facts; the rest
# (where they live, what they do, their name) are facts about the world.
RELATIONSHIP_ATTRIBUTES = ("employer", "family:")
MAX_CLAIMS_PER_TURN = 12

_MULTIWORD = {"vs code": "editor", "visual studio code": "editor", "sql server": "database", "google cloud": "cloud"}


def topic_slot(value: str) -> str:
    """The vocabulary slot of a phrase's first known word ("use Postgres" → "database"), else ""."""
    low = value.lower()
    for phrase, topic in _MULTIWORD.items():
        if phrase in low:
            return topic
    for word in re.findall(r"[a-z0-9+#-]+", low):
        if word in TOPIC_OF:
            return TOPIC_OF[word]
    return ""


def claims_from(found: list[Statement]) -> tuple[ExtractedClaim, ...]:
    claims: list[ExtractedClaim] = []
    for statement in found:
        memory = statement.memory
        if memory.kind in ("commitment", "opinion"):
            continue
        if memory.kind in ("fact", "preference") and memory.speaker != "user":
            continue
        for facet in statement.facets:
            if memory.kind == "decision":
                kind = "project_state"
                subject_type, subject_id = ("project", statement.project) if statement.project else ("user", "")
                slot = topic_slot(facet.value) or slug(facet.value)
            elif memory.kind == "preference":
                kind, subject_type, subject_id = "operator_preference", "user", ""
                slot = facet.attribute or (slug(facet.value) if facet.negative else topic_slot(facet.value))
                slot = slot or slug(facet.value)
            else:
                relation = facet.attribute.startswith(RELATIONSHIP_ATTRIBUTES)
                kind = "relationship_fact" if relation else "world_fact"
                subject_type, subject_id = "user", ""
                slot = facet.attribute or slug(facet.value)
            if not slot:
                continue
            claims.append(
                ExtractedClaim(
                    kind=kind,
                    subject_type=subject_type,
                    subject_id=subject_id,
                    slot=slot,
                    summary=facet.summary,
                    excerpt=statement.excerpt,
                    contradicts=facet.denied,
                )
            )
    return tuple(claims[:MAX_CLAIMS_PER_TURN])


def extract_claims(text: str, role: str) -> tuple[ExtractedClaim, ...]:
    """The beliefs one turn supports or denies (user facts and preferences, decisions of either side)."""
    return claims_from(statements(text, role))
