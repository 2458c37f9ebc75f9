"""The two searches by the message's meaning — memories (recall) and beliefs — sharing one
embedding: recall returns the message's vector and hands it to the belief search through a
``Relay``; the belief search waits for it at most half its deadline, then embeds by itself."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from assembler_svc.domain.gathered import Belief, RecalledMemory, Scope
from assembler_svc.usecases.fan_out import Relay
from assembler_svc.usecases.ports import BeliefSources, MemorySources

# The belief search waits at most this share of its deadline for recall's query vector.
VECTOR_WAIT_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class MessageSearches:
    recall: Callable[[float], Awaitable[list[RecalledMemory]]]
    beliefs: Callable[[float], Awaitable[list[Belief]]]


def message_searches(
    message: str,
    scope: Scope,
    *,
    memory: MemorySources,
    beliefs: BeliefSources,
    recall_k: int,
    session_id: str,
    with_vectors: bool,
    min_confidence: float,
    beliefs_k: int,
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

    async def search_beliefs(timeout: float) -> list[Belief]:
        started = time.monotonic()
        vector = await relay.take(timeout * VECTOR_WAIT_SHARE)
        left = max(0.001, timeout - (time.monotonic() - started))
        return await beliefs.search_beliefs(
            message, scope, min_confidence, beliefs_k, query_vector=vector, timeout=left
        )

    return MessageSearches(recall, search_beliefs)
