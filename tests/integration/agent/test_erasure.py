"""Erasure on the running services (real Postgres, Redis, qdrant-edge): ForgetSubject removes a
user's transcript, memories, working memory and beliefs, and nobody else's; leaves a tombstone
with counts and no content; a replayed request id returns the same job; and an erasure started
while the observations service is down completes once it is back."""

from __future__ import annotations

import uuid
from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta

import asyncpg
import grpc
import pytest
from google.protobuf import timestamp_pb2
from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import (
    episode_service_pb2,
    memory_service_pb2,
    working_memory_service_pb2,
)
from lore.observations.v1 import observation_service_pb2 as opb
from lore_devstack import free_port

from tests.agent_process import start_observations
from tests.grpc_harness import service_channel
from tests.integration.agent.support import eventually, refused, say, tenant

SAID = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def stamp(moment: datetime) -> timestamp_pb2.Timestamp:
    message = timestamp_pb2.Timestamp()
    message.FromDatetime(moment)
    return message


def imported(user: str) -> list[turn_pb2.Turn]:
    lines = [
        (turn_pb2.TURN_ROLE_USER, f"I live in Lisbon and my name is {user}."),
        (turn_pb2.TURN_ROLE_ASSISTANT, "Noted, thanks."),
        (turn_pb2.TURN_ROLE_USER, "I prefer tea over coffee."),
    ]
    return [
        turn_pb2.Turn(role=role, content=content, created_at=stamp(SAID + timedelta(minutes=index)))
        for index, (role, content) in enumerate(lines)
    ]


async def populate(agent, memories, observations, episodes, org: str, user: str) -> list[str]:
    """Two sessions of ``user``: a live turn (reflected into memories and a belief) in one, ended
    (so it has an episode), and imported turns in the other. Waits for the jobs."""
    scope = scope_pb2.Scope(user_id=user, agent_id="aria")
    live = (await agent.StartSession(pb.StartSessionRequest(scope=scope), metadata=tenant(org))).session.id
    await say(agent, org, live, "I'm vegetarian, by the way.")
    imports = (await agent.StartSession(pb.StartSessionRequest(scope=scope), metadata=tenant(org))).session.id
    await agent.ImportTurns(pb.ImportTurnsRequest(session_id=imports, turns=imported(user)), metadata=tenant(org))
    await agent.EndSession(pb.EndSessionRequest(id=live), metadata=tenant(org))

    await eventually(lambda: beliefs_of(observations, org, user))
    await eventually(lambda: episodes_of(episodes, org, user))
    await eventually(lambda: preferences_of(memories, org, user, 2))
    return [live, imports]


async def all_memories_of(memories, org: str, user: str) -> list[memory_service_pb2.Memory]:
    request = memory_service_pb2.ListMemoriesRequest(scope=scope_pb2.Scope(user_id=user), page_size=500)
    return list((await memories.ListMemories(request, metadata=tenant(org))).memories)


async def preferences_of(memories, org: str, user: str, at_least: int) -> list[memory_service_pb2.Memory]:
    found = [
        memory
        for memory in await all_memories_of(memories, org, user)
        if memory.memory_type == memory_service_pb2.MEMORY_TYPE_PREFERENCE
    ]
    return found if len(found) >= at_least else []


async def beliefs_of(observations, org: str, user: str) -> list[opb.Observation]:
    query = opb.QueryObservationsRequest(agent_id="aria", subject_type=opb.SUBJECT_TYPE_ENTITY, subject_id=user)
    return list((await observations.QueryObservations(query, metadata=tenant(org))).observations)


async def episodes_of(episodes, org: str, user: str) -> list[episode_service_pb2.Episode]:
    request = episode_service_pb2.ListEpisodesRequest(scope=scope_pb2.Scope(user_id=user))
    return list((await episodes.ListEpisodes(request, metadata=tenant(org))).episodes)


async def forget(agent, org: str, user: str, request_id: str, **extra) -> pb.ErasureJob:
    request = pb.ForgetSubjectRequest(subject=scope_pb2.Scope(user_id=user), request_id=request_id)
    return (await agent.ForgetSubject(request, metadata=tenant(org), **extra)).job


async def completed(agent, org: str, user: str, request_id: str) -> pb.ErasureJob | None:
    job = await forget(agent, org, user, request_id)
    return job if job.status == pb.ERASURE_STATUS_COMPLETED else None


