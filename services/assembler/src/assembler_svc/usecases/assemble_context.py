"""AssembleContext: fan out to every source in parallel, then rank, dedupe and budget (pure).

Sources, each with its own deadline (``fan_out``) and the memory service's read in one call
(``memory_gather``: its parts answer or fail alone): the session's working memory, hybrid recall
of the message (with stored vectors, for near-duplicate removal; access is *not* recorded by
recall), recent salient episodes, open threads, active beliefs (searched by the message, at
least the minimum confidence) and — only when the scope's agent is one of
``engagement_agents`` (``LORE_ENGAGEMENT_AGENTS``) — the org's engagement state; for any other
agent GetEngagement is not called and the context has no engagement candidate. Every read of
stored memory is made for a context of the request's scope (``ports``): never another user's
records. After the pipeline:

- access is recorded for the memories and episodes the context kept, and only those;
- the context's fingerprint is written to working memory, and compared with the previous
  turn's to flag a mood or persona switch.

Both are written in one call (``MemorySources.record_use``), best effort: the context is already
assembled, so a failure is logged, never turned into a failed call (a lost access count only
makes a memory fade a little sooner).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from assembler_svc.domain import candidates as build
from assembler_svc.domain.fingerprint import consistency_flags
from assembler_svc.domain.gathered import EngagementDigest, RecalledMemory, Scope, SessionState
from assembler_svc.domain.memory_reads import EpisodesRead, ListRead
from assembler_svc.domain.model import (
    Assembly,
    AssemblyPolicy,
    ConsistencyFlag,
    Section,
    Source,
)
from assembler_svc.domain.pipeline import assemble
from assembler_svc.domain.profile import MAX_TOKENS, build_profile, profile_candidates, profile_policy
from assembler_svc.domain.tool_results import ToolResult
from assembler_svc.usecases.fan_out import SourceCall, gather
from assembler_svc.usecases.memory_gather import MemoryGather
from assembler_svc.usecases.message_search import message_searches
from assembler_svc.usecases.ports import AssemblyServices, MemorySources, ObservationSources
from assembler_svc.usecases.record_use import context_use, record_use
from assembler_svc.usecases.user_profile import learnt, profile_calls

RECENT_EPISODES = 1
SEARCHED_EPISODES = 1
EPISODE_MIN_SALIENCE = 0.3
OPEN_THREADS = 5
BELIEFS = 10
ACCESS_REASON = "assembled_context"


@dataclass(frozen=True, slots=True)
class AssembleInput:
    message: str
    scope: Scope = field(default_factory=Scope)
    session_id: str = ""
    persona: str = ""
    persona_mode: str = ""
    user_profile: str = ""
    tool_results: Sequence[ToolResult] = ()
    opinions: Sequence[str] = ()
    policy: AssemblyPolicy = field(default_factory=AssemblyPolicy)
    recall_k: int = 30
    min_observation_confidence: float = 0.5
    record_access: bool = True


@dataclass(frozen=True, slots=True)
class AssembledContext:
    assembly: Assembly
    flags: tuple[ConsistencyFlag, ...]


async def assemble_context(
    request: AssembleInput,
    services: AssemblyServices,
    *,
    timeout: float,
    engagement_agents: Collection[str] = frozenset(),
    profile_max_tokens: int = MAX_TOKENS,
) -> AssembledContext:
    memory, observations = services.memory, services.observations
    engages = request.scope.engages(engagement_agents)
    reads = MemoryGather(memory)  # the memory service's parts of the fan-out, read in one call
    calls = _calls(request, reads, observations, engages=engages)
    calls += profile_calls(request.scope, reads, observations)
    found, unavailable = await gather(calls, timeout)
    # The user profile leads the user's section: what it states is not placed again when recalled.
    profile = build_profile(
        request.user_profile,
        learnt(found),
        services.counter,
        max_tokens=profile_max_tokens,
        listener=listener(found["recall"]),
    )
    in_profile = profile.learnt_ids
    session: SessionState = found["working_memory"]
    engagement: EngagementDigest | None = found.get("engagement")  # None: not engaged, or unavailable
    candidates = [
        *build.caller_candidates(
            persona=request.persona,
            user_profile=request.user_profile,
            tool_results=request.tool_results,
            opinions=request.opinions,
        ),
        *profile_candidates(profile),
        *build.session_candidates(session),
        *(build.engagement_candidates(engagement) if engagement is not None else ()),
        *build.memory_candidates([m for m in found["recall"] if m.id not in in_profile], session.recent_turn_ids),
        *build.episode_candidates(build.merge_episodes(found["episode_search"], found["episodes"])),
        *build.thread_candidates(found["open_threads"], services.clock.now()),
        *build.belief_candidates([b for b in found["beliefs"] if b.id not in in_profile]),
    ]
    assembly = assemble(
        candidates,
        policy=profile_policy(request.policy, profile),
        counter=services.counter,
        unavailable=unavailable,
        persona_mode=request.persona_mode,
        mood=session.mood,
        message=request.message,
        known_names=known_names(request.scope, found["recall"]),
    )
    wrote_state = bool(request.session_id) and not any(u.source is Source.WORKING_MEMORY for u in unavailable)
    flags = consistency_flags(session.fingerprint, assembly.fingerprint) if wrote_state else ()
    await _after(request, assembly, memory, timeout, save_fingerprint=wrote_state)
    return AssembledContext(assembly, flags)


def listener(recalled: Sequence[RecalledMemory]) -> str:
    """The other speaker of the user's conversations by name, when recall found messages of exactly
    one named speaker in the assistant's role (an import between two people); "" otherwise."""
    names = {memory.speaker for memory in recalled if memory.speaker and memory.role == "assistant"}
    return names.pop() if len(names) == 1 else ""


