"""Prime: gather "what I remember" about a user at the start of a conversation.

In parallel, each with its own deadline (the memory service's reads in one call, each part
answering or failing alone): recent salient episodes, open threads, the most
salient facts and, with an initial message, a recall of it (for the memories that share its
entities), a search of the episodes and of the beliefs by it; without one, the most confident
beliefs. Every read is
made for a context of the scope (``ports``): the user's records and the org's shared ones, never
another user's. Priming shows no engagement state, for any agent. The pure ``domain.priming``
formats the parts within the token budget; access is recorded for the memories and episodes the
formatted text kept.
"""

from __future__ import annotations

from assembler_svc.domain import priming
from assembler_svc.domain.candidates import merge_episodes
from assembler_svc.domain.gathered import Scope
from assembler_svc.domain.memory_reads import EpisodesRead, ListRead
from assembler_svc.domain.model import Section, Source
from assembler_svc.usecases.fan_out import SourceCall, gather
from assembler_svc.usecases.memory_gather import MemoryGather
from assembler_svc.usecases.message_search import message_searches
from assembler_svc.usecases.ports import AssemblyServices, MemorySources
from assembler_svc.usecases.record_use import context_use, record_use

RECALL_K = 10
MIN_CONFIDENCE = 0.5
ACCESS_REASON = "prime"


async def prime(
    scope: Scope,
    initial_message: str,
    budget_tokens: int,
    services: AssemblyServices,
    *,
    timeout: float,
    limits: priming.PrimeLimits = priming.PrimeLimits(),
) -> priming.Priming:
    memory, observations = services.memory, services.observations
    reads = MemoryGather(memory)  # the memory service's parts of the fan-out, read in one call
    calls = [
        SourceCall(
            "episodes",
            Source.EPISODE,
            Section.MEMORIES,
            reads.read("recent_episodes", EpisodesRead(scope, limits.episodes, limits.min_salience)),
            [],
        ),
        SourceCall(
            "open_threads",
            Source.OPEN_THREAD,
            Section.GUIDANCE,
            reads.read("open_threads", ListRead(scope, limits.threads)),
            [],
        ),
        SourceCall(
            "salient_facts",
            Source.MEMORY,
            Section.MEMORIES,
            # A few more than shown: the ones a belief already states are dropped.
            reads.read("salient_facts", ListRead(scope, limits.facts + priming.OBSERVATIONS)),
            [],
        ),
    ]
    if initial_message:
        searches = message_searches(
            initial_message,
            scope,
            memory=reads,
            observations=observations,
            recall_k=RECALL_K,
            session_id="",
            with_vectors=False,
            min_confidence=MIN_CONFIDENCE,
            beliefs_k=priming.OBSERVATIONS,
            episodes_k=limits.episodes,
            episode_min_salience=limits.min_salience,
        )
        calls.append(SourceCall("recall", Source.MEMORY, Section.MEMORIES, searches.recall, []))
        calls.append(SourceCall("episode_search", Source.EPISODE, Section.MEMORIES, searches.episodes, []))
        calls.append(SourceCall("beliefs", Source.OBSERVATION, Section.OBSERVATIONS, searches.beliefs, []))
    else:
        calls.append(
            SourceCall(
                "beliefs",
                Source.OBSERVATION,
                Section.OBSERVATIONS,
                lambda t: observations.top_beliefs(scope, MIN_CONFIDENCE, priming.OBSERVATIONS, timeout=t),
                [],
            )
        )
    found, unavailable = await gather(calls, timeout)
    primed = priming.prime(
        episodes=merge_episodes(found.get("episode_search", []), found["episodes"]),
        threads=found["open_threads"],
        facts=found["salient_facts"],
        beliefs=found["beliefs"],
        recalled=found.get("recall", []),
        initial_message=initial_message,
        unavailable=unavailable,
        counter=services.counter,
        budget_tokens=budget_tokens,
        now=services.clock.now(),
        limits=limits,
    )
    await _record_use(primed, memory, timeout)
    return primed


async def _record_use(primed: priming.Priming, memory: MemorySources, timeout: float) -> None:
    """Access is recorded for the memories and episodes the formatted text kept (best effort)."""
    await record_use(context_use(primed.manifest, "", ACCESS_REASON), memory, timeout, "recording access after priming")
