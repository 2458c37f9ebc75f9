"""Canonical keys, built by code and only by code: `<subject_type>:<subject_id>:<kind>:<slot>`,
`global:<kind>:<slot>` for global subjects (ARCHITECTURE.md §4)."""

from __future__ import annotations

import re

from lore_runtime.errors import InvalidArgument
from lore_runtime.text_rules import OBSERVABLE_ID, OBSERVABLE_ID_RULE, check_agent_id, check_id

from observations_svc.domain.limits import MAX_SLOT_CHARS
from observations_svc.domain.model import KINDS, SUBJECT_TYPES

MAX_SCOPE_ID_CHARS = 128
SLOT_PATTERN = re.compile(rf"^[a-z0-9_.-]{{1,{MAX_SLOT_CHARS}}}$")
# No ':' in a subject id, so a key splits back into its parts unambiguously.
SUBJECT_ID_PATTERN = OBSERVABLE_ID
AGENT_ID_PATTERN = SUBJECT_ID_PATTERN


def validate_slot(slot: str, field: str = "slot") -> str:
    if not SLOT_PATTERN.match(slot):
        raise InvalidArgument(field, f"must be 1..{MAX_SLOT_CHARS} characters of lower-case [a-z0-9_.-]")
    return slot


def validate_subject(subject_type: str, subject_id: str, field: str = "subject_id") -> None:
    if subject_type not in SUBJECT_TYPES:
        raise InvalidArgument("subject_type", f"must be one of {', '.join(SUBJECT_TYPES)}")
    if subject_type == "global":
        if subject_id:
            raise InvalidArgument(field, "global subjects have no id")
    elif not SUBJECT_ID_PATTERN.fullmatch(subject_id):
        raise InvalidArgument(field, f"must be {OBSERVABLE_ID_RULE}")


def validate_scope_id(value: str, field: str) -> str:
    """A user or team id of a belief's scope: any id a memory's or session's scope may hold (reflection
    passes the session's), so not the subject-id alphabet: the id rule of ``text_rules`` (no
    control, format or bidi characters) within 128 characters, no surrounding spaces."""
    check_id(value, field, MAX_SCOPE_ID_CHARS)
    if value != value.strip():
        raise InvalidArgument(field, "must not start or end with whitespace")
    return value


def validate_agent_id(agent_id: str, field: str = "agent_id") -> str:
    return check_agent_id(agent_id, field)


def canonical_key(subject_type: str, subject_id: str, kind: str, slot: str) -> str:
    validate_subject(subject_type, subject_id)
    if kind not in KINDS:
        raise InvalidArgument("kind", f"must be one of {', '.join(KINDS)}")
    validate_slot(slot)
    if subject_type == "global":
        return f"global:{kind}:{slot}"
    return f"{subject_type}:{subject_id}:{kind}:{slot}"
