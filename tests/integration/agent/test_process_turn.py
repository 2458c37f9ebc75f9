"""ProcessTurn on the running services (real Postgres, Redis, qdrant-edge, the assembler): the turn
is stored before the answer, retries get the first result, bad input writes nothing, tool results
reach working memory and the context, and the durable reflection job turns what was said into
memories, beliefs with evidence and working-memory state; ending a session yields its episode. The
caller's own reply (role assistant) is stored once per key and reflected, with no context."""

from __future__ import annotations

import uuid

import grpc
import pytest
from google.protobuf import struct_pb2
from lore.agent.v1 import agent_service_pb2 as pb
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import (
    episode_service_pb2,
    memory_service_pb2,
    working_memory_service_pb2,
)
from lore.observations.v1 import observation_service_pb2 as opb

from tests.integration.agent.support import eventually, refused, say, tenant


@pytest.fixture
def org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


async def start(agent, org: str, user: str = "u-1", agent_id: str = "aria") -> str:
    request = pb.StartSessionRequest(scope=scope_pb2.Scope(user_id=user, agent_id=agent_id))
    return (await agent.StartSession(request, metadata=tenant(org))).session.id


async def memories_of(memories, org: str, user: str, kind: int) -> list[memory_service_pb2.Memory]:
    request = memory_service_pb2.ListMemoriesRequest(scope=scope_pb2.Scope(user_id=user), memory_types=[kind])
    return list((await memories.ListMemories(request, metadata=tenant(org))).memories)


async def test_a_turn_is_stored_answered_with_context_and_reflected(agent, memories, observations, working, org):
    session_id = await start(agent, org, user="u-veg")

    done = await say(agent, org, session_id, "I'm vegetarian, by the way.")

    assert done.turn.sequence == 1 and done.turn.role == turn_pb2.TURN_ROLE_USER and done.reply == ""
    assert done.context.manifest is not None and done.context.budget_tokens > 0
    turns = await agent.ListTurns(pb.ListTurnsRequest(session_id=session_id), metadata=tenant(org))
    assert [t.content for t in turns.turns] == ["I'm vegetarian, by the way."]

    [preference] = await eventually(
        lambda: memories_of(memories, org, "u-veg", memory_service_pb2.MEMORY_TYPE_PREFERENCE)
    )
    assert "vegetarian" in preference.content.lower()
    assert list(preference.provenance.turn_ids) == [done.turn.id]
    messages = await eventually(lambda: memories_of(memories, org, "u-veg", memory_service_pb2.MEMORY_TYPE_MESSAGE))
    assert [m.content for m in messages] == ["I'm vegetarian, by the way."]

    query = opb.QueryObservationsRequest(agent_id="aria", subject_id="u-veg")

    async def beliefs():  # Observe follows Remember in the reflection of the turn
        return list((await observations.QueryObservations(query, metadata=tenant(org))).observations)

    [belief] = await eventually(beliefs)
    assert "vegetarian" in belief.summary.lower()
    history = await observations.GetObservation(opb.GetObservationRequest(id=belief.id), metadata=tenant(org))
    sources = {(e.source_type, e.source_id) for e in history.observation.evidence}
    assert (opb.SOURCE_TYPE_MESSAGE, done.turn.id) in sources
    assert (opb.SOURCE_TYPE_MEMORY_ITEM, preference.id) in sources

    async def reflected_state():  # the rolling summary is written at the end of the reflection run
        state = await working.GetWorkingMemory(
            working_memory_service_pb2.GetWorkingMemoryRequest(session_id=session_id), metadata=tenant(org)
        )
        return state.working_memory if state.working_memory.summary else None

    state = await eventually(reflected_state)
    assert [t.idempotency_key for t in state.recent_turns] == [f"turn:{done.turn.id}"]
    assert "vegetarian" in state.summary.lower()


async def test_a_retry_with_the_same_key_returns_the_first_result_and_writes_nothing(agent, org):
    session_id = await start(agent, org)

    first = await say(agent, org, session_id, "Remind me to water the plants.", idempotency_key="k-1")
    retried = await say(agent, org, session_id, "Remind me to water the plants.", idempotency_key="k-1")

    assert retried.turn == first.turn and retried.context == first.context
    session = (await agent.GetSession(pb.GetSessionRequest(id=session_id), metadata=tenant(org))).session
    assert session.turn_count == 1


async def test_bad_input_is_refused_naming_the_field_and_writes_nothing(agent, org):
    session_id = await start(agent, org)

    empty = await refused(say(agent, org, session_id, "  \x00 "))
    history = await refused(
        agent.ProcessTurn(
            pb.ProcessTurnRequest(
                session_id=session_id, turn=turn_pb2.Turn(role=turn_pb2.TURN_ROLE_SYSTEM, content="Be brief.")
            ),
            metadata=tenant(org),
        )
    )
    too_long = await refused(say(agent, org, session_id, "x" * 16_001))
    too_many_tools = await refused(
        say(agent, org, session_id, "hi", tool_interactions=[turn_pb2.ToolInteraction(tool_name="t")] * 9)
    )

    for error, field in ((empty, "turn.content"), (history, "turn.role"), (too_long, "turn.content")):
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and field in error.details(), error.details()
    assert too_many_tools.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "turn.tool_interactions" in too_many_tools.details()
    session = (await agent.GetSession(pb.GetSessionRequest(id=session_id), metadata=tenant(org))).session
    assert session.turn_count == 0


