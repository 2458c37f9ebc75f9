from datetime import timedelta

import pytest
from lore_runtime import errors
from memory_svc.domain.working_memory import (
    EmotionReading,
    PendingSlot,
    Plan,
    ToolResult,
    Turn,
    TurnRole,
    WorkingMemory,
)
from memory_svc.usecases.working_memory import (
    acquire_session_lease,
    append_turn,
    clear_working_memory,
    get_working_memory,
    release_session_lease,
    update_working_memory,
)
from memory_svc.usecases.working_memory_ports import TurnsRead

from tests.fakes import FixedClock
from tests.fakes_working_memory import InMemorySessionLeases, InMemoryWorkingMemoryStore


@pytest.fixture
def deps():
    return {"store": InMemoryWorkingMemoryStore(), "clock": FixedClock()}


def turn(content="hello", role=TurnRole.USER, **kwargs):
    return Turn(role=role, content=content, **kwargs)


async def invalid_field(call) -> str:
    with pytest.raises(errors.InvalidArgument) as raised:
        await call
    return raised.value.field


async def test_a_session_without_working_memory_reads_as_empty(deps):
    memory = await get_working_memory("org-a", "s-1", store=deps["store"])
    assert memory == WorkingMemory(session_id="s-1")


async def test_append_numbers_turns_stamps_them_and_renews_the_ttl(deps):
    await append_turn("org-a", "s-1", turn("one"), **deps, ttl=timedelta(hours=1))
    deps["clock"].advance(minutes=5)
    memory = await append_turn("org-a", "s-1", turn("two", role=TurnRole.ASSISTANT), **deps, ttl=timedelta(hours=1))
    assert [(t.sequence, t.content, t.session_id) for t in memory.recent_turns] == [
        (1, "one", "s-1"),
        (2, "two", "s-1"),
    ]
    assert all(t.id for t in memory.recent_turns) and memory.recent_turns[0].id != memory.recent_turns[1].id
    assert memory.recent_turns[1].created_at == deps["clock"].now()
    assert memory.updated_at == deps["clock"].now()
    assert memory.expires_at == deps["clock"].now() + timedelta(hours=1)


async def test_append_keeps_only_the_last_n_turns_but_counts_them_all(deps):
    for index in range(7):
        memory = await append_turn("org-a", "s-1", turn(f"t{index}"), **deps, max_turns=3)
    assert memory.turn_count == 7
    assert [t.content for t in memory.recent_turns] == ["t4", "t5", "t6"]
    assert [t.sequence for t in memory.recent_turns] == [5, 6, 7]


async def test_a_retried_turn_with_the_same_idempotency_key_lands_once(deps):
    await append_turn("org-a", "s-1", turn("one", idempotency_key="k-1"), **deps)
    memory = await append_turn("org-a", "s-1", turn("one", idempotency_key="k-1"), **deps)
    assert memory.turn_count == 1


@pytest.mark.parametrize(
    ("session_id", "value", "field"),
    [
        ("", turn(), "session_id"),
        ("x" * 129, turn(), "session_id"),
        (" s-1", turn(), "session_id"),
        ("s-1", turn(role=None), "turn.role"),
        ("s-1", turn(content="   "), "turn.content"),
        ("s-1", turn(content="x" * 16_001), "turn.content"),
        ("s-1", turn(metadata={"k": "v" * 2_000}), "turn.metadata[k]"),
        ("s-1", turn(tool_interactions=(ToolResult(tool_name=""),)), "turn.tool_interactions[0].tool_name"),
        (
            "s-1",
            turn(tool_interactions=(ToolResult(tool_name="t", result={"x": float("nan")}),)),
            "turn.tool_interactions[0].result",
        ),
    ],
)
async def test_append_refuses_bad_input_naming_the_field(deps, session_id, value, field):
    assert await invalid_field(append_turn("org-a", session_id, value, **deps)) == field
    assert await deps["store"].get("org-a", session_id) is None


