"""Erasure leaves no trace of the erased person's words, on the running services
(real Postgres, Redis, qdrant-edge):

- a belief shared by the org whose only support was the erased user's memory is erased: it is in
  no QueryObservations answer and no assembled context any more, and a retried turn of another
  user whose stored context showed it does not replay it;
- a belief with mixed support is recomputed from what is left (lower confidence, one source fewer)
  and stays;
- the jobs still waiting or dead-lettered for the erased sessions go, with their log lines.
"""

from __future__ import annotations

import uuid

import asyncpg
import grpc
import pytest
from agent_svc.adapters.postgres_erasure import PostgresErasureStore
from agent_svc.adapters.postgres_transcript import PostgresTranscript
from agent_svc.domain.jobs import episode_job, erase_job, reflect_job
from agent_svc.domain.transcript import Scope, Session, Turn, session_id_for, turn_id_for
from agent_svc.usecases.erasure_ports import Erasure
from lore.agent.v1 import agent_service_pb2 as pb
from lore.assembler.v1 import assembler_service_pb2, assembler_service_pb2_grpc
from lore.common.v1 import scope_pb2
from lore.memory.v1 import memory_service_pb2
from lore.observations.v1 import observation_service_pb2 as opb

from tests.integration.agent.support import eventually, refused, say, tenant
from tests.integration.agent.test_erasure_store_contract import T0

VENUE = "The offsite venue is the Lisbon loft"
LAUNCH = "The offsite launch date is the ninth of May"


@pytest.fixture
def assembler(services):
    return assembler_service_pb2_grpc.AssemblerServiceStub(services["assembler"].channel)


async def remembered(memories, org: str, user: str, content: str) -> str:
    memory = memory_service_pb2.MemoryInput(
        content=content, memory_type=memory_service_pb2.MEMORY_TYPE_FACT, scope=scope_pb2.Scope(user_id=user)
    )
    response = await memories.Remember(memory_service_pb2.RememberRequest(memories=[memory]), metadata=tenant(org))
    return response.memories[0].id


async def shared_belief(observations, org: str, summary: str, slot: str, *memory_ids: str) -> opb.Observation:
    """A belief of the org (no user): any user's context may show it. Its evidence cites memories."""
    evidence = [
        opb.EvidenceInput(stance=opb.EVIDENCE_STANCE_SUPPORT, source_type=opb.SOURCE_TYPE_MEMORY_ITEM, source_id=m)
        for m in memory_ids
    ]
    candidate = opb.ObservationCandidate(
        kind=opb.OBSERVATION_KIND_PROJECT_STATE,
        subject_type=opb.SUBJECT_TYPE_PROJECT,
        subject_id="offsite",
        slot=slot,
        summary=summary,
        evidence=evidence,
    )
    request = opb.ObserveRequest(agent_id="aria", scope=scope_pb2.Scope(agent_id="aria"), candidate=candidate)
    return (await observations.Observe(request, metadata=tenant(org))).observation


async def context_for_bo(assembler, org: str) -> str:
    request = assembler_service_pb2.AssembleContextRequest(
        scope=scope_pb2.Scope(user_id="u-bo", agent_id="aria"), message="offsite venue launch"
    )
    return (await assembler.AssembleContext(request, metadata=tenant(org))).context.text


async def completed(agent, org: str, user: str, request_id: str) -> pb.ErasureJob | None:
    request = pb.ForgetSubjectRequest(subject=scope_pb2.Scope(user_id=user), request_id=request_id)
    job = (await agent.ForgetSubject(request, metadata=tenant(org))).job
    return job if job.status == pb.ERASURE_STATUS_COMPLETED else None