async def test_an_ended_or_foreign_session_takes_no_turn(agent, org):
    session_id = await start(agent, org)
    stranger = await refused(say(agent, f"{org}-other", session_id, "Hello"))
    await agent.EndSession(pb.EndSessionRequest(id=session_id), metadata=tenant(org))
    ended = await refused(say(agent, org, session_id, "Hello again"))

    assert stranger.code() == grpc.StatusCode.NOT_FOUND
    assert ended.code() == grpc.StatusCode.FAILED_PRECONDITION


async def test_a_tool_result_reaches_working_memory_the_context_and_long_term_memory(agent, memories, working, org):
    session_id = await start(agent, org, user="u-tool")
    result = struct_pb2.Struct()
    result.update({"flight": {"number": "TP1234", "departure": "2026-12-01T09:40"}, "raw": {"big": "x" * 200}})
    tool = turn_pb2.ToolInteraction(
        tool_name="flight_lookup",
        intent="Find the user's flight to Lisbon",
        result=result,
        summary="Flight TP1234 leaves on 1 December at 09:40.",
        salient_fields=["flight.number", "flight.departure"],
    )

    done = await say(agent, org, session_id, "When does my flight leave?", tool_interactions=[tool])

    assert done.turn.tool_interactions[0].tool_name == "flight_lookup"
    state = await working.GetWorkingMemory(
        working_memory_service_pb2.GetWorkingMemoryRequest(session_id=session_id), metadata=tenant(org)
    )
    assert state.working_memory.last_tool_result.summary == tool.summary
    assert "TP1234" in done.context.text and '"big"' not in done.context.text, "cited, never dumped"
    [remembered] = await eventually(
        lambda: memories_of(memories, org, "u-tool", memory_service_pb2.MEMORY_TYPE_TOOL_INTERACTION)
    )
    assert remembered.content.startswith("flight_lookup:") and "TP1234" in remembered.content


async def test_ending_a_session_yields_an_episode_with_its_open_threads(agent, episodes, org):
    session_id = await start(agent, org, user="u-ep")
    for line in (
        "We decided to go with Postgres for the billing service.",
        "I'll send the migration plan on Friday.",
        "Can you find out whether our Postgres version supports logical replication?",
    ):
        await say(agent, org, session_id, line)

    await agent.EndSession(pb.EndSessionRequest(id=session_id), metadata=tenant(org))

    async def episode():
        listed = await episodes.ListEpisodes(
            episode_service_pb2.ListEpisodesRequest(scope=scope_pb2.Scope(user_id="u-ep")), metadata=tenant(org)
        )
        return list(listed.episodes)

    [found] = await eventually(episode)
    assert found.conversation_id == session_id and found.message_count == 3
    assert any("postgres" in decision.lower() for decision in found.decisions)
    assert any("migration plan" in item.task.lower() for item in found.action_items)
    assert any(
        "replication" in thread.topic.lower() or "replication" in thread.context.lower()
        for thread in found.open_threads
    )


async def test_the_callers_assistant_reply_is_stored_once_and_reflected_into_a_commitment(
    agent, memories, working, org
):
    session_id = await start(agent, org, user="u-draft")
    asked = await say(agent, org, session_id, "Can you draft the proposal for me?", idempotency_key="u-1")
    reply = turn_pb2.Turn(
        role=turn_pb2.TURN_ROLE_ASSISTANT, content="I'll send you the draft by Friday.", idempotency_key="a-1"
    )
    request = pb.ProcessTurnRequest(session_id=session_id, turn=reply)

    done = await agent.ProcessTurn(request, metadata=tenant(org))
    replayed = await agent.ProcessTurn(request, metadata=tenant(org))

    assert done.turn.role == turn_pb2.TURN_ROLE_ASSISTANT and done.turn.sequence == 2
    assert not done.HasField("context") and done.reply == "" and not done.HasField("reply_turn")
    assert replayed == done
    session = (await agent.GetSession(pb.GetSessionRequest(id=session_id), metadata=tenant(org))).session
    assert session.turn_count == 2
    [commitment] = await eventually(
        lambda: memories_of(memories, org, "u-draft", memory_service_pb2.MEMORY_TYPE_COMMITMENT)
    )
    assert "the assistant will send the user the draft" in commitment.content.lower()
    assert "friday" in commitment.content.lower() and list(commitment.provenance.turn_ids) == [done.turn.id]

    async def both_messages():  # the reply's reflection ran: its message memory is written
        found = await memories_of(memories, org, "u-draft", memory_service_pb2.MEMORY_TYPE_MESSAGE)
        return found if len(found) == 2 else None

    messages = await eventually(both_messages)
    assert sorted(m.content for m in messages) == ["Can you draft the proposal for me?", reply.content]
    state = await working.GetWorkingMemory(
        working_memory_service_pb2.GetWorkingMemoryRequest(session_id=session_id), metadata=tenant(org)
    )
    assert [t.idempotency_key for t in state.working_memory.recent_turns] == [
        f"turn:{asked.turn.id}",
        f"turn:{done.turn.id}",
    ]
