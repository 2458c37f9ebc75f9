"""ProcessTurn, the per-turn loop, on fakes: the turn is durable (with its reflection job) before
anything else happens, a retry is answered from the first result, bad input writes nothing, and
every service after the transcript may be down without losing the turn. The caller's own reply (an
assistant turn) is stored and reflected the same way, with no context assembled and nothing generated."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from agent_svc.api.agent_convert import processed_to_pb
from agent_svc.domain.jobs import reflect_job
from agent_svc.domain.rules import RuleExtractor
from agent_svc.domain.transcript import Scope, ToolInteraction, TurnDraft, turn_id_for
from agent_svc.domain.turn_loop import Opaque, TurnResult
from agent_svc.usecases.process_turn import TurnServices, process_turn
from agent_svc.usecases.reflect import ReflectionServices, reflect_through
from agent_svc.usecases.sessions import end_session, start_session
from lore_runtime.errors import DeadlineExceeded, FailedPrecondition, InvalidArgument

from tests.fakes import FixedClock
from tests.fakes_agent import (
    FakeContextAssembler,
    FakeEngagement,
    FakeLanguageModel,
    FakeMemories,
    FakeObservations,
    FakeWorkingMemory,
    InMemoryTranscript,
    InMemoryTurnLoop,
)

ORG = "org-a"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class World:
    def __init__(self) -> None:
        self.transcript = InMemoryTranscript()
        self.results = InMemoryTurnLoop(self.transcript)
        self.working_memory = FakeWorkingMemory()
        self.assembler = FakeContextAssembler()
        self.clock = FixedClock(T0)
        self.model: FakeLanguageModel | None = None
        self.session_id = ""

    def services(self) -> TurnServices:
        return TurnServices(
            self.transcript, self.results, self.working_memory, self.assembler, self.clock, model=self.model
        )

    async def turn(self, content: str = "hi", key: str = "k1", **fields) -> object:
        given = TurnDraft(role=fields.pop("role", ""), content=content, idempotency_key=key, **fields)
        return await process_turn(ORG, self.session_id, given, Opaque(b"opts"), self.services())

    def stored(self) -> list:
        return self.transcript.turns_by_session[(ORG, self.session_id)]


@pytest.fixture
async def world() -> World:
    world = World()
    session = await start_session(
        ORG, Scope(user_id="u-1"), {}, "start-1", transcript=world.transcript, clock=world.clock
    )
    world.session_id = session.id
    return world


async def test_the_turn_and_its_reflect_job_are_stored_before_anything_else(world: World) -> None:
    seen_at_assembly: list[tuple[int, list]] = []
    original = world.assembler.assemble

    async def spying_assemble(session, message, options):
        seen_at_assembly.append((world.transcript.turn_count(ORG), list(world.transcript.queued)))
        return await original(session, message, options)

    world.assembler.assemble = spying_assemble  # type: ignore[method-assign]

    processed = await world.turn("  Caf\u0065\u0301 plans?\x00 ", key="k1")

    turn = processed.turn
    assert (turn.sequence, turn.role, turn.content, turn.created_at) == (1, "user", "Café plans?", T0)
    assert turn.id == turn_id_for(world.session_id, "k1") and turn.source == "live"
    job = reflect_job(ORG, world.session_id, 1)
    assert seen_at_assembly == [(1, [job])], "stored with its job before the assembler was asked"
    assert world.transcript.queued == [job]
    assert world.working_memory.appends == [(world.session_id, turn.id)]
    assert world.assembler.asked == [(world.session_id, "Café plans?", b"opts")]
    assert processed.result == TurnResult(reply="", reply_turn_id="", context=b"payload:Caf\xc3\xa9 plans?")
    assert processed.reply_turn is None and processed.replayed is False
    assert world.working_memory.released == [(world.session_id, turn.id)]
    assert not world.working_memory.held(world.session_id)


async def test_a_retry_with_the_same_key_returns_the_first_result_and_writes_nothing(world: World) -> None:
    world.model = FakeLanguageModel()
    first = await world.turn("hello", key="same")
    world.clock.advance(seconds=5)
    retried = await world.turn("hello", key="same")

    assert retried.replayed is True
    assert (retried.turn, retried.result, retried.reply_turn) == (first.turn, first.result, first.reply_turn)
    assert retried.result.reply == "You said: hello"
    assert [t.sequence for t in world.stored()] == [1, 2]
    assert world.transcript.requested == [reflect_job(ORG, world.session_id, 1), reflect_job(ORG, world.session_id, 2)]
    # The retry's lease call carries the turn again (the lease and the append are one call); working
    # memory keeps each transcript id once, so nothing changes there.
    assert world.working_memory.appends == [
        (world.session_id, first.turn.id),
        (world.session_id, first.reply_turn.id),
        (world.session_id, first.turn.id),
    ]
    kept = world.working_memory.memory(world.session_id).turns
    assert [turn.id for turn in kept] == [first.turn.id, first.reply_turn.id]
    assert len(world.assembler.asked) == 1 and len(world.model.prompts) == 1


async def test_a_retry_after_a_crash_completes_the_turn_without_storing_it_twice(world: World) -> None:
    world.assembler.error = RuntimeError("assembler bug")
    with pytest.raises(RuntimeError):
        await world.turn("hello", key="k")
    world.assembler.error = None

    retried = await world.turn("hello", key="k")

    assert retried.replayed is False and retried.result.context == b"payload:hello"
    assert [t.sequence for t in world.stored()] == [1]
    assert world.transcript.requested == [reflect_job(ORG, world.session_id, 1)]


async def test_a_retry_after_the_result_expired_is_answered_afresh_without_a_second_turn(world: World) -> None:
    world.model = FakeLanguageModel()
    first = await world.turn("hello", key="same")
    world.clock.advance(days=8)
    assert await world.results.prune_results(world.clock.now() - timedelta(days=7)) == 1

    retried = await world.turn("hello", key="same")

    assert retried.replayed is False and retried.turn == first.turn
    assert retried.result.context == first.result.context and retried.reply_turn == first.reply_turn
    assert [t.sequence for t in world.stored()] == [1, 2], "no second turn, no second reply"
    assert len(world.transcript.requested) == 2, "no second reflection"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"role": "system"}, "turn.role"),
        ({"role": "tool"}, "turn.role"),
        ({"content": " \x00\u200b "}, "turn.content"),
        ({"content": "x" * 16_001}, "turn.content"),
        ({"tool_interactions": tuple(ToolInteraction(f"tool-{i}") for i in range(9))}, "turn.tool_interactions"),
        ({"tool_interactions": (ToolInteraction("  "),)}, "turn.tool_interactions[0].tool_name"),
        ({"metadata": {f"k{i}": "v" for i in range(33)}}, "turn.metadata"),
        ({"metadata": {"k": "v" * 513}}, "turn.metadata.k"),
        ({"key": "k" * 129}, "turn.idempotency_key"),
    ],
)
async def test_bad_input_writes_nothing(world: World, fields: dict, field: str) -> None:
    content = fields.pop("content", "hi")
    key = fields.pop("key", "k1")
    with pytest.raises(InvalidArgument) as refused:
        await world.turn(content, key=key, **fields)

    assert refused.value.field == field
    assert world.stored() == [] and world.transcript.requested == []
    assert world.working_memory.calls == [] and world.assembler.calls == []


async def test_an_ended_session_takes_no_turn(world: World) -> None:
    await end_session(ORG, world.session_id, transcript=world.transcript, clock=world.clock)
    world.transcript.queued.clear()

    with pytest.raises(FailedPrecondition) as refused:
        await world.turn("hi")

    assert refused.value.reason == "SESSION_ENDED"
    assert world.stored() == [] and world.transcript.queued == [] and world.working_memory.calls == []


async def test_working_memory_down_still_stores_and_answers_with_context(world: World) -> None:
    world.working_memory.down = True

    processed = await world.turn("hello", key="k1", tool_interactions=(ToolInteraction("weather"),))

    assert [t.content for t in world.stored()] == ["hello"]
    assert world.transcript.queued == [reflect_job(ORG, world.session_id, 1)]
    assert processed.result.context == b"payload:hello"
    assert world.working_memory.appends == [] and world.working_memory.sessions == {}
    assert world.working_memory.calls == ["acquire_lease_and_append", "append_turn", "set_last_tool_result"]


async def test_assembler_down_answers_with_an_empty_context(world: World) -> None:
    world.assembler.down = True
    world.model = FakeLanguageModel("Hi!")

    processed = await world.turn("hello")

    assert processed.result == TurnResult(
        reply="Hi!", reply_turn_id=processed.reply_turn.id, context=b"", reply_status="generated"
    )
    assert world.model.prompts == [[("user", "hello")]], "no system message without a context"
    assert [t.role for t in world.stored()] == ["user", "assistant"]


async def test_with_a_model_the_reply_is_stored_as_an_assistant_turn_with_its_own_job(world: World) -> None:
    world.model = FakeLanguageModel("  Sure: here\x07 it is.  ")

    processed = await world.turn("plan my week", key="k1")

    user, reply = world.stored()
    assert reply == processed.reply_turn
    assert (reply.sequence, reply.role, reply.content) == (2, "assistant", "Sure: here it is.")
    assert reply.idempotency_key == f"reply:{user.id}"
    assert processed.result == TurnResult(
        "Sure: here it is.", reply.id, b"payload:plan my week", reply_status="generated"
    )
    assert world.model.prompts == [[("system", "context for plan my week"), ("user", "plan my week")]]
    assert world.transcript.queued == [reflect_job(ORG, world.session_id, 1), reflect_job(ORG, world.session_id, 2)]
    assert world.working_memory.appends == [(world.session_id, user.id), (world.session_id, reply.id)]


async def test_model_down_means_no_reply_but_the_turn_is_acknowledged(world: World) -> None:
    world.model = FakeLanguageModel()
    world.model.down = True

    processed = await world.turn("hello")

    assert processed.reply_turn is None
    assert processed.result == TurnResult(
        reply="", reply_turn_id="", context=b"payload:hello", reply_status="unavailable"
    )
    assert [t.role for t in world.stored()] == ["user"]
    assert world.transcript.queued == [reflect_job(ORG, world.session_id, 1)]


class SlowModel(FakeLanguageModel):
    """A model past the reply's deadline (the adapter turns its timeout into DeadlineExceeded)."""

    async def reply(self, messages: list[tuple[str, str]]) -> str:
        raise DeadlineExceeded("no answer within 8 s", reason="LANGUAGE_MODEL_TIMEOUT")


