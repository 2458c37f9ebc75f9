"""ImportTurns on the running agent and memory services: real timestamps kept in the transcript
and as the memories' valid_at, re-imports land once, one bad turn writes nothing."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from google.protobuf import timestamp_pb2
from lore.agent.v1 import agent_service_pb2 as pb
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import memory_service_pb2

from tests.integration.agent.support import tenant

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def stamp(moment: datetime) -> timestamp_pb2.Timestamp:
    message = timestamp_pb2.Timestamp()
    message.FromDatetime(moment)
    return message


def turn(content: str, role=turn_pb2.TURN_ROLE_USER, minutes: int = 0, **fields) -> turn_pb2.Turn:
    return turn_pb2.Turn(role=role, content=content, created_at=stamp(SAID + timedelta(minutes=minutes)), **fields)


async def session_for(agent, org: str, user: str) -> str:
    request = pb.StartSessionRequest(scope=scope_pb2.Scope(user_id=user))
    return (await agent.StartSession(request, metadata=tenant(org))).session.id


async def test_imported_turns_keep_their_time_in_the_transcript_and_in_memory(agent, memories) -> None:
    org, user = f"org-{uuid.uuid4().hex[:12]}", "u-import"
    session_id = await session_for(agent, org, user)
    turns = [
        turn("Noor volunteered at the animal shelter for the first time yesterday.", metadata={"turn_ref": "D1:3"}),
        turn("That sounds like a brave step!", turn_pb2.TURN_ROLE_ASSISTANT, minutes=1),
        turn('{"weather": "sunny"}', turn_pb2.TURN_ROLE_TOOL, minutes=2),
    ]

    first = await agent.ImportTurns(pb.ImportTurnsRequest(session_id=session_id, turns=turns), metadata=tenant(org))
    again = await agent.ImportTurns(pb.ImportTurnsRequest(session_id=session_id, turns=turns), metadata=tenant(org))

    assert (first.imported, first.skipped) == (3, 0) and (again.imported, again.skipped) == (0, 3)
    listed = await agent.ListTurns(pb.ListTurnsRequest(session_id=session_id), metadata=tenant(org))
    assert [t.created_at.ToDatetime(tzinfo=UTC) for t in listed.turns] == [
        SAID + timedelta(minutes=m) for m in (0, 1, 2)
    ]
    stored = await memories.ListMemories(
        memory_service_pb2.ListMemoriesRequest(scope=scope_pb2.Scope(user_id=user)), metadata=tenant(org)
    )
    by_content = {m.content: m for m in stored.memories}
    assert set(by_content) == {turns[0].content, turns[1].content}, "tool turns stay in the transcript only"
    memory = by_content[turns[0].content]
    assert memory.memory_type == memory_service_pb2.MEMORY_TYPE_MESSAGE
    assert memory.valid_at.ToDatetime(tzinfo=UTC) == SAID and dict(memory.metadata) == {
        "turn_ref": "D1:3",
        "role": "user",
    }
    assert memory.provenance.session_id == session_id and list(memory.provenance.turn_ids) == [listed.turns[0].id]


async def test_one_bad_turn_writes_nothing(agent) -> None:
    org = f"org-{uuid.uuid4().hex[:12]}"
    session_id = await session_for(agent, org, "u")
    bad = [turn("fine"), turn("no role", turn_pb2.TURN_ROLE_UNSPECIFIED)]

    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await agent.ImportTurns(pb.ImportTurnsRequest(session_id=session_id, turns=bad), metadata=tenant(org))

    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "turns[1].role" in refused.value.details()
    listed = await agent.ListTurns(pb.ListTurnsRequest(session_id=session_id), metadata=tenant(org))
    assert list(listed.turns) == []


async def test_an_ended_session_and_a_future_turn_are_refused(agent) -> None:
    org = f"org-{uuid.uuid4().hex[:12]}"
    session_id = await session_for(agent, org, "u")
    future = turn_pb2.Turn(
        role=turn_pb2.TURN_ROLE_USER, content="tomorrow", created_at=stamp(datetime.now(UTC) + timedelta(days=1))
    )

    with pytest.raises(grpc.aio.AioRpcError) as ahead:
        await agent.ImportTurns(pb.ImportTurnsRequest(session_id=session_id, turns=[future]), metadata=tenant(org))
    await agent.EndSession(pb.EndSessionRequest(id=session_id), metadata=tenant(org))
    with pytest.raises(grpc.aio.AioRpcError) as ended:
        await agent.ImportTurns(
            pb.ImportTurnsRequest(session_id=session_id, turns=[turn("late")]), metadata=tenant(org)
        )

    assert ahead.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "turns[0].created_at" in ahead.value.details()
    assert ended.value.code() is grpc.StatusCode.FAILED_PRECONDITION


async def test_a_named_speaker_is_kept_with_the_turn_and_written_before_its_words_in_memory(agent, memories) -> None:
    org, user = f"org-{uuid.uuid4().hex[:12]}", "u-speaker"
    session_id = await session_for(agent, org, user)
    turns = [
        turn("I adopted a greyhound last week.", speaker="  Noor "),
        turn("What is the greyhound called?", turn_pb2.TURN_ROLE_ASSISTANT, minutes=1),
    ]

    await agent.ImportTurns(pb.ImportTurnsRequest(session_id=session_id, turns=turns), metadata=tenant(org))

    listed = await agent.ListTurns(pb.ListTurnsRequest(session_id=session_id), metadata=tenant(org))
    assert [(t.speaker, t.content) for t in listed.turns] == [
        ("Noor", "I adopted a greyhound last week."),
        ("", "What is the greyhound called?"),
    ]
    stored = await memories.ListMemories(
        memory_service_pb2.ListMemoriesRequest(
            scope=scope_pb2.Scope(user_id=user), memory_types=[memory_service_pb2.MEMORY_TYPE_MESSAGE]
        ),
        metadata=tenant(org),
    )
    assert sorted(m.content for m in stored.memories) == [
        "Noor: I adopted a greyhound last week.",
        "What is the greyhound called?",
    ]


@pytest.mark.parametrize("speaker", ["N" * 101, "Noor\nSmith"])
async def test_a_speaker_name_is_one_short_line(agent, speaker) -> None:
    org = f"org-{uuid.uuid4().hex[:12]}"
    session_id = await session_for(agent, org, "u")

    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await agent.ImportTurns(
            pb.ImportTurnsRequest(session_id=session_id, turns=[turn("fine"), turn("named", speaker=speaker)]),
            metadata=tenant(org),
        )

    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "turns[1].speaker" in refused.value.details()
    listed = await agent.ListTurns(pb.ListTurnsRequest(session_id=session_id), metadata=tenant(org))
    assert list(listed.turns) == []
