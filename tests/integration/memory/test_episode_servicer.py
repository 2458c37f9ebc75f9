"""EpisodeService in-process on port 0, on the qdrant-edge adapter, through the real stub."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from google.protobuf import timestamp_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from lore.common.v1 import scope_pb2
from lore.memory.v1 import episode_service_pb2 as pb
from lore.memory.v1 import episode_service_pb2_grpc
from lore_runtime.clock import SystemClock
from lore_runtime.page_tokens import PageTokens
from lore_runtime.server import Registration, create_grpc_server
from memory_svc.adapters.qdrant_edge_episodes import QdrantEdgeEpisodeIndex
from memory_svc.api.episode_servicer import EpisodeServicer

from tests.fakes import HashingEmbedder
from tests.grpc_harness import server_settings, service_channel

SERVICE = pb.DESCRIPTOR.services_by_name["EpisodeService"]
T0 = datetime(2026, 2, 3, 4, 5, 6, 789000, tzinfo=UTC)


@pytest.fixture(scope="module")
async def stub(tmp_path_factory):
    embedder = HashingEmbedder()
    index = await QdrantEdgeEpisodeIndex.open(
        tmp_path_factory.mktemp("data") / "qdrant" / "episodes",
        embedding_model=embedder.model_name,
        dimension=embedder.dimension,
    )
    server = create_grpc_server(
        "127.0.0.1:0",
        [
            Registration(
                EpisodeServicer(index, embedder, SystemClock(), PageTokens()),
                episode_service_pb2_grpc.add_EpisodeServiceServicer_to_server,
                SERVICE,
            )
        ],
        settings=server_settings(),
    )
    await server.start()
    channel = service_channel(f"127.0.0.1:{server.port}")
    try:
        yield episode_service_pb2_grpc.EpisodeServiceStub(channel)
    finally:
        await channel.close()
        await server.stop(grace=None)
        await index.close()


def tenant(org: str):
    return (("x-lore-org-id", org), ("x-lore-principal", "t"))


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


def stamp(moment: datetime) -> timestamp_pb2.Timestamp:
    value = timestamp_pb2.Timestamp()
    value.FromDatetime(moment)
    return value


def episode(ended_at: datetime = T0, **fields) -> pb.Episode:
    values = {
        "conversation_id": f"conv-{uuid.uuid4().hex[:8]}",
        "scope": scope_pb2.Scope(user_id="alice"),
        "summary": "Alice planned her move to Lisbon and asked about visas.",
        "started_at": stamp(ended_at - timedelta(minutes=45)),
        "ended_at": stamp(ended_at),
    }
    values.update(fields)
    return pb.Episode(**values)


def without_salience(sent: pb.Episode) -> pb.Episode:
    """The episode as stored: its current_salience is computed at each read."""
    copy = pb.Episode()
    copy.CopyFrom(sent)
    copy.ClearField("current_salience")
    return copy


async def failure(call) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await call
    return raised.value


def error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    status = rpc_status.from_call(error)
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    return info


async def test_create_then_get_returns_the_same_episode(stub) -> None:
    org = new_org()
    sent = episode(
        key_topics=["moving"],
        user_state=pb.UserState(mood="hopeful", confidence="high", focus="visa"),
        outcomes=[pb.Outcome(type="decision", content="move in May")],
        open_threads=[pb.OpenThread(topic="visa", status=pb.THREAD_STATUS_BLOCKED, context="papers")],
        action_items=[pb.ActionItem(owner="alice", task="book movers", deadline="by Friday")],
        message_count=12,
        importance=0.75,
        metadata={"source": "test"},
    )

    created = await stub.CreateEpisode(pb.CreateEpisodeRequest(episode=sent, request_id="r-1"), metadata=tenant(org))
    got = await stub.GetEpisode(pb.GetEpisodeRequest(id=created.episode.id), metadata=tenant(org))

    assert without_salience(got.episode) == without_salience(created.episode)
    assert uuid.UUID(got.episode.id).version == 5
    assert got.episode.summary == sent.summary
    assert got.episode.open_threads[0].status == pb.THREAD_STATUS_BLOCKED
    assert got.episode.ended_at.ToDatetime(tzinfo=UTC) == T0
    assert got.episode.importance == 0.75
    # Salience as of each read (the real clock moved a little): fresh, so all but 1.
    assert got.episode.current_salience == pytest.approx(1.0) == created.episode.current_salience


async def test_a_retried_create_returns_the_same_episode(stub) -> None:
    org = new_org()
    request = pb.CreateEpisodeRequest(episode=episode(conversation_id="c-1"), request_id="retry-me")

    first = await stub.CreateEpisode(request, metadata=tenant(org))
    second = await stub.CreateEpisode(request, metadata=tenant(org))
    listed = await stub.ListEpisodes(pb.ListEpisodesRequest(), metadata=tenant(org))

    assert without_salience(second.episode) == without_salience(first.episode)
    assert [e.id for e in listed.episodes] == [first.episode.id]


async def test_another_orgs_episode_is_not_found(stub) -> None:
    created = await stub.CreateEpisode(pb.CreateEpisodeRequest(episode=episode()), metadata=tenant(new_org()))

    error = await failure(stub.GetEpisode(pb.GetEpisodeRequest(id=created.episode.id), metadata=tenant(new_org())))

    assert error.code() is grpc.StatusCode.NOT_FOUND
    assert error_info(error).reason == "EPISODE_NOT_FOUND"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"summary": ""}, "episode.summary"),
        (
            {"open_threads": [pb.OpenThread(topic="a"), pb.OpenThread(topic="b"), pb.OpenThread(topic="")]},
            "episode.open_threads[2].topic",
        ),
        ({"open_threads": [pb.OpenThread(topic="a", status=99)]}, "episode.open_threads[0].status"),
        ({"importance": 2.0}, "episode.importance"),
        ({"key_topics": ["t"] * 51}, "episode.key_topics"),
        ({"started_at": stamp(T0 + timedelta(seconds=1))}, "episode.ended_at"),
    ],
)
async def test_an_invalid_episode_is_invalid_argument_naming_the_field(stub, fields, field) -> None:
    error = await failure(
        stub.CreateEpisode(pb.CreateEpisodeRequest(episode=episode(**fields)), metadata=tenant(new_org()))
    )

    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert field in error.details()
    assert error_info(error).metadata["field"] == field


async def test_a_bad_page_token_is_invalid_argument(stub) -> None:
    error = await failure(stub.ListEpisodes(pb.ListEpisodesRequest(page_token="nonsense"), metadata=tenant(new_org())))

    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(error).metadata["field"] == "page_token"


async def test_list_episodes_pages_newest_first(stub) -> None:
    org = new_org()
    ids = []
    for hours in (2, 0, 1):
        created = await stub.CreateEpisode(
            pb.CreateEpisodeRequest(episode=episode(T0 - timedelta(hours=hours))), metadata=tenant(org)
        )
        ids.append((hours, created.episode.id))

    first = await stub.ListEpisodes(pb.ListEpisodesRequest(page_size=2), metadata=tenant(org))
    second = await stub.ListEpisodes(
        pb.ListEpisodesRequest(page_size=2, page_token=first.next_page_token), metadata=tenant(org)
    )

    assert [e.id for e in first.episodes] + [e.id for e in second.episodes] == [id_ for _, id_ in sorted(ids)]
    assert second.next_page_token == ""


async def test_list_episodes_keeps_those_at_least_as_salient_as_asked(stub) -> None:
    org = new_org()
    created = await stub.CreateEpisode(pb.CreateEpisodeRequest(episode=episode(T0)), metadata=tenant(org))

    salient = await stub.ListEpisodes(pb.ListEpisodesRequest(min_salience=0.3), metadata=tenant(org))
    none = await stub.ListEpisodes(pb.ListEpisodesRequest(min_salience=50.0), metadata=tenant(org))
    error = await failure(stub.ListEpisodes(pb.ListEpisodesRequest(min_salience=-1), metadata=tenant(org)))

    assert [e.id for e in salient.episodes] == [created.episode.id]
    assert list(none.episodes) == []
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(error).metadata["field"] == "min_salience"


async def test_list_open_threads_across_episodes_newest_first(stub) -> None:
    org = new_org()
    old = await stub.CreateEpisode(
        pb.CreateEpisodeRequest(
            episode=episode(
                T0 - timedelta(days=1),
                conversation_id="c-old",
                open_threads=[pb.OpenThread(topic="visa", status=pb.THREAD_STATUS_BLOCKED)],
            )
        ),
        metadata=tenant(org),
    )
    new = await stub.CreateEpisode(
        pb.CreateEpisodeRequest(
            episode=episode(
                T0,
                conversation_id="c-new",
                open_threads=[
                    pb.OpenThread(topic="flat", context="near Alfama"),
                    pb.OpenThread(topic="flights", status=pb.THREAD_STATUS_RESOLVED),
                ],
            )
        ),
        metadata=tenant(org),
    )

    listed = await stub.ListOpenThreads(
        pb.ListOpenThreadsRequest(scope=scope_pb2.Scope(user_id="alice")), metadata=tenant(org)
    )

    assert [(t.episode_id, t.conversation_id, t.thread.topic) for t in listed.threads] == [
        (new.episode.id, "c-new", "flat"),
        (old.episode.id, "c-old", "visa"),
    ]
    assert listed.threads[0].thread.status == pb.THREAD_STATUS_OPEN
    assert listed.threads[0].ended_at.ToDatetime(tzinfo=UTC) == T0
    assert listed.threads[1].thread.status == pb.THREAD_STATUS_BLOCKED
    assert listed.next_page_token == ""


async def create_alice_bob_and_the_orgs(stub, org: str) -> dict[str, str]:
    """One episode with one open thread each for alice, alice with the agent "bot", bob, and the
    org (no user); returns the names of the episode ids."""
    scopes = {
        "alice": scope_pb2.Scope(user_id="alice"),
        "alice+bot": scope_pb2.Scope(user_id="alice", agent_id="bot"),
        "bob": scope_pb2.Scope(user_id="bob"),
        "org": scope_pb2.Scope(),
    }
    names = {}
    for hours, (name, scope) in enumerate(scopes.items()):
        sent = episode(T0 - timedelta(hours=hours), scope=scope, open_threads=[pb.OpenThread(topic=name)])
        created = await stub.CreateEpisode(pb.CreateEpisodeRequest(episode=sent), metadata=tenant(org))
        names[created.episode.id] = name
    return names


async def test_a_context_listing_shows_the_users_and_the_orgs_episodes_never_another_users(stub) -> None:
    org = new_org()
    names = await create_alice_bob_and_the_orgs(stub, org)
    context = scope_pb2.SCOPE_MATCH_CONTEXT

    async def listed(scope: scope_pb2.Scope, match: int) -> list[str]:
        request = pb.ListEpisodesRequest(scope=scope, scope_match=match)
        return [names[e.id] for e in (await stub.ListEpisodes(request, metadata=tenant(org))).episodes]

    async def threads(scope: scope_pb2.Scope, match: int) -> list[str]:
        request = pb.ListOpenThreadsRequest(scope=scope, scope_match=match)
        return [t.thread.topic for t in (await stub.ListOpenThreads(request, metadata=tenant(org))).threads]

    for read in (listed, threads):
        assert await read(scope_pb2.Scope(user_id="alice"), context) == ["alice", "alice+bot", "org"]
        assert await read(scope_pb2.Scope(user_id="alice", agent_id="other"), context) == ["alice", "org"]
        assert await read(scope_pb2.Scope(user_id="carol"), context) == ["org"]
        assert await read(scope_pb2.Scope(), context) == ["org"]
        # The default (browse) match is unchanged.
        assert await read(scope_pb2.Scope(user_id="alice"), scope_pb2.SCOPE_MATCH_UNSPECIFIED) == ["alice", "alice+bot"]
        assert await read(scope_pb2.Scope(), scope_pb2.SCOPE_MATCH_UNSPECIFIED) == ["alice", "alice+bot", "bob", "org"]


async def test_a_page_token_only_continues_the_match_that_issued_it(stub) -> None:
    org = new_org()
    names = await create_alice_bob_and_the_orgs(stub, org)
    alice, context = scope_pb2.Scope(user_id="alice"), scope_pb2.SCOPE_MATCH_CONTEXT
    first = await stub.ListEpisodes(
        pb.ListEpisodesRequest(scope=alice, page_size=2, scope_match=context), metadata=tenant(org)
    )
    rest = await stub.ListEpisodes(
        pb.ListEpisodesRequest(scope=alice, page_size=2, page_token=first.next_page_token, scope_match=context),
        metadata=tenant(org),
    )
    threads = await stub.ListOpenThreads(
        pb.ListOpenThreadsRequest(scope=alice, page_size=1, scope_match=context), metadata=tenant(org)
    )

    assert [names[e.id] for e in [*first.episodes, *rest.episodes]] == ["alice", "alice+bot", "org"]
    for call in (
        stub.ListEpisodes(pb.ListEpisodesRequest(scope=alice, page_token=first.next_page_token), metadata=tenant(org)),
        stub.ListOpenThreads(
            pb.ListOpenThreadsRequest(scope=alice, page_token=threads.next_page_token), metadata=tenant(org)
        ),
    ):
        error = await failure(call)
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert error_info(error).metadata["field"] == "page_token"


async def test_an_unknown_scope_match_is_invalid_argument(stub) -> None:
    for call in (
        stub.ListEpisodes(pb.ListEpisodesRequest(scope_match=7), metadata=tenant(new_org())),
        stub.ListOpenThreads(pb.ListOpenThreadsRequest(scope_match=7), metadata=tenant(new_org())),
    ):
        error = await failure(call)
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert error_info(error).metadata["field"] == "scope_match"


# --------------------------------------------------------------------------- ResolveThread


async def test_a_resolved_thread_leaves_the_open_threads_and_a_replay_changes_nothing(stub) -> None:
    org = new_org()
    sent = episode(
        open_threads=[
            pb.OpenThread(topic="visa", status=pb.THREAD_STATUS_OPEN, context="Asked which visa."),
            pb.OpenThread(topic="flat", status=pb.THREAD_STATUS_BLOCKED),
        ]
    )
    created = (await stub.CreateEpisode(pb.CreateEpisodeRequest(episode=sent), metadata=tenant(org))).episode
    alice = pb.ListOpenThreadsRequest(scope=scope_pb2.Scope(user_id="alice"))
    before = await stub.ListOpenThreads(alice, metadata=tenant(org))
    assert [(t.thread.topic, t.index) for t in before.threads] == [("visa", 0), ("flat", 1)]

    request = pb.ResolveThreadRequest(episode_id=created.id, thread_index=0, resolution="The D7 visa, applied.")
    first = await stub.ResolveThread(request, metadata=tenant(org))
    replay = await stub.ResolveThread(
        pb.ResolveThreadRequest(episode_id=created.id, thread_index=0, resolution="another note"), metadata=tenant(org)
    )

    assert first.thread.thread.status == pb.THREAD_STATUS_RESOLVED
    assert (first.thread.index, first.thread.episode_id) == (0, created.id)
    assert replay == first  # idempotent: the first note is kept
    after = await stub.ListOpenThreads(alice, metadata=tenant(org))
    assert [(t.thread.topic, t.index) for t in after.threads] == [("flat", 1)]
    stored = (await stub.GetEpisode(pb.GetEpisodeRequest(id=created.id), metadata=tenant(org))).episode
    assert [(t.topic, t.status, t.resolution) for t in stored.open_threads] == [
        ("visa", pb.THREAD_STATUS_RESOLVED, "The D7 visa, applied."),
        ("flat", pb.THREAD_STATUS_BLOCKED, ""),
    ]
    assert stored.summary == created.summary


async def test_resolving_another_orgs_thread_is_not_found_and_a_bad_index_names_the_field(stub) -> None:
    org = new_org()
    sent = episode(open_threads=[pb.OpenThread(topic="visa")])
    created = (await stub.CreateEpisode(pb.CreateEpisodeRequest(episode=sent), metadata=tenant(org))).episode

    missing = await failure(
        stub.ResolveThread(pb.ResolveThreadRequest(episode_id=created.id, thread_index=0), metadata=tenant(new_org()))
    )
    assert missing.code() is grpc.StatusCode.NOT_FOUND
    for bad in (1, -1):
        error = await failure(
            stub.ResolveThread(pb.ResolveThreadRequest(episode_id=created.id, thread_index=bad), metadata=tenant(org))
        )
        assert error.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert error_info(error).metadata["field"] == "thread_index"
    still = await stub.ListOpenThreads(pb.ListOpenThreadsRequest(), metadata=tenant(org))
    assert [t.thread.topic for t in still.threads] == ["visa"]


# --------------------------------------------------------------------------- RewriteEpisode, DeleteEpisode


async def test_a_rewritten_episode_says_the_new_content_and_keeps_its_identity_times_and_scope(stub) -> None:
    org = new_org()
    sent = episode(
        key_topics=["lisbon", "visa"],
        open_threads=[pb.OpenThread(topic="Which visa fits a remote job?", status=pb.THREAD_STATUS_OPEN)],
    )
    created = (await stub.CreateEpisode(pb.CreateEpisodeRequest(episode=sent), metadata=tenant(org))).episode
    content = pb.Episode(
        conversation_id="ignored",
        scope=scope_pb2.Scope(user_id="mallory"),
        summary="Alice planned her move abroad.",
        key_topics=["move"],
        message_count=3,
        importance=0.4,
        metadata={"forgotten_by": "turn-9"},
    )

    first = await stub.RewriteEpisode(pb.RewriteEpisodeRequest(id=created.id, episode=content), metadata=tenant(org))
    replay = await stub.RewriteEpisode(pb.RewriteEpisodeRequest(id=created.id, episode=content), metadata=tenant(org))

    stored = (await stub.GetEpisode(pb.GetEpisodeRequest(id=created.id), metadata=tenant(org))).episode
    assert (stored.summary, list(stored.key_topics), list(stored.open_threads)) == (content.summary, ["move"], [])
    assert (stored.id, stored.conversation_id, stored.scope.user_id) == (created.id, created.conversation_id, "alice")
    assert (stored.started_at, stored.ended_at, stored.created_at) == (
        created.started_at,
        created.ended_at,
        created.created_at,
    )
    assert stored.metadata["forgotten_by"] == "turn-9" and stored.message_count == 3
    assert first.episode.summary == replay.episode.summary == content.summary
    found = await stub.SearchEpisodes(
        pb.SearchEpisodesRequest(scope=scope_pb2.Scope(user_id="alice"), query="Alice planned her move abroad.", k=1),
        metadata=tenant(org),
    )
    assert found.results[0].episode.id == created.id and found.results[0].similarity > 0.99  # embedded again
    threads = await stub.ListOpenThreads(
        pb.ListOpenThreadsRequest(scope=scope_pb2.Scope(user_id="alice")), metadata=tenant(org)
    )
    assert list(threads.threads) == []


async def test_rewriting_another_orgs_episode_is_not_found_and_an_empty_summary_names_the_field(stub) -> None:
    org = new_org()
    created = (await stub.CreateEpisode(pb.CreateEpisodeRequest(episode=episode()), metadata=tenant(org))).episode

    missing = await failure(
        stub.RewriteEpisode(
            pb.RewriteEpisodeRequest(id=created.id, episode=pb.Episode(summary="x")), metadata=tenant(new_org())
        )
    )
    empty = await failure(
        stub.RewriteEpisode(pb.RewriteEpisodeRequest(id=created.id, episode=pb.Episode()), metadata=tenant(org))
    )

    assert missing.code() is grpc.StatusCode.NOT_FOUND
    assert empty.code() is grpc.StatusCode.INVALID_ARGUMENT and "episode.summary" in empty.details()
    stored = (await stub.GetEpisode(pb.GetEpisodeRequest(id=created.id), metadata=tenant(org))).episode
    assert stored.summary == created.summary


async def test_a_deleted_episode_is_gone_once_and_another_orgs_is_never_touched(stub) -> None:
    org, other = new_org(), new_org()
    created = (await stub.CreateEpisode(pb.CreateEpisodeRequest(episode=episode()), metadata=tenant(org))).episode

    by_other = await stub.DeleteEpisode(pb.DeleteEpisodeRequest(id=created.id), metadata=tenant(other))
    first = await stub.DeleteEpisode(pb.DeleteEpisodeRequest(id=created.id), metadata=tenant(org))
    again = await stub.DeleteEpisode(pb.DeleteEpisodeRequest(id=created.id), metadata=tenant(org))

    assert (by_other.deleted, first.deleted, again.deleted) == (False, True, False)
    gone = await failure(stub.GetEpisode(pb.GetEpisodeRequest(id=created.id), metadata=tenant(org)))
    assert gone.code() is grpc.StatusCode.NOT_FOUND
