"""The memory service's reads of one fan-out in one call (``MemorySources.gather``), and the same
made one read per part (``gather_each``: what the in-memory fake does, and what the gRPC adapter
falls back to when the service does not know the gathered call).

``MemoryGather`` sits between the fan-out and the port: each source of the fan-out asks for its
part (``read``) before the fan-out starts; the first source that runs makes the one call, and
every source then takes its own part of the answer or raises that part's failure, so the fan-out
still reports one SOURCE_UNAVAILABLE per source that has none.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from lore_runtime.errors import DeadlineExceeded, DependencyUnavailable

from assembler_svc.domain.memory_reads import ContextUse, MemoryGathered, MemoryReads
from assembler_svc.usecases.fan_out import Relay
from assembler_svc.usecases.ports import MemorySources

# A part still running this long before the gather's deadline is given up (a failure of its own),
# so the gather answers in time with what the other parts found.
PART_MARGIN_SECONDS = 0.05
# The episode search waits at most this share of its time for recall's vector of the same query.
VECTOR_WAIT_SHARE = 0.5


class MemoryGather:
    """One gather for one fan-out: ``read(name, what)`` before the fan-out starts, then each
    returned call gives that part (or raises its failure)."""

    def __init__(self, memory: MemorySources) -> None:
        self._memory = memory
        self._reads: dict[str, Any] = {}
        self._call: asyncio.Future[MemoryGathered] | None = None

    def read(self, name: str, what: Any) -> Callable[[float], Awaitable[Any]]:
        if self._call is not None:
            raise RuntimeError("a part was asked for after the gather was made")
        self._reads[name] = what

        async def part(timeout: float) -> Any:
            return (await self._gathered(timeout)).part(name)

        return part

    async def _gathered(self, timeout: float) -> MemoryGathered:
        if self._call is None:
            self._call = asyncio.ensure_future(self._memory.gather(MemoryReads(**self._reads), timeout=timeout))
        # Shielded: a source given up by the fan-out does not cancel the call the others wait for.
        return await asyncio.shield(self._call)


def part_time(timeout: float) -> float:
    """How long a part of a gather of ``timeout`` may run."""
    return max(0.001, timeout - min(PART_MARGIN_SECONDS, timeout * 0.2))


async def gather_each(memory: MemorySources, reads: MemoryReads, *, timeout: float) -> MemoryGathered:
    """``reads`` one part at a time, all at once, through the port's per-source reads: each part
    answers or fails alone within ``part_time(timeout)``; the episode search of recall's query
    takes recall's vector through a ``Relay`` (as the belief search does) instead of embedding it."""
    limit = part_time(timeout)
    relay = Relay()
    shares_vector = (
        reads.recall is not None
        and reads.episode_search is not None
        and reads.recall.query == reads.episode_search.query
    )

    async def recall(left: float) -> Any:
        assert reads.recall is not None
        read = reads.recall
        return await relay.giving(
            memory.recall(
                read.query, read.scope, read.k, read.session_id, with_vectors=read.with_vectors, timeout=left
            ),
            lambda found: found.query_vector,
        )

    async def episode_search(left: float) -> Any:
        assert reads.episode_search is not None
        read = reads.episode_search

        def search(vector: Any, rest: float) -> Awaitable[Any]:
            return memory.search_episodes(
                read.query, read.scope, read.k, read.min_salience, query_vector=vector, timeout=rest
            )

        return await (relay.taking(left, search) if shares_vector else search(None, left))

    calls: dict[str, Callable[[float], Awaitable[Any]]] = {}
    if reads.working_memory is not None:
        session_id = reads.working_memory
        calls["working_memory"] = lambda left: memory.working_memory(session_id, timeout=left)
    if reads.recall is not None:
        calls["recall"] = recall
    if (episodes := reads.recent_episodes) is not None:
        calls["recent_episodes"] = lambda left: memory.recent_episodes(
            episodes.scope, episodes.limit, episodes.min_salience, timeout=left
        )
    if reads.episode_search is not None:
        calls["episode_search"] = episode_search
    if (threads := reads.open_threads) is not None:
        calls["open_threads"] = lambda left: memory.open_threads(threads.scope, threads.limit, timeout=left)
    if (facts := reads.salient_facts) is not None:
        calls["salient_facts"] = lambda left: memory.salient_facts(facts.scope, facts.limit, timeout=left)
    if (profile := reads.user_facts) is not None:
        calls["user_facts"] = lambda left: memory.user_facts(profile.scope, profile.limit, timeout=left)

    async def one(name: str) -> Any:
        try:
            return await asyncio.wait_for(calls[name](limit), limit)
        except TimeoutError:
            return DeadlineExceeded(f"{name} did not answer within {round(limit * 1000)} ms")
        except Exception as error:
            return error

    names = list(calls)
    outcomes = dict(zip(names, await asyncio.gather(*(one(name) for name in names)), strict=True))
    failures = {name: found for name, found in outcomes.items() if isinstance(found, Exception)}
    found = {name: value for name, value in outcomes.items() if name not in failures}
    return MemoryGathered(**found, failures=failures)


async def record_each(memory: MemorySources, use: ContextUse, *, timeout: float) -> None:
    """``use`` one write at a time, all at once: every write is tried; the failures, if any, are
    raised together once all are done."""
    writes: list[tuple[str, Awaitable[None]]] = []
    if use.memory_ids:
        writes.append(
            ("memory_access", memory.record_access(use.memory_ids, use.session_id, use.reason, timeout=timeout))
        )
    if use.episode_ids:
        writes.append(
            (
                "episode_access",
                memory.record_episode_access(use.episode_ids, use.session_id, use.reason, timeout=timeout),
            )
        )
    if use.fingerprint is not None:
        writes.append(
            ("context_fingerprint", memory.save_fingerprint(use.session_id, use.fingerprint, timeout=timeout))
        )
    outcomes = await asyncio.gather(*(write for _, write in writes), return_exceptions=True)
    failed = [f"{name}: {outcome}" for (name, _), outcome in zip(writes, outcomes, strict=True) if outcome is not None]
    if failed:
        raise DependencyUnavailable("; ".join(failed), reason="UNAVAILABLE")
