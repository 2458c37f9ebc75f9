"""StartSession with its Prime on the running services (seed 001: priming is called when a new
conversation starts): the Prime is of the session's own scope — what Lore remembers of that user,
nothing of another user's — a retried start returns the same session, bad input writes nothing,
a request id never hands over another user's session, and an assembler that cannot be reached
costs the Prime, never the session."""

from __future__ import annotations

import uuid

import grpc
from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc
from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2
from lore_devstack import free_port

from tests.grpc_harness import service_channel
from tests.integration.agent.support import refused, tenant

AGENT = "aria"


async def remember(memories, org: str, user: str, content: str) -> None:
    item = memory_service_pb2.MemoryInput(
        content=content,
        memory_type=memory_service_pb2.MEMORY_TYPE_FACT,
        scope=scope_pb2.Scope(user_id=user, agent_id=AGENT),
        importance=0.9,
        idempotency_key=f"{user}-{content}",
    )
    await memories.Remember(memory_service_pb2.RememberRequest(memories=[item]), metadata=tenant(org))


def starting(user: str, **fields) -> pb.StartSessionRequest:
    return pb.StartSessionRequest(scope=scope_pb2.Scope(user_id=user, agent_id=AGENT), **fields)


async def test_an_initial_message_returns_the_prime_of_that_user_and_nothing_of_another(agent, memories):
    org, tag = f"org-{uuid.uuid4().hex[:12]}", uuid.uuid4().hex[:8]
    ana, bo = f"ibis{tag}", f"okapi{tag}"
    await remember(memories, org, "u-ana", f"Ana keeps bees on her rooftop in Lisbon ({ana}).")
    await remember(memories, org, "u-bo", f"Bo keeps bees in his garden in Porto ({bo}).")

    started = await agent.StartSession(
        starting("u-ana", request_id="r-ana", initial_message="How are my bees doing?"), metadata=tenant(org)
    )
    retried = await agent.StartSession(
        starting("u-ana", request_id="r-ana", initial_message="How are my bees doing?"), metadata=tenant(org)
    )
    plain = await agent.StartSession(starting("u-ana"), metadata=tenant(org))
    asked = await agent.StartSession(starting("u-ana", include_prime=True), metadata=tenant(org))

    assert started.HasField("prime") and not started.prime_unavailable
    assert ana in started.prime.formatted_context and bo not in str(started.prime)
    assert retried.session.id == started.session.id and ana in retried.prime.formatted_context
    assert not plain.HasField("prime") and not plain.prime_unavailable
    assert ana in asked.prime.formatted_context and bo not in str(asked.prime)


async def test_a_request_id_of_another_users_session_is_refused_and_primes_nothing(agent, memories):
    org, marker = f"org-{uuid.uuid4().hex[:12]}", f"okapi{uuid.uuid4().hex[:8]}"
    await remember(memories, org, "u-bo", f"Bo keeps bees in his garden in Porto ({marker}).")
    bos = await agent.StartSession(starting("u-bo", request_id="r-1"), metadata=tenant(org))

    error = await refused(
        agent.StartSession(
            starting("u-ana", request_id="r-1", initial_message="How are the bees?"), metadata=tenant(org)
        )
    )

    assert error.code() == grpc.StatusCode.ALREADY_EXISTS and "request_id" in error.details()
    assert bos.session.id not in error.details() and marker not in error.details()
    listed = await agent.ListSessions(pb.ListSessionsRequest(), metadata=tenant(org))
    assert [s.id for s in listed.sessions] == [bos.session.id]


async def test_an_initial_message_over_the_primes_limit_is_refused_and_starts_nothing(agent):
    org = f"org-{uuid.uuid4().hex[:12]}"

    error = await refused(agent.StartSession(starting("u-1", initial_message="x" * 4_001), metadata=tenant(org)))

    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "initial_message" in error.details()
    assert list((await agent.ListSessions(pb.ListSessionsRequest(), metadata=tenant(org))).sessions) == []


async def test_an_unreachable_assembler_costs_the_prime_never_the_session(agent_process):
    org = f"org-{uuid.uuid4().hex[:12]}"
    agent_process.env.update(LORE_ASSEMBLER_ADDR=f"127.0.0.1:{free_port()}")  # nothing listens there
    await agent_process.start()
    async with service_channel(agent_process.address) as channel:
        outage_agent = agent_service_pb2_grpc.AgentServiceStub(channel)
        started = await outage_agent.StartSession(
            starting("u-1", request_id="r-1", initial_message="Hello again!"), metadata=tenant(org), timeout=30
        )
        got = await outage_agent.GetSession(pb.GetSessionRequest(id=started.session.id), metadata=tenant(org))

    assert started.prime_unavailable and not started.HasField("prime")
    assert got.session.id == started.session.id and got.session.status == pb.SESSION_STATUS_ACTIVE
