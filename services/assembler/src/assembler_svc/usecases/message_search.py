"""The searches by the message's meaning — memories (recall), beliefs and episodes — sharing one
embedding: recall and the episode search are parts of the fan-out's memory gather (the memory
service reuses recall's vector for the episodes); recall's vector is handed to the belief search
through a ``Relay``, which waits for it at most ``fan_out.WAIT_SHARE`` of its deadline, then lets its
service embed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from assembler_svc.domain.gathered import Belief, EpisodeDigest, Recalled, RecalledMemory, Scope
from assembler_svc.domain.memory_reads import EpisodeSearchRead, RecallRead
from assembler_svc.usecases.fan_out import Relay
from assembler_svc.usecases.memory_gather import MemoryGather
from assembler_svc.usecases.ports import ObservationSources


@dataclass(frozen=True, slots=True)
class MessageSearches:
    recall: Callable[[float], Awaitable[list[RecalledMemory]]]
    beliefs: Callable[[float], Awaitable[list[Belief]]]
    episodes: Callable[[float], Awaitable[list[EpisodeDigest]]]


def message_searches(
    message: str,
    scope: Scope,
    *,
    memory: MemoryGather,
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
    recall_part = memory.read("recall", RecallRead(message, scope, recall_k, session_id, with_vectors))
    episodes = memory.read("episode_search", EpisodeSearchRead(message, scope, episodes_k, episode_min_salience))

    async def recall(timeout: float) -> list[RecalledMemory]:
        found: Recalled = await relay.giving(recall_part(timeout), lambda found: found.query_vector)
        return found.memories

    async def search_beliefs(timeout: float) -> list[Belief]:
        """The beliefs once recall's vector came, or the relay's share of the deadline passed."""
        return await relay.taking(
            timeout,
            lambda vector, left: observations.search_beliefs(
                message, scope, min_confidence, beliefs_k, query_vector=vector, timeout=left
            ),
        )

    return MessageSearches(recall, search_beliefs, episodes)
