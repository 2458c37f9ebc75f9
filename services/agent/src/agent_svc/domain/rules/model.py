"""The typed values the rules pass between their modules."""

from __future__ import annotations

from dataclasses import dataclass

from agent_svc.domain.extraction import ExtractedMemory


@dataclass(frozen=True, slots=True)
class Facet:
    """One attribute a memory asserts, for claims: ``attribute`` (the slot) "" means "slot from the
    value's topic"."""

    attribute: str
    value: str
    summary: str
    denied: bool = False  # the words deny this value ("no longer", "not ... any more")
    negative: bool = False  # a dislike: its slot is the value's own, never the topic's


@dataclass(frozen=True, slots=True)
class PatternMatch:
    """What one pattern found in one clause."""

    kind: str  # fact | preference | commitment | opinion | decision
    content: str  # the memory, in the third person
    facets: tuple[Facet, ...] = ()  # the slots and values it asserts (for claims)
    clause: str = ""  # the normalised clause it came from
    task: str = ""  # commitments: the task in the speaker's own words, without the deadline
    deadline: str = ""  # commitments: by when, as said
    owner: str = ""  # commitments: who promised, when not the speaker
    proposal: str = ""  # opinions: what the assistant proposed, for a later "let's do that"


@dataclass(frozen=True, slots=True)
class Statement:
    """A memory with what claims and episodes need to know about it."""

    memory: ExtractedMemory
    excerpt: str  # the exact words of the turn
    facets: tuple[Facet, ...] = ()
    project: str = ""  # decisions: the project named, lower case
    proposal: str = ""  # opinions: what the assistant proposed, for a later "let's do that"
    task: str = ""  # commitments: the task in the speaker's own words, without the deadline