def known_names(scope: Scope, recalled: Sequence[RecalledMemory]) -> set[str]:
    """The names a message may use that the candidates need not say: the user's own (the words of
    their id), and every speaker and entity of what recall found (a memory the profile states too)."""
    names = {scope.user_id, *(memory.speaker for memory in recalled)}
    names.update(entity for memory in recalled for entity in memory.entities)
    names.discard("")
    return names


def _calls(
    request: AssembleInput, memory: MemoryGather, observations: ObservationSources, *, engages: bool
) -> list[SourceCall]:
    scope, message = request.scope, request.message
    searches = message_searches(
        message,
        scope,
        memory=memory,
        observations=observations,
        recall_k=request.recall_k,
        session_id=request.session_id,
        with_vectors=True,
        min_confidence=request.min_observation_confidence,
        beliefs_k=BELIEFS,
        episodes_k=SEARCHED_EPISODES,
    )
    calls = [
        SourceCall(
            "working_memory",
            Source.WORKING_MEMORY,
            Section.WORKING_SUMMARY,
            memory.read("working_memory", request.session_id) if request.session_id else _no_session,
            SessionState(),
        ),
        SourceCall(
            "recall",
            Source.MEMORY,
            Section.MEMORIES,
            searches.recall,
            [],
        ),
        SourceCall(
            "episodes",
            Source.EPISODE,
            Section.MEMORIES,
            memory.read("recent_episodes", EpisodesRead(scope, RECENT_EPISODES, EPISODE_MIN_SALIENCE)),
            [],
        ),
        SourceCall("episode_search", Source.EPISODE, Section.MEMORIES, searches.episodes, []),
        SourceCall(
            "open_threads",
            Source.OPEN_THREAD,
            Section.MEMORIES,
            memory.read("open_threads", ListRead(scope, OPEN_THREADS)),
            [],
        ),
        SourceCall(
            "beliefs",
            Source.OBSERVATION,
            Section.OBSERVATIONS,
            searches.beliefs,
            [],
        ),
    ]
    if engages:
        calls.append(
            SourceCall(
                "engagement",
                Source.ENGAGEMENT,
                Section.GUIDANCE,
                lambda t: observations.engagement(timeout=t),
                None,  # an outage is not "no state yet": no orientation then
            )
        )
    return calls


async def _no_session(timeout: float) -> SessionState:
    return SessionState()


async def _after(
    request: AssembleInput, assembly: Assembly, memory: MemorySources, timeout: float, *, save_fingerprint: bool
) -> None:
    use = context_use(
        assembly.manifest if request.record_access else (),
        request.session_id,
        ACCESS_REASON,
        fingerprint=assembly.fingerprint if save_fingerprint else None,
    )
    await record_use(use, memory, timeout, "after assembling a context")
