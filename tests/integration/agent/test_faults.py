"""The agent process killed with SIGKILL — during a 2,000-turn import, and during reflection —
then restarted: every acknowledged turn is in the transcript, every job completes, and no memory
is written twice.

The agent runs as a real child process on a database of its own (so the test's in-process agent
and its job worker never touch these jobs), calling the test's memory, observations and
assembler services. Its heartbeat timeout is short, so the restarted worker takes over the job
the killed one held within seconds.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta

import asyncpg
import grpc
import pytest
from google.protobuf import timestamp_pb2
from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore.observations.v1 import observation_service_pb2, observation_service_pb2_grpc
from lore_devstack import free_port

from tests.agent_process import AgentProcess, start_observations
from tests.grpc_harness import service_channel
from tests.integration.agent.support import tenant
from tests.polling import eventually

IMPORT_TURNS = 2_000
BATCH = 100
SAID = datetime(2024, 1, 1, tzinfo=UTC)


def stamp(moment: datetime) -> timestamp_pb2.Timestamp:
    message = timestamp_pb2.Timestamp()
    message.FromDatetime(moment)
    return message


def history(count: int, say: Callable[[int], str]) -> list[turn_pb2.Turn]:
    return [
        turn_pb2.Turn(
            role=turn_pb2.TURN_ROLE_USER if index % 2 == 0 else turn_pb2.TURN_ROLE_ASSISTANT,
            content=say(index),
            created_at=stamp(SAID + timedelta(seconds=index)),
            idempotency_key=f"turn-{index}",
        )
        for index in range(count)
    ]


async def queue_drained(database_url: str) -> bool:
    connection = await asyncpg.connect(database_url)
    try:
        waiting = await connection.fetchval("SELECT count(*) FROM agent.pgqueuer WHERE status <> 'successful'")
    finally:
        await connection.close()
    return waiting == 0


async def reflected_through(database_url: str, org_id: str, session_id: str) -> int:
    connection = await asyncpg.connect(database_url)
    try:
        async with connection.transaction():
            await connection.execute("SELECT set_config('lore.org_id', $1, true)", org_id)
            return await connection.fetchval("SELECT reflected_through FROM agent.sessions WHERE id = $1", session_id)
    finally:
        await connection.close()


async def all_memories(memories, org: str, user: str, kind: int) -> list[memory_service_pb2.Memory]:
    found, token = [], ""
    while True:
        page = await memories.ListMemories(
            memory_service_pb2.ListMemoriesRequest(
                scope=scope_pb2.Scope(user_id=user), memory_types=[kind], page_size=500, page_token=token
            ),
            metadata=tenant(org),
        )
        found += page.memories
        if not (token := page.next_page_token):
            return found


async def start_session(agent, org: str, user: str) -> str:
    request = pb.StartSessionRequest(scope=scope_pb2.Scope(user_id=user, agent_id="aria"))
    return (await agent.StartSession(request, metadata=tenant(org), timeout=10)).session.id


async def test_sigkill_during_a_2000_turn_import_loses_no_acknowledged_turn(agent_process, services):
    org, user = f"org-{uuid.uuid4().hex[:12]}", "u-import"
    turns = history(IMPORT_TURNS, lambda i: f"Message {i} about the weather in general.")
    batches = [turns[start : start + BATCH] for start in range(0, IMPORT_TURNS, BATCH)]
    memories = memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)
    await agent_process.start()

    acknowledged = 0
    async with service_channel(agent_process.address) as channel:
        agent = agent_service_pb2_grpc.AgentServiceStub(channel)
        session_id = await start_session(agent, org, user)

        async def send_all() -> None:
            nonlocal acknowledged
            for batch in batches[acknowledged:]:
                request = pb.ImportTurnsRequest(session_id=session_id, turns=batch)
                await agent.ImportTurns(request, metadata=tenant(org), timeout=60)
                acknowledged += 1

        sending = asyncio.create_task(send_all())
        await eventually(lambda: acknowledged >= 5, 120, "five batches never landed")
        await agent_process.kill()
        with pytest.raises(grpc.aio.AioRpcError):
            await sending
    landed = acknowledged * BATCH

    await agent_process.start()
    async with service_channel(agent_process.address) as channel:
        agent = agent_service_pb2_grpc.AgentServiceStub(channel)
        listed = await agent.ListTurns(
            pb.ListTurnsRequest(session_id=session_id, page_size=500), metadata=tenant(org), timeout=10
        )
        session = (await agent.GetSession(pb.GetSessionRequest(id=session_id), metadata=tenant(org))).session
        assert session.turn_count >= landed, "every acknowledged turn is in the transcript"
        assert [t.sequence for t in listed.turns] == list(range(1, min(500, session.turn_count) + 1))

        # The client retries what was not acknowledged (the batch in flight may or may not have landed).
        for batch in batches[acknowledged:]:
            await agent.ImportTurns(
                pb.ImportTurnsRequest(session_id=session_id, turns=batch), metadata=tenant(org), timeout=60
            )
        session = (await agent.GetSession(pb.GetSessionRequest(id=session_id), metadata=tenant(org))).session
    assert session.turn_count == IMPORT_TURNS

    await eventually(lambda: queue_drained(agent_process.database_url), 240, "the reflection jobs never completed")
    assert await reflected_through(agent_process.database_url, org, session_id) == IMPORT_TURNS
    messages = await all_memories(memories, org, user, memory_service_pb2.MEMORY_TYPE_MESSAGE)
    assert len(messages) == IMPORT_TURNS and len({m.content for m in messages}) == IMPORT_TURNS


FACTS = 60


async def test_sigkill_during_reflection_completes_every_job_without_duplicates(agent_process, services):
    org, user = f"org-{uuid.uuid4().hex[:12]}", "u-reflect"
    turns = history(
        FACTS, lambda i: "Noted." if i % 2 else ("I'm vegetarian, by the way." if i == 0 else f"I live in Town{i}.")
    )
    memories = memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)
    await agent_process.start()
    async with service_channel(agent_process.address) as channel:
        agent = agent_service_pb2_grpc.AgentServiceStub(channel)
        session_id = await start_session(agent, org, user)
        await agent.ImportTurns(pb.ImportTurnsRequest(session_id=session_id, turns=turns), metadata=tenant(org))

    async def half_way() -> bool:
        return 0 < await reflected_through(agent_process.database_url, org, session_id) < FACTS

    await eventually(half_way, 60, "reflection never started")
    await agent_process.kill()
    stopped_at = await reflected_through(agent_process.database_url, org, session_id)
    assert stopped_at < FACTS, "killed in the middle of the job"

    await agent_process.start()
    await eventually(lambda: queue_drained(agent_process.database_url), 120, "the reflection job never completed")
    assert await reflected_through(agent_process.database_url, org, session_id) == FACTS

    written = [
        memory
        for kind in (memory_service_pb2.MEMORY_TYPE_FACT, memory_service_pb2.MEMORY_TYPE_PREFERENCE)
        for memory in await all_memories(memories, org, user, kind)
    ]
    keys = [(memory.memory_type, memory.content) for memory in written]
    assert len(keys) == len(set(keys)), "no memory written twice"
    assert any("vegetarian" in content.lower() for _, content in keys)
    assert len(written) >= FACTS // 2, "the user's turns were reflected"


async def test_a_job_that_keeps_failing_is_dead_lettered_counted_and_retried_once_fixed(
    agent_process, services, migrated_pg, redis_url, tmp_path
):
    org = f"org-{uuid.uuid4().hex[:12]}"
    # Reflection's beliefs go to an observations service that is not there: every attempt fails.
    address = f"127.0.0.1:{free_port()}"
    agent = AgentProcess(
        {**agent_process.env, "LORE_OBSERVATIONS_ADDR": address, "LORE_AGENT_JOB_MAX_ATTEMPTS": "2"},
        tmp_path / "failing-agent.log",
    )
    await agent.start()
    try:
        async with service_channel(agent.address) as channel, AsyncExitStack() as stack:
            stub = agent_service_pb2_grpc.AgentServiceStub(channel)
            session_id = await start_session(stub, org, "u-dead")
            turn = turn_pb2.Turn(role=turn_pb2.TURN_ROLE_USER, content="I'm vegetarian, by the way.")
            done = await stub.ProcessTurn(pb.ProcessTurnRequest(session_id=session_id, turn=turn), metadata=tenant(org))
            assert done.turn.sequence == 1, "the turn is acknowledged although reflection cannot finish"

            async def dead() -> bool:
                stats = await stub.GetJobStats(pb.GetJobStatsRequest(), metadata=tenant(org))
                return {kind.kind: kind.dead for kind in stats.kinds}.get("reflect") == 1

            await eventually(dead, 60, "the failing job never reached the dead-letter state")
            other = await stub.GetJobStats(pb.GetJobStatsRequest(), metadata=tenant(f"{org}-other"))
            assert all(kind.dead == 0 and kind.queued == 0 for kind in other.kinds), "another org sees none of it"
            assert {kind.kind for kind in other.kinds} == {"reflect", "episode", "erase"}
            retried_elsewhere = await stub.RetryJobs(pb.RetryJobsRequest(), metadata=tenant(f"{org}-other"))
            assert retried_elsewhere.requeued == 0, "another org cannot requeue this org's jobs"
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.RetryJobs(pb.RetryJobsRequest(kinds=["reflection"]), metadata=tenant(org))
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT

            # The cause is fixed (observations answers); the operator requeues the dead job.
            await start_observations(stack, address, migrated_pg, redis_url, tmp_path)
            retried = await stub.RetryJobs(pb.RetryJobsRequest(kinds=["reflect"]), metadata=tenant(org))
            assert (retried.requeued, retried.skipped) == (1, 0)
            await eventually(lambda: reflected_once(stub, org, session_id), 90, "the retried job never completed")
            stats = await stub.GetJobStats(pb.GetJobStatsRequest(), metadata=tenant(org))
            assert {kind.kind: kind.dead for kind in stats.kinds}["reflect"] == 0
    finally:
        await agent.stop()


async def test_reflection_waits_out_an_observations_outage_and_writes_nothing_twice(
    agent_process, services, migrated_pg, redis_url, tmp_path
):
    org, user = f"org-{uuid.uuid4().hex[:12]}", "u-outage"
    address = f"127.0.0.1:{free_port()}"  # nothing listens here until the outage ends
    agent_process.env.update(LORE_OBSERVATIONS_ADDR=address, LORE_AGENT_JOB_MAX_ATTEMPTS="30")
    await agent_process.start()
    async with service_channel(agent_process.address) as channel, AsyncExitStack() as stack:
        agent = agent_service_pb2_grpc.AgentServiceStub(channel)
        session_id = await start_session(agent, org, user)
        turn = turn_pb2.Turn(role=turn_pb2.TURN_ROLE_USER, content="I'm vegetarian, by the way.")
        done = await agent.ProcessTurn(pb.ProcessTurnRequest(session_id=session_id, turn=turn), metadata=tenant(org))
        assert done.turn.sequence == 1, "acknowledged while observations is down"

        async def failed_once() -> dict[str, pb.JobKindStats] | None:  # the outage met, the job queued again
            kinds = (await agent.GetJobStats(pb.GetJobStatsRequest(), metadata=tenant(org))).kinds
            stats = {kind.kind: kind for kind in kinds}
            return stats if stats["reflect"].retrying else None

        stats = await eventually(failed_once, what="the reflect job failed once and retrying")
        assert not await reflected_once(agent, org, session_id)
        assert stats["reflect"].retrying + stats["reflect"].running == 1
        assert stats["reflect"].dead == 0

        await start_observations(stack, address, migrated_pg, redis_url, tmp_path)
        await eventually(lambda: reflected_once(agent, org, session_id), 90, "reflection never completed")

    memories = memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)
    [preference] = await all_memories(memories, org, user, memory_service_pb2.MEMORY_TYPE_PREFERENCE)
    assert "vegetarian" in preference.content.lower(), "written once across the failed attempts"
    beliefs = observation_service_pb2_grpc.ObservationServiceStub(services["observations"].channel)
    found = await beliefs.QueryObservations(
        observation_service_pb2.QueryObservationsRequest(agent_id="aria", subject_id=user), metadata=tenant(org)
    )
    assert [o.summary for o in found.observations] == [preference.content]


async def reflected_once(agent, org: str, session_id: str) -> bool:
    session = (await agent.GetSession(pb.GetSessionRequest(id=session_id), metadata=tenant(org))).session
    return session.reflected_turns == 1
