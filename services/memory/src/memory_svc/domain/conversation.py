"""Conversation-aware recall: the messages among Recall's best candidates that were said together
lift each other. Pure: no I/O.

A question and the turn that answers it are often two turns of one conversation, and only one of
them shares the question's words; the turns of the session where the conversation was about the
question hold most of its evidence. So among the best candidates (the window Recall reads first,
``max(2k, 8)`` of them), each ``message`` memory of a session (``provenance.session_id``) gains

    lift = neighbours · max over the session's other messages in the window at most ``window``
                        places from it (in the order they were said) of relevance / distance
         + session    · its session's best relevance / the best relevance of any session

and its relevance for the final score becomes ``relevance + lift``. Nothing outside the window is
lifted, so Recall's pruning stays exact (an unread candidate can still reach at most
``best_possible_score``), and what is not a message of a session (facts, episodes, messages written
without a session) neither gives nor gains a lift. Measured on LoCoMo (bench/recall_lab.py,
bench/locomo_recall.py, docs/decisions.md "Retrieval (issue #23)").
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from memory_svc.domain.model import MemoryItem, MemoryType


def require_non_negative(settings: object, *names: str) -> None:
    """Each of ``names`` on ``settings`` is a finite number ≥ 0 (ranking's weights, the lift's)."""
    for name in names:
        value = getattr(settings, name)
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite non-negative number")


@dataclass(frozen=True, slots=True)
class ConversationLift:
    neighbours: float = 0.4
    window: int = 2
    session: float = 0.3

    def __post_init__(self) -> None:
        require_non_negative(self, "neighbours", "session")
        if self.window < 1:
            raise ValueError("window must be at least 1")


DEFAULT_LIFT = ConversationLift()
NO_LIFT = ConversationLift(neighbours=0.0, session=0.0)
# The window is never smaller than this: a small k still sees its conversation.
WINDOW_MINIMUM = 8


def _said_together(item: MemoryItem) -> str:
    """The session whose turns ``item`` is one of, or "" when it is not a message of a session."""
    return item.provenance.session_id if item.memory_type is MemoryType.MESSAGE else ""


def lifts(relevance: Mapping[str, float], items: Mapping[str, MemoryItem], lift: ConversationLift) -> dict[str, float]:
    """The lift of each id of ``relevance`` (the window's candidates, read into ``items``) that is a
    message of a session; the others are absent (no lift)."""
    sessions: dict[str, list[MemoryItem]] = defaultdict(list)
    for key in relevance:
        item = items.get(key)
        if item is not None and _said_together(item):
            sessions[_said_together(item)].append(item)
    if not sessions or (lift.neighbours == 0 and lift.session == 0):
        return {}
    best = {session: max(relevance[item.id] for item in said) for session, said in sessions.items()}
    top = max(best.values())
    found: dict[str, float] = {}
    for session, said in sessions.items():
        said.sort(key=lambda item: (item.valid_at, item.created_at, item.id))
        for place, item in enumerate(said):
            nearby = [
                relevance[said[other].id] / abs(other - place)
                for other in range(max(0, place - lift.window), min(len(said), place + lift.window + 1))
                if other != place
            ]
            found[item.id] = lift.neighbours * max(nearby, default=0.0) + (
                lift.session * best[session] / top if top > 0 else 0.0
            )
    return found


def window_size(k: int) -> int:
    """How many of the best candidates Recall reads first, and lifts among: ``max(2k, 8)``."""
    return max(2 * k, WINDOW_MINIMUM)
