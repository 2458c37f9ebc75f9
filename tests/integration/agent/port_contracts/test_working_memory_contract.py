"""The WorkingMemory port: FakeWorkingMemory and GrpcWorkingMemory on the memory service answer
alike (what the turn loop and reflection rely on: one turn at a time per session, a turn kept once
however often it is appended, reflection's updates merged). What the port writes is read back on
each side as the memory service shows it: the fake's ``memory(session)``, GetWorkingMemory."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from agent_svc.adapters.grpc_working_memory import GrpcWorkingMemory
from agent_svc.domain.extraction import Plan
from agent_svc.domain.transcript import ToolInteraction, Turn
from agent_svc.usecases.turn_loop_ports import EmotionPoint
from lore.memory.v1 import working_memory_service_pb2 as pb
from lore.memory.v1 import working_memory_service_pb2_grpc
from lore_runtime import request_context

from tests.fakes_agent import FakeWorkingMemory
from tests.integration.agent.port_contracts.conftest import ActingAs, new_org
from tests.polling import holds_for

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Seen:
    """Working memory as the service shows it, in the port's terms."""

    turns: tuple[str, ...]  # contents, oldest first
    summary: str
    plan_goal: str
    emotion_turns: tuple[str, ...]  # the readings' turn ids, oldest first
    last_tool: str


class Side:
    def __init__(self, channels) -> None:
        if channels:
            self.port = ActingAs(GrpcWorkingMemory(channels["memory"]), new_org())
            self._stub = working_memory_service_pb2_grpc.WorkingMemoryServiceStub(channels["memory"])
        else:
            self.port = FakeWorkingMemory()

    async def seen(self, session_id: str) -> Seen:
        if isinstance(self.port, FakeWorkingMemory):
            memory = self.port.memory(session_id)
            return Seen(
                tuple(turn.content for turn in memory.turns),
                memory.summary,
                memory.plan.goal if memory.plan else "",
                tuple(point.turn_id for point in memory.emotions),
                memory.last_tool_result.tool_name if memory.last_tool_result else "",
            )
        with request_context.bound(request_context.RequestContext(self.port.org_id, "tester")):
            found = await self._stub.GetWorkingMemory(pb.GetWorkingMemoryRequest(session_id=session_id))
        memory = found.working_memory
        return Seen(
            tuple(turn.content for turn in memory.recent_turns),
            memory.summary,
            memory.active_plan.goal,
            tuple(reading.turn_id for reading in memory.emotion_trajectory),
            memory.last_tool_result.tool_name,
        )


@pytest.fixture
def side(channels) -> Side:
    return Side(channels)


def turn(session_id: str, n: int) -> Turn:
    return Turn(str(uuid.uuid4()), session_id, n, "user", f"message {n}", T0 + timedelta(seconds=n))


def mood(turn_id: str, label: str = "calm") -> EmotionPoint:
    return EmotionPoint(label, 0.2, 0.5, turn_id, T0)


async def test_a_turn_is_kept_once_however_often_it_is_appended(side) -> None:
    session = str(uuid.uuid4())
    first, second = turn(session, 1), turn(session, 2)
    token = await side.port.acquire_lease(session, "h-1")

    for appended in (first, first, second, first):
        await side.port.append_turn(session, appended, token)
    await side.port.release_lease(session, "h-1")

    assert (await side.seen(session)).turns == ("message 1", "message 2")


async def test_a_lease_waits_for_the_one_before_it_and_its_token_is_greater(side) -> None:
    session = str(uuid.uuid4())
    first = await side.port.acquire_lease(session, "h-1")
    waiting = asyncio.ensure_future(side.port.acquire_lease(session, "h-2"))
    await holds_for(lambda: not waiting.done(), 0.3, "h-2 waiting while h-1 holds the lease")
    assert not waiting.done()

    await side.port.release_lease(session, "h-1")
    second = await asyncio.wait_for(waiting, 5)
    await side.port.release_lease(session, "h-2")

    assert first is not None and second is not None and second > first


async def test_reflection_replaces_summary_and_plan_and_keeps_the_last_five_readings_once_each(side) -> None:
    session = str(uuid.uuid4())
    await side.port.reflect(session, "First summary.", Plan("Move to Lisbon"), [mood("t-1"), mood("t-2")])
    await side.port.reflect(
        session, "Second summary.", None, [mood("t-2", "glad"), *(mood(f"t-{n}") for n in range(3, 7))]
    )

    seen = await side.seen(session)
    assert (seen.summary, seen.plan_goal) == ("Second summary.", "Move to Lisbon")
    assert seen.emotion_turns == ("t-2", "t-3", "t-4", "t-5", "t-6")


async def test_the_last_tool_result_is_the_latest_one_set(side) -> None:
    session = str(uuid.uuid4())
    for name in ("weather", "calendar"):
        await side.port.set_last_tool_result(session, ToolInteraction(name, "look up", {"ok": True}, f"{name} done"))

    assert (await side.seen(session)).last_tool == "calendar"


async def test_the_lease_call_appends_the_turn_once_it_holds_the_lease_and_waits_for_the_one_before(side) -> None:
    session = str(uuid.uuid4())
    first = await side.port.acquire_lease_and_append(session, "h-1", turn(session, 1))
    waiting = asyncio.ensure_future(side.port.acquire_lease_and_append(session, "h-2", turn(session, 2)))
    await holds_for(lambda: not waiting.done(), 0.3, "h-2 waiting while h-1 holds the lease")
    assert not waiting.done()
    assert (await side.seen(session)).turns == ("message 1",), "not appended before its lease"

    await side.port.release_lease(session, "h-1")
    second = await asyncio.wait_for(waiting, 5)
    await side.port.release_lease(session, "h-2")

    assert first is not None and second is not None and second > first
    assert (await side.seen(session)).turns == ("message 1", "message 2")


async def test_a_turn_taken_with_its_lease_is_kept_once_and_its_token_fences_later_appends(side) -> None:
    session = str(uuid.uuid4())
    first = turn(session, 1)
    token = await side.port.acquire_lease_and_append(session, "h-1", first)
    await side.port.append_turn(session, first, token)  # as a retry whose first attempt got this far
    await side.port.append_turn(session, turn(session, 2), token)
    await side.port.release_lease(session, "h-1")
    again = await side.port.acquire_lease_and_append(session, "h-1", first)  # a retry of the whole turn
    await side.port.release_lease(session, "h-1")

    assert again is not None and token is not None and again > token
    assert (await side.seen(session)).turns == ("message 1", "message 2")
