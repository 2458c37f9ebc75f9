"""Which section a stored item goes to (ARCHITECTURE.md §5): preferences and profile observations
describe the user; commitments and opinions are what the agent already said; beliefs are
observations; every other memory (facts, messages, episodes, decisions, …) is something remembered.
Names are matched lower-case, with or without their proto prefix, so an unknown or future type
still lands in the general section instead of failing the turn."""

from __future__ import annotations

from assembler_svc.domain.model import Section

_MEMORY_TYPES = {
    "preference": Section.USER_PROFILE,
    "commitment": Section.OPINIONS,
    "opinion": Section.OPINIONS,
}
_OBSERVATION_KINDS = {
    "operator_preference": Section.USER_PROFILE,
    "relationship_fact": Section.USER_PROFILE,
}


def _name(value: str, prefix: str) -> str:
    name = value.strip().lower()
    return name.removeprefix(prefix)


def section_for_memory_type(name: str) -> Section:
    return _MEMORY_TYPES.get(_name(name, "memory_type_"), Section.MEMORIES)


def is_message(memory_type: str) -> bool:
    """A turn stored as said (``MEMORY_TYPE_MESSAGE``), as opposed to something learnt from turns."""
    return _name(memory_type, "memory_type_") == "message"


def section_for_observation_kind(kind: str) -> Section:
    return _OBSERVATION_KINDS.get(_name(kind, "observation_kind_"), Section.OBSERVATIONS)