async def test_a_reply_past_its_deadline_answers_with_the_context_and_says_why(world: World) -> None:
    world.model = SlowModel()

    processed = await world.turn("hello")

    assert processed.reply_turn is None
    assert processed.result == TurnResult(
        reply="", reply_turn_id="", context=b"payload:hello", reply_status="timed_out"
    )
    assert [t.role for t in world.stored()] == ["user"]
    assert world.transcript.queued == [reflect_job(ORG, world.session_id, 1)]


async def test_a_model_saying_nothing_printable_stores_no_reply(world: World) -> None:
    world.model = FakeLanguageModel(" \x00 ")

    processed = await world.turn("hello")

    assert processed.reply_turn is None and processed.result.reply == ""
    assert processed.result.reply_status == "empty"
    assert len(world.stored()) == 1


async def test_the_lease_is_released_even_when_the_assembler_fails_unexpectedly(world: World) -> None:
    world.assembler.error = ValueError("not an outage")

    with pytest.raises(ValueError, match="not an outage"):
        await world.turn("hello", key="k1")

    turn_id = turn_id_for(world.session_id, "k1")
    assert world.working_memory.released == [(world.session_id, turn_id)]
    assert not world.working_memory.held(world.session_id)
    assert await world.results.result(ORG, turn_id) is None, "no result kept for a turn that failed"


