"""What both Qdrant episode adapters share: the point payload of an Episode, the filter
conditions, the payload indexes and the keyset paging over ``ended_at``.

Payload layout (one point per episode; point id = the episode's UUID; dense vector "dense"
= the embedded summary):

    id, org_id, conversation_id, user_id, agent_id, team_id ("" when unset), summary,
    key_topics[], entities_discussed[], user_state {mood, confidence, focus},
    outcomes [{type, content}], open_threads [{topic, status, context}], decisions[],
    action_items [{owner, task, deadline}], next_session_questions[], message_count,
    importance, access_count, current_salience, metadata {str: str},
    open_thread_count                      -- threads not resolved; integer-indexed
    started_at, ended_at, created_at, last_accessed_at   -- RFC 3339 UTC with microseconds

``open_thread_count`` (filtered with ``>= 1``) stands in for a ``has_open_threads`` bool:
qdrant-edge 0.9.0's ``MatchValue(True)`` never matches a bool payload, indexed or not.

Ordering, identical for both adapters: newest first by ``ended_at``, ties by id descending.
Qdrant's ``order_by`` (scroll, direction desc, on the datetime-indexed ``ended_at``; both
qdrant-edge and qdrant-client, local mode included, support it) gives the ``ended_at`` order
but neither a tie order nor an offset. So a page is built from two index-backed reads
(``scan``): the rest of the cursor's ``ended_at`` tie group (an exact ``ended_at`` match,
sorted by id here), then ``ended_at < cursor`` ordered desc with ``limit``; when that read is
full, its last ``ended_at`` group may be cut, so that group is read whole and sorted by id.
At most three reads per page, each bounded by the page size or by one tie group (episodes
ending in the same microsecond: ``MAX_TIE_GROUP``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from memory_svc.adapters.memory_payload import format_timestamp, parse_timestamp
from memory_svc.adapters.qdrant_engine import AnyCondition, Condition, DatetimeRange, FloatRange, PayloadIndex
from memory_svc.domain.episode import ActionItem, Episode, OpenThread, Outcome, ThreadStatus, UserState, open_threads_of
from memory_svc.domain.model import Scope, ScopeMatch
from memory_svc.usecases.episode_ports import EpisodeCursor, EpisodePage, ThreadCursor, ThreadPage

DENSE_VECTOR = "dense"
EPISODE_PAYLOAD_VERSION = 1
SCOPE_FIELDS = ("user_id", "agent_id", "team_id")
TIMESTAMP_FIELDS = ("started_at", "ended_at", "created_at", "last_accessed_at")
MAX_TIE_GROUP = 10_000

EPISODE_PAYLOAD_INDEXES: tuple[PayloadIndex, ...] = (
    PayloadIndex("org_id", "tenant"),
    PayloadIndex("user_id", "keyword"),
    PayloadIndex("agent_id", "keyword"),
    PayloadIndex("team_id", "keyword"),
    PayloadIndex("conversation_id", "keyword"),
    PayloadIndex("ended_at", "datetime"),
    PayloadIndex("open_thread_count", "integer"),
    PayloadIndex("current_salience", "float"),
)


# --------------------------------------------------------------------------- payload


def to_payload(episode: Episode) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": episode.id,
        "org_id": episode.org_id,
        "conversation_id": episode.conversation_id,
        "user_id": episode.scope.user_id,
        "agent_id": episode.scope.agent_id,
        "team_id": episode.scope.team_id,
        "summary": episode.summary,
        "key_topics": list(episode.key_topics),
        "entities_discussed": list(episode.entities_discussed),
        "user_state": {
            "mood": episode.user_state.mood,
            "confidence": episode.user_state.confidence,
            "focus": episode.user_state.focus,
        },
        "outcomes": [{"type": outcome.type, "content": outcome.content} for outcome in episode.outcomes],
        "open_threads": [
            {
                "topic": thread.topic,
                "status": str(thread.status),
                "context": thread.context,
                "resolution": thread.resolution,
            }
            for thread in episode.open_threads
        ],
        "decisions": list(episode.decisions),
        "action_items": [
            {"owner": action.owner, "task": action.task, "deadline": action.deadline} for action in episode.action_items
        ],
        "next_session_questions": list(episode.next_session_questions),
        "message_count": int(episode.message_count),
        "importance": float(episode.importance),
        "access_count": int(episode.access_count),
        "current_salience": float(episode.current_salience),
        "metadata": {str(key): str(value) for key, value in episode.metadata.items()},
        "open_thread_count": episode.open_thread_count,
    }
    for name in TIMESTAMP_FIELDS:
        payload[name] = format_timestamp(getattr(episode, name))
    return payload


# What recording a use or a decay run rewrites (``EpisodeIndex.update_salience``).
SALIENCE_FIELDS = ("access_count", "last_accessed_at", "current_salience")


def salience_payload(episode: Episode) -> dict[str, Any]:
    """The ``SALIENCE_FIELDS`` of ``episode``'s payload, for a partial write."""
    return {
        "access_count": int(episode.access_count),
        "last_accessed_at": format_timestamp(episode.last_accessed_at),
        "current_salience": float(episode.current_salience),
    }


