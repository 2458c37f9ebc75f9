"""SearchEpisodes and RecordEpisodeAccess in-process on port 0, through the real stub, on both
Qdrant adapters (qdrant-edge, the default; qdrant-client's local mode) and the Postgres access
log, with a clock the tests move."""

from __future__ import annotations

import uuid
from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from google.protobuf import timestamp_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from lore.common.v1 import scope_pb2
from lore.memory.v1 import episode_service_pb2 as pb
from lore.memory.v1 import episode_service_pb2_grpc
from lore_runtime.page_tokens import PageTokens
from lore_runtime.server import Registration, create_grpc_server
from lore_runtime.stores import open_postgres
from memory_svc.adapters.postgres_access_log import PostgresAccessLog
from memory_svc.adapters.qdrant_client_episodes import QdrantClientEpisodeIndex
from memory_svc.adapters.qdrant_edge_episodes import QdrantEdgeEpisodeIndex
from memory_svc.api.episode_servicer import EpisodeServicer
from qdrant_client import AsyncQdrantClient

from tests.fakes import FixedClock, HashingEmbedder
from tests.grpc_harness import server_settings, service_channel

SERVICE = pb.DESCRIPTOR.services_by_name["EpisodeService"]
T0 = datetime(2026, 2, 3, 4, 5, 6, tzinfo=UTC)
CONTEXT = scope_pb2.SCOPE_MATCH_CONTEXT
ALICE = scope_pb2.Scope(user_id="alice")


class Service:
    def __init__(self, stub, clock: FixedClock, embedder: HashingEmbedder, access_log: PostgresAccessLog) -> None:
        self.stub, self.clock, self.embedder, self.access_log = stub, clock, embedder, access_log


@pytest.fixture(scope="module", params=["qdrant_edge", "qdrant_client_local"])
async def service(request, tmp_path_factory, migrated_pg):
    embedder, clock = HashingEmbedder(), FixedClock(T0)
    model = {"embedding_model": embedder.model_name, "dimension": embedder.dimension}
    async with AsyncExitStack() as stack:
        if request.param == "qdrant_edge":
            index = await QdrantEdgeEpisodeIndex.open(tmp_path_factory.mktemp("data") / "episodes", **model)
        else:
            index = await QdrantClientEpisodeIndex.open(
                AsyncQdrantClient(location=":memory:"), owns_client=True, **model
            )
        stack.push_async_callback(index.close)
        access_log = PostgresAccessLog(await open_postgres(stack, migrated_pg.app_dsn, max_size=2))
        servicer = EpisodeServicer(index, embedder, clock, PageTokens(), access_log=access_log)
        server = create_grpc_server(
            "127.0.0.1:0",
            [Registration(servicer, episode_service_pb2_grpc.add_EpisodeServiceServicer_to_server, SERVICE)],
            settings=server_settings(),
        )
        await server.start()
        stack.push_async_callback(server.stop)
        channel = service_channel(f"127.0.0.1:{server.port}")
        stack.push_async_callback(channel.close)
        yield Service(episode_service_pb2_grpc.EpisodeServiceStub(channel), clock, embedder, access_log)


def tenant(org: str):
    return (("x-lore-org-id", org), ("x-lore-principal", "t"))


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


def stamp(moment: datetime) -> timestamp_pb2.Timestamp:
    value = timestamp_pb2.Timestamp()
    value.FromDatetime(moment)
    return value


async def create(service: Service, org: str, summary: str, scope=ALICE) -> pb.Episode:
    """An episode that ended now (the service's clock)."""
    now = service.clock.now()
    sent = pb.Episode(
        conversation_id=f"conv-{uuid.uuid4().hex[:8]}",
        scope=scope,
        summary=summary,
        started_at=stamp(now - timedelta(minutes=30)),
        ended_at=stamp(now),
    )
    return (await service.stub.CreateEpisode(pb.CreateEpisodeRequest(episode=sent), metadata=tenant(org))).episode