async def test_the_last_tool_interaction_becomes_the_last_tool_result(world: World) -> None:
    tools = (
        ToolInteraction("search", intent="find flats", result={"hits": 3}),
        ToolInteraction("weather", intent="Lisbon today", result={"temp_c": 21}, summary="21°C"),
    )

    processed = await world.turn("what now?", tool_interactions=tools)

    memory = world.working_memory.memory(world.session_id)
    assert memory.last_tool_result == tools[-1]
    assert [t.id for t in memory.turns] == [processed.turn.id]
    assert processed.turn.tool_interactions == tools


async def test_turns_of_one_session_run_one_at_a_time_with_gap_free_sequences(world: World) -> None:
    processed = await asyncio.gather(*(world.turn(f"message {i}", key=f"k{i}") for i in range(5)))

    assert sorted(p.turn.sequence for p in processed) == [1, 2, 3, 4, 5]
    assert [t.sequence for t in world.stored()] == [1, 2, 3, 4, 5]
    assert len(world.working_memory.released) == 5 and not world.working_memory.held(world.session_id)


# --- the caller's own reply: an assistant turn -------------------------------------------------


async def test_an_assistant_turn_is_stored_with_its_reflect_job_and_no_context_is_assembled(world: World) -> None:
    world.model = FakeLanguageModel()  # configured, yet the caller has answered already: nothing generated
    await world.turn("Can you draft the proposal?", key="u-1")

    processed = await world.turn("I'll send you the draft by Friday.", key="a-1", role="assistant")

    reply = processed.turn
    # 1: the user's turn, 2: the model's reply to it, 3: the caller's own reply
    assert (reply.sequence, reply.role, reply.content) == (3, "assistant", "I'll send you the draft by Friday.")
    assert reply.id == turn_id_for(world.session_id, "a-1") and reply.source == "live"
    assert processed.result == TurnResult() and processed.reply_turn is None
    assert world.transcript.queued[-1] == reflect_job(ORG, world.session_id, 3)
    assert world.working_memory.appends[-1] == (world.session_id, reply.id)
    assert [message for _, message, _ in world.assembler.asked] == ["Can you draft the proposal?"]
    assert len(world.model.prompts) == 1, "only the user turn was answered by the model"
    assert [t.role for t in world.stored()] == ["user", "assistant", "assistant"]
    assert world.working_memory.released[-1] == (world.session_id, reply.id)
    response = processed_to_pb(processed)
    assert not response.HasField("context") and response.reply == "" and not response.HasField("reply_turn")


