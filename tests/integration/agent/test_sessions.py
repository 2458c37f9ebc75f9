"""Sessions and the transcript on the real Postgres (schema ``agent``), through the running
agent service's gRPC API and its store: idempotent starts, ending twice, pages, append-only
turns, and one org never reaching another's sessions."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import asyncpg
import grpc
import pytest
from agent_svc.adapters.postgres_transcript import PostgresTranscript
from agent_svc.domain.transcript import Turn, turn_id_for
from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc
from lore.common.v1 import scope_pb2, turn_pb2

from tests.integration.agent.support import refused, tenant


@pytest.fixture
def stub(services) -> agent_service_pb2_grpc.AgentServiceStub:
    return agent_service_pb2_grpc.AgentServiceStub(services["agent"].channel)


@pytest.fixture
async def transcript(migrated_pg):
    pool = await asyncpg.create_pool(migrated_pg.app_dsn, min_size=1, max_size=2)
    yield PostgresTranscript(pool)
    await pool.close()


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


async def start(stub, org_id: str, user_id: str = "u-1", **fields) -> pb.Session:
    request = pb.StartSessionRequest(scope=scope_pb2.Scope(user_id=user_id), **fields)
    return (await stub.StartSession(request, metadata=tenant(org_id))).session


async def test_start_get_list_and_end_a_session(stub) -> None:
    org = new_org()
    session = await start(stub, org, metadata={"channel": "web"})
    assert session.status == pb.SESSION_STATUS_ACTIVE and session.turn_count == 0
    assert dict(session.metadata) == {"channel": "web"}

    got = (await stub.GetSession(pb.GetSessionRequest(id=session.id), metadata=tenant(org))).session
    ended = (await stub.EndSession(pb.EndSessionRequest(id=session.id), metadata=tenant(org))).session
    again = (await stub.EndSession(pb.EndSessionRequest(id=session.id), metadata=tenant(org))).session

    assert got == session
    assert ended.status == pb.SESSION_STATUS_ENDED and ended.end_reason == pb.SESSION_END_REASON_REQUESTED
    assert again == ended, "ending twice changes nothing"
    active = await stub.ListSessions(pb.ListSessionsRequest(status=pb.SESSION_STATUS_ACTIVE), metadata=tenant(org))
    assert list(active.sessions) == []


async def test_a_retried_start_returns_the_first_session(stub) -> None:
    org = new_org()
    first = await start(stub, org, request_id="start-1")
    retried = await start(stub, org, request_id="start-1")
    other = await start(stub, org, request_id="start-2")

    assert retried.id == first.id and other.id != first.id


async def test_sessions_page_newest_first_and_filter_by_scope(stub) -> None:
    org = new_org()
    ids = [(await start(stub, org, user_id="u-a")).id for _ in range(3)]
    await start(stub, org, user_id="u-b")
    request = pb.ListSessionsRequest(scope=scope_pb2.Scope(user_id="u-a"), page_size=2)

    first = await stub.ListSessions(request, metadata=tenant(org))
    request.page_token = first.next_page_token
    second = await stub.ListSessions(request, metadata=tenant(org))

    assert [s.id for s in first.sessions] + [s.id for s in second.sessions] == ids[::-1]
    assert first.next_page_token and second.next_page_token == ""
    # A token continues only its own listing: not another user's, not another org's.
    for org_id, user_id in ((org, "u-b"), (new_org(), "u-a")):
        other = pb.ListSessionsRequest(scope=scope_pb2.Scope(user_id=user_id), page_token=first.next_page_token)
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await stub.ListSessions(other, metadata=tenant(org_id))
        assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "page_token" in raised.value.details()


async def test_another_orgs_session_is_not_found_everywhere(stub) -> None:
    owner, stranger = new_org(), new_org()
    session = await start(stub, owner)

    for call in (
        stub.GetSession(pb.GetSessionRequest(id=session.id), metadata=tenant(stranger)),
        stub.EndSession(pb.EndSessionRequest(id=session.id), metadata=tenant(stranger)),
        stub.ListTurns(pb.ListTurnsRequest(session_id=session.id), metadata=tenant(stranger)),
    ):
        assert (await refused(call)).code() is grpc.StatusCode.NOT_FOUND
    listed = await stub.ListSessions(pb.ListSessionsRequest(), metadata=tenant(stranger))
    assert list(listed.sessions) == []
    still = (await stub.GetSession(pb.GetSessionRequest(id=session.id), metadata=tenant(owner))).session
    assert still.status == pb.SESSION_STATUS_ACTIVE


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda stub, t: stub.GetSession(pb.GetSessionRequest(id="nope"), metadata=t), "id"),
        (lambda stub, t: stub.ListSessions(pb.ListSessionsRequest(page_token="garbage!"), metadata=t), "page_token"),
        (lambda stub, t: stub.ListSessions(pb.ListSessionsRequest(page_size=501), metadata=t), "page_size"),
        (
            lambda stub, t: stub.StartSession(
                pb.StartSessionRequest(scope=scope_pb2.Scope(user_id="u" * 129)), metadata=t
            ),
            "scope.user_id",
        ),
    ],
)
async def test_bad_requests_name_the_field(stub, call, field) -> None:
    error = await refused(call(stub, tenant(new_org())))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT and field in error.details()


async def test_turns_append_in_order_once_per_key_and_page(stub, transcript) -> None:
    org = new_org()
    session = await start(stub, org)
    now = datetime.now(UTC)

    def turn(key: str, content: str, role: str = "user") -> Turn:
        return Turn(
            turn_id_for(session.id, key), session.id, 0, role, content, now - timedelta(minutes=5), {"k": key}, key
        )

    first = await transcript.append(org, session.id, [turn("a", "Hello"), turn("b", "Hi!", "assistant")], now)
    replayed = await transcript.append(org, session.id, [turn("b", "Hi!", "assistant"), turn("c", "Bye")], now)

    assert [t.sequence for t in first.turns] == [1, 2] and [t.sequence for t in replayed.turns] == [2, 3]
    assert (first.created, replayed.created) == (2, 1)
    page = await stub.ListTurns(pb.ListTurnsRequest(session_id=session.id, page_size=2), metadata=tenant(org))
    rest = await stub.ListTurns(
        pb.ListTurnsRequest(session_id=session.id, page_size=2, page_token=page.next_page_token), metadata=tenant(org)
    )
    turns = [*page.turns, *rest.turns]
    assert [(t.sequence, t.content, t.role) for t in turns] == [
        (1, "Hello", turn_pb2.TURN_ROLE_USER),
        (2, "Hi!", turn_pb2.TURN_ROLE_ASSISTANT),
        (3, "Bye", turn_pb2.TURN_ROLE_USER),
    ]
    assert dict(turns[0].metadata) == {"k": "a"}
    counted = (await stub.GetSession(pb.GetSessionRequest(id=session.id), metadata=tenant(org))).session
    assert counted.turn_count == 3

    await stub.EndSession(pb.EndSessionRequest(id=session.id), metadata=tenant(org))
    late = await transcript.append(org, session.id, [turn("d", "late")], now)
    assert not late.accepted and late.turns == []


async def test_a_turn_cannot_be_rewritten_even_by_the_services_role(stub, transcript, migrated_pg) -> None:
    org = new_org()
    session = await start(stub, org)
    now = datetime.now(UTC)
    await transcript.append(org, session.id, [Turn(str(uuid.uuid4()), session.id, 0, "user", "original", now)], now)
    connection = await asyncpg.connect(migrated_pg.app_dsn)
    try:
        async with connection.transaction():
            await connection.execute("SELECT set_config('lore.org_id', $1, true)", org)
            with pytest.raises(asyncpg.CheckViolationError, match="never changed"):
                await connection.execute(
                    "UPDATE agent.turns SET content = 'rewritten' WHERE session_id = $1", session.id
                )
    finally:
        await connection.close()
