"""GatherContext and RecordContextUse on the running memory service (real Postgres, Redis and
Qdrant-edge): each part answers what its own RPC answers for the same data; the walls between
users of one org and between orgs hold in every part; bad input to any part is INVALID_ARGUMENT
naming the field under its part; a part whose store stalls fails alone, within the call's
deadline; and the calls are refused without the service credential or a tenant."""

# ruff: noqa: F811  (the stalling_redis fixture is imported, then a parameter)
from __future__ import annotations

import time
import uuid
from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta

import grpc
import memory_svc.bootstrap
import memory_svc.config
import memory_svc.server
import pytest
from gateway_svc.api.auth.user_pin import pin_request
from gateway_svc.domain.credentials import Caller
from google.protobuf import field_mask_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from lore.common.v1 import scope_pb2
from lore.memory.v1 import context_source_service_pb2 as pb
from lore.memory.v1 import (
    context_source_service_pb2_grpc,
    episode_service_pb2,
    episode_service_pb2_grpc,
    memory_service_pb2,
    memory_service_pb2_grpc,
    working_memory_service_pb2,
    working_memory_service_pb2_grpc,
)
from lore_devstack import EmbeddedRedis
from lore_runtime import errors
from lore_runtime.proto_time import to_timestamp

from tests.grpc_harness import start_service
from tests.stalling_redis import stalling_redis, stopped  # noqa: F401 (a fixture)

NOW = datetime.now(UTC)
CONTEXT = scope_pb2.SCOPE_MATCH_CONTEXT
ANN = scope_pb2.Scope(user_id="u-ann", agent_id="aria")
BOB = scope_pb2.Scope(user_id="u-bob", agent_id="aria")
ORG_WIDE = scope_pb2.Scope()
QUERY = "planning the garden shed build"
FACTS = [memory_service_pb2.MEMORY_TYPE_FACT, memory_service_pb2.MEMORY_TYPE_PREFERENCE]
CURRENT = [memory_service_pb2.MEMORY_STATUS_ACTIVE, memory_service_pb2.MEMORY_STATUS_WARM]
SALIENCE = memory_service_pb2.MEMORY_ORDER_SALIENCE


def tenant(org_id: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org_id), ("x-lore-principal", "test"))


class Org:
    """One organisation's data on the memory service, written through its RPCs."""

    def __init__(self, channel: grpc.aio.Channel, org_id: str | None = None) -> None:
        self.org_id = org_id or f"org-{uuid.uuid4().hex[:12]}"
        self.metadata = tenant(self.org_id)
        self.memories = memory_service_pb2_grpc.MemoryServiceStub(channel)
        self.episodes = episode_service_pb2_grpc.EpisodeServiceStub(channel)
        self.working = working_memory_service_pb2_grpc.WorkingMemoryServiceStub(channel)
        self.context = context_source_service_pb2_grpc.ContextSourceServiceStub(channel)

    async def remember(self, content: str, memory_type: int, scope: scope_pb2.Scope) -> str:
        item = memory_service_pb2.MemoryInput(content=content, memory_type=memory_type, scope=scope, importance=0.7)
        response = await self.memories.Remember(
            memory_service_pb2.RememberRequest(memories=[item]), metadata=self.metadata
        )
        return response.memories[0].id

    async def episode(self, summary: str, topic: str, scope: scope_pb2.Scope, hours_ago: float) -> str:
        ended = NOW - timedelta(hours=hours_ago)
        episode = episode_service_pb2.Episode(
            conversation_id=f"conv-{uuid.uuid4().hex[:8]}",
            scope=scope,
            summary=summary,
            started_at=to_timestamp(ended - timedelta(minutes=30)),
            ended_at=to_timestamp(ended),
            open_threads=[episode_service_pb2.OpenThread(topic=topic, status=episode_service_pb2.THREAD_STATUS_OPEN)],
        )
        created = await self.episodes.CreateEpisode(
            episode_service_pb2.CreateEpisodeRequest(episode=episode), metadata=self.metadata
        )
        return created.episode.id

    async def session(self, session_id: str, summary: str) -> None:
        await self.working.UpdateWorkingMemory(
            working_memory_service_pb2.UpdateWorkingMemoryRequest(
                session_id=session_id,
                working_memory=working_memory_service_pb2.WorkingMemory(summary=summary),
                update_mask=field_mask_pb2.FieldMask(paths=["summary"]),
            ),
            metadata=self.metadata,
        )

    async def gather(self, request: pb.GatherContextRequest, timeout: float = 10) -> pb.GatherContextResponse:
        return await self.context.GatherContext(request, metadata=self.metadata, timeout=timeout)


