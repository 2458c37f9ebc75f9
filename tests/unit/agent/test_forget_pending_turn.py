"""A request pointing back ("don't remember that") at a turn reflection has not reached yet: nothing
of that turn is written, so nothing is found; the answer names the turn (reflection, which runs in
order, forgets what it learns from it), and never says nothing matched."""

from __future__ import annotations

from datetime import UTC, datetime

from agent_svc.domain.forget_requests import FORGOTTEN, NOTHING_MATCHED, forget_request
from agent_svc.domain.transcript import Scope, Turn
from agent_svc.usecases.forget import PENDING_TURN, ForgetServices, forget_in_turn
from agent_svc.usecases.forget_ports import FoundBelief, FoundMemory, Reason

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SCOPE = Scope(user_id="u-1", agent_id="aria")


class NothingWrittenYet:
    """The memory and observations services before reflection wrote anything of the session."""

    def __init__(self) -> None:
        self.searched: list[str] = []

    async def search_memories(self, scope: Scope, query: str, limit: int) -> list[FoundMemory]:
        self.searched.append(query)
        return []

    async def archive(self, memory_id: str, reason: Reason) -> bool:
        raise AssertionError("nothing was found, nothing is archived")

    async def search_beliefs(self, scope: Scope, query: str, limit: int) -> list[FoundBelief]:
        return []

    async def invalidate(self, belief_id: str, reason: Reason, request_id: str) -> bool:
        raise AssertionError("nothing was found, nothing is invalidated")

    async def summary(self, session_id: str) -> str:
        return ""

    async def rewrite_summary(self, session_id: str, summary: str) -> None:
        raise AssertionError("an empty summary is not rewritten")


def _turn(sequence: int, content: str) -> Turn:
    return Turn(f"t-{sequence}", "s-1", sequence, "user", content, T0)


async def _forget(reflected_through: int | None):
    said = _turn(1, "I live at 14 Larch Lane.")
    request = _turn(2, "Don't remember that.")
    parsed = forget_request(request.content)
    assert parsed is not None and parsed.points_back
    forgetting = NothingWrittenYet()
    outcome = await forget_in_turn(
        SCOPE, request, parsed, [said], ForgetServices(forgetting), reflected_through=reflected_through
    )
    assert forgetting.searched == [said.content]
    return outcome


async def test_a_turn_not_reflected_yet_is_named_as_forgotten():
    outcome = await _forget(reflected_through=0)
    assert outcome.status == FORGOTTEN
    assert [(item.id, item.type, item.text) for item in outcome.forgotten] == [
        ("t-1", PENDING_TURN, "I live at 14 Larch Lane.")
    ]


async def test_a_reflected_turn_with_nothing_left_matches_nothing():
    outcome = await _forget(reflected_through=1)
    assert outcome.status == NOTHING_MATCHED and not outcome.forgotten


async def test_without_a_watermark_nothing_found_matches_nothing():
    outcome = await _forget(reflected_through=None)
    assert outcome.status == NOTHING_MATCHED and not outcome.forgotten