@pytest.fixture
def orgs() -> tuple[str, str]:
    token = uuid.uuid4().hex[:10]
    return f"org-{token}", f"org-{token}-b"


async def test_forgetting_a_user_erases_their_data_everywhere_and_nobody_elses(
    agent, memories, observations, episodes, working, orgs, migrated_pg
):
    org, other_org = orgs
    erased = await populate(agent, memories, observations, episodes, org, "u-gone")
    kept = await populate(agent, memories, observations, episodes, org, "u-kept")
    elsewhere = await populate(agent, memories, observations, episodes, other_org, "u-gone")

    first = await forget(agent, org, "u-gone", "forget-1")
    assert first.id and first.status != pb.ERASURE_STATUS_UNSPECIFIED and first.requested_at.seconds > 0
    done = await eventually(lambda: completed(agent, org, "u-gone", "forget-1"))

    assert done.id == first.id, "a replay returns the same job"
    assert done.completed_at.seconds >= done.requested_at.seconds > 0
    counts = dict(done.counts)
    assert counts["sessions"] == 2 and counts["turns"] == 4, counts
    assert counts["memories"] >= 5 and counts["observations"] >= 1 and counts["evidence"] >= 1, counts
    assert counts["working_memories"] == 2, counts

    for session_id in erased:
        gone = await refused(agent.GetSession(pb.GetSessionRequest(id=session_id), metadata=tenant(org)))
        turns = await refused(agent.ListTurns(pb.ListTurnsRequest(session_id=session_id), metadata=tenant(org)))
        assert gone.code() == turns.code() == grpc.StatusCode.NOT_FOUND
        state = await working.GetWorkingMemory(
            working_memory_service_pb2.GetWorkingMemoryRequest(session_id=session_id), metadata=tenant(org)
        )
        assert not state.working_memory.recent_turns and not state.working_memory.summary
    assert await all_memories_of(memories, org, "u-gone") == []
    assert await beliefs_of(observations, org, "u-gone") == []

    for owner, sessions, user in ((org, kept, "u-kept"), (other_org, elsewhere, "u-gone")):
        for session_id in sessions:
            await agent.GetSession(pb.GetSessionRequest(id=session_id), metadata=tenant(owner))
        assert await preferences_of(memories, owner, user, 2)
        assert await beliefs_of(observations, owner, user)
        assert await episodes_of(episodes, owner, user)

    # The tombstone: who, when, counts; nothing that was said.
    connection = await asyncpg.connect(migrated_pg.app_dsn)
    try:
        async with connection.transaction():
            await connection.execute("SELECT set_config('lore.org_id', $1, true)", org)
            row = await connection.fetchrow("SELECT * FROM agent.erasures WHERE id = $1", done.id)
    finally:
        await connection.close()
    assert row["user_id"] == "u-gone" and row["principal"] == "tester" and row["status"] == "completed"
    stored = " ".join(str(value) for value in row.values()).lower()
    assert not any(word in stored for word in ("vegetarian", "lisbon", "tea", "coffee"))


async def test_forgetting_a_user_erases_their_episodes(agent, memories, observations, episodes, orgs):
    org, _ = orgs
    await populate(agent, memories, observations, episodes, org, "u-episodic")
    await forget(agent, org, "u-episodic", "forget-episodes")
    await eventually(lambda: completed(agent, org, "u-episodic", "forget-episodes"))
    assert await episodes_of(episodes, org, "u-episodic") == []


async def test_a_replayed_request_returns_the_same_erasure_and_a_new_one_is_another(agent, orgs):
    org, _ = orgs
    first = await forget(agent, org, "u-nobody", "again")
    replay = await forget(agent, org, "u-nobody", "again")
    other = await forget(agent, org, "u-nobody", "another")

    assert replay.id == first.id and other.id != first.id
    done = await eventually(lambda: completed(agent, org, "u-nobody", "again"))
    assert done.counts["sessions"] == 0 and done.counts["memories"] == 0


