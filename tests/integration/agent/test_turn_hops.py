"""How many gRPC calls one ProcessTurn makes between the services: each hop adds to the turn's latency.

Every call a service makes to another goes through lore_runtime's client interceptor; the test counts
those made on behalf of the turn's caller (its org and principal), so the reflection job that the turn
queues, which runs as ``system:agent-jobs``, is not counted."""

from __future__ import annotations

import collections
import uuid

import pytest
from lore.agent.v1 import agent_service_pb2 as pb
from lore.common.v1 import scope_pb2
from lore_runtime import channels, request_context

from tests.integration.agent.support import say, tenant
from tests.polling import settled

# ProcessTurn of a user turn without a language model, for an agent outside LORE_ENGAGEMENT_AGENTS and
# a user with nothing remembered yet (nothing kept, so nothing to record access for): the lease and the
# append (one call), the assembler, what it reads of the memory service in one call (the user profile's
# facts among it), the beliefs (searched, and the profile's), what it writes back in one call (the
# context's fingerprint), and the release: 7 calls.
TURN_CALLS = {
    "/lore.memory.v1.WorkingMemoryService/AppendTurn": 1,  # with acquire_lease
    "/lore.assembler.v1.AssemblerService/AssembleContext": 1,
    "/lore.memory.v1.ContextSourceService/GatherContext": 1,
    "/lore.observations.v1.ObservationService/SearchObservations": 1,
    "/lore.observations.v1.ObservationService/QueryObservations": 1,  # the user profile's beliefs
    "/lore.memory.v1.ContextSourceService/RecordContextUse": 1,  # the context's fingerprint
    "/lore.memory.v1.WorkingMemoryService/ReleaseSessionLease": 1,
}


@pytest.fixture
def org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def calls(monkeypatch, org) -> collections.Counter:
    counted: collections.Counter = collections.Counter()
    details = channels._CallerInterceptor._details

    def counting(self, call_details):
        caller = request_context.current_or_none()
        if caller is not None and caller.org_id == org and caller.principal == "tester":
            method = call_details.method
            counted[method.decode() if isinstance(method, bytes) else method] += 1
        return details(self, call_details)

    monkeypatch.setattr(channels._CallerInterceptor, "_details", counting)
    return counted


async def test_a_turn_takes_its_lease_and_joins_working_memory_in_one_call(agent, org, calls) -> None:
    request = pb.StartSessionRequest(scope=scope_pb2.Scope(user_id="u-1", agent_id="hops"))
    session_id = (await agent.StartSession(request, metadata=tenant(org))).session.id
    await say(agent, org, session_id, "warm-up: the first turn of a session")
    await settled(lambda: dict(calls), what="the calls of the first turn")  # also those after its answer
    calls.clear()

    await say(agent, org, session_id, "What did we decide about the billing service?")
    await settled(lambda: dict(calls), what="the calls of the second turn")

    print(dict(sorted(calls.items())), sum(calls.values()))
    assert dict(calls) == TURN_CALLS and sum(calls.values()) == 7