def every_part(scope: scope_pb2.Scope, session_id: str = "s-1", query: str = QUERY) -> pb.GatherContextRequest:
    """Every part, each the request its own RPC takes (reading for a context)."""
    return pb.GatherContextRequest(
        working_memory=working_memory_service_pb2.GetWorkingMemoryRequest(session_id=session_id),
        recall=memory_service_pb2.RecallRequest(
            query=query, scope=scope, k=10, record_access=False, include_query_embedding=True, scope_match=CONTEXT
        ),
        recent_episodes=episode_service_pb2.ListEpisodesRequest(scope=scope, page_size=5, scope_match=CONTEXT),
        episode_search=episode_service_pb2.SearchEpisodesRequest(query=query, scope=scope, k=5, scope_match=CONTEXT),
        open_threads=episode_service_pb2.ListOpenThreadsRequest(scope=scope, page_size=5, scope_match=CONTEXT),
        salient_facts=memory_service_pb2.ListMemoriesRequest(
            scope=scope, statuses=CURRENT, page_size=10, order_by=SALIENCE, scope_match=CONTEXT
        ),
        user_facts=memory_service_pb2.ListMemoriesRequest(
            scope=scope, memory_types=FACTS, statuses=CURRENT, page_size=10, order_by=SALIENCE, scope_match=CONTEXT
        ),
    )


async def seeded(org: Org) -> dict[str, set[str]]:
    """Ann's, Bob's and the org's records: memories and episodes (each with an open thread); the
    memories' ids alone under ``memories``."""
    ids: dict[str, set[str]] = {"ann": set(), "bob": set(), "org": set(), "memories": set()}
    for who, scope in (("ann", ANN), ("bob", BOB), ("org", ORG_WIDE)):
        for content, memory_type in (
            (f"{who} is planning the garden shed build", FACTS[0]),
            (f"{who} prefers cedar for the garden shed", FACTS[1]),
        ):
            memory_id = await org.remember(content, memory_type, scope)
            ids[who].add(memory_id)
            ids["memories"].add(memory_id)
        ids[who].add(await org.episode(f"{who} talked about building a garden shed", f"{who}'s shed", scope, 2))
    await org.session("s-1", "Sketching the shed's roof.")
    return ids


def record_ids(response: pb.GatherContextResponse) -> set[str]:
    """Every memory and episode id any part of ``response`` returned (threads by their episode)."""
    found = {result.memory.id for result in response.recall.response.results}
    found |= {episode.id for episode in response.recent_episodes.response.episodes}
    found |= {result.episode.id for result in response.episode_search.response.results}
    found |= {thread.episode_id for thread in response.open_threads.response.threads}
    for part in (response.salient_facts, response.user_facts):
        found |= {memory.id for memory in part.response.memories}
    return found


