"""One contract for the assembler's source ports, run against the fakes of the unit tests and
against the gRPC adapters on the real memory and observations services: the fakes answer
what the services answer (types named in lower case, salience and confidence present, vectors
only when asked, fingerprints round-tripping, an org with no engagement in its first session),
and every read is a read for a context: two users of one org talking to one agent never see
each other's memories, episodes, open threads or beliefs, and both see the org's shared ones."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from assembler_svc.adapters.grpc_sources import GrpcMemorySources, GrpcObservationSources
from assembler_svc.domain.gathered import (
    Belief,
    EngagementDigest,
    EpisodeDigest,
    Hypothesis,
    RecalledMemory,
    Scope,
    SessionState,
    ThreadDigest,
)
from assembler_svc.domain.memory_reads import (
    ContextUse,
    EpisodeSearchRead,
    EpisodesRead,
    ListRead,
    MemoryReads,
    RecallRead,
)
from google.protobuf import field_mask_pb2
from lore.common.v1 import scope_pb2
from lore.memory.v1 import (
    episode_service_pb2,
    episode_service_pb2_grpc,
    memory_service_pb2,
    memory_service_pb2_grpc,
    working_memory_service_pb2,
    working_memory_service_pb2_grpc,
)
from lore.observations.v1 import (
    engagement_service_pb2,
    engagement_service_pb2_grpc,
    observation_service_pb2,
    observation_service_pb2_grpc,
)
from lore_runtime import request_context
from lore_runtime.channels import create_channel
from lore_runtime.proto_time import to_timestamp

from tests.fakes_assembler import FakeMemorySources, FakeObservationSources
from tests.grpc_harness import SERVICE_TOKENS

SCOPE = Scope(user_id="u-contract")
NOW = datetime.now(UTC)
T = 5.0
# Two users of one org talking to one agent; the org's shared records have no user.
ANN = Scope(user_id="u-ann", agent_id="aria")
BOB = Scope(user_id="u-bob", agent_id="aria")
NEWCOMER = Scope(user_id="u-new", agent_id="aria")
ORG_WIDE = Scope()
AGENT_WIDE = Scope(agent_id="aria")


class FakeWorld:
    """Seeds the fakes directly, as the services would have stored it."""

    def __init__(self) -> None:
        self.memory = FakeMemorySources()
        self.beliefs = FakeObservationSources()

    async def remember(
        self, content: str, memory_type: str, entities: tuple[str, ...] = (), scope: Scope = SCOPE
    ) -> str:
        id_ = str(uuid.uuid4())
        self.memory.add_memory(
            RecalledMemory(id_, content, memory_type, 0.0, 1.0, 0.7, NOW, (0.1,) * 4, entities, {"k": "v"}), scope
        )
        return id_

    async def episode(self, summary: str, ended_at: datetime, topic: str, scope: Scope = SCOPE) -> str:
        id_ = str(uuid.uuid4())
        self.memory.add_episode(
            EpisodeDigest(id_, summary, "conv-1", ended_at, 1.0, 0.5),
            scope,
            [ThreadDigest(id_, "conv-1", topic, "still open", ended_at)],
        )
        return id_

    async def session(self, session_id: str, summary: str, mood: str) -> None:
        self.memory.sessions[session_id] = SessionState(summary=summary, mood=mood)

    async def belief(self, summary: str, scope: Scope = SCOPE, subject_id: str = SCOPE.user_id) -> None:
        stored = Belief(
            str(uuid.uuid4()),
            summary,
            "operator_preference",
            0.71,
            1.0,
            sources=1,
            last_supported_at=NOW,
            vector=(0.3,) * 4,
        )
        self.beliefs.add_belief(stored, scope, about=subject_id)

    async def hypothesis(self, statement: str) -> None:
        state = self.beliefs.state
        self.beliefs.state = EngagementDigest(
            state.week_number, (*state.hypotheses, Hypothesis(str(uuid.uuid4()), statement, 0.5)), (), False
        )


class ServiceWorld:
    """Seeds the real services through their gRPC APIs, as the org of the current request."""

    def __init__(self, services) -> None:
        # Channels as the assembler makes them: they send the current caller's tenant.
        self.channels = [
            create_channel(services[name].address, token=SERVICE_TOKENS) for name in ("memory", "observations")
        ]
        memory, observations = self.channels
        self.memory = GrpcMemorySources(memory)
        self.beliefs = GrpcObservationSources(observations)
        self._memories = memory_service_pb2_grpc.MemoryServiceStub(memory)
        self._episodes = episode_service_pb2_grpc.EpisodeServiceStub(memory)
        self._working = working_memory_service_pb2_grpc.WorkingMemoryServiceStub(memory)
        self._observations = observation_service_pb2_grpc.ObservationServiceStub(observations)
        self._engagement = engagement_service_pb2_grpc.EngagementServiceStub(observations)

    def _metadata(self):
        return request_context.current().metadata()

    async def remember(
        self, content: str, memory_type: str, entities: tuple[str, ...] = (), scope: Scope = SCOPE
    ) -> str:
        item = memory_service_pb2.MemoryInput(
            content=content,
            memory_type=memory_service_pb2.MemoryType.Value(f"MEMORY_TYPE_{memory_type.upper()}"),
            scope=_pb(scope),
            importance=0.7,
            entities=entities,
            metadata={"k": "v"},
        )
        response = await self._memories.Remember(
            memory_service_pb2.RememberRequest(memories=[item]), metadata=self._metadata()
        )
        return response.memories[0].id

    async def episode(self, summary: str, ended_at: datetime, topic: str, scope: Scope = SCOPE) -> str:
        episode = episode_service_pb2.Episode(
            conversation_id=f"conv-{uuid.uuid4().hex[:8]}",  # one episode per conversation
            scope=_pb(scope),
            summary=summary,
            started_at=to_timestamp(ended_at - timedelta(minutes=30)),
            ended_at=to_timestamp(ended_at),
            open_threads=[
                episode_service_pb2.OpenThread(
                    topic=topic, status=episode_service_pb2.THREAD_STATUS_OPEN, context="still open"
                )
            ],
        )
        created = await self._episodes.CreateEpisode(
            episode_service_pb2.CreateEpisodeRequest(episode=episode), metadata=self._metadata()
        )
        return created.episode.id

    async def session(self, session_id: str, summary: str, mood: str) -> None:
        await self._working.UpdateWorkingMemory(
            working_memory_service_pb2.UpdateWorkingMemoryRequest(
                session_id=session_id,
                working_memory=working_memory_service_pb2.WorkingMemory(
                    summary=summary, emotion_trajectory=[working_memory_service_pb2.EmotionReading(emotion=mood)]
                ),
                update_mask=field_mask_pb2.FieldMask(paths=["summary", "emotion_trajectory"]),
            ),
            metadata=self._metadata(),
        )

    async def belief(self, summary: str, scope: Scope = SCOPE, subject_id: str = SCOPE.user_id) -> None:
        candidate = observation_service_pb2.ObservationCandidate(
            kind=observation_service_pb2.OBSERVATION_KIND_OPERATOR_PREFERENCE,
            subject_type=observation_service_pb2.SUBJECT_TYPE_ENTITY,
            subject_id=subject_id,
            slot="database",
            summary=summary,
            evidence=[
                observation_service_pb2.EvidenceInput(
                    stance=observation_service_pb2.EVIDENCE_STANCE_SUPPORT,
                    source_type=observation_service_pb2.SOURCE_TYPE_MESSAGE,
                    source_id="t-1",
                    weight=1.0,
                )
            ],
        )
        request = observation_service_pb2.ObserveRequest(agent_id=scope.agent_id, candidate=candidate, scope=_pb(scope))
        await self._observations.Observe(request, metadata=self._metadata())

    async def hypothesis(self, statement: str) -> None:
        await self._engagement.FormHypothesis(
            engagement_service_pb2.FormHypothesisRequest(statement=statement), metadata=self._metadata()
        )


def _pb(scope: Scope) -> scope_pb2.Scope:
    return scope_pb2.Scope(user_id=scope.user_id, agent_id=scope.agent_id, team_id=scope.team_id)


@pytest.fixture(params=["fake", "services"])
def backend(request):
    """The real services only for their half; asked for outside the event loop, because the
    session fixture starts them with a loop of its own."""
    return request.getfixturevalue("services") if request.param == "services" else None


@pytest.fixture
async def world(backend):
    caller = request_context.RequestContext(org_id=f"org-{uuid.uuid4().hex[:12]}", principal="contract")
    with request_context.bound(caller):
        if backend is None:
            yield FakeWorld()
            return
        seeded = ServiceWorld(backend)
        yield seeded
        for channel in seeded.channels:
            await channel.close()


async def test_recall_names_the_type_in_lower_case_and_returns_vectors_only_when_asked(world) -> None:
    fact = await world.remember("The billing migration runs on Friday night", "fact", ("billing",))

    with_vectors = await world.memory.recall("billing migration Friday", SCOPE, 5, "", with_vectors=True, timeout=T)
    without = await world.memory.recall("billing migration Friday", SCOPE, 5, "", with_vectors=False, timeout=T)

    [found] = [m for m in with_vectors.memories if m.id == fact]
    assert (found.memory_type, found.entities, dict(found.metadata)) == ("fact", ("billing",), {"k": "v"})
    assert 0 < found.similarity <= 1 and found.salience > 0 and found.importance == pytest.approx(0.7)
    assert found.valid_at is not None and found.vector
    assert all(m.vector is None for m in without.memories)
    assert with_vectors.query_vector is not None and with_vectors.query_vector.values
    assert with_vectors.query_vector.model and with_vectors.query_vector == without.query_vector


async def test_salient_facts_leave_out_raw_messages(world) -> None:
    fact = await world.remember("Prefers tea over coffee", "preference")
    message = await world.remember("hello, how are you?", "message")

    facts = await world.memory.salient_facts(SCOPE, 10, timeout=T)

    assert fact in [m.id for m in facts] and message not in [m.id for m in facts]


async def test_working_memory_reads_back_and_keeps_the_fingerprint(world) -> None:
    assert await world.memory.working_memory("s-unknown", timeout=T) == SessionState()
    await world.session("s-1", "Planning the migration.", "anxious")

    await world.memory.save_fingerprint("s-1", "abc;persona=;mood=anxious;sections=", timeout=T)
    state = await world.memory.working_memory("s-1", timeout=T)

    assert (state.summary, state.mood, state.fingerprint) == (
        "Planning the migration.",
        "anxious",
        "abc;persona=;mood=anxious;sections=",
    )


async def test_episodes_newest_first_at_least_as_salient_as_asked_with_their_open_threads(world) -> None:
    older = await world.episode("Talked about the budget.", NOW - timedelta(days=2), "budget sign-off")
    newer = await world.episode("Talked about hiring.", NOW - timedelta(hours=1), "job post")

    episodes = await world.memory.recent_episodes(SCOPE, 5, 0.3, timeout=T)
    none = await world.memory.recent_episodes(SCOPE, 5, 50.0, timeout=T)
    threads = await world.memory.open_threads(SCOPE, 5, timeout=T)

    assert [e.id for e in episodes] == [newer, older] and none == []
    assert {(t.episode_id, t.topic, t.context) for t in threads} == {
        (older, "budget sign-off", "still open"),
        (newer, "job post", "still open"),
    }


async def test_an_org_without_engagement_is_in_its_first_session_until_it_writes(world) -> None:
    assert await world.beliefs.engagement(timeout=T) == EngagementDigest()
    await world.hypothesis("Churn comes from onboarding")

    state = await world.beliefs.engagement(timeout=T)

    assert not state.first_session and state.week_number == 1
    assert [h.statement for h in state.hypotheses] == ["Churn comes from onboarding"]


async def test_beliefs_are_searched_and_listed_with_kind_confidence_and_freshness(world) -> None:
    await world.belief("Prefers Postgres for new services")

    searched = await world.beliefs.search_beliefs("Postgres services", SCOPE, 0.5, 5, timeout=T)
    vector = (await world.memory.recall("Postgres services", SCOPE, 1, "", with_vectors=False, timeout=T)).query_vector
    reused = await world.beliefs.search_beliefs("Postgres services", SCOPE, 0.5, 5, query_vector=vector, timeout=T)
    listed = await world.beliefs.top_beliefs(SCOPE, 0.5, 5, timeout=T)
    too_confident = await world.beliefs.top_beliefs(SCOPE, 0.99, 5, timeout=T)

    [belief] = searched
    assert [(b.id, b.summary) for b in reused] == [(b.id, b.summary) for b in searched], (
        "recall's query vector finds what the service's own embedding finds"
    )
    assert belief.kind == "operator_preference" and 0.5 <= belief.confidence <= 1 and belief.freshness > 0
    assert belief.similarity > 0
    assert belief.about_user and belief.sources >= 1 and belief.last_supported_at is not None
    assert belief.vector is None and reused[0].vector, "the belief's vector comes with recall's (same model)"
    assert [b.summary for b in listed] == ["Prefers Postgres for new services"] and too_confident == []


# --- Private by scope: a read for a context never returns another user's records ---------------


async def test_a_context_read_never_returns_another_users_memories_and_does_return_the_orgs(world) -> None:
    ann = await world.remember("Ann's quarterly budget review is on Monday", "fact", scope=ANN)
    bob = await world.remember("Bob's quarterly budget review is on Tuesday", "fact", scope=BOB)
    ann_elsewhere = await world.remember("Ann's quarterly budget review notes", "fact", scope=Scope("u-ann", "other"))
    org = await world.remember("The quarterly budget review template is in the wiki", "fact", scope=ORG_WIDE)
    agent = await world.remember("Quarterly budget reviews need the finance sheet", "fact", scope=AGENT_WIDE)
    query = "quarterly budget review"

    def ids(found) -> set[str]:
        return {m.id for m in found}

    recalled = {
        who: ids((await world.memory.recall(query, who, 10, "", with_vectors=False, timeout=T)).memories)
        for who in (ANN, BOB, NEWCOMER, AGENT_WIDE)
    }
    facts = {who: ids(await world.memory.salient_facts(who, 10, timeout=T)) for who in (ANN, BOB, NEWCOMER)}

    assert recalled[ANN] == facts[ANN] == {ann, org, agent}, "not Bob's, nor what Ann told another agent"
    assert recalled[BOB] == facts[BOB] == {bob, org, agent}
    assert recalled[NEWCOMER] == facts[NEWCOMER] == {org, agent}, "a new user of the org sees only the org's"
    assert recalled[AGENT_WIDE] == {org, agent}, "a context without a user sees no user's memories"
    assert ann_elsewhere not in recalled[ANN] | recalled[BOB] | recalled[AGENT_WIDE]


async def test_a_users_profile_facts_are_their_own_facts_and_preferences_only(world) -> None:
    pet = await world.remember("Ann's cat is called Pixel", "fact", scope=ANN)
    milk = await world.remember("Ann prefers oat milk in her coffee", "preference", scope=ANN)
    await world.remember("Morning! How was the weekend?", "message", scope=ANN)
    await world.remember("Bob lives in Leeds", "fact", scope=BOB)
    await world.remember("The office is in Leeds", "fact", scope=AGENT_WIDE)  # the org's: nobody's profile

    found = {fact.id: fact for fact in await world.memory.user_facts(ANN, 50, timeout=T)}

    assert found.keys() == {pet, milk}
    assert (found[pet].kind, found[pet].text, found[milk].kind) == ("fact", "Ann's cat is called Pixel", "preference")
    assert found[pet].confidence == pytest.approx(0.7) and found[pet].updated_at is not None
    assert found[pet].speaker == ""  # written through the API: no speaker, the user's own
    assert await world.memory.user_facts(AGENT_WIDE, 50, timeout=T) == []


async def test_a_context_read_never_returns_another_users_episodes_or_open_threads(world) -> None:
    ann = await world.episode("Ann planned the offsite.", NOW - timedelta(hours=3), "ann's venue", scope=ANN)
    bob = await world.episode("Bob planned his leave.", NOW - timedelta(hours=2), "bob's dates", scope=BOB)
    org = await world.episode("The team agreed on the roadmap.", NOW - timedelta(hours=1), "roadmap", scope=ORG_WIDE)

    episodes = {who: [e.id for e in await world.memory.recent_episodes(who, 10, 0.3, timeout=T)] for who in (ANN, BOB)}
    threads = {who: {t.topic for t in await world.memory.open_threads(who, 10, timeout=T)} for who in (ANN, BOB)}
    newcomer = await world.memory.recent_episodes(NEWCOMER, 10, 0.3, timeout=T)
    newcomer_threads = await world.memory.open_threads(NEWCOMER, 10, timeout=T)

    assert episodes == {ANN: [org, ann], BOB: [org, bob]}
    assert threads == {ANN: {"ann's venue", "roadmap"}, BOB: {"bob's dates", "roadmap"}}
    assert [e.id for e in newcomer] == [org] and [t.topic for t in newcomer_threads] == ["roadmap"]


async def test_searching_episodes_finds_the_one_about_the_message_and_never_another_users(world) -> None:
    kyoto = await world.episode("Ann planned the Kyoto trip for April.", NOW - timedelta(days=3), "ryokan", scope=ANN)
    await world.episode("Ann talked about her tax return.", NOW - timedelta(hours=1), "receipts", scope=ANN)
    bob = await world.episode("Bob planned his Kyoto trip too.", NOW - timedelta(hours=2), "flights", scope=BOB)
    org = await world.episode("The team chose Kyoto for the offsite.", NOW - timedelta(hours=3), "venue", ORG_WIDE)

    found = {
        who: await world.memory.search_episodes("planning my Kyoto trip in April", who, 10, 0.0, timeout=T)
        for who in (ANN, BOB, NEWCOMER)
    }

    assert found[ANN][0].id == kyoto and found[ANN][0].similarity > found[ANN][-1].similarity
    assert bob not in {e.id for e in found[ANN]} and kyoto not in {e.id for e in found[BOB]}
    assert [e.id for e in found[NEWCOMER]] == [org]
    assert all(0 < e.salience <= 1 for e in found[ANN])
    await world.memory.record_episode_access([kyoto], "s-1", "assembled_context", timeout=T)


async def test_a_context_read_never_returns_another_users_beliefs_and_does_return_the_orgs(world) -> None:
    await world.belief("Ann prefers Postgres for the reporting database", scope=ANN, subject_id="u-ann")
    await world.belief("Bob prefers MySQL for the reporting database", scope=BOB, subject_id="u-bob")
    await world.belief("The reporting database runs on Postgres", scope=ORG_WIDE, subject_id="reporting")
    query = "reporting database"

    async def seen(who: Scope) -> tuple[set[str], set[str]]:
        searched = await world.beliefs.search_beliefs(query, who, 0.5, 10, timeout=T)
        listed = await world.beliefs.top_beliefs(who, 0.5, 10, timeout=T)
        return {b.summary for b in searched}, {b.summary for b in listed}

    org = "The reporting database runs on Postgres"
    ann = "Ann prefers Postgres for the reporting database"
    bob = "Bob prefers MySQL for the reporting database"
    assert await seen(ANN) == ({ann, org}, {ann, org})
    assert await seen(BOB) == ({bob, org}, {bob, org})
    assert await seen(NEWCOMER) == ({org}, {org}), "a new user of the org sees only the org's beliefs"
    assert await seen(AGENT_WIDE) == ({org}, {org}), "a context without a user sees no user's beliefs"


# --- One call: the gather and the use of a context ------------------------------------------------


def every_part(scope: Scope, query: str, session_id: str = "s-1") -> MemoryReads:
    return MemoryReads(
        working_memory=session_id,
        recall=RecallRead(query, scope, 10, session_id, with_vectors=True),
        recent_episodes=EpisodesRead(scope, 10, 0.3),
        episode_search=EpisodeSearchRead(query, scope, 10),
        open_threads=ListRead(scope, 10),
        salient_facts=ListRead(scope, 10),
        user_facts=ListRead(scope, 50),
    )


async def test_a_gather_answers_each_part_as_its_own_read_does(world) -> None:
    await world.remember("Ann is repainting the kitchen in sage green", "fact", scope=ANN)
    await world.remember("Ann prefers matte paint", "preference", scope=ANN)
    await world.episode("Ann chose the kitchen paint colours.", NOW - timedelta(hours=1), "paint samples", scope=ANN)
    await world.session("s-1", "Choosing paint.", "curious")
    query = "repainting the kitchen"

    gathered = await world.memory.gather(every_part(ANN, query), timeout=T)
    recalled = await world.memory.recall(query, ANN, 10, "s-1", with_vectors=True, timeout=T)

    assert gathered.failures == {}
    assert gathered.working_memory == await world.memory.working_memory("s-1", timeout=T)
    assert [m.id for m in gathered.recall.memories] == [m.id for m in recalled.memories]
    assert all(m.vector for m in gathered.recall.memories), "the memories' vectors, as asked"
    assert gathered.recall.query_vector == recalled.query_vector
    assert [e.id for e in gathered.recent_episodes] == [
        e.id for e in await world.memory.recent_episodes(ANN, 10, 0.3, timeout=T)
    ]
    searched = await world.memory.search_episodes(query, ANN, 10, 0.0, timeout=T)
    assert [(e.id, round(e.similarity, 4)) for e in gathered.episode_search] == [
        (e.id, round(e.similarity, 4)) for e in searched
    ]
    assert gathered.open_threads == await world.memory.open_threads(ANN, 10, timeout=T)
    facts = await world.memory.salient_facts(ANN, 10, timeout=T)
    assert [m.id for m in gathered.salient_facts] == [m.id for m in facts]
    assert [f.id for f in gathered.user_facts] == [f.id for f in await world.memory.user_facts(ANN, 50, timeout=T)]
    assert len(gathered.user_facts) == 2


async def test_a_gather_reads_only_the_parts_asked_for(world) -> None:
    await world.remember("Ann is repainting the kitchen in sage green", "fact", scope=ANN)

    gathered = await world.memory.gather(MemoryReads(salient_facts=ListRead(ANN, 10)), timeout=T)

    assert gathered.failures == {} and len(gathered.salient_facts) == 1
    assert (gathered.recall, gathered.working_memory, gathered.user_facts) == (None, None, None)


async def test_a_gather_never_returns_another_users_records_in_any_part(world) -> None:
    ann = {
        await world.remember("Ann's garden shed gets a green roof", "fact", scope=ANN),
        await world.episode("Ann planned the garden shed.", NOW - timedelta(hours=2), "shed roof", scope=ANN),
    }
    bob = {
        await world.remember("Bob's garden shed gets a red roof", "fact", scope=BOB),
        await world.episode("Bob planned his garden shed.", NOW - timedelta(hours=1), "shed door", scope=BOB),
    }
    org = {await world.remember("The garden shed kits come from the timber yard", "fact", scope=ORG_WIDE)}

    def found(gathered) -> set[str]:
        ids = {m.id for m in gathered.recall.memories} | {m.id for m in gathered.salient_facts}
        ids |= {e.id for e in gathered.recent_episodes} | {e.id for e in gathered.episode_search}
        ids |= {t.episode_id for t in gathered.open_threads} | {f.id for f in gathered.user_facts}
        return ids

    seen = {who: found(await world.memory.gather(every_part(who, "garden shed roof"), timeout=T)) for who in (ANN, BOB)}
    newcomer = found(await world.memory.gather(every_part(NEWCOMER, "garden shed roof"), timeout=T))

    assert seen[ANN] == ann | org and seen[BOB] == bob | org and newcomer == org


async def test_the_use_of_a_context_records_access_and_writes_the_fingerprint(world) -> None:
    fact = await world.remember("Ann is repainting the kitchen in sage green", "fact", scope=ANN)
    episode = await world.episode("Ann chose the paint.", NOW - timedelta(hours=1), "paint samples", scope=ANN)
    await world.session("s-2", "Choosing paint.", "calm")

    await world.memory.record_use(
        ContextUse("s-2", "assembled_context", (fact,), (episode,), "abc;persona=;mood=calm;sections="), timeout=T
    )
    await world.memory.record_use(ContextUse("", "prime", (fact,)), timeout=T)  # no session, no fingerprint
    await world.memory.record_use(ContextUse("s-2", "prime"), timeout=T)  # nothing to write

    state = await world.memory.working_memory("s-2", timeout=T)
    assert (state.summary, state.fingerprint) == ("Choosing paint.", "abc;persona=;mood=calm;sections=")