def _strings(values: Any) -> tuple[str, ...]:
    return tuple(str(value) for value in values or ())


def from_payload(payload: Mapping[str, Any]) -> Episode:
    state = payload.get("user_state") or {}
    return Episode(
        id=str(payload["id"]),
        org_id=str(payload["org_id"]),
        conversation_id=str(payload["conversation_id"]),
        scope=Scope(**{name: str(payload.get(name) or "") for name in SCOPE_FIELDS}),
        summary=str(payload["summary"]),
        key_topics=_strings(payload.get("key_topics")),
        entities_discussed=_strings(payload.get("entities_discussed")),
        user_state=UserState(
            mood=str(state.get("mood") or ""),
            confidence=str(state.get("confidence") or ""),
            focus=str(state.get("focus") or ""),
        ),
        outcomes=tuple(
            Outcome(type=str(outcome.get("type") or ""), content=str(outcome.get("content") or ""))
            for outcome in payload.get("outcomes") or ()
        ),
        open_threads=tuple(
            OpenThread(
                topic=str(thread.get("topic") or ""),
                status=ThreadStatus(thread.get("status") or ThreadStatus.OPEN),
                context=str(thread.get("context") or ""),
                resolution=str(thread.get("resolution") or ""),
            )
            for thread in payload.get("open_threads") or ()
        ),
        decisions=_strings(payload.get("decisions")),
        action_items=tuple(
            ActionItem(
                owner=str(action.get("owner") or ""),
                task=str(action.get("task") or ""),
                deadline=str(action.get("deadline") or ""),
            )
            for action in payload.get("action_items") or ()
        ),
        next_session_questions=_strings(payload.get("next_session_questions")),
        message_count=int(payload.get("message_count", 0)),
        started_at=parse_timestamp(payload["started_at"]),
        ended_at=parse_timestamp(payload["ended_at"]),
        importance=float(payload["importance"]),
        created_at=parse_timestamp(payload["created_at"]),
        last_accessed_at=parse_timestamp(payload["last_accessed_at"]),
        access_count=int(payload.get("access_count", 0)),
        current_salience=float(payload.get("current_salience", 1.0)),
        metadata={str(key): str(value) for key, value in (payload.get("metadata") or {}).items()},
    )