async def test_a_shared_belief_built_only_on_the_erased_users_words_goes_and_a_mixed_one_is_recomputed(
    agent, memories, observations, assembler
):
    org = f"org-{uuid.uuid4().hex[:12]}"
    anas = await remembered(memories, org, "u-ana", "The offsite will be in the Lisbon loft.")
    anas_launch = await remembered(memories, org, "u-ana", "We launch on the ninth of May.")
    bos_launch = await remembered(memories, org, "u-bo", "Launch day: May 9.")
    lone = await shared_belief(observations, org, VENUE, "venue", anas)
    mixed = await shared_belief(observations, org, LAUNCH, "launch", anas_launch, bos_launch)
    assert VENUE in await context_for_bo(assembler, org) and LAUNCH in await context_for_bo(assembler, org)
    session = (
        await agent.StartSession(
            pb.StartSessionRequest(scope=scope_pb2.Scope(user_id="u-bo", agent_id="aria")), metadata=tenant(org)
        )
    ).session.id
    first = await say(agent, org, session, "Where is the offsite venue?", idempotency_key="bo-1")
    assert VENUE in first.context.text, "bo's stored turn result shows ana's belief"

    done = await eventually(lambda: completed(agent, org, "u-ana", "erase-ana"))

    assert done.counts["observations"] >= 1 and done.counts["cached_contexts"] == 1, dict(done.counts)
    browse = await observations.QueryObservations(
        opb.QueryObservationsRequest(subject_id="offsite"), metadata=tenant(org)
    )
    assert [belief.id for belief in browse.observations] == [mixed.id]
    text = await context_for_bo(assembler, org)
    assert VENUE not in text and LAUNCH in text
    retried = await say(agent, org, session, "Where is the offsite venue?", idempotency_key="bo-1")
    assert retried.turn.id == first.turn.id and VENUE not in retried.context.text

    [kept] = browse.observations
    assert kept.confidence < mixed.confidence
    assert kept.confidence_components.source_count == mixed.confidence_components.source_count - 1 == 1
    kept = (await observations.GetObservation(opb.GetObservationRequest(id=kept.id), metadata=tenant(org))).observation
    assert [item.source_id for item in kept.evidence] == [bos_launch]
    missing = await refused(observations.GetObservation(opb.GetObservationRequest(id=lone.id), metadata=tenant(org)))
    assert missing.code() == grpc.StatusCode.NOT_FOUND


async def test_the_jobs_left_for_erased_sessions_go_with_their_log_lines(isolated_pg):
    pool = await asyncpg.create_pool(isolated_pg.app_dsn, min_size=1, max_size=2)
    try:
        org = f"org-{uuid.uuid4().hex[:12]}"
        transcript, store = PostgresTranscript(pool), PostgresErasureStore(pool)
        sessions = {}
        for user in ("u-1", "u-2"):
            session_id = session_id_for(org, f"start-{user}")
            await transcript.start(Session(session_id, org, Scope(user_id=user), "active", T0, T0), f"start-{user}")
            turn = Turn(turn_id_for(session_id, "k"), session_id, 0, "user", "hello", T0, {}, "k")
            jobs = [reflect_job(org, session_id, 1), episode_job(org, session_id)]
            await transcript.append(org, session_id, [turn], T0, then=lambda _, jobs=jobs: jobs)
            sessions[user] = (session_id, jobs)
        # Asked once the sessions exist: from then on the fence refuses the user's new ones.
        erasure = Erasure(str(uuid.uuid4()), org, Scope(user_id="u-1"), "tester", "pending", T0)
        await store.request(erasure, "", lambda e: [erase_job(e.org_id, e.id)])
        gone_id, (reflect, _) = sessions["u-1"]
        # The reflect job was dead-lettered with a traceback; the episode job still waits.
        dead = await pool.fetchval(
            "UPDATE agent.pgqueuer SET status = 'failed' WHERE dedupe_key = $1 RETURNING id", reflect.dedupe_key
        )
        await pool.execute(
            """
            INSERT INTO agent.pgqueuer_log (job_id, status, priority, entrypoint, traceback)
            VALUES ($1, 'failed', 0, 'reflect', '{"error": "while reflecting: hello"}')
            """,
            dead,
        )

        await store.delete_transcript(org, erasure.id, [gone_id])

        left = await pool.fetch("SELECT dedupe_key FROM agent.pgqueuer WHERE dedupe_key LIKE $1", f"%:{org}:%")
        assert sorted(row["dedupe_key"] for row in left) == sorted(
            [erase_job(org, erasure.id).dedupe_key, *(job.dedupe_key for job in sessions["u-2"][1])]
        )
        assert await pool.fetchval("SELECT count(*) FROM agent.pgqueuer_log WHERE job_id = $1", dead) == 0
        assert (await store.get(org, erasure.id)).counts["jobs"] == 2
    finally:
        await pool.close()