async def search(service: Service, org: str, query: str, scope=ALICE, **fields) -> list[pb.ScoredEpisode]:
    request = pb.SearchEpisodesRequest(scope=scope, scope_match=CONTEXT, query=query, **fields)
    return list((await service.stub.SearchEpisodes(request, metadata=tenant(org))).results)


async def failure(call) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call
    return raised.value


def error_field(error: grpc.aio.AioRpcError) -> str:
    info = error_details_pb2.ErrorInfo()
    rpc_status.from_call(error).details[0].Unpack(info)
    return info.metadata["field"]


# --------------------------------------------------------------------------- SearchEpisodes


async def test_a_relevant_old_episode_outranks_a_newer_irrelevant_one(service) -> None:
    org = new_org()
    old = await create(service, org, "Alice adopted a rescue dog called Biscuit from the shelter.")
    service.clock.advance(days=35)
    new = await create(service, org, "Alice compared mortgage rates for the flat in Porto.")

    results = await search(service, org, "What is the name of the dog Alice adopted from the shelter?")

    assert [result.episode.id for result in results] == [old.id, new.id]
    assert 0 < results[1].similarity < results[0].similarity <= 1.0 + 1e-6
    assert results[0].episode.summary == old.summary
    assert results[0].episode.current_salience == pytest.approx(0.5 ** (35 / 30), rel=1e-4)


async def test_a_context_search_never_returns_another_users_or_another_orgs_episodes(service) -> None:
    org = new_org()
    mine = await create(service, org, "Alice adopted a rescue dog.")
    shared = await create(service, org, "The shelter's rescue dog adoption rules.", scope_pb2.Scope())
    bobs = await create(service, org, "Bob adopted a rescue dog.", scope_pb2.Scope(user_id="bob"))
    await create(service, new_org(), "Alice adopted a rescue dog.")

    for_alice = await search(service, org, "rescue dog adopted", k=50)
    for_nobody = await search(service, org, "rescue dog adopted", scope_pb2.Scope(), k=50)
    elsewhere = await search(service, new_org(), "rescue dog adopted", k=50)

    assert {result.episode.id for result in for_alice} == {mine.id, shared.id}
    assert [result.episode.id for result in for_nobody] == [shared.id]
    assert bobs.id not in {result.episode.id for result in for_alice + for_nobody}
    assert elsewhere == []


async def test_the_callers_vector_is_used_only_when_it_is_of_this_services_model(service) -> None:
    org = new_org()
    dog = await create(service, org, "Alice adopted a rescue dog.")
    await create(service, org, "Alice compared mortgage rates.")
    (vector,) = await service.embedder.embed(["rescue dog adopted"])
    before = len(service.embedder.calls)

    given = await search(
        service, org, "", query_embedding=vector.tolist(), query_embedding_model=service.embedder.model_name
    )
    assert len(service.embedder.calls) == before  # not embedded again
    assert given[0].episode.id == dog.id

    foreign = await search(
        service, org, "mortgage rates", query_embedding=vector.tolist(), query_embedding_model="another/model"
    )
    assert len(service.embedder.calls) == before + 1  # another model's vector: the query is embedded
    assert foreign[0].episode.id != dog.id

    error = await failure(
        service.stub.SearchEpisodes(
            pb.SearchEpisodesRequest(query="", query_embedding=vector.tolist(), query_embedding_model="another/model"),
            metadata=tenant(org),
        )
    )
    assert (error.code(), error_field(error)) == (grpc.StatusCode.INVALID_ARGUMENT, "query")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({}, "query"),
        ({"query": " "}, "query"),
        ({"query": "x" * 4001}, "query"),
        ({"query": "dog", "k": 51}, "k"),
        ({"query": "dog", "k": -1}, "k"),
        ({"query": "dog", "min_salience": -1}, "min_salience"),
        ({"query": "dog", "scope_match": 7}, "scope_match"),
        ({"query": "dog", "scope": scope_pb2.Scope(user_id="u" * 200)}, "scope.user_id"),
        ({"query_embedding": [1.0, 2.0], "query_embedding_model": HashingEmbedder.model_name}, "query_embedding"),
        (
            {"query_embedding": [float("nan")] * 64, "query_embedding_model": HashingEmbedder.model_name},
            "query_embedding",
        ),
    ],
)
async def test_bad_search_input_is_invalid_argument_naming_the_field(service, fields, field) -> None:
    error = await failure(service.stub.SearchEpisodes(pb.SearchEpisodesRequest(**fields), metadata=tenant(new_org())))

    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_field(error) == field