def dense_row(vector: np.ndarray, dimension: int) -> list[float]:
    array = np.asarray(vector, dtype=np.float32).reshape(-1)
    if array.shape != (dimension,):
        raise ValueError(f"expected a vector of dimension {dimension}, got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError("vectors must be finite")
    return array.tolist()


# --------------------------------------------------------------------------- filters


# The engine-neutral conditions of qdrant_engine.py; "at least" is a FloatRange with ``gte`` alone.
EpisodeCondition = AnyCondition


def base_conditions(
    org_id: str,
    scope: Scope,
    *,
    ended_after: datetime | None = None,
    min_salience: float | None = None,
    open_threads_only: bool = False,
    scope_match: ScopeMatch = ScopeMatch.BROWSE,
) -> list[EpisodeCondition]:
    """The org always, the scope (the values each scope field may hold, ``Scope.allowed_values``;
    "" is stored for an unset id), then the optional filters. Erasure keeps the browse match."""
    if not org_id:
        raise ValueError("org_id is required on every episode index query")
    conditions: list[EpisodeCondition] = [org_match(org_id)]
    conditions += [Condition(name, values) for name, values in scope.allowed_values(scope_match).items()]
    if ended_after is not None:
        conditions.append(DatetimeRange("ended_at", gte=format_timestamp(ended_after)))
    if min_salience is not None:
        conditions.append(FloatRange("current_salience", gte=float(min_salience)))
    if open_threads_only:
        conditions.append(FloatRange("open_thread_count", gte=1))
    return conditions


def org_match(org_id: str) -> Condition:
    return Condition("org_id", (org_id,))


def ended_before(moment: datetime) -> DatetimeRange:
    return DatetimeRange("ended_at", lt=format_timestamp(moment))


def ended_exactly(moment: datetime) -> DatetimeRange:
    stamp = format_timestamp(moment)
    return DatetimeRange("ended_at", gte=stamp, lte=stamp)


# --------------------------------------------------------------------------- keyset paging

# ``older(extra, limit)``: episodes matching the base filter and ``extra`` ordered by ended_at
# desc (ties in any order), at most ``limit``; ``tied(moment)``: every episode matching the
# base filter that ended exactly at ``moment`` (any order).
Older = Callable[[list[EpisodeCondition], int], Awaitable[list[Episode]]]
Tied = Callable[[datetime], Awaitable[list[Episode]]]


def _newest_first(episodes: Sequence[Episode]) -> list[Episode]:
    return sorted(episodes, key=lambda episode: (episode.ended_at, episode.id), reverse=True)


async def scan(
    older: Older, tied: Tied, limit: int, after: tuple[datetime, str] | None = None, *, inclusive: bool = False
) -> list[Episode]:
    """Up to ``limit`` episodes in (ended_at desc, id desc) order, strictly after ``after`` (or from
    it, with ``inclusive``)."""
    if limit <= 0:
        return []
    found: list[Episode] = []
    extra: list[EpisodeCondition] = []
    if after is not None:
        moment, last_id = after
        group = await tied(moment)
        found = [
            episode for episode in _newest_first(group) if episode.id < last_id or (inclusive and episode.id == last_id)
        ][:limit]
        if len(found) == limit:
            return found
        extra = [ended_before(moment)]
    need = limit - len(found)
    rest = await older(extra, need)
    if len(rest) >= need and rest:
        # The read may have cut the last tie group anywhere: take that group whole.
        boundary = rest[-1].ended_at
        rest = [episode for episode in rest if episode.ended_at != boundary] + await tied(boundary)
    return found + _newest_first(rest)[:need]


async def episode_page(older: Older, tied: Tied, page_size: int, cursor: EpisodeCursor | None) -> EpisodePage:
    after = (cursor.ended_at, cursor.episode_id) if cursor is not None else None
    episodes = await scan(older, tied, page_size + 1, after)
    if len(episodes) <= page_size:
        return EpisodePage(episodes, None)
    last = episodes[page_size - 1]
    return EpisodePage(episodes[:page_size], EpisodeCursor(last.ended_at, last.id))


async def thread_page(older: Older, tied: Tied, page_size: int, cursor: ThreadCursor | None) -> ThreadPage:
    """Episodes with open threads (``older``/``tied`` filter ``open_thread_count >= 1``), flattened.

    Every such episode yields at least one thread, so ``page_size + 1`` episodes (plus the
    cursor's own, which may have none left) are enough to fill a page and see whether more follow.
    """
    if cursor is None:
        episodes = await scan(older, tied, page_size + 1)
    else:
        episodes = await scan(older, tied, page_size + 2, (cursor.ended_at, cursor.episode_id), inclusive=True)
    threads = []
    for episode in episodes:
        for thread in open_threads_of(episode):
            if cursor is not None and episode.id == cursor.episode_id and thread.index <= cursor.thread_index:
                continue
            threads.append(thread)
    if len(threads) <= page_size:
        return ThreadPage(threads, None)
    last = threads[page_size - 1]
    return ThreadPage(threads[:page_size], ThreadCursor(last.ended_at, last.episode_id, last.index))
