"""The SubjectEraser port: FakeSubjectEraser and GrpcSubjectEraser on the memory and observations
services answer alike (what the erasure job relies on: the subject's memories found by every id it
sets, forgotten with their count, the rest kept). The memories are written on each side as the
agent writes them: GrpcMemories on the service, the fake's ``memories`` by hand."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from agent_svc.adapters.grpc_erasure import GrpcSubjectEraser
from agent_svc.adapters.grpc_memories import GrpcMemories
from agent_svc.domain.transcript import Scope
from agent_svc.usecases.memory_ports import MemoryWrite
from lore_runtime.errors import Conflict

from tests.fakes_agent import FakeSubjectEraser, memory_id_for
from tests.integration.agent.port_contracts.conftest import ActingAs, new_org

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
SAM = Scope(user_id="sam", agent_id="aria")
SAM_ON_A_TEAM = Scope(user_id="sam", agent_id="aria", team_id="ops")
SAM_WITH_ANOTHER_AGENT = Scope(user_id="sam", agent_id="bo")
KIM = Scope(user_id="kim", agent_id="aria")


class Side:
    def __init__(self, channels) -> None:
        if channels:
            org = new_org()
            self.eraser = ActingAs(GrpcSubjectEraser(channels["memory"], channels["observations"]), org)
            self._memories = ActingAs(GrpcMemories(channels["memory"]), org)
        else:
            self.eraser = FakeSubjectEraser()
            self._memories = None

    async def remember(self, scope: Scope, key: str) -> str:
        if self._memories is None:
            return self.eraser.write_memory(scope, memory_id_for(key))
        write = MemoryWrite(key, "fact", f"A fact {key}.", 0.5, T0, ("t-1",))
        (memory_id,) = await self._memories.remember(scope, "s-1", [write])
        return memory_id


@pytest.fixture
def side(channels) -> Side:
    return Side(channels)


async def test_the_subjects_memories_are_those_of_every_id_it_sets(side) -> None:
    sams = [await side.remember(scope, key) for scope, key in ((SAM, "a"), (SAM_ON_A_TEAM, "b"))]
    with_bo = await side.remember(SAM_WITH_ANOTHER_AGENT, "c")
    await side.remember(KIM, "d")

    assert sorted(await side.eraser.memory_ids(Scope(user_id="sam"))) == sorted([*sams, with_bo])
    assert sorted(await side.eraser.memory_ids(SAM)) == sorted(sams)


async def test_forgetting_the_subject_counts_its_memories_and_keeps_the_rest(side) -> None:
    for scope, key in ((SAM, "a"), (SAM_ON_A_TEAM, "b"), (SAM_WITH_ANOTHER_AGENT, "c")):
        await side.remember(scope, key)
    kims = await side.remember(KIM, "d")

    forgotten = await side.eraser.forget_memories(Scope(user_id="sam"), [], "erasure:1")

    assert forgotten["memories"] == 3 and forgotten["working_memories"] == 0
    assert await side.eraser.memory_ids(Scope(user_id="sam")) == []
    assert await side.eraser.memory_ids(KIM) == [kims]
    replayed = await side.eraser.forget_memories(Scope(user_id="sam"), [], "erasure:1")
    assert replayed["memories"] == 0


async def test_each_session_named_counts_its_working_memory_cleared(side) -> None:
    forgotten = await side.eraser.forget_memories(Scope(user_id="sam"), ["s-1", "s-2"], "erasure:1")

    assert forgotten == {"memories": 0, "episodes": 0, "access_records": 0, "working_memories": 2}


async def test_erasing_a_subject_no_belief_cites_erases_nothing(side) -> None:
    erased = await side.eraser.erase_observations("entity", "sam", ["t-1", "t-2"], "erasure:1", user_id="sam")

    assert erased.counts == {
        "observations": 0,
        "evidence": 0,
        "observations_recomputed": 0,
        "hypotheses": 0,
        "hypothesis_evidence": 0,
        "findings": 0,
        "unknowns": 0,
    }
    assert erased.shared_ids == ()


async def test_a_fenced_subjects_memories_are_refused_until_the_fence_lifts(side) -> None:
    await side.eraser.fence(Scope(user_id="sam"), "e-1")
    await side.eraser.fence(Scope(user_id="sam"), "e-1")  # a re-run fences again: nothing changes

    for scope, key in ((SAM, "a"), (SAM_WITH_ANOTHER_AGENT, "b")):
        with pytest.raises(Conflict) as refused:
            await side.remember(scope, key)
        assert refused.value.reason == "SUBJECT_ERASING"
    kims = await side.remember(KIM, "c")
    assert await side.eraser.memory_ids(Scope(user_id="sam")) == []

    await side.eraser.lift_fence("e-1")
    await side.eraser.lift_fence("e-1")
    sams = await side.remember(SAM, "a")
    assert await side.eraser.memory_ids(Scope(user_id="sam")) == [sams]
    assert await side.eraser.memory_ids(KIM) == [kims]