# --------------------------------------------------------------------------- decay and RecordEpisodeAccess


async def test_an_old_unused_episode_is_less_salient_and_a_recorded_use_revives_it(service) -> None:
    org = new_org()
    old = await create(service, org, "Alice planned the Lisbon move.")
    service.clock.advance(days=60)
    fresh = await create(service, org, "Alice booked the movers.")

    async def salience(episode_id: str) -> float:
        got = await service.stub.GetEpisode(pb.GetEpisodeRequest(id=episode_id), metadata=tenant(org))
        return got.episode.current_salience

    assert await salience(old.id) == pytest.approx(0.25, rel=1e-4)
    assert await salience(fresh.id) == 1.0
    salient = await service.stub.ListEpisodes(pb.ListEpisodesRequest(min_salience=0.3), metadata=tenant(org))
    assert [episode.id for episode in salient.episodes] == [fresh.id]  # on the decayed value

    request = pb.RecordEpisodeAccessRequest(episode_ids=[old.id], reason="prime", request_id=f"r-{uuid.uuid4()}")
    recorded = await service.stub.RecordEpisodeAccess(request, metadata=tenant(org))
    replayed = await service.stub.RecordEpisodeAccess(request, metadata=tenant(org))

    assert (recorded.recorded, replayed.recorded) == (1, 0)
    assert await salience(old.id) == pytest.approx(1.1)  # revived: (1 + 0.1 · 1 use), its clock restarted
    got = (await service.stub.GetEpisode(pb.GetEpisodeRequest(id=old.id), metadata=tenant(org))).episode
    assert (got.access_count, got.last_accessed_at.ToDatetime(tzinfo=UTC)) == (1, service.clock.now())
    salient = await service.stub.ListEpisodes(pb.ListEpisodesRequest(min_salience=0.3), metadata=tenant(org))
    assert {episode.id for episode in salient.episodes} == {old.id, fresh.id}
    assert await service.access_log.count(org, old.id) == 1


async def test_recording_another_orgs_episodes_records_nothing(service) -> None:
    org, other = new_org(), new_org()
    theirs = await create(service, other, "Their planning session.")

    response = await service.stub.RecordEpisodeAccess(
        pb.RecordEpisodeAccessRequest(episode_ids=[theirs.id, "not-a-uuid", str(uuid.uuid4())]), metadata=tenant(org)
    )

    assert response.recorded == 0
    got = (await service.stub.GetEpisode(pb.GetEpisodeRequest(id=theirs.id), metadata=tenant(other))).episode
    assert got.access_count == 0
    assert await service.access_log.count(org, theirs.id) == await service.access_log.count(other, theirs.id) == 0


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"reason": "recall"}, "reason"),
        ({"reason": "whatever"}, "reason"),
        ({"episode_ids": [str(uuid.uuid4()) for _ in range(501)]}, "episode_ids"),
        ({"request_id": "r" * 257}, "request_id"),
    ],
)
async def test_bad_access_input_is_invalid_argument_naming_the_field(service, fields, field) -> None:
    error = await failure(
        service.stub.RecordEpisodeAccess(pb.RecordEpisodeAccessRequest(**fields), metadata=tenant(new_org()))
    )

    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_field(error) == field
