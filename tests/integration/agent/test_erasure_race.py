"""Erasure wins its race (real Postgres, Redis, qdrant-edge; the in-process services): from the
moment ForgetSubject is accepted nothing new is written for the subject — a turn, an import or a
new session answers ABORTED (409) SUBJECT_ERASING — a reflection job already reflecting a turn is
waited for (the memory and observations services refuse what it then writes for the subject), the
erasure sweeps and only then completes, and afterwards the same user starts again with nothing of
the old data.

The race is made deterministic by holding the reflection job inside the extractor (an event the
test sets), never by a sleep."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import AsyncIterator, Sequence

import asyncpg
import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from lore.agent.v1 import agent_service_pb2 as pb
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import memory_service_pb2
from lore.observations.v1 import observation_service_pb2 as opb

from tests.integration.agent.support import eventually, refused, say, tenant

HOLD = "(held for the race)"


class HeldExtractor:
    """The service's extractor, except that reflecting a turn that says ``HOLD`` waits for ``release``
    (``entered`` tells the test the job got there)."""

    def __init__(self, inner) -> None:
        self._inner = inner
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def reflect(self, utterance, earlier: Sequence):
        if HOLD in utterance.content:
            self.entered.set()
            await self.release.wait()
        return await self._inner.reflect(utterance, earlier)

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


@pytest.fixture
async def held(services) -> AsyncIterator[HeldExtractor]:
    container = services["agent"].container
    original = container.reflection
    extractor = HeldExtractor(original.extractor)
    container.reflection = dataclasses.replace(original, extractor=extractor)
    try:
        yield extractor
    finally:
        extractor.release.set()
        container.reflection = original


def reason_of(error: grpc.aio.AioRpcError) -> str:
    info = error_details_pb2.ErrorInfo()
    rpc_status.from_call(error).details[0].Unpack(info)
    return info.reason


async def forget(agent, org: str, user: str, request_id: str) -> pb.ErasureJob:
    request = pb.ForgetSubjectRequest(subject=scope_pb2.Scope(user_id=user), request_id=request_id)
    return (await agent.ForgetSubject(request, metadata=tenant(org))).job


async def started(agent, org: str, user: str) -> str:
    scope = scope_pb2.Scope(user_id=user, agent_id="aria")
    return (await agent.StartSession(pb.StartSessionRequest(scope=scope), metadata=tenant(org))).session.id


async def memories_of(memories, org: str, user: str) -> list[memory_service_pb2.Memory]:
    request = memory_service_pb2.ListMemoriesRequest(scope=scope_pb2.Scope(user_id=user), page_size=500)
    return list((await memories.ListMemories(request, metadata=tenant(org))).memories)


async def beliefs_of(observations, org: str, user: str) -> list[opb.Observation]:
    about = opb.QueryObservationsRequest(agent_id="aria", subject_type=opb.SUBJECT_TYPE_ENTITY, subject_id=user)
    scoped = opb.QueryObservationsRequest(user_id=user)
    return [
        *(await observations.QueryObservations(about, metadata=tenant(org))).observations,
        *(await observations.QueryObservations(scoped, metadata=tenant(org))).observations,
    ]


async def no_jobs_left(database_url: str, org: str, kind: str) -> bool:
    """Whether none of the org's jobs of ``kind`` waits or runs in the queue any more."""
    connection = await asyncpg.connect(database_url)
    try:
        return not await connection.fetchval(
            """
            SELECT count(*) FROM agent.pgqueuer
            WHERE entrypoint = $2 AND status IN ('queued', 'picked')
              AND convert_from(payload, 'UTF8')::jsonb ->> 'org_id' = $1
            """,
            org,
            kind,
        )
    finally:
        await connection.close()


async def erasure_waiting(agent, org: str, user: str, request_id: str) -> pb.ErasureJob | None:
    """The erasure once its job has begun (or finished)."""
    job = await forget(agent, org, user, request_id)
    return job if job.status in (pb.ERASURE_STATUS_RUNNING, pb.ERASURE_STATUS_COMPLETED) else None


async def completed(agent, org: str, user: str, request_id: str) -> pb.ErasureJob | None:
    job = await forget(agent, org, user, request_id)
    return job if job.status == pb.ERASURE_STATUS_COMPLETED else None


@pytest.fixture
def org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


async def test_a_reflection_job_in_flight_when_erasure_starts_leaves_nothing_behind(
    agent, memories, observations, held, org, migrated_pg
):
    user = "u-racing"
    session = await started(agent, org, user)
    await say(agent, org, session, f"I'm vegetarian, by the way. {HOLD}")
    await asyncio.wait_for(held.entered.wait(), timeout=30)  # the reflection job is inside the turn

    await forget(agent, org, user, "race")
    waiting = await eventually(lambda: erasure_waiting(agent, org, user, "race"))
    held.release.set()  # the reflection goes on: its writes meet the memory and observations fences
    done = await eventually(lambda: completed(agent, org, user, "race"))
    await eventually(lambda: no_jobs_left(migrated_pg.app_dsn, org, "reflect"))

    assert await memories_of(memories, org, user) == []
    assert await beliefs_of(observations, org, user) == []
    # The job waited for the reflection under way (it had erased nothing yet), then swept.
    assert waiting.status == pb.ERASURE_STATUS_RUNNING and not dict(waiting.counts), waiting
    assert done.counts["sessions"] == 1 and done.counts["turns"] == 1, dict(done.counts)


async def test_writes_for_a_subject_being_erased_are_refused_and_the_user_starts_afresh_after(
    agent, memories, observations, held, org
):
    user, other = "u-erasing", "u-bystander"
    session = await started(agent, org, user)
    await say(agent, org, session, f"I live in Porto. {HOLD}")
    await asyncio.wait_for(held.entered.wait(), timeout=30)
    await forget(agent, org, user, "fence")
    await eventually(lambda: erasure_waiting(agent, org, user, "fence"))
    state = await forget(agent, org, user, "fence")
    assert state.status == pb.ERASURE_STATUS_RUNNING, state

    turn = await refused(say(agent, org, session, "Also, I prefer tea."))
    history = [turn_pb2.Turn(role=turn_pb2.TURN_ROLE_USER, content="I used to live in Braga.")]
    imported = await refused(
        agent.ImportTurns(pb.ImportTurnsRequest(session_id=session, turns=history), metadata=tenant(org))
    )
    fresh = await refused(started(agent, org, user))
    for error in (turn, imported, fresh):
        assert error.code() == grpc.StatusCode.ABORTED, (error.code(), error.details())
        assert reason_of(error) == "SUBJECT_ERASING" and "being erased" in error.details()
    # Another user of the org is not fenced.
    await say(agent, org, await started(agent, org, other), "Hello there.")

    held.release.set()
    await eventually(lambda: completed(agent, org, user, "fence"))

    again = await started(agent, org, user)
    assert again != session
    await say(agent, org, again, "I'm new here.")
    listed = await agent.ListSessions(pb.ListSessionsRequest(scope=scope_pb2.Scope(user_id=user)), metadata=tenant(org))
    assert [found.id for found in listed.sessions] == [again]
    turns = await agent.ListTurns(pb.ListTurnsRequest(session_id=again), metadata=tenant(org))
    assert [t.content for t in turns.turns] == ["I'm new here."]
    gone = await refused(agent.GetSession(pb.GetSessionRequest(id=session), metadata=tenant(org)))
    assert gone.code() == grpc.StatusCode.NOT_FOUND
    said = " ".join(memory.content for memory in await memories_of(memories, org, user))
    assert "Porto" not in said and "tea" not in said
