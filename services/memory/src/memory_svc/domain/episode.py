"""Conversation episodes (ARCHITECTURE.md §3): what a finished session was about and what it left open.

Pure: dataclasses, validation and the deterministic id; no I/O, no drivers, no protobuf.
Validation raises ``InvalidArgument`` naming the field in proto path form, under the prefix
the caller passes (``episode`` for CreateEpisode), e.g. ``episode.open_threads[2].topic``.
"""

from __future__ import annotations

import enum
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from lore_runtime.errors import InvalidArgument

from memory_svc.domain import limits
from memory_svc.domain.model import Scope

# Limits on what a client may send in one episode.
MAX_SUMMARY_CHARS = 8_000
MAX_LIST_ITEMS = 50
MAX_STRING_CHARS = 1_000
MAX_CONVERSATION_ID_CHARS = 256
MAX_REQUEST_ID_CHARS = 256
MAX_MESSAGE_COUNT = 1_000_000
DEFAULT_IMPORTANCE = 0.5

# Episode ids live in their own UUIDv5 namespace (memory ids: domain/ids.py).
EPISODE_NAMESPACE = uuid.UUID("4c3d7a52-1e8b-4f06-b1a9-2d6e0c9f8a37")


class ThreadStatus(enum.StrEnum):
    OPEN = "open"
    BLOCKED = "blocked"
    RESOLVED = "resolved"


@dataclass(frozen=True, slots=True)
class UserState:
    mood: str = ""
    confidence: str = ""
    focus: str = ""


@dataclass(frozen=True, slots=True)
class Outcome:
    type: str
    content: str


@dataclass(frozen=True, slots=True)
class OpenThread:
    topic: str
    status: ThreadStatus = ThreadStatus.OPEN
    context: str = ""
    resolution: str = ""  # how a resolved thread was resolved, when known

    @property
    def is_open(self) -> bool:
        """Open and blocked threads are still open business; resolved ones are not."""
        return self.status is not ThreadStatus.RESOLVED


@dataclass(frozen=True, slots=True)
class ActionItem:
    task: str
    owner: str = ""
    deadline: str = ""  # free text as said ("by Friday") or an ISO date


@dataclass(frozen=True, slots=True)
class EpisodeDraft:
    """An episode as a client sends it, before it has an id, an org or salience fields.

    ``started_at``/``ended_at``/``importance`` may be None: ``new_episode`` fills in the defaults
    (ended now, started when it ended, importance 0.5).
    """

    conversation_id: str
    summary: str
    scope: Scope = field(default_factory=Scope)
    key_topics: tuple[str, ...] = ()
    entities_discussed: tuple[str, ...] = ()
    user_state: UserState = UserState()
    outcomes: tuple[Outcome, ...] = ()
    open_threads: tuple[OpenThread, ...] = ()
    decisions: tuple[str, ...] = ()
    action_items: tuple[ActionItem, ...] = ()
    next_session_questions: tuple[str, ...] = ()
    message_count: int = 0
    started_at: datetime | None = None
    ended_at: datetime | None = None
    importance: float | None = None
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Episode:
    id: str
    org_id: str
    conversation_id: str
    scope: Scope
    summary: str
    key_topics: tuple[str, ...]
    entities_discussed: tuple[str, ...]
    user_state: UserState
    outcomes: tuple[Outcome, ...]
    open_threads: tuple[OpenThread, ...]
    decisions: tuple[str, ...]
    action_items: tuple[ActionItem, ...]
    next_session_questions: tuple[str, ...]
    message_count: int
    started_at: datetime
    ended_at: datetime
    importance: float
    created_at: datetime
    last_accessed_at: datetime
    access_count: int = 0
    current_salience: float = 1.0
    metadata: dict[str, str] = field(default_factory=dict)

    @property
    def open_thread_count(self) -> int:
        return sum(1 for thread in self.open_threads if thread.is_open)


@dataclass(frozen=True, slots=True)
class EpisodeThread:
    """An open (or blocked) thread together with the episode it came from.

    ``index`` is the thread's position in the episode's ``open_threads``.
    """

    episode_id: str
    conversation_id: str
    thread: OpenThread
    ended_at: datetime
    index: int


@dataclass(frozen=True, slots=True)
class ScoredEpisode:
    """A search result: the episode and the cosine of its summary vector to the query's."""

    episode: Episode
    similarity: float