def field_violation(error: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(error)
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad_request = error_details_pb2.BadRequest()
            detail.Unpack(bad_request)
            return bad_request.field_violations[0].field
    raise AssertionError("no BadRequest detail")


async def test_each_part_answers_what_its_own_rpc_answers(services) -> None:
    org = Org(services["memory"].channel)
    await seeded(org)
    request = every_part(ANN)

    gathered = await org.gather(request)
    own = {
        "working_memory": await org.working.GetWorkingMemory(request.working_memory, metadata=org.metadata),
        "recall": await org.memories.Recall(request.recall, metadata=org.metadata),
        "recent_episodes": await org.episodes.ListEpisodes(request.recent_episodes, metadata=org.metadata),
        "episode_search": await org.episodes.SearchEpisodes(request.episode_search, metadata=org.metadata),
        "open_threads": await org.episodes.ListOpenThreads(request.open_threads, metadata=org.metadata),
        "salient_facts": await org.memories.ListMemories(request.salient_facts, metadata=org.metadata),
        "user_facts": await org.memories.ListMemories(request.user_facts, metadata=org.metadata),
    }

    for name in own:
        assert getattr(gathered, name).WhichOneof("outcome") == "response", name
    parts = {name: getattr(gathered, name).response for name in own}
    assert parts["working_memory"].working_memory.summary == "Sketching the shed's roof."
    assert parts["working_memory"].working_memory == own["working_memory"].working_memory
    recalled, recalled_alone = parts["recall"].results, own["recall"].results
    assert [r.memory.id for r in recalled] == [r.memory.id for r in recalled_alone]
    assert [r.similarity for r in recalled] == pytest.approx([r.similarity for r in recalled_alone])
    assert parts["recall"].query_embedding == pytest.approx(own["recall"].query_embedding)
    assert parts["recall"].embedding_model == own["recall"].embedding_model
    assert [e.id for e in parts["recent_episodes"].episodes] == [e.id for e in own["recent_episodes"].episodes]
    searched, searched_alone = parts["episode_search"].results, own["episode_search"].results
    assert [r.episode.id for r in searched] == [r.episode.id for r in searched_alone]
    assert [r.similarity for r in searched] == pytest.approx([r.similarity for r in searched_alone], abs=1e-5), (
        "the search with recall's vector finds what the search that embeds the query finds"
    )
    assert [t.episode_id for t in parts["open_threads"].threads] == [t.episode_id for t in own["open_threads"].threads]
    for name in ("salient_facts", "user_facts"):
        assert [m.id for m in parts[name].memories] == [m.id for m in own[name].memories], name
    assert len(parts["recall"].results) == 4 and len(parts["user_facts"].memories) == 4


async def test_only_the_parts_asked_for_are_answered_and_the_query_vector_only_when_asked(services) -> None:
    org = Org(services["memory"].channel)
    await seeded(org)
    request = pb.GatherContextRequest(
        recall=memory_service_pb2.RecallRequest(query=QUERY, scope=ANN, k=5, record_access=False),
        open_threads=episode_service_pb2.ListOpenThreadsRequest(scope=ANN, page_size=5),
    )

    gathered = await org.gather(request)

    assert [field.name for field, _ in gathered.ListFields()] == ["recall", "open_threads"]
    assert gathered.recall.response.results and not gathered.recall.response.query_embedding
    assert await org.gather(pb.GatherContextRequest()) == pb.GatherContextResponse()


async def test_no_part_returns_another_users_or_another_orgs_records(services) -> None:
    org = Org(services["memory"].channel)
    other_org = Org(services["memory"].channel)
    ids = await seeded(org)
    elsewhere = await seeded(other_org)  # the same user ids, in another organisation

    ann = record_ids(await org.gather(every_part(ANN)))
    bob = record_ids(await org.gather(every_part(BOB)))
    newcomer = record_ids(await org.gather(every_part(scope_pb2.Scope(user_id="u-new", agent_id="aria"))))
    ann_elsewhere = record_ids(await other_org.gather(every_part(ANN)))

    assert ann == ids["ann"] | ids["org"], "Ann's and the org's, never Bob's"
    assert bob == ids["bob"] | ids["org"]
    assert newcomer == ids["org"], "a new user of the org sees only the org's"
    assert ann_elsewhere == elsewhere["ann"] | elsewhere["org"], "never another organisation's"


async def test_a_part_that_does_not_say_how_to_match_reads_for_a_context(services) -> None:
    org = Org(services["memory"].channel)
    ids = await seeded(org)
    browse = memory_service_pb2.ListMemoriesRequest(scope=ANN, statuses=CURRENT, page_size=20)

    gathered = await org.gather(pb.GatherContextRequest(salient_facts=browse))
    browsed = await org.memories.ListMemories(browse, metadata=org.metadata)

    listed = {m.id for m in gathered.salient_facts.response.memories}
    assert listed == (ids["ann"] | ids["org"]) & ids["memories"], "Ann's and the org's shared ones, not Bob's"
    assert {m.id for m in browsed.memories} == ids["ann"] & ids["memories"], "its own RPC browses: Ann's only"


@pytest.mark.parametrize(
    ("part", "broken"),
    [
        ("working_memory", {"session_id": ""}),
        ("recall", {"query": ""}),
        ("recent_episodes", {"min_salience": -1.0}),
        ("episode_search", {"k": 1000}),
        ("open_threads", {"page_size": -1}),
        ("salient_facts", {"order_by": 99}),
        ("user_facts", {"statuses": [99]}),
    ],
)
async def test_bad_input_to_any_part_is_invalid_argument_naming_the_field_under_its_part(
    services, part: str, broken: dict
) -> None:
    org = Org(services["memory"].channel)
    request = every_part(ANN)
    target = getattr(request, part)
    for name, value in broken.items():
        if isinstance(value, list):
            del getattr(target, name)[:]
            getattr(target, name).extend(value)
        else:
            setattr(target, name, value)

    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await org.gather(request)

    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    field = field_violation(raised.value)
    assert field.startswith(f"{part}.") and field.removeprefix(f"{part}.").split("[")[0] in broken
    assert field in raised.value.details()


async def test_record_context_use_writes_access_and_the_fingerprint_in_one_call(services) -> None:
    org = Org(services["memory"].channel)
    ids = await seeded(org)
    gathered = await org.gather(every_part(ANN))
    memories = [r.memory.id for r in gathered.recall.response.results]
    episodes = [e.id for e in gathered.recent_episodes.response.episodes]

    used = await org.context.RecordContextUse(
        pb.RecordContextUseRequest(
            memory_access=memory_service_pb2.RecordAccessRequest(
                memory_ids=memories, session_id="s-1", reason="assembled_context"
            ),
            episode_access=episode_service_pb2.RecordEpisodeAccessRequest(
                episode_ids=episodes, session_id="s-1", reason="assembled_context"
            ),
            session_id="s-1",
            context_fingerprint="abc;persona=;mood=;sections=",
        ),
        metadata=org.metadata,
    )
    state = await org.working.GetWorkingMemory(
        working_memory_service_pb2.GetWorkingMemoryRequest(session_id="s-1"), metadata=org.metadata
    )
    alone = await org.memories.RecordAccess(
        memory_service_pb2.RecordAccessRequest(memory_ids=memories, session_id="s-1", reason="assembled_context"),
        metadata=org.metadata,
    )

    assert (used.memory_access.recorded, used.episode_access.recorded) == (len(memories), len(episodes))
    assert used.memory_access.recorded == alone.recorded and memories and set(memories) <= ids["memories"]
    assert used.context_fingerprint.recorded == 1
    assert state.working_memory.context_fingerprint == "abc;persona=;mood=;sections="
    assert state.working_memory.summary == "Sketching the shed's roof.", "only the fingerprint is written"

    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await org.context.RecordContextUse(
            pb.RecordContextUseRequest(
                memory_access=memory_service_pb2.RecordAccessRequest(memory_ids=memories, reason="not a reason")
            ),
            metadata=org.metadata,
        )
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert field_violation(raised.value) == "memory_access.reason"
    with pytest.raises(grpc.aio.AioRpcError) as no_session:
        await org.context.RecordContextUse(
            pb.RecordContextUseRequest(context_fingerprint="abc;persona=;mood=;sections="), metadata=org.metadata
        )
    assert no_session.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert field_violation(no_session.value) == "session_id"


async def test_the_calls_are_refused_without_the_service_credential_or_a_tenant(services) -> None:
    address = services["memory"].address
    async with grpc.aio.insecure_channel(address) as without_token:
        stub = context_source_service_pb2_grpc.ContextSourceServiceStub(without_token)
        with pytest.raises(grpc.aio.AioRpcError) as no_credential:
            await stub.GatherContext(every_part(ANN), metadata=tenant("org-someone"), timeout=5)
        with pytest.raises(grpc.aio.AioRpcError) as no_credential_write:
            await stub.RecordContextUse(pb.RecordContextUseRequest(), metadata=tenant("org-someone"), timeout=5)
    with pytest.raises(grpc.aio.AioRpcError) as no_tenant:
        await Org(services["memory"].channel).context.GatherContext(every_part(ANN), timeout=5)

    assert no_credential.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert no_credential_write.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert no_tenant.value.code() is grpc.StatusCode.UNAUTHENTICATED


def test_a_credential_pinned_to_a_user_fills_or_refuses_every_parts_user() -> None:
    """As for every request the gateway forwards: each part's scope is the pinned user's."""
    pinned = Caller(org_id="org-1", principal="key-1", scopes=frozenset({"memories:read"}), user_id="u-ann")
    empty = pb.GatherContextRequest(
        recall=memory_service_pb2.RecallRequest(query=QUERY), open_threads=episode_service_pb2.ListOpenThreadsRequest()
    )
    other = every_part(BOB)

    filled = pin_request(pinned, empty)
    with pytest.raises(errors.PermissionDenied) as refused:
        pin_request(pinned, other)

    assert (filled.recall.scope.user_id, filled.open_threads.scope.user_id) == ("u-ann", "u-ann")
    assert not filled.HasField("salient_facts"), "a part not asked for stays absent"
    assert refused.value.reason == "USER_PINNED" and refused.value.metadata["field"] == "recall.scope.userId"


# --- A stalled store fails its own part only -----------------------------------------------------


@pytest.fixture
async def memory_on_stalling_redis(stalling_redis: EmbeddedRedis, migrated_pg, tmp_path):
    async with AsyncExitStack() as stack:
        running = await start_service(
            stack,
            "memory",
            memory_svc.bootstrap,
            memory_svc.server,
            memory_svc.config.Settings,
            {
                "LORE_DATABASE_URL": migrated_pg.app_dsn,
                "LORE_REDIS_URL": stalling_redis.url,
                "LORE_REDIS_TIMEOUT_SECONDS": "2",
                "LORE_DATA_DIR": str(tmp_path),
                "LORE_MAINTENANCE_INTERVAL_SECONDS": "0",
            },
        )
        yield running


async def test_a_part_whose_store_stalls_fails_alone_and_never_holds_the_call_past_its_deadline(
    memory_on_stalling_redis, stalling_redis: EmbeddedRedis
) -> None:
    org = Org(memory_on_stalling_redis.channel)
    ids = await seeded(org)

    with stopped(stalling_redis):  # working memory lives in Redis; the rest does not
        began = time.monotonic()
        overrun = await org.gather(every_part(ANN), timeout=1.0)
        took = time.monotonic() - began
        failed = await org.gather(every_part(ANN), timeout=8.0)

    assert took < 1.0, "answered within the call's deadline, the stalled part given up"
    assert overrun.working_memory.error.code == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]
    assert failed.working_memory.error.code in {
        grpc.StatusCode.UNAVAILABLE.value[0],
        grpc.StatusCode.DEADLINE_EXCEEDED.value[0],
    }
    for answered in (overrun, failed):
        assert {field.name for field, _ in answered.ListFields()} == set(
            pb.GatherContextRequest.DESCRIPTOR.fields_by_name
        )
        others = [f.name for f in pb.GatherContextRequest.DESCRIPTOR.fields if f.name != "working_memory"]
        assert all(getattr(answered, name).WhichOneof("outcome") == "response" for name in others)
        assert record_ids(answered) == ids["ann"] | ids["org"]


