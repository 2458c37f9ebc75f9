"""Daily digests on the real services: the day's episodes of a scope become one ``daily_digest``
memory per scope and date (a rerun rewrites the same item), and older digests move from active to
warm to archived by age. The scheduled job is off in tests; the test runs its use case."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
from agent_svc.adapters.grpc_timeline import GrpcTimeline
from agent_svc.adapters.postgres_transcript import PostgresTranscript
from agent_svc.adapters.postgres_turn_loop import PostgresTurnLoop
from agent_svc.domain.digest import Digest
from agent_svc.domain.transcript import Scope, Session
from agent_svc.usecases.digests import DigestServices, age_digests, run_daily_digests, write_daily_digest
from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import episode_service_pb2, episode_service_pb2_grpc, memory_service_pb2, memory_service_pb2_grpc
from lore_runtime.channels import create_channel
from lore_runtime.clock import SystemClock

from tests.grpc_harness import SERVICE_TOKENS
from tests.integration.agent.support import tenant
from tests.polling import eventually


@pytest.fixture
async def digests(services, migrated_pg):
    pool = await asyncpg.create_pool(migrated_pg.app_dsn, min_size=1, max_size=2)
    channel = create_channel(
        services["memory"].address,
        services=[
            *memory_service_pb2.DESCRIPTOR.services_by_name.values(),
            *episode_service_pb2.DESCRIPTOR.services_by_name.values(),
        ],
        token=SERVICE_TOKENS,
    )
    yield DigestServices(
        PostgresTurnLoop(pool), GrpcTimeline(channel), SystemClock(), warm_after_days=7, archive_after_days=30
    )
    await channel.close()
    await pool.close()


async def digests_of(services, org: str, user: str) -> list[memory_service_pb2.Memory]:
    memories = memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)
    request = memory_service_pb2.ListMemoriesRequest(
        scope=scope_pb2.Scope(user_id=user), memory_types=[memory_service_pb2.MEMORY_TYPE_DAILY_DIGEST]
    )
    return list((await memories.ListMemories(request, metadata=tenant(org))).memories)


async def a_finished_conversation(services, org: str, user: str) -> None:
    agent = agent_service_pb2_grpc.AgentServiceStub(services["agent"].channel)
    started = await agent.StartSession(
        pb.StartSessionRequest(scope=scope_pb2.Scope(user_id=user, agent_id="aria")), metadata=tenant(org)
    )
    for line in ("We decided to go with the Lisbon venue.", "I'll book the flights tomorrow."):
        turn = turn_pb2.Turn(role=turn_pb2.TURN_ROLE_USER, content=line)
        await agent.ProcessTurn(pb.ProcessTurnRequest(session_id=started.session.id, turn=turn), metadata=tenant(org))
    await agent.EndSession(pb.EndSessionRequest(id=started.session.id), metadata=tenant(org))
    stub = episode_service_pb2_grpc.EpisodeServiceStub(services["memory"].channel)

    async def extracted() -> bool:
        listed = await stub.ListEpisodes(
            episode_service_pb2.ListEpisodesRequest(scope=scope_pb2.Scope(user_id=user)), metadata=tenant(org)
        )
        return bool(listed.episodes)

    await eventually(extracted, what="the episode extracted")


async def test_a_day_with_an_episode_gets_one_digest_per_scope(services, digests):
    org, user = f"org-{uuid.uuid4().hex[:12]}", "u-digest"
    await a_finished_conversation(services, org, user)
    today = datetime.now(UTC).date()

    first = await write_daily_digest(today, digests)
    again = await write_daily_digest(today, digests)

    assert first >= 1 and again == first
    [digest] = await digests_of(services, org, user)
    assert digest.metadata["date"] == today.isoformat() and digest.metadata["episodes"] == "1"
    assert "lisbon venue" in digest.content.lower() and digest.content.startswith(today.isoformat())
    assert digest.status == memory_service_pb2.MEMORY_STATUS_ACTIVE
    assert digest.scope.user_id == user and digest.scope.agent_id == "aria"


async def test_older_digests_turn_warm_then_archived(services, digests):
    org, user = f"org-{uuid.uuid4().hex[:12]}", "u-ageing"
    await a_finished_conversation(services, org, user)
    scope, today = Scope(user_id=user, agent_id="aria"), datetime.now(UTC).date()
    for age in (0, 10, 40):
        day = today - timedelta(days=age)
        await digests.timeline.write_digest(org, scope, Digest(day, f"{day}: 1 conversation.", 1))

    changed = await age_digests(today, digests)

    statuses = {m.metadata["date"]: m.status for m in await digests_of(services, org, user)}
    assert changed >= 2
    assert statuses == {
        today.isoformat(): memory_service_pb2.MEMORY_STATUS_ACTIVE,
        (today - timedelta(days=10)).isoformat(): memory_service_pb2.MEMORY_STATUS_WARM,
        (today - timedelta(days=40)).isoformat(): memory_service_pb2.MEMORY_STATUS_ARCHIVED,
    }


async def test_the_scheduled_run_writes_yesterdays_digest(services, digests, migrated_pg):
    org, user = f"org-{uuid.uuid4().hex[:12]}", "u-yesterday"
    yesterday = datetime.now(UTC) - timedelta(days=1)
    pool = await asyncpg.create_pool(migrated_pg.app_dsn, min_size=1, max_size=1)
    try:
        session = await PostgresTranscript(pool).start(
            Session(str(uuid.uuid4()), org, Scope(user_id=user), "active", yesterday, yesterday), ""
        )
    finally:
        await pool.close()
    episode = episode_service_pb2.Episode(
        conversation_id=session.id,
        scope=scope_pb2.Scope(user_id=user),
        summary="Planned the spring offsite.",
        decisions=["Book the Porto venue"],
        message_count=4,
    )
    episode.started_at.FromDatetime(yesterday - timedelta(minutes=20))
    episode.ended_at.FromDatetime(yesterday)
    episodes = episode_service_pb2_grpc.EpisodeServiceStub(services["memory"].channel)
    await episodes.CreateEpisode(episode_service_pb2.CreateEpisodeRequest(episode=episode), metadata=tenant(org))

    summary = await run_daily_digests(digests)

    assert summary["written"] >= 1
    [digest] = await digests_of(services, org, user)
    assert digest.metadata["date"] == yesterday.date().isoformat()
    assert "Planned the spring offsite." in digest.content and "Book the Porto venue" in digest.content


async def test_a_digest_tells_only_its_own_scopes_episodes_never_another_users(services, digests, migrated_pg):
    org = f"org-{uuid.uuid4().hex[:12]}"
    yesterday = datetime.now(UTC) - timedelta(days=1)
    owners = {
        "ann": Scope(user_id="u-ann", agent_id="aria"),
        "bob": Scope(user_id="u-bob", agent_id="aria"),
        "agent": Scope(agent_id="aria"),  # a session with no user: its digest is the org's, shown to everyone
    }
    pool = await asyncpg.create_pool(migrated_pg.app_dsn, min_size=1, max_size=1)
    try:
        transcript = PostgresTranscript(pool)
        for owner, scope in owners.items():
            session = await transcript.start(Session(str(uuid.uuid4()), org, scope, "active", yesterday, yesterday), "")
            episode = episode_service_pb2.Episode(
                conversation_id=session.id,
                scope=scope_pb2.Scope(user_id=scope.user_id, agent_id=scope.agent_id),
                summary=f"Talked with {owner} about their plans.",
                message_count=2,
            )
            episode.started_at.FromDatetime(yesterday - timedelta(minutes=20))
            episode.ended_at.FromDatetime(yesterday)
            stub = episode_service_pb2_grpc.EpisodeServiceStub(services["memory"].channel)
            await stub.CreateEpisode(episode_service_pb2.CreateEpisodeRequest(episode=episode), metadata=tenant(org))
    finally:
        await pool.close()

    await write_daily_digest(yesterday.date(), digests)

    memories = memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)
    request = memory_service_pb2.ListMemoriesRequest(memory_types=[memory_service_pb2.MEMORY_TYPE_DAILY_DIGEST])
    written = (await memories.ListMemories(request, metadata=tenant(org))).memories
    told = {(m.scope.user_id, m.scope.agent_id): m.content for m in written}
    assert set(told) == {("u-ann", "aria"), ("u-bob", "aria"), ("", "aria")}
    for (user, _), content in told.items():
        mentioned = {owner for owner in owners if f"with {owner} " in content}
        assert mentioned == {{"u-ann": "ann", "u-bob": "bob", "": "agent"}[user]}, content


async def test_a_forget_rewrites_the_digests_that_told_it_and_archives_one_left_empty(services, digests):
    org, user = f"org-{uuid.uuid4().hex[:12]}", "u-digest-forget"
    scope, today = Scope(user_id=user, agent_id="aria"), datetime.now(UTC).date()
    earlier = today - timedelta(days=2)
    told = (
        f"{today}: 2 conversations.\n- The user said their brother Casimir is moving to Oslo.\n"
        "- The user talked about their cello lessons.\nDecided: Visit Casimir in Oslo; Practise the cello daily."
    )
    await digests.timeline.write_digest(org, scope, Digest(today, told, 2))
    await digests.timeline.write_digest(org, scope, Digest(earlier, f"{earlier}: 1 conversation.\n- Casimir.", 1))
    agent = agent_service_pb2_grpc.AgentServiceStub(services["agent"].channel)
    request = pb.ForgetAboutRequest(
        scope=scope_pb2.Scope(user_id=user, agent_id="aria"), about="my brother Casimir", request_id="r-digest"
    )

    await agent.ForgetAbout(request, metadata=tenant(org))
    await agent.ForgetAbout(request, metadata=tenant(org))

    found = {m.metadata["date"]: m for m in await digests_of(services, org, user)}
    kept, emptied = found[today.isoformat()], found[earlier.isoformat()]
    assert kept.content == (
        f"{today}: 2 conversations.\n- The user talked about their cello lessons.\nDecided: Practise the cello daily."
    )
    assert (
        kept.status == memory_service_pb2.MEMORY_STATUS_ACTIVE and kept.metadata["forgotten_by"] == "request:r-digest"
    )
    assert emptied.status == memory_service_pb2.MEMORY_STATUS_ARCHIVED