def episode_id(org_id: str, conversation_id: str, request_id: str) -> str:
    """UUIDv5 of org + conversation + request: a retried extraction lands on the same episode.

    Without a request id the id is still deterministic per conversation: a later episode of the
    same conversation, also sent without one, replaces the earlier (latest summary wins).
    """
    return str(uuid.uuid5(EPISODE_NAMESPACE, "\x1f".join((org_id, conversation_id, request_id))))


def resolve_thread(episode: Episode, thread_index: int, resolution: str) -> tuple[Episode, bool]:
    """``episode`` with thread ``thread_index`` resolved, and whether anything changed.

    Idempotent: an already resolved thread is returned as it is (its first note kept). Raises
    ``InvalidArgument`` naming ``thread_index`` or ``resolution``.
    """
    if not 0 <= thread_index < len(episode.open_threads):
        raise InvalidArgument(
            "thread_index", f"must name one of the episode's {len(episode.open_threads)} threads (0-based)"
        )
    _text(resolution, "resolution")
    thread = episode.open_threads[thread_index]
    if not thread.is_open:
        return episode, False
    resolved = replace(thread, status=ThreadStatus.RESOLVED, resolution=resolution.strip())
    threads = (*episode.open_threads[:thread_index], resolved, *episode.open_threads[thread_index + 1 :])
    return replace(episode, open_threads=threads), True


def rewritten(episode: Episode, draft: EpisodeDraft) -> Episode:
    """``episode`` saying what ``draft`` says (validated): its identity, conversation, scope, times and
    uses kept, ``draft``'s metadata entries added (a key it repeats takes the new value)."""
    draft = validate_draft(replace(draft, conversation_id=episode.conversation_id, scope=episode.scope))
    return replace(
        episode,
        **draft_content(draft),
        importance=episode.importance if draft.importance is None else draft.importance,
        metadata={**episode.metadata, **draft.metadata},
    )


def thread_at(episode: Episode, thread_index: int) -> EpisodeThread:
    return EpisodeThread(
        episode.id, episode.conversation_id, episode.open_threads[thread_index], episode.ended_at, thread_index
    )


def open_threads_of(episode: Episode) -> list[EpisodeThread]:
    return [
        EpisodeThread(episode.id, episode.conversation_id, thread, episode.ended_at, position)
        for position, thread in enumerate(episode.open_threads)
        if thread.is_open
    ]


# --------------------------------------------------------------------------- validation


def _text(value: str, path: str, *, required: bool = False, max_chars: int = MAX_STRING_CHARS) -> str:
    if len(value) > max_chars:
        raise InvalidArgument(path, f"at most {max_chars} characters")
    if required and not value.strip():
        raise InvalidArgument(path, "must not be empty")
    return value


def _items(values: Sequence[object], path: str) -> None:
    if len(values) > MAX_LIST_ITEMS:
        raise InvalidArgument(path, f"at most {MAX_LIST_ITEMS} items")


def _strings(values: Sequence[str], path: str) -> tuple[str, ...]:
    _items(values, path)
    return tuple(_text(value, f"{path}[{position}]", required=True) for position, value in enumerate(values))


def _aware(moment: datetime | None, path: str) -> None:
    if moment is not None and (moment.tzinfo is None or moment.utcoffset() is None):
        raise InvalidArgument(path, "must be timezone-aware")