# --- The query is embedded once per call -----------------------------------------------------------


def count_model_runs(monkeypatch, embedder) -> list[int]:
    """Counts the texts the model itself embeds (behind the query cache, when there is one)."""
    model = getattr(embedder, "inner", embedder)
    runs: list[int] = []
    embed = model.embed

    async def counting(texts):
        runs.append(len(texts))
        return await embed(texts)

    monkeypatch.setattr(model, "embed", counting)
    return runs


async def test_recall_and_the_episode_search_of_one_call_embed_the_query_once(services, monkeypatch) -> None:
    org = Org(services["memory"].channel)
    ids = await seeded(org)
    runs = count_model_runs(monkeypatch, services["memory"].container.embedder)
    query = f"sketching plans for a cedar garden shed {uuid.uuid4().hex[:6]}"  # in no cache yet

    gathered = await org.gather(every_part(ANN, query=query))

    assert runs == [1], "one model run for recall and the episode search"
    assert {r.episode.id for r in gathered.episode_search.response.results} == (ids["ann"] | ids["org"]) - ids[
        "memories"
    ]
    assert gathered.recall.response.query_embedding


@pytest.fixture
async def memory_without_query_cache(migrated_pg, redis_url, tmp_path):
    async with AsyncExitStack() as stack:
        yield await start_service(
            stack,
            "memory",
            memory_svc.bootstrap,
            memory_svc.server,
            memory_svc.config.Settings,
            {
                "LORE_DATABASE_URL": migrated_pg.app_dsn,
                "LORE_REDIS_URL": redis_url,
                "LORE_DATA_DIR": str(tmp_path),
                "LORE_MAINTENANCE_INTERVAL_SECONDS": "0",
                "LORE_EMBEDDING_CACHE_SIZE": "0",
            },
        )


async def test_without_the_query_cache_the_episode_search_still_reuses_recalls_vector(
    memory_without_query_cache, monkeypatch
) -> None:
    org = Org(memory_without_query_cache.channel)
    ids = await seeded(org)
    runs = count_model_runs(monkeypatch, memory_without_query_cache.container.embedder)

    gathered = await org.gather(every_part(ANN))

    assert runs == [1], "recall's embedding only: the search waited for its vector"
    assert {r.episode.id for r in gathered.episode_search.response.results} == (ids["ann"] | ids["org"]) - ids[
        "memories"
    ]
