"""The user profile (``domain.profile``): read on its own (``GetUserProfile``) and, as the "User
profile" section, in every context of a scope that names a user (``assemble_context``).

Two reads, in parallel with each other (and with the rest of a context's fan-out): the user's own
current facts and preferences (memory service, most salient first) and the most confident active
beliefs a context for the scope may show, of which only those about the user count. A belief
about the user comes in whoever's scope it was recorded under (the org's shared ones included);
a memory only when it is the user's own. The read fails (``DependencyUnavailable``) when either
source does; in a context, an unavailable source is reported like any other and the profile is
built from what answered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lore_runtime.errors import DependencyUnavailable

from assembler_svc.domain.gathered import Belief, Scope
from assembler_svc.domain.memory_reads import ListRead
from assembler_svc.domain.model import Section, Source
from assembler_svc.domain.profile import BELIEF, MAX_TOKENS, Learnt, UserProfile, build_profile
from assembler_svc.usecases.fan_out import SourceCall, gather
from assembler_svc.usecases.memory_gather import MemoryGather
from assembler_svc.usecases.ports import AssemblyServices, ObservationSources

# The user's most salient facts and preferences a profile is chosen from. Reading them was the
# memory service's dearest part of a context (a third of its CPU at 200); at 100 the profiles of
# the tuning conversations state as many core facts (bench.profile_quality).
PROFILE_FACTS = 100
PROFILE_BELIEFS = 50
MIN_BELIEF_CONFIDENCE = 0.5
FACTS_CALL = "profile_facts"
BELIEFS_CALL = "profile_beliefs"


@dataclass(frozen=True, slots=True)
class ProfileInput:
    scope: Scope
    user_profile: str = ""
    budget_tokens: int = 0  # 0: as much as is known, between the default and ``max_tokens``


def profile_calls(scope: Scope, memory: MemoryGather, observations: ObservationSources) -> list[SourceCall]:
    """The reads a profile is built from; none for a scope without a user (nobody to describe). The
    user's facts are a part of ``memory``'s gather (a context's, when the profile is in one)."""
    if not scope.user_id:
        return []
    return [
        SourceCall(
            FACTS_CALL,
            Source.MEMORY,
            Section.USER_PROFILE,
            memory.read("user_facts", ListRead(scope, PROFILE_FACTS)),
            [],
        ),
        SourceCall(
            BELIEFS_CALL,
            Source.OBSERVATION,
            Section.USER_PROFILE,
            lambda t: observations.top_beliefs(scope, MIN_BELIEF_CONFIDENCE, PROFILE_BELIEFS, timeout=t),
            [],
        ),
    ]


def learnt(found: Mapping[str, Any]) -> list[Learnt]:
    """What the profile reads brought back, beliefs about the user first."""
    beliefs: Sequence[Belief] = found.get(BELIEFS_CALL, [])
    return [
        *(Learnt(b.id, b.summary, BELIEF, b.confidence, b.updated_at, "", b.kind) for b in beliefs if b.about_user),
        *found.get(FACTS_CALL, []),
    ]


async def user_profile(
    request: ProfileInput, services: AssemblyServices, *, timeout: float, max_tokens: int = MAX_TOKENS
) -> UserProfile:
    calls = profile_calls(request.scope, MemoryGather(services.memory), services.observations)
    found, unavailable = await gather(calls, timeout)
    if unavailable:  # a read answers the whole profile or says why not: never a part of it as if all
        raise DependencyUnavailable("; ".join(gap.reason for gap in unavailable), reason="UNAVAILABLE")
    return build_profile(
        request.user_profile,
        learnt(found),
        services.counter,
        budget_tokens=request.budget_tokens,
        max_tokens=max_tokens,
    )
