"""What a context (or a Prime, or a user profile) reads from the memory service in one gather, what
comes back, and what it writes once it is made — as plain values, for the ``MemorySources`` port.

Every read is a read *for a context* of its scope (``Scope.shows``): never another user's records.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from assembler_svc.domain.gathered import EpisodeDigest, Recalled, RecalledMemory, Scope, SessionState, ThreadDigest
from assembler_svc.domain.profile import Learnt


@dataclass(frozen=True, slots=True)
class RecallRead:
    """Hybrid recall of ``query`` without recording access (only what the context keeps is
    recorded), with the query's vector (for the belief search) and, ``with_vectors``, the memories'."""

    query: str
    scope: Scope
    k: int
    session_id: str = ""
    with_vectors: bool = False


@dataclass(frozen=True, slots=True)
class EpisodesRead:
    """The most recent episodes at least ``min_salience`` salient, newest first."""

    scope: Scope
    limit: int
    min_salience: float = 0.0


@dataclass(frozen=True, slots=True)
class EpisodeSearchRead:
    """The episodes nearest ``query`` in meaning, best first (recall's vector of the same query is
    reused, not made again)."""

    query: str
    scope: Scope
    k: int
    min_salience: float = 0.0


@dataclass(frozen=True, slots=True)
class ListRead:
    """The first ``limit`` of a list for ``scope`` (open threads; salient facts; the user's facts)."""

    scope: Scope
    limit: int


@dataclass(frozen=True, slots=True)
class MemoryReads:
    """The parts of one gather; ``None``: not read. ``working_memory`` is the session's id."""

    working_memory: str | None = None
    recall: RecallRead | None = None
    recent_episodes: EpisodesRead | None = None
    episode_search: EpisodeSearchRead | None = None
    open_threads: ListRead | None = None
    salient_facts: ListRead | None = None
    user_facts: ListRead | None = None

    def asked(self) -> tuple[str, ...]:
        """The names of the parts asked for, in the order of the fields."""
        return tuple(part.name for part in fields(self) if getattr(self, part.name) is not None)


@dataclass(frozen=True, slots=True)
class MemoryGathered:
    """What a gather found: each part asked for is its answer or, in ``failures``, why it has none
    (a failed part never takes the others with it). ``part`` reads one, raising its failure."""

    working_memory: SessionState | None = None
    recall: Recalled | None = None
    recent_episodes: list[EpisodeDigest] | None = None
    episode_search: list[EpisodeDigest] | None = None
    open_threads: list[ThreadDigest] | None = None
    salient_facts: list[RecalledMemory] | None = None
    user_facts: list[Learnt] | None = None
    failures: Mapping[str, Exception] = field(default_factory=dict)

    def part(self, name: str) -> Any:
        if name in self.failures:
            raise self.failures[name]
        return getattr(self, name)


@dataclass(frozen=True, slots=True)
class ContextUse:
    """What a context or a Prime kept: access for its memories and episodes (with the session, if
    any, and why), and the session's context fingerprint (``None``: not written)."""

    session_id: str
    reason: str
    memory_ids: tuple[str, ...] = ()
    episode_ids: tuple[str, ...] = ()
    fingerprint: str | None = None

    def writes_anything(self) -> bool:
        return bool(self.memory_ids or self.episode_ids or self.fingerprint is not None)
