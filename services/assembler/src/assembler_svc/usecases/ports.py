"""What the use cases need from the outside world. The adapters call the memory and observations
services over gRPC; the unit tests use in-memory fakes. Every method raises on failure (any
exception): the fan-out turns a failure into SOURCE_UNAVAILABLE, never into a failed call.

Every read that takes a ``scope`` reads *for a context of that scope*: it returns only what
``scope.shows`` allows (the user's records and the org's shared ones, never another user's;
the team likewise; the scope's agent's or no agent's) — the memory service's
SCOPE_MATCH_CONTEXT, the observations service's context rule (unattributed beliefs never)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from lore_runtime.clock import Clock

from assembler_svc.domain.gathered import (
    Belief,
    EngagementDigest,
    EpisodeDigest,
    QueryVector,
    Recalled,
    RecalledMemory,
    Scope,
    SessionState,
    ThreadDigest,
)
from assembler_svc.domain.memory_reads import ContextUse, MemoryGathered, MemoryReads
from assembler_svc.domain.model import TokenCounter
from assembler_svc.domain.profile import Learnt


class MemorySources(Protocol):
    """The memory service's sources. A context, a Prime and a profile read them in one call
    (``gather``) and write what they kept in one (``record_use``); the per-source reads and writes
    are what those are made of when the service cannot answer them in one (``gather_each``)."""

    async def gather(self, reads: MemoryReads, *, timeout: float) -> MemoryGathered:
        """Every part ``reads`` asks for, concurrently, within ``timeout``. Never raises: a part
        that fails or does not answer in time is in ``failures`` and leaves the others. The episode
        search reuses recall's query vector when both search the same text."""
        ...

    async def record_use(self, use: ContextUse, *, timeout: float) -> None:
        """Access for what a context kept and its session's fingerprint: every write is tried; raises
        (after all were tried) when any failed."""
        ...

    async def working_memory(self, session_id: str, *, timeout: float) -> SessionState: ...

    async def recall(
        self, query: str, scope: Scope, k: int, session_id: str, *, with_vectors: bool, timeout: float
    ) -> Recalled:
        """Hybrid recall without recording access (only what the context keeps is recorded), with
        the query's vector for the belief search."""
        ...

    async def recent_episodes(
        self, scope: Scope, limit: int, min_salience: float, *, timeout: float
    ) -> list[EpisodeDigest]: ...

    async def search_episodes(
        self,
        query: str,
        scope: Scope,
        k: int,
        min_salience: float,
        *,
        query_vector: QueryVector | None = None,
        timeout: float,
    ) -> list[EpisodeDigest]:
        """The episodes nearest the query in meaning (``similarity`` set), best first; no access."""
        ...

    async def record_episode_access(
        self, episode_ids: Sequence[str], session_id: str, reason: str, *, timeout: float
    ) -> None: ...

    async def open_threads(self, scope: Scope, limit: int, *, timeout: float) -> list[ThreadDigest]: ...

    async def salient_facts(self, scope: Scope, limit: int, *, timeout: float) -> list[RecalledMemory]: ...

    async def user_facts(self, scope: Scope, limit: int, *, timeout: float) -> list[Learnt]:
        """The current facts and preferences of the scope's user's own (not the org's shared ones),
        most salient first, each with who said what it was learnt from (``Learnt.speaker``)."""
        ...

    async def record_access(
        self, memory_ids: Sequence[str], session_id: str, reason: str, *, timeout: float
    ) -> None: ...

    async def save_fingerprint(self, session_id: str, fingerprint: str, *, timeout: float) -> None: ...


class ObservationSources(Protocol):
    async def search_beliefs(
        self,
        query: str,
        scope: Scope,
        min_confidence: float,
        k: int,
        *,
        query_vector: QueryVector | None = None,
        timeout: float,
    ) -> list[Belief]:
        """``query_vector``: the query's embedding when the caller has it (the service uses it only
        when it comes from its own model)."""
        ...

    async def top_beliefs(self, scope: Scope, min_confidence: float, k: int, *, timeout: float) -> list[Belief]:
        """The most confident active beliefs a context for ``scope`` may show."""
        ...

    async def engagement(self, *, timeout: float) -> EngagementDigest:
        """The org's engagement state (one per org): asked only for the agents listed in
        ``LORE_ENGAGEMENT_AGENTS`` (``Scope.engages``)."""
        ...


@dataclass(frozen=True, slots=True)
class AssemblyServices:
    """What both reads of the assembler, a context and a Prime, are made with: the two services'
    sources, the token counter of the budget and the clock."""

    memory: MemorySources
    observations: ObservationSources
    counter: TokenCounter
    clock: Clock
