"""gRPC transport of the episode service: requests in, use cases called, responses out.

The tenant always comes from ``request_context.current()``; errors are domain errors that the
server's interceptor maps to ``google.rpc.Status`` (no ``set_code`` here).
"""

from __future__ import annotations

from lore.memory.v1 import episode_service_pb2, episode_service_pb2_grpc
from lore_embeddings import Embedder
from lore_runtime import errors, request_context
from lore_runtime.clock import Clock
from lore_runtime.page_tokens import PageTokens

from memory_svc.api import episode_convert, import_convert
from memory_svc.api.memory_convert import access_from_pb, scope_from_pb, scope_match_from_pb
from memory_svc.domain.salience import DEFAULT_HALF_LIFE_DAYS
from memory_svc.usecases import episode_salience, episode_search, episodes, org_transfer
from memory_svc.usecases.episode_ports import EpisodeIndex
from memory_svc.usecases.manage_memories import validate_ids
from memory_svc.usecases.memory_ports import AccessLog


class EpisodeServicer(episode_service_pb2_grpc.EpisodeServiceServicer):
    """Conversation episodes in Qdrant; their uses in the access log (Postgres)."""

    def __init__(
        self,
        index: EpisodeIndex,
        embedder: Embedder,
        clock: Clock,
        page_tokens: PageTokens,
        *,
        access_log: AccessLog | None = None,
        half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
    ) -> None:
        self._index = index
        self._page_tokens = page_tokens
        self._embedder = embedder
        self._clock = clock
        # RecordEpisodeAccess logs uses beside memories'; without a log it answers UNIMPLEMENTED.
        self._access_log = access_log
        # The episodes' salience half-life (LORE_HALF_LIFE_DAYS' `episode` entry, else 30 days).
        self._half_life_days = half_life_days

    async def CreateEpisode(
        self, request: episode_service_pb2.CreateEpisodeRequest, context
    ) -> episode_service_pb2.CreateEpisodeResponse:
        caller = request_context.current()
        draft = episode_convert.draft_from_pb(request.episode, "episode")
        episode = await episodes.create_episode(
            caller.org_id,
            draft,
            request.request_id,
            index=self._index,
            embedder=self._embedder,
            clock=self._clock,
            half_life_days=self._half_life_days,
        )
        return episode_service_pb2.CreateEpisodeResponse(episode=episode_convert.episode_to_pb(episode))

    async def GetEpisode(
        self, request: episode_service_pb2.GetEpisodeRequest, context
    ) -> episode_service_pb2.GetEpisodeResponse:
        caller = request_context.current()
        episode = await episodes.get_episode(
            caller.org_id, request.id, index=self._index, clock=self._clock, half_life_days=self._half_life_days
        )
        return episode_service_pb2.GetEpisodeResponse(episode=episode_convert.episode_to_pb(episode))

    async def ListEpisodes(
        self, request: episode_service_pb2.ListEpisodesRequest, context
    ) -> episode_service_pb2.ListEpisodesResponse:
        caller = request_context.current()
        listed = await episodes.list_episodes(
            caller.org_id,
            episode_convert.page_request_from_pb(request),
            index=self._index,
            tokens=self._page_tokens,
            clock=self._clock,
            ended_after=episode_convert.ended_after_from_pb(request),
            min_salience=episode_convert.min_salience_from_pb(request),
            half_life_days=self._half_life_days,
        )
        return episode_service_pb2.ListEpisodesResponse(
            episodes=[episode_convert.episode_to_pb(episode) for episode in listed.episodes],
            next_page_token=listed.next_page_token,
        )

    async def ListOpenThreads(
        self, request: episode_service_pb2.ListOpenThreadsRequest, context
    ) -> episode_service_pb2.ListOpenThreadsResponse:
        caller = request_context.current()
        listed = await episodes.list_open_threads(
            caller.org_id, episode_convert.page_request_from_pb(request), index=self._index, tokens=self._page_tokens
        )
        return episode_service_pb2.ListOpenThreadsResponse(
            threads=[episode_convert.episode_thread_to_pb(thread) for thread in listed.threads],
            next_page_token=listed.next_page_token,
        )

    async def ResolveThread(
        self, request: episode_service_pb2.ResolveThreadRequest, context
    ) -> episode_service_pb2.ResolveThreadResponse:
        caller = request_context.current()
        thread = await episodes.resolve_episode_thread(
            caller.org_id,
            request.episode_id,
            request.thread_index,
            request.resolution,
            index=self._index,
            embedder=self._embedder,
        )
        return episode_service_pb2.ResolveThreadResponse(thread=episode_convert.episode_thread_to_pb(thread))

    async def RewriteEpisode(
        self, request: episode_service_pb2.RewriteEpisodeRequest, context
    ) -> episode_service_pb2.RewriteEpisodeResponse:
        caller = request_context.current()
        content = episode_service_pb2.Episode()
        content.CopyFrom(request.episode)
        content.conversation_id = content.conversation_id or "rewritten"  # the stored one is kept
        episode = await episodes.rewrite_episode(
            caller.org_id,
            request.id,
            episode_convert.draft_from_pb(content, "episode"),
            index=self._index,
            embedder=self._embedder,
            clock=self._clock,
            half_life_days=self._half_life_days,
        )
        return episode_service_pb2.RewriteEpisodeResponse(episode=episode_convert.episode_to_pb(episode))

    async def DeleteEpisode(
        self, request: episode_service_pb2.DeleteEpisodeRequest, context
    ) -> episode_service_pb2.DeleteEpisodeResponse:
        caller = request_context.current()
        deleted = await episodes.delete_episode(caller.org_id, request.id, index=self._index)
        return episode_service_pb2.DeleteEpisodeResponse(deleted=deleted)

    async def ExportEpisodes(self, request: episode_service_pb2.ExportEpisodesRequest, context):
        caller = request_context.current()
        async for page in org_transfer.export_episodes(caller.org_id, request.page_size, index=self._index):
            yield episode_service_pb2.ExportEpisodesResponse(
                episodes=[episode_convert.episode_to_pb(episode) for episode in page]
            )

    async def ImportEpisodes(
        self, request: episode_service_pb2.ImportEpisodesRequest, context
    ) -> episode_service_pb2.ImportEpisodesResponse:
        caller = request_context.current()
        batch = import_convert.episodes_from_pb(request, caller.org_id)
        report = await org_transfer.import_episodes(caller.org_id, batch, index=self._index, embedder=self._embedder)
        return episode_service_pb2.ImportEpisodesResponse(imported=report.imported, skipped=report.skipped)

    async def SearchEpisodes(
        self, request: episode_service_pb2.SearchEpisodesRequest, context
    ) -> episode_service_pb2.SearchEpisodesResponse:
        caller = request_context.current()
        results = await episode_search.search_episodes(
            caller.org_id,
            request.query,
            scope_from_pb(request.scope, "scope"),
            request.k,
            index=self._index,
            embedder=self._embedder,
            clock=self._clock,
            vector=episode_convert.query_vector_from_pb(request, self._embedder),
            min_salience=episode_convert.min_salience_from_pb(request),
            scope_match=scope_match_from_pb(request.scope_match, "scope_match"),
            half_life_days=self._half_life_days,
        )
        return episode_service_pb2.SearchEpisodesResponse(
            results=[episode_convert.scored_episode_to_pb(hit) for hit in results]
        )

    async def RecordEpisodeAccess(
        self, request: episode_service_pb2.RecordEpisodeAccessRequest, context
    ) -> episode_service_pb2.RecordEpisodeAccessResponse:
        caller = request_context.current()
        if self._access_log is None:
            raise errors.Unimplemented("this memory service was built without an access log")
        access = access_from_pb(request, caller)
        recorded = await episode_salience.record_episode_access(
            caller.org_id,
            validate_ids(list(request.episode_ids), "episode_ids"),
            access,
            index=self._index,
            access_log=self._access_log,
            clock=self._clock,
            half_life_days=self._half_life_days,
        )
        return episode_service_pb2.RecordEpisodeAccessResponse(recorded=recorded)
