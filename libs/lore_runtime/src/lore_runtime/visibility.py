"""What a context may show: the one rule behind ``lore.common.v1.SCOPE_MATCH_CONTEXT`` (ARCHITECTURE.md §2).

A record reaches a context for a scope when its user is the scope's or none — none only, when the
scope names no user — its team likewise, and its agent the scope's or none (any agent when the
scope names none). Another user's record never does; the org's shared records (no user) reach every
user's context. The services state it in their stores' languages (Qdrant conditions, SQL); this is
the rule itself, for their domains, fakes and checks.
"""

from __future__ import annotations

from typing import Protocol


class Scoped(Protocol):
    @property
    def user_id(self) -> str: ...

    @property
    def agent_id(self) -> str: ...

    @property
    def team_id(self) -> str: ...


def context_values(context: Scoped) -> dict[str, tuple[str, ...]]:
    """Per scope field, the values a record's field (``""`` when unset) may hold to reach a context
    for ``context``; a field left out is unconstrained."""
    allowed = {"user_id": _own_or_shared(context.user_id), "team_id": _own_or_shared(context.team_id)}
    if context.agent_id:
        allowed["agent_id"] = (context.agent_id, "")
    return allowed


def context_shows(context: Scoped, record: Scoped) -> bool:
    """Whether a record of scope ``record`` may reach a context for ``context``."""
    return all(getattr(record, name) in values for name, values in context_values(context).items())


def _own_or_shared(value: str) -> tuple[str, ...]:
    return (value, "") if value else ("",)
