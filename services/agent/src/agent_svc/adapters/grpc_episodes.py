"""The Episodes port on the memory service's EpisodeService.CreateEpisode (request id
``episode:<session id>``: a re-run of the extraction returns the episode it first created)."""

from __future__ import annotations

from datetime import UTC, datetime

import grpc
from lore.memory.v1 import episode_service_pb2 as pb
from lore.memory.v1 import episode_service_pb2_grpc
from lore_runtime.grpc_errors import from_rpc_error
from lore_runtime.proto_time import to_timestamp

from agent_svc.adapters.grpc_calls import rpc
from agent_svc.adapters.grpc_memories import scope_to_pb
from agent_svc.domain.extraction import EpisodeDraft
from agent_svc.domain.thread_closure import OpenThreadRef
from agent_svc.domain.transcript import Scope, Session
from agent_svc.usecases.episode_ports import StoredEpisode

TIMEOUT_S = 30.0
PAGE = 100
THREAD_STATUS = {
    "open": pb.THREAD_STATUS_OPEN,
    "blocked": pb.THREAD_STATUS_BLOCKED,
    "resolved": pb.THREAD_STATUS_RESOLVED,
}


def episode_to_pb(
    session: Session, draft: EpisodeDraft, message_count: int, started_at: datetime, ended_at: datetime
) -> pb.Episode:
    episode = content_to_pb(draft, message_count)
    episode.conversation_id = session.id
    episode.scope.CopyFrom(scope_to_pb(session.scope))
    episode.started_at.CopyFrom(to_timestamp(started_at))
    episode.ended_at.CopyFrom(to_timestamp(ended_at))
    return episode


def content_to_pb(draft: EpisodeDraft, message_count: int) -> pb.Episode:
    """What an episode says (RewriteEpisode's content; CreateEpisode adds who and when)."""
    return pb.Episode(
        summary=draft.summary,
        key_topics=list(draft.key_topics),
        entities_discussed=list(draft.entities),
        user_state=pb.UserState(
            mood=draft.user_state.mood, confidence=draft.user_state.confidence, focus=draft.user_state.focus
        ),
        outcomes=[pb.Outcome(type=outcome.type, content=outcome.content) for outcome in draft.outcomes],
        open_threads=[
            pb.OpenThread(topic=thread.topic, status=THREAD_STATUS[thread.status], context=thread.context)
            for thread in draft.open_threads
        ],
        decisions=list(draft.decisions),
        action_items=[
            pb.ActionItem(owner=item.owner, task=item.task, deadline=item.deadline) for item in draft.action_items
        ],
        next_session_questions=list(draft.next_session_questions),
        message_count=message_count,
        importance=draft.importance,
    )


class GrpcEpisodes:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._stub = episode_service_pb2_grpc.EpisodeServiceStub(channel)

    async def create(
        self, session: Session, draft: EpisodeDraft, message_count: int, started_at: datetime, ended_at: datetime
    ) -> str:
        request = pb.CreateEpisodeRequest(
            episode=episode_to_pb(session, draft, message_count, started_at, ended_at),
            request_id=f"episode:{session.id}",
        )
        response = await rpc(self._stub.CreateEpisode(request, timeout=TIMEOUT_S))
        return response.episode.id

    async def of_user(self, user_id: str, limit: int) -> list[StoredEpisode]:
        found: list[StoredEpisode] = []
        token = ""
        while len(found) < limit:
            request = pb.ListEpisodesRequest(
                scope=scope_to_pb(Scope(user_id=user_id)), page_size=min(PAGE, limit - len(found)), page_token=token
            )
            response = await rpc(self._stub.ListEpisodes(request, timeout=TIMEOUT_S))
            found += [_stored(episode) for episode in response.episodes]
            token = response.next_page_token
            if not token:
                break
        return found

    async def rewrite(self, episode_id: str, draft: EpisodeDraft, message_count: int, forgotten_by: str) -> None:
        content = content_to_pb(draft, message_count)
        content.metadata["forgotten_by"] = forgotten_by
        request = pb.RewriteEpisodeRequest(id=episode_id, episode=content)
        try:
            await self._stub.RewriteEpisode(request, timeout=TIMEOUT_S)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.NOT_FOUND:
                raise from_rpc_error(error) from None  # NOT_FOUND: erased since it was listed

    async def delete(self, episode_id: str) -> bool:
        request = pb.DeleteEpisodeRequest(id=episode_id)
        return (await rpc(self._stub.DeleteEpisode(request, timeout=TIMEOUT_S))).deleted

    async def open_threads(self, scope: Scope, limit: int) -> list[OpenThreadRef]:
        request = pb.ListOpenThreadsRequest(scope=scope_to_pb(scope), page_size=limit)
        response = await rpc(self._stub.ListOpenThreads(request, timeout=TIMEOUT_S))
        return [
            OpenThreadRef(
                found.episode_id,
                found.index,
                found.thread.topic,
                found.thread.context,
                found.ended_at.ToDatetime(tzinfo=UTC),
            )
            for found in response.threads
        ]

    async def resolve_thread(self, episode_id: str, index: int, resolution: str) -> None:
        request = pb.ResolveThreadRequest(episode_id=episode_id, thread_index=index, resolution=resolution)
        try:
            await self._stub.ResolveThread(request, timeout=TIMEOUT_S)
        except grpc.aio.AioRpcError as error:
            if error.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
                return  # erased, or rewritten with fewer threads, since it was listed: nothing to close
            raise from_rpc_error(error) from None


def _stored(episode: pb.Episode) -> StoredEpisode:
    says = [
        episode.summary,
        *episode.decisions,
        *(outcome.content for outcome in episode.outcomes),
        *(f"{thread.topic} {thread.context}" for thread in episode.open_threads),
        *(item.task for item in episode.action_items),
        *episode.next_session_questions,
    ]
    resolved = frozenset(t.topic for t in episode.open_threads if t.status == pb.THREAD_STATUS_RESOLVED)
    return StoredEpisode(episode.id, episode.conversation_id, "\n".join(says), resolved)