def validate_draft(draft: EpisodeDraft, prefix: str = "episode") -> EpisodeDraft:
    """Check every limit; returns the draft with entities canonicalised (lower case, trimmed,
    de-duplicated, as memory items' entities are). Raises InvalidArgument naming the field."""
    _text(draft.conversation_id, f"{prefix}.conversation_id", required=True, max_chars=MAX_CONVERSATION_ID_CHARS)
    if draft.conversation_id != draft.conversation_id.strip():
        raise InvalidArgument(f"{prefix}.conversation_id", "must not start or end with whitespace")
    for name in ("user_id", "agent_id", "team_id"):
        if len(getattr(draft.scope, name)) > limits.MAX_SCOPE_ID_CHARS:
            raise InvalidArgument(f"{prefix}.scope.{name}", f"at most {limits.MAX_SCOPE_ID_CHARS} characters")
    _text(draft.summary, f"{prefix}.summary", required=True, max_chars=MAX_SUMMARY_CHARS)
    _strings(draft.key_topics, f"{prefix}.key_topics")
    _strings(draft.entities_discussed, f"{prefix}.entities_discussed")
    for name in ("mood", "confidence", "focus"):
        _text(getattr(draft.user_state, name), f"{prefix}.user_state.{name}")
    _items(draft.outcomes, f"{prefix}.outcomes")
    for position, outcome in enumerate(draft.outcomes):
        _text(outcome.type, f"{prefix}.outcomes[{position}].type")
        _text(outcome.content, f"{prefix}.outcomes[{position}].content", required=True)
    _items(draft.open_threads, f"{prefix}.open_threads")
    for position, thread in enumerate(draft.open_threads):
        _text(thread.topic, f"{prefix}.open_threads[{position}].topic", required=True)
        _text(thread.context, f"{prefix}.open_threads[{position}].context")
        _text(thread.resolution, f"{prefix}.open_threads[{position}].resolution")
    _strings(draft.decisions, f"{prefix}.decisions")
    _items(draft.action_items, f"{prefix}.action_items")
    for position, action in enumerate(draft.action_items):
        _text(action.owner, f"{prefix}.action_items[{position}].owner")
        _text(action.task, f"{prefix}.action_items[{position}].task", required=True)
        _text(action.deadline, f"{prefix}.action_items[{position}].deadline")
    _strings(draft.next_session_questions, f"{prefix}.next_session_questions")
    if not 0 <= draft.message_count <= MAX_MESSAGE_COUNT:
        raise InvalidArgument(f"{prefix}.message_count", f"must be between 0 and {MAX_MESSAGE_COUNT}")
    _aware(draft.started_at, f"{prefix}.started_at")
    _aware(draft.ended_at, f"{prefix}.ended_at")
    if draft.started_at is not None and draft.ended_at is not None and draft.ended_at < draft.started_at:
        raise InvalidArgument(f"{prefix}.ended_at", "must not be earlier than started_at")
    if draft.importance is not None and not (math.isfinite(draft.importance) and 0.0 <= draft.importance <= 1.0):
        raise InvalidArgument(f"{prefix}.importance", "must be between 0 and 1")
    if len(draft.metadata) > limits.MAX_METADATA_ENTRIES:
        raise InvalidArgument(f"{prefix}.metadata", f"at most {limits.MAX_METADATA_ENTRIES} entries")
    for key, value in draft.metadata.items():
        if not key or len(key) > limits.MAX_METADATA_KEY_CHARS:
            raise InvalidArgument(
                f"{prefix}.metadata", f"keys must have 1 to {limits.MAX_METADATA_KEY_CHARS} characters"
            )
        if len(value) > limits.MAX_METADATA_VALUE_CHARS:
            raise InvalidArgument(f"{prefix}.metadata[{key}]", f"at most {limits.MAX_METADATA_VALUE_CHARS} characters")
    entities = tuple(dict.fromkeys(entity.strip().lower() for entity in draft.entities_discussed))
    return draft if entities == draft.entities_discussed else replace(draft, entities_discussed=entities)


def draft_content(draft: EpisodeDraft) -> dict[str, Any]:
    """What an episode says (from its draft), as keyword arguments of ``Episode``: the rest is bookkeeping."""
    return {
        "conversation_id": draft.conversation_id,
        "scope": draft.scope,
        "summary": draft.summary,
        "key_topics": draft.key_topics,
        "entities_discussed": draft.entities_discussed,
        "user_state": draft.user_state,
        "outcomes": draft.outcomes,
        "open_threads": draft.open_threads,
        "decisions": draft.decisions,
        "action_items": draft.action_items,
        "next_session_questions": draft.next_session_questions,
        "message_count": draft.message_count,
    }


def new_episode(org_id: str, draft: EpisodeDraft, request_id: str, now: datetime) -> Episode:
    """A validated draft as a stored episode: id, defaults, and salience fields starting at ``now``."""
    if len(request_id) > MAX_REQUEST_ID_CHARS:
        raise InvalidArgument("request_id", f"at most {MAX_REQUEST_ID_CHARS} characters")
    draft = validate_draft(draft)
    ended_at = draft.ended_at or now
    started_at = draft.started_at or ended_at
    if ended_at < started_at:
        raise InvalidArgument("episode.ended_at", "must not be earlier than started_at")
    return Episode(
        id=episode_id(org_id, draft.conversation_id, request_id),
        org_id=org_id,
        **draft_content(draft),
        started_at=started_at,
        ended_at=ended_at,
        importance=DEFAULT_IMPORTANCE if draft.importance is None else draft.importance,
        created_at=now,
        last_accessed_at=now,
        access_count=0,
        current_salience=1.0,
        metadata=dict(draft.metadata),
    )
