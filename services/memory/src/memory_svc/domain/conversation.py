"""Conversation-aware recall: the messages among Recall's best candidates that were said together
lift each other. Pure: no I/O.

A question and the turn that answers it are often two turns of one conversation, and only one of
them shares the question's words; the turns of the session where the conversation was about the
question hold most of its evidence. So Recall reads the best candidates first (the window,
``max(2k, 8)`` of them), then where every message of the ``whole_sessions`` sessions with the best
messages in the window was said (not its text: ``MemoryIndex.said_in_session``), and
each ``message`` memory of a session (``provenance.session_id``) among those gains

    lift = neighbours · max over the session's other messages known at most ``window`` places from
                        it (in the order they were said) of relevance / distance
         + session    · its session's best relevance / the best relevance of any session

plus ``speaker`` when the query names exactly one of the speakers of these messages
(``named_speaker``: "When did Noor…" names Noor) and the message is theirs; its relevance for the
final score becomes ``relevance + lift`` (a message of a session read whole that neither search
found has relevance 0: it rises only by its neighbours, its session and its speaker).
Nothing else is lifted, so Recall's pruning stays exact (every lift is known before the first
score, and an unread candidate can still reach at most ``best_possible_score``), and what is not a
message of a session (facts, episodes, messages written without a session) neither gives nor gains
a lift. A session of more than ``SESSION_READ_LIMIT`` messages is not read whole (its messages in
the window still lift each other). Measured on LoCoMo (bench/recall_lab.py, bench/locomo_recall.py,
docs/decisions.md, "Retrieval: the conversation around a hit, and who said it").
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

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
    whole_sessions: int = 1  # how many of the window's best sessions are read whole
    speaker: float = 0.2  # the messages of the one speaker the query names

    def __post_init__(self) -> None:
        require_non_negative(self, "neighbours", "session", "whole_sessions", "speaker")
        if self.window < 1:
            raise ValueError("window must be at least 1")

    @property
    def lifts_anything(self) -> bool:
        return self.neighbours > 0 or self.session > 0 or self.speaker > 0


DEFAULT_LIFT = ConversationLift()
NO_LIFT = ConversationLift(neighbours=0.0, session=0.0, speaker=0.0)
# The window is never smaller than this: a small k still sees its conversation.
WINDOW_MINIMUM = 8
# A session with more messages than this is not read whole: the read stays small whatever a session holds.
SESSION_READ_LIMIT = 100


@dataclass(frozen=True, slots=True)
class Said:
    """Where a message memory was said: its session, and its place in the order said."""

    id: str
    session_id: str
    valid_at: datetime
    created_at: datetime
    speaker: str = ""

    @property
    def order(self) -> tuple[datetime, datetime, str]:
        return (self.valid_at, self.created_at, self.id)


def said_of(item: MemoryItem) -> Said | None:
    """Where ``item`` was said, or None when it is not a message of a session."""
    if item.memory_type is not MemoryType.MESSAGE or not item.provenance.session_id:
        return None
    return Said(item.id, item.provenance.session_id, item.valid_at, item.created_at, item.provenance.speaker)


def named_speaker(query: str, said: Mapping[str, Said]) -> str:
    """The one speaker of ``said`` that ``query`` names as a whole word (any case), or "" when it
    names none or several (then nobody is lifted: the question is about them all)."""
    speakers = {place.speaker for place in said.values() if place.speaker}  # a few names, many places
    named = [name for name in speakers if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", query, re.IGNORECASE)]
    return named[0] if len(named) == 1 else ""


def sessions_to_read(relevance: Mapping[str, float], said: Mapping[str, Said], lift: ConversationLift) -> list[str]:
    """The ``lift.whole_sessions`` sessions with the most relevant messages among ``said`` (the
    window's), best first (ties by session id); none when nothing is lifted."""
    if not lift.lifts_anything:
        return []
    best: dict[str, float] = {}
    for key, place in said.items():
        best[place.session_id] = max(best.get(place.session_id, 0.0), relevance.get(key, 0.0))
    return sorted(best, key=lambda session: (-best[session], session))[: lift.whole_sessions]


def lifts(
    relevance: Mapping[str, float], said: Mapping[str, Said], lift: ConversationLift, named: str = ""
) -> dict[str, float]:
    """The lift of each message of ``said`` (the window's and those of the sessions read whole),
    given each one's ``relevance`` (absent: 0, neither search found it) and the speaker the query
    names (``named_speaker``; "" for none)."""
    sessions: dict[str, list[Said]] = defaultdict(list)
    for place in said.values():
        sessions[place.session_id].append(place)
    if not sessions or not lift.lifts_anything:
        return {}
    best = {session: max(relevance.get(place.id, 0.0) for place in told) for session, told in sessions.items()}
    top = max(best.values())
    found: dict[str, float] = {}
    for session, told in sessions.items():
        told.sort(key=lambda place: place.order)
        for place, message in enumerate(told):
            nearby = [
                relevance.get(told[other].id, 0.0) / abs(other - place)
                for other in range(max(0, place - lift.window), min(len(told), place + lift.window + 1))
                if other != place
            ]
            found[message.id] = (
                lift.neighbours * max(nearby, default=0.0)
                + (lift.session * best[session] / top if top > 0 else 0.0)
                + (lift.speaker if named and message.speaker == named else 0.0)
            )
    return found


def window_size(k: int) -> int:
    """How many of the best candidates Recall reads first, and lifts among: ``max(2k, 8)``."""
    return max(2 * k, WINDOW_MINIMUM)
