"""Hand-written fakes of the assembler's source ports, for unit tests of its use cases.

tests/integration/assembler/test_sources_contract.py runs the same assertions against these
and the gRPC adapters on the real services, so the fakes cannot drift from what the services
really answer. A fake can be told to fail (``fail``) or to hang (``hang``) per method, to test
degradation.

Records have a scope, as they do in the services: ``scopes`` maps a memory, episode or belief id
to its ``Scope`` (an id not in it is the org's, shared: ``Scope()``); an open thread has its
episode's. Every read is a read for a context, as the adapters make it: it returns only what
``scope.shows`` allows — never another user's records.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

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
from assembler_svc.domain.profile import Learnt
from assembler_svc.usecases.memory_gather import gather_each, record_each
from lore_runtime import errors

FAKE_MODEL = "fake-words"


def _query_vector(text: str) -> tuple[float, ...]:
    """A stand-in for the query's embedding: deterministic, recognisable in assertions."""
    return (float(len(text)), float(len(_words(text))))


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


@dataclass
class Misbehaviour:
    fail: set[str] = field(default_factory=set)
    hang: set[str] = field(default_factory=set)
    calls: list[str] = field(default_factory=list)

    async def enter(self, method: str, timeout: float) -> None:
        self.calls.append(method)
        if method in self.fail:
            raise errors.DependencyUnavailable(f"{method} is down", reason="UNAVAILABLE")
        if method in self.hang:
            await asyncio.sleep(timeout + 5)  # fault injection: a source that hangs past its deadline


@dataclass
class FakeMemorySources:
    """Recall returns the stored memories whose content shares a word with the query, best first
    by the number of shared words (similarity = shared / query words)."""

    memories: list[RecalledMemory] = field(default_factory=list)
    episodes: list[EpisodeDigest] = field(default_factory=list)
    threads: list[ThreadDigest] = field(default_factory=list)
    sessions: dict[str, SessionState] = field(default_factory=dict)
    scopes: dict[str, Scope] = field(default_factory=dict)  # memory or episode id -> its scope
    accessed: list[tuple[tuple[str, ...], str, str]] = field(default_factory=list)
    episodes_accessed: list[tuple[tuple[str, ...], str, str]] = field(default_factory=list)
    misbehave: Misbehaviour = field(default_factory=Misbehaviour)

    def add_memory(self, memory: RecalledMemory, scope: Scope = Scope()) -> None:
        self.memories.append(memory)
        self.scopes[memory.id] = scope

    def add_episode(self, episode: EpisodeDigest, scope: Scope = Scope(), threads: Sequence[ThreadDigest] = ()) -> None:
        self.episodes.append(episode)
        self.threads.extend(threads)
        self.scopes[episode.id] = scope

    def _shows(self, context: Scope, record_id: str) -> bool:
        return context.shows(self.scopes.get(record_id, Scope()))

    async def gather(self, reads: MemoryReads, *, timeout: float) -> MemoryGathered:
        """As the service's one call: every part through the read of its own (so ``fail`` and
        ``hang`` of a read fail or stall that part only), recall's vector reused by the search."""
        self.misbehave.calls.append("gather")
        return await gather_each(self, reads, timeout=timeout)

    async def record_use(self, use: ContextUse, *, timeout: float) -> None:
        self.misbehave.calls.append("record_use")
        await record_each(self, use, timeout=timeout)

    async def working_memory(self, session_id: str, *, timeout: float) -> SessionState:
        await self.misbehave.enter("working_memory", timeout)
        return self.sessions.get(session_id, SessionState())

    async def recall(
        self, query: str, scope: Scope, k: int, session_id: str, *, with_vectors: bool, timeout: float
    ) -> Recalled:
        await self.misbehave.enter("recall", timeout)
        words = _words(query)
        scored = []
        for memory in self.memories:
            if not self._shows(scope, memory.id):
                continue
            shared = len(words & _words(memory.content))
            if shared:
                similarity = shared / max(1, len(words))
                scored.append(
                    RecalledMemory(
                        id=memory.id,
                        content=memory.content,
                        memory_type=memory.memory_type,
                        similarity=similarity,
                        salience=memory.salience,
                        importance=memory.importance,
                        valid_at=memory.valid_at,
                        vector=memory.vector if with_vectors else None,
                        entities=memory.entities,
                        metadata=memory.metadata,
                        session_id=memory.session_id,
                        turn_ids=memory.turn_ids,
                        speaker=memory.speaker,
                    )
                )
        best = sorted(scored, key=lambda m: (-m.similarity, m.id))[:k]
        return Recalled(best, QueryVector(_query_vector(query), FAKE_MODEL))

    async def recent_episodes(
        self, scope: Scope, limit: int, min_salience: float, *, timeout: float
    ) -> list[EpisodeDigest]:
        await self.misbehave.enter("recent_episodes", timeout)
        kept = [e for e in self.episodes if e.salience >= min_salience and self._shows(scope, e.id)]
        return sorted(kept, key=lambda e: (e.ended_at is None, e.ended_at), reverse=True)[:limit]

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
        """Like recall: similarity = the share of the query's words the summary holds; best first."""
        await self.misbehave.enter("search_episodes", timeout)
        words = _words(query)
        found = [
            dataclasses.replace(e, similarity=len(words & _words(e.summary)) / max(1, len(words)))
            for e in self.episodes
            if e.salience >= min_salience and self._shows(scope, e.id)
        ]
        return sorted(found, key=lambda e: (-e.similarity, e.id))[:k]

    async def record_episode_access(
        self, episode_ids: Sequence[str], session_id: str, reason: str, *, timeout: float
    ) -> None:
        await self.misbehave.enter("record_episode_access", timeout)
        self.episodes_accessed.append((tuple(episode_ids), session_id, reason))

    async def open_threads(self, scope: Scope, limit: int, *, timeout: float) -> list[ThreadDigest]:
        await self.misbehave.enter("open_threads", timeout)
        return [t for t in self.threads if self._shows(scope, t.episode_id)][:limit]

    async def salient_facts(self, scope: Scope, limit: int, *, timeout: float) -> list[RecalledMemory]:
        await self.misbehave.enter("salient_facts", timeout)
        facts = [
            m
            for m in self.memories
            if m.memory_type not in ("message", "tool_interaction") and self._shows(scope, m.id)
        ]
        return sorted(facts, key=lambda m: (-m.salience, m.id))[:limit]

    async def user_facts(self, scope: Scope, limit: int, *, timeout: float) -> list[Learnt]:
        """As the adapter: the scope's user's own facts and preferences (not the org's shared ones)."""
        await self.misbehave.enter("user_facts", timeout)
        own = [
            m
            for m in self.memories
            if m.memory_type in ("fact", "preference")
            and scope.user_id
            and self.scopes.get(m.id, Scope()).user_id == scope.user_id
            and self._shows(scope, m.id)
        ]
        return [
            Learnt(
                m.id,
                m.content,
                m.memory_type,
                m.importance,
                m.valid_at,
                m.metadata.get("speaker", ""),
                m.memory_type,
                m.turn_ids,
            )
            for m in sorted(own, key=lambda m: (-m.salience, m.id))[:limit]
        ]

    async def record_access(self, memory_ids: Sequence[str], session_id: str, reason: str, *, timeout: float) -> None:
        await self.misbehave.enter("record_access", timeout)
        self.accessed.append((tuple(memory_ids), session_id, reason))

    async def save_fingerprint(self, session_id: str, fingerprint: str, *, timeout: float) -> None:
        await self.misbehave.enter("save_fingerprint", timeout)
        state = self.sessions.get(session_id, SessionState())
        self.sessions[session_id] = SessionState(
            summary=state.summary,
            plan=state.plan,
            pending=state.pending,
            mood=state.mood,
            mood_valence=state.mood_valence,
            last_tool_result=state.last_tool_result,
            fingerprint=fingerprint,
        )