async def test_content_of_exactly_the_limit_is_accepted(deps):
    memory = await append_turn("org-a", "s-1", turn("x" * 16_000), **deps)
    assert memory.turn_count == 1


async def test_a_mask_update_touches_only_the_named_fields(deps):
    await update_working_memory(
        "org-a",
        "s-1",
        WorkingMemory("s-1", summary="old", active_plan=Plan("goal", "half", "next"), context_fingerprint="f1"),
        ["summary", "active_plan", "context_fingerprint"],
        **deps,
    )
    await append_turn("org-a", "s-1", turn("one"), **deps)
    changes = WorkingMemory(
        "s-1", summary="new", active_plan=None, context_fingerprint="ignored", pending_slots=(PendingSlot("date"),)
    )
    memory = await update_working_memory("org-a", "s-1", changes, ["summary", "pending_slots"], **deps)
    assert memory.summary == "new"
    assert memory.pending_slots == (PendingSlot("date"),)
    assert memory.active_plan == Plan("goal", "half", "next")
    assert memory.context_fingerprint == "f1"
    assert memory.turn_count == 1 and [t.content for t in memory.recent_turns] == ["one"]


async def test_a_mask_can_clear_a_field(deps):
    tool = ToolResult(tool_name="flights", result={"flight": {"departure": "09:00"}}, salient_fields=("flight",))
    await update_working_memory(
        "org-a", "s-1", WorkingMemory("s-1", last_tool_result=tool), ["last_tool_result"], **deps
    )
    memory = await update_working_memory("org-a", "s-1", WorkingMemory("s-1"), ["last_tool_result"], **deps)
    assert memory.last_tool_result is None


async def test_the_emotion_trajectory_keeps_the_last_five(deps):
    readings = tuple(EmotionReading(f"e{index}", valence=0.1, intensity=0.5) for index in range(7))
    memory = await update_working_memory(
        "org-a", "s-1", WorkingMemory("s-1", emotion_trajectory=readings), ["emotion_trajectory"], **deps
    )
    assert [reading.emotion for reading in memory.emotion_trajectory] == ["e2", "e3", "e4", "e5", "e6"]


@pytest.mark.parametrize(
    ("changes", "paths", "field"),
    [
        (WorkingMemory("s-1"), [], "update_mask"),
        (WorkingMemory("s-1"), ["summary", "turn_count"], "update_mask"),
        (WorkingMemory("s-1"), ["recent_turns"], "update_mask"),
        (WorkingMemory("s-1"), ["active_plan.goal"], "update_mask"),
        (WorkingMemory("s-1", summary="x" * 16_001), ["summary"], "working_memory.summary"),
        (
            WorkingMemory("s-1", emotion_trajectory=(EmotionReading("calm", valence=2.0),)),
            ["emotion_trajectory"],
            "working_memory.emotion_trajectory[0].valence",
        ),
        (
            WorkingMemory("s-1", pending_slots=(PendingSlot(""),)),
            ["pending_slots"],
            "working_memory.pending_slots[0].name",
        ),
        (
            WorkingMemory("s-1", active_plan=Plan(goal="x" * 2_001)),
            ["active_plan"],
            "working_memory.active_plan.goal",
        ),
    ],
)
async def test_update_refuses_bad_masks_and_values_naming_the_field(deps, changes, paths, field):
    assert await invalid_field(update_working_memory("org-a", "s-1", changes, paths, **deps)) == field
    assert await deps["store"].get("org-a", "s-1") is None


async def test_fields_outside_the_mask_are_not_validated(deps):
    changes = WorkingMemory("s-1", summary="ok", context_fingerprint="x" * 10_000)
    memory = await update_working_memory("org-a", "s-1", changes, ["summary"], **deps)
    assert memory.summary == "ok" and memory.context_fingerprint == ""


async def test_clear_forgets_the_session(deps):
    await append_turn("org-a", "s-1", turn(), **deps)
    await clear_working_memory("org-a", "s-1", store=deps["store"])
    assert (await get_working_memory("org-a", "s-1", store=deps["store"])).turn_count == 0