async def test_a_retried_assistant_turn_is_stored_and_reflected_once(world: World) -> None:
    first = await world.turn("I'll send you the draft by Friday.", key="a-1", role="assistant")
    world.clock.advance(seconds=5)
    retried = await world.turn("I'll send you the draft by Friday.", key="a-1", role="assistant")

    assert retried.replayed is True and (retried.turn, retried.result) == (first.turn, first.result)
    assert [t.sequence for t in world.stored()] == [1]
    assert world.transcript.requested == [reflect_job(ORG, world.session_id, 1)]
    assert [turn.id for turn in world.working_memory.memory(world.session_id).turns] == [first.turn.id]
    assert world.assembler.calls == []


async def test_an_assistant_turn_whose_first_attempt_failed_is_completed_by_its_retry(world: World) -> None:
    save_result = world.results.save_result

    async def crash(*args, **kwargs):
        raise RuntimeError("crashed before the result was kept")

    world.results.save_result = crash  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        await world.turn("Noted.", key="a-1", role="assistant")
    world.results.save_result = save_result  # type: ignore[method-assign]

    retried = await world.turn("Noted.", key="a-1", role="assistant")

    assert retried.replayed is False and retried.turn.role == "assistant"
    assert [t.sequence for t in world.stored()] == [1] and len(world.transcript.requested) == 1
    assert await world.results.result(ORG, retried.turn.id) == TurnResult()


async def test_an_assistant_turns_tool_call_becomes_the_last_tool_result(world: World) -> None:
    tool = ToolInteraction("calendar", intent="book Friday", result={"booked": True}, summary="Booked Friday 10:00.")

    await world.turn("Booked it for Friday at ten.", role="assistant", tool_interactions=(tool,))

    assert world.working_memory.memory(world.session_id).last_tool_result == tool


async def test_an_assistant_turn_is_reflected_into_the_agents_commitment(world: World) -> None:
    await world.turn("Can you draft the proposal?", key="u-1")
    processed = await world.turn("I'll send you the draft by Friday.", key="a-1", role="assistant")
    memories = FakeMemories()
    reflection = ReflectionServices(
        world.transcript,
        world.results,
        RuleExtractor(),
        memories,
        FakeObservations(),
        FakeEngagement(),
        world.working_memory,
    )

    # The job ProcessTurn queued, as the worker runs it.
    job = world.transcript.queued[-1]
    await reflect_through(ORG, world.session_id, int(job.args["through"]), reflection)

    [commitment] = [item.write for item in memories.items.values() if item.write.kind == "commitment"]
    assert commitment.content == "The assistant will send the user the draft (by Friday, 6 March 2026)."
    assert commitment.turn_ids == (processed.turn.id,) and commitment.metadata["deadline"] == "Friday (6 March 2026)"
    messages = [item.write for item in memories.items.values() if item.write.kind == "message"]
    assert [m.key for m in messages] == [f"turn:{t.id}" for t in world.stored()]
