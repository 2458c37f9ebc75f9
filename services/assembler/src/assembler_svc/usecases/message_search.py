"""The searches by the message's meaning — memories (recall), beliefs and episodes — sharing one
embedding: recall returns the message's vector and hands it to the other two through a ``Relay``;
each waits for it at most half its deadline, then lets its service embed."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from assembler_svc.domain.gathered import Belief, EpisodeDigest, QueryVector, RecalledMemory, Scope
from assembler_svc.usecases.fan_out import Relay
from assembler_svc.usecases.ports import MemorySources, ObservationSources

T = TypeVar("T")

# The belief search waits at most this share of its deadline for recall's query vector.
VECTOR_WAIT_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class MessageSearches:
    recall: Callable[[float], Awaitable[list[RecalledMemory]]]
    beliefs: Callable[[float], Awaitable[list[Belief]]]
    episodes: Callable[[float], Awaitable[list[EpisodeDigest]]]


def message_searches(
    message: str,
    scope: Scope,
    *,
    memory: MemorySources,
    observations: ObservationSources,
    recall_k: int,
    session_id: str,
    with_vectors: bool,
    min_confidence: float,
    beliefs_k: int,
    episodes_k: int = 5,
    episode_min_salience: float = 0.0,
) -> MessageSearches:
    relay = Relay()

    async def recall(timeout: float) -> list[RecalledMemory]:
        try:
            found = await memory.recall(
                message, scope, recall_k, session_id, with_vectors=with_vectors, timeout=timeout
            )
            relay.give(found.query_vector)
            return found.memories
        finally:
            relay.give(None)

    async def with_vector(timeout: float, search: Callable[[QueryVector | None, float], Awaitable[T]]) -> T:
        """``search(vector, time left)`` once recall's vector came, or half the deadline passed."""
        started = time.monotonic()
        vector = await relay.take(timeout * VECTOR_WAIT_SHARE)
        return await search(vector, max(0.001, timeout - (time.monotonic() - started)))

    async def search_beliefs(timeout: float) -> list[Belief]:
        return await with_vector(
            timeout,
            lambda vector, left: observations.search_beliefs(
                message, scope, min_confidence, beliefs_k, query_vector=vector, timeout=left
            ),
        )

    async def search_episodes(timeout: float) -> list[EpisodeDigest]:
        return await with_vector(
            timeout,
            lambda vector, left: memory.search_episodes(
                message, scope, episodes_k, episode_min_salience, query_vector=vector, timeout=left
            ),
        )

    return MessageSearches(recall, search_beliefs, search_episodes)