async def test_lease_defaults_and_validation():
    leases = InMemorySessionLeases()
    lease = await acquire_session_lease("org-a", "s-1", "req-1", 0, 0, leases=leases)
    assert lease.fencing_token >= 1 and lease.holder == "req-1"
    assert await invalid_field(acquire_session_lease("org-a", "s-2", "", 0, 0, leases=leases)) == "holder"
    assert await invalid_field(acquire_session_lease("org-a", "s-2", "h", 5, 0, leases=leases)) == "ttl_ms"
    assert await invalid_field(acquire_session_lease("org-a", "s-2", "h", -1, 0, leases=leases)) == "ttl_ms"
    assert await invalid_field(acquire_session_lease("org-a", "s-2", "h", 0, -1, leases=leases)) == "wait_ms"
    assert await invalid_field(acquire_session_lease("org-a", "", "h", 0, 0, leases=leases)) == "session_id"
    assert await invalid_field(release_session_lease("org-a", "s-1", "req-1", 0, leases=leases)) == "fencing_token"
    assert await release_session_lease("org-a", "s-1", "req-1", lease.fencing_token, leases=leases)


async def test_a_busy_lease_fails_with_session_busy():
    leases = InMemorySessionLeases()
    await acquire_session_lease("org-a", "s-1", "req-1", 1_000, 0, leases=leases)
    with pytest.raises(errors.Conflict) as raised:
        await acquire_session_lease("org-a", "s-1", "req-2", 1_000, 20, leases=leases)
    assert raised.value.reason == "SESSION_BUSY"


class CountingStore(InMemoryWorkingMemoryStore):
    """Remembers how each read and append asked for the turns."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    async def get(self, org_id, session_id, *, turns=TurnsRead.ALL):
        self.asked.append(turns.value)
        return await super().get(org_id, session_id, turns=turns)

    async def append_turn(self, org_id, session_id, value, **options):
        self.asked.append(options.get("turns", TurnsRead.ALL).value)
        return await super().append_turn(org_id, session_id, value, **options)


async def test_a_read_mask_keeps_the_named_fields_and_reads_the_turns_only_as_far_as_named():
    store, clock = CountingStore(), FixedClock()
    await append_turn("org", "s", turn("hi", idempotency_key="turn:1"), store=store, clock=clock)
    await update_working_memory(
        "org", "s", WorkingMemory(session_id="s", summary="so far"), ["summary"], store=store, clock=clock
    )
    full = await get_working_memory("org", "s", store=store)
    summary = await get_working_memory("org", "s", store=store, read_mask=["summary"])
    keys = await get_working_memory("org", "s", store=store, read_mask=["recent_turns.*.idempotency_key"])
    everything = await get_working_memory("org", "s", store=store, read_mask=["recent_turns", "summary", "turn_count"])

    assert store.asked == ["all", "all", "none", "keys", "all"]
    assert summary == WorkingMemory(session_id="s", summary="so far")
    assert keys == WorkingMemory(session_id="s", recent_turns=(Turn(role=None, content="", idempotency_key="turn:1"),))
    assert everything == WorkingMemory(
        session_id="s", recent_turns=full.recent_turns, summary="so far", turn_count=full.turn_count
    )
    lean = await append_turn("org", "s", turn("again"), store=store, clock=clock, read_mask=["turn_count"])
    assert lean == WorkingMemory(session_id="s", turn_count=2) and store.asked[-1] == "none"


@pytest.mark.parametrize("path", ["turns", "recent_turns.content", "recent_turns.*.content", "update_mask", ""])
async def test_an_unreadable_path_is_invalid_argument_naming_read_mask(deps, path):
    assert await invalid_field(get_working_memory("org", "s", store=deps["store"], read_mask=[path])) == "read_mask"
    appended = append_turn("org", "s", turn(), **deps, read_mask=["summary", path])
    assert await invalid_field(appended) == "read_mask"
    assert await deps["store"].get("org", "s") is None  # the refused append wrote nothing