@dataclass
class FakeObservationSources:
    """Beliefs of the org (``scopes``: belief id -> its agent, user and team; unattributed ones
    never reach a context) and its engagement state."""

    beliefs: list[Belief] = field(default_factory=list)
    state: EngagementDigest = field(default_factory=EngagementDigest)
    scopes: dict[str, Scope] = field(default_factory=dict)
    unattributed: set[str] = field(default_factory=set)
    misbehave: Misbehaviour = field(default_factory=Misbehaviour)
    given_vectors: list[QueryVector | None] = field(default_factory=list)
    subjects: dict[str, str] = field(default_factory=dict)  # belief id -> the user it is about

    def add_belief(self, belief: Belief, scope: Scope = Scope(), about: str | None = None) -> None:
        """``about``: the user the belief is about (its subject), by default its scope's user."""
        self.beliefs.append(belief)
        self.scopes[belief.id] = scope
        self.subjects[belief.id] = scope.user_id if about is None else about

    def _shown(self, context: Scope) -> list[Belief]:
        """As the service shows them to ``context``: about its user or not."""
        return [
            dataclasses.replace(b, about_user=b.about_user or self._about(b.id, context))
            for b in self.beliefs
            if b.id not in self.unattributed and context.shows(self.scopes.get(b.id, Scope()))
        ]

    def _about(self, belief_id: str, context: Scope) -> bool:
        return bool(context.user_id) and self.subjects.get(belief_id) == context.user_id

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
        await self.misbehave.enter("search_beliefs", timeout)
        self.given_vectors.append(query_vector)
        words = _words(query)
        found = []
        for belief in self._shown(scope):
            shared = len(words & _words(belief.summary))
            if shared and belief.confidence >= min_confidence:
                # As the service: the stored vector only when the query's came along (same model).
                vector = belief.vector if query_vector is not None else None
                found.append(dataclasses.replace(belief, similarity=shared / max(1, len(words)), vector=vector))
        return sorted(found, key=lambda b: (-b.similarity, b.id))[:k]

    async def top_beliefs(self, scope: Scope, min_confidence: float, k: int, *, timeout: float) -> list[Belief]:
        await self.misbehave.enter("top_beliefs", timeout)
        kept = [b for b in self._shown(scope) if b.confidence >= min_confidence]
        return sorted(kept, key=lambda b: (-b.confidence, -b.freshness, b.id))[:k]

    async def engagement(self, *, timeout: float) -> EngagementDigest:
        await self.misbehave.enter("engagement", timeout)
        return self.state
