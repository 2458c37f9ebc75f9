"""The Memories port: FakeMemories and GrpcMemories on the memory service answer alike (what
reflection, import and thread closure rely on)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from agent_svc.adapters.grpc_memories import GrpcMemories
from agent_svc.domain.transcript import Scope, Turn
from agent_svc.usecases.memory_ports import MemoryWrite

from tests.fakes_agent import FakeMemories
from tests.integration.agent.port_contracts.conftest import ActingAs, new_org

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
SCOPE = Scope(user_id="u-1", agent_id="a-1")


@pytest.fixture
def memories(channels):
    return ActingAs(GrpcMemories(channels["memory"]), new_org()) if channels else FakeMemories()


def write(key: str, kind: str = "fact", content: str | None = None) -> MemoryWrite:
    return MemoryWrite(
        key=key, kind=kind, content=content or f"{kind} {key}", importance=0.5, valid_at=T0, turn_ids=("t-1",)
    )


async def test_remember_answers_an_id_per_item_in_order_and_a_replay_the_same_ids(memories) -> None:
    items = [write("a"), write("b", "preference"), write("c", "message")]

    ids = await memories.remember(SCOPE, "s-1", items)

    assert len(set(ids)) == 3
    assert await memories.remember(SCOPE, "s-1", items) == ids
    assert await memories.remember(SCOPE, "s-1", [items[2], items[0]]) == [ids[2], ids[0]]


async def test_index_writes_each_turn_as_its_message_memory(memories) -> None:
    turn = Turn("t-9", "s-1", 1, "user", "I moved to Lisbon.", T0, {"channel": "chat"}, "k-9", source="import")

    await memories.index(SCOPE, "s-1", [turn])
    await memories.index(SCOPE, "s-1", [turn])  # a retried import lands on the same item

    (message_id,) = await memories.remember(SCOPE, "s-1", [MemoryWrite.message(turn)])
    assert await memories.supersede([message_id]) == 0  # a message stays what was said


async def test_supersede_changes_current_facts_and_preferences_once(memories) -> None:
    fact, preference, message, commitment = await memories.remember(
        SCOPE, "s-1", [write("f"), write("p", "preference"), write("m", "message"), write("c", "commitment")]
    )
    unknown = str(uuid.uuid4())

    assert await memories.supersede([fact, fact, preference, message, commitment, unknown]) == 2
    assert await memories.supersede([fact, preference]) == 0


async def test_complete_commitments_takes_the_scopes_current_commitments_of_exactly_that_content(memories) -> None:
    other_user = Scope(user_id="u-2", agent_id="a-1")
    await memories.remember(SCOPE, "s-1", [write("c1", "commitment", "Send the report")])
    await memories.remember(SCOPE, "s-1", [write("c2", "commitment", "Send the report on Friday")])
    await memories.remember(SCOPE, "s-1", [write("f1", "fact", "Send the report")])
    await memories.remember(other_user, "s-2", [write("c3", "commitment", "Send the report")])

    assert await memories.complete_commitments(SCOPE, []) == 0
    assert await memories.complete_commitments(SCOPE, ["Send the report"]) == 1
    assert await memories.complete_commitments(SCOPE, ["Send the report"]) == 0
    assert await memories.complete_commitments(other_user, ["Send the report"]) == 1


async def test_complete_commitments_matches_as_browsing_does_ids_the_scope_leaves_empty_match_any(memories) -> None:
    on_a_team = Scope(user_id="u-1", agent_id="a-1", team_id="t-1")
    await memories.remember(on_a_team, "s-1", [write("c1", "commitment", "Book the venue")])

    assert (
        await memories.complete_commitments(Scope(user_id="u-1", agent_id="a-1", team_id="t-2"), ["Book the venue"])
        == 0
    )
    assert await memories.complete_commitments(Scope(user_id="u-1", agent_id="a-1"), ["Book the venue"]) == 1