async def test_an_empty_or_oversized_subject_is_refused_naming_the_field(agent, orgs):
    org, _ = orgs
    empty = await refused(agent.ForgetSubject(pb.ForgetSubjectRequest(), metadata=tenant(org)))
    blank = await refused(
        agent.ForgetSubject(pb.ForgetSubjectRequest(subject=scope_pb2.Scope(user_id="  ")), metadata=tenant(org))
    )
    long = await refused(forget(agent, org, "u" * 129, ""))

    for error in (empty, blank, long):
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and "subject" in error.details(), error.details()
    assert "subject.user_id" in long.details()


async def test_an_erasure_started_while_observations_is_down_completes_once_it_is_back(
    agent_process,
    services,
    migrated_pg,
    redis_url,
    tmp_path,
):
    org, user = f"org-{uuid.uuid4().hex[:12]}", "u-outage"
    address = f"127.0.0.1:{free_port()}"  # nothing listens here yet
    agent_process.env.update(LORE_OBSERVATIONS_ADDR=address, LORE_AGENT_JOB_MAX_ATTEMPTS="30")
    await agent_process.start()
    async with service_channel(agent_process.address) as channel, AsyncExitStack() as stack:
        outage_agent = agent_service_pb2_grpc.AgentServiceStub(channel)
        scope = scope_pb2.Scope(user_id=user, agent_id="aria")
        session = (await outage_agent.StartSession(pb.StartSessionRequest(scope=scope), metadata=tenant(org))).session
        await outage_agent.ImportTurns(
            pb.ImportTurnsRequest(session_id=session.id, turns=imported(user)), metadata=tenant(org), timeout=30
        )

        started = await forget(outage_agent, org, user, "outage", timeout=10)

        async def failed_once() -> bool:  # the outage met, the job queued again
            kinds = (await outage_agent.GetJobStats(pb.GetJobStatsRequest(), metadata=tenant(org))).kinds
            return any(kind.kind == "erase" and kind.retrying for kind in kinds)

        await eventually(failed_once, what="the erase job failed once and retrying")
        waiting = await forget(outage_agent, org, user, "outage", timeout=10)
        assert waiting.id == started.id and waiting.status == pb.ERASURE_STATUS_RUNNING, waiting

        await start_observations(stack, address, migrated_pg, redis_url, tmp_path)

        done = await eventually(lambda: completed(outage_agent, org, user, "outage"), timeout=90)
        assert done.id == started.id and done.counts["sessions"] == 1 and done.counts["turns"] == 3
        missing = await refused(outage_agent.GetSession(pb.GetSessionRequest(id=session.id), metadata=tenant(org)))
        assert missing.code() == grpc.StatusCode.NOT_FOUND


async def scoped_beliefs(observations, org: str, user: str) -> list[opb.Observation]:
    query = opb.QueryObservationsRequest(user_id=user)
    return list((await observations.QueryObservations(query, metadata=tenant(org))).observations)


async def test_forgetting_a_user_erases_every_belief_scoped_to_them_whatever_it_is_about(agent, observations, orgs):
    org, _ = orgs
    for user in ("u-scoped-gone", "u-scoped-kept"):
        candidate = opb.ObservationCandidate(
            kind=opb.OBSERVATION_KIND_PROJECT_STATE,
            subject_type=opb.SUBJECT_TYPE_PROJECT,
            subject_id="offsite",
            slot="venue",
            summary=f"{user} booked the Lisbon venue for the offsite",
            evidence=[
                opb.EvidenceInput(
                    stance=opb.EVIDENCE_STANCE_SUPPORT, source_type=opb.SOURCE_TYPE_MESSAGE, source_id=f"t-{user}"
                )
            ],
        )
        scope = scope_pb2.Scope(user_id=user, agent_id="aria")
        await observations.Observe(
            opb.ObserveRequest(agent_id="aria", scope=scope, candidate=candidate), metadata=tenant(org)
        )
    assert await scoped_beliefs(observations, org, "u-scoped-gone")

    await forget(agent, org, "u-scoped-gone", "forget-scoped")
    done = await eventually(lambda: completed(agent, org, "u-scoped-gone", "forget-scoped"))

    assert done.counts["observations"] >= 1, dict(done.counts)
    assert await scoped_beliefs(observations, org, "u-scoped-gone") == []
    [kept] = await scoped_beliefs(observations, org, "u-scoped-kept")
    assert kept.summary.startswith("u-scoped-kept") and kept.scope.user_id == "u-scoped-kept"
