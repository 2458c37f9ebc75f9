"""pb2 <-> domain for the episode service, with validation that names the offending field.

Structural checks (enum values, scope) happen here; the limits are the domain's
(``domain.episode.validate_draft``), run here too so that a bad request is refused before
any use case runs, with the field in proto path form (``episode.open_threads[2].topic``).

Conventions: server-assigned fields (id, salience, access count, created_at,
last_accessed_at) are ignored on input. ``importance`` 0 means unset (the default 0.5: the
proto field has no presence). An unset ``ended_at`` is the time of the call, an unset
``started_at`` is ``ended_at``. THREAD_STATUS_UNSPECIFIED is read as open.
"""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np
from lore.memory.v1 import episode_service_pb2 as pb
from lore_embeddings import Embedder
from lore_runtime import errors
from lore_runtime.proto_time import from_timestamp, to_timestamp

from memory_svc.api.memory_convert import enum_from_pb, scope_from_pb, scope_match_from_pb, scope_to_pb
from memory_svc.domain.episode import (
    ActionItem,
    Episode,
    EpisodeDraft,
    EpisodeThread,
    OpenThread,
    Outcome,
    ScoredEpisode,
    ThreadStatus,
    UserState,
    validate_draft,
)
from memory_svc.usecases.episodes import PageRequest

_STATUS_TO_PB = {status: pb.ThreadStatus.Value(f"THREAD_STATUS_{status.name}") for status in ThreadStatus}
_STATUS_FROM_PB = {value: status for status, value in _STATUS_TO_PB.items()}
_STATUS_FROM_PB[pb.THREAD_STATUS_UNSPECIFIED] = ThreadStatus.OPEN


def thread_status_from_pb(value: int, field: str) -> ThreadStatus:
    return enum_from_pb(_STATUS_FROM_PB, value, field, pb.ThreadStatus, accepted=_STATUS_TO_PB.values())


def draft_from_pb(episode: pb.Episode, field: str = "episode") -> EpisodeDraft:
    if not math.isfinite(episode.importance) or not 0.0 <= episode.importance <= 1.0:
        raise errors.InvalidArgument(f"{field}.importance", "must be between 0 and 1")
    draft = EpisodeDraft(
        conversation_id=episode.conversation_id,
        summary=episode.summary,
        scope=scope_from_pb(episode.scope, f"{field}.scope"),
        key_topics=tuple(episode.key_topics),
        entities_discussed=tuple(episode.entities_discussed),
        user_state=UserState(
            mood=episode.user_state.mood, confidence=episode.user_state.confidence, focus=episode.user_state.focus
        ),
        outcomes=tuple(Outcome(type=outcome.type, content=outcome.content) for outcome in episode.outcomes),
        open_threads=tuple(
            OpenThread(
                topic=thread.topic,
                status=thread_status_from_pb(thread.status, f"{field}.open_threads[{position}].status"),
                context=thread.context,
                resolution=thread.resolution,
            )
            for position, thread in enumerate(episode.open_threads)
        ),
        decisions=tuple(episode.decisions),
        action_items=tuple(
            ActionItem(owner=action.owner, task=action.task, deadline=action.deadline)
            for action in episode.action_items
        ),
        next_session_questions=tuple(episode.next_session_questions),
        message_count=episode.message_count,
        started_at=from_timestamp(episode, "started_at", f"{field}.started_at"),
        ended_at=from_timestamp(episode, "ended_at", f"{field}.ended_at"),
        importance=episode.importance or None,
        metadata=dict(episode.metadata),
    )
    return validate_draft(draft, field)


def episode_to_pb(episode: Episode) -> pb.Episode:
    return pb.Episode(
        id=episode.id,
        conversation_id=episode.conversation_id,
        scope=scope_to_pb(episode.scope),
        summary=episode.summary,
        key_topics=episode.key_topics,
        entities_discussed=episode.entities_discussed,
        user_state=pb.UserState(
            mood=episode.user_state.mood, confidence=episode.user_state.confidence, focus=episode.user_state.focus
        ),
        outcomes=[pb.Outcome(type=outcome.type, content=outcome.content) for outcome in episode.outcomes],
        open_threads=[thread_to_pb(thread) for thread in episode.open_threads],
        decisions=episode.decisions,
        action_items=[
            pb.ActionItem(owner=action.owner, task=action.task, deadline=action.deadline)
            for action in episode.action_items
        ],
        next_session_questions=episode.next_session_questions,
        message_count=episode.message_count,
        started_at=to_timestamp(episode.started_at),
        ended_at=to_timestamp(episode.ended_at),
        importance=episode.importance,
        current_salience=episode.current_salience,
        access_count=episode.access_count,
        last_accessed_at=to_timestamp(episode.last_accessed_at),
        created_at=to_timestamp(episode.created_at),
        metadata=episode.metadata,
    )


def thread_to_pb(thread: OpenThread) -> pb.OpenThread:
    return pb.OpenThread(
        topic=thread.topic, status=_STATUS_TO_PB[thread.status], context=thread.context, resolution=thread.resolution
    )


def episode_thread_to_pb(thread: EpisodeThread) -> pb.EpisodeThread:
    return pb.EpisodeThread(
        episode_id=thread.episode_id,
        conversation_id=thread.conversation_id,
        thread=thread_to_pb(thread.thread),
        ended_at=to_timestamp(thread.ended_at),
        index=thread.index,
    )


def page_request_from_pb(request: pb.ListEpisodesRequest | pb.ListOpenThreadsRequest) -> PageRequest:
    """The page ListEpisodes and ListOpenThreads ask for: scope, size, token and scope match."""
    return PageRequest(
        scope_from_pb(request.scope, "scope"),
        request.page_size,
        request.page_token,
        scope_match_from_pb(request.scope_match, "scope_match"),
    )


def ended_after_from_pb(request: pb.ListEpisodesRequest) -> datetime | None:
    return from_timestamp(request, "ended_after")


def min_salience_from_pb(request: pb.ListEpisodesRequest | pb.SearchEpisodesRequest) -> float | None:
    """The caller's floor on salience now; None when the request sets none."""
    return request.min_salience if request.HasField("min_salience") else None


def scored_episode_to_pb(hit: ScoredEpisode) -> pb.ScoredEpisode:
    return pb.ScoredEpisode(episode=episode_to_pb(hit.episode), similarity=hit.similarity)


def query_vector_from_pb(request: pb.SearchEpisodesRequest, embedder: Embedder) -> np.ndarray | None:
    """The caller's query vector when it was made by this service's model; else None (embed the
    query). A vector of another model would be compared with ours as if it were one: never used."""
    given = request.query_embedding
    if not given or request.query_embedding_model != embedder.model_name:
        return None
    if len(given) != embedder.dimension or not all(math.isfinite(value) for value in given):
        raise errors.InvalidArgument("query_embedding", f"must be {embedder.dimension} finite numbers")
    return np.asarray(given, dtype=np.float32)
