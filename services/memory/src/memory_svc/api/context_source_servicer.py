"""gRPC transport of the ContextSourceService: a context's reads of the memory service in one call
(GatherContext), and what it writes back once it is made (RecordContextUse).

Each part is answered by the servicer of the RPC whose request it carries (GetWorkingMemory,
Recall, ListEpisodes, SearchEpisodes, ListOpenThreads, ListMemories; RecordAccess,
RecordEpisodeAccess, UpdateWorkingMemory): the same conversion, validation, use case and scope
rules, so a part answers exactly what its own RPC would. The parts run concurrently; each answers
or fails alone (``PartError``). A part still running ``DEADLINE_MARGIN_SECONDS`` before the call's
deadline is answered DEADLINE_EXCEEDED, so the call answers in time with what the others found.

Every read is made for a context: a part's ``scope_match`` left unset is SCOPE_MATCH_CONTEXT. The
query is embedded once per call: the episode search of the same query uses recall's vector instead
of embedding the text again. With the query cache (which runs the model once for concurrent calls
of one text) the search gets it as soon as it is embedded, recall's own embedding being the same
run; without it, once recall answers. When that fails, the search embeds the query itself.

Bad input is the caller's to fix, not a part's outage: an ``InvalidArgument`` of any part fails
the whole call, naming the field under its part (``recall.query``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

from google.protobuf import field_mask_pb2
from lore.common.v1 import scope_pb2
from lore.memory.v1 import context_source_service_pb2 as pb
from lore.memory.v1 import context_source_service_pb2_grpc, episode_service_pb2, memory_service_pb2
from lore.memory.v1 import working_memory_service_pb2 as wm_pb
from lore_embeddings import CachingEmbedder, Embedder
from lore_runtime import errors
from lore_runtime.grpc_errors import grpc_code_for
from lore_runtime.interceptors import UNSTORABLE_TEXT
from lore_runtime.stores import (
    POSTGRES_DRIVER_UNAVAILABLE,
    REDIS_DRIVER_UNAVAILABLE,
    postgres_unavailable,
    redis_unavailable,
)

from memory_svc.api.episode_servicer import EpisodeServicer
from memory_svc.api.memory_servicer import MemoryServicer
from memory_svc.api.working_memory_servicer import WorkingMemoryServicer
from memory_svc.domain.dense_query import dense_query

log = logging.getLogger(__name__)

T = TypeVar("T")

# A part still running this long before the call's deadline is answered DEADLINE_EXCEEDED: the
# call itself must answer before the deadline, with the parts that did.
DEADLINE_MARGIN_SECONDS = 0.05
# The episode search waits at most this share of its time for recall's vector.
VECTOR_WAIT = 0.5
FINGERPRINT_MASK = field_mask_pb2.FieldMask(paths=["context_fingerprint"])


class ContextSourceServicer(context_source_service_pb2_grpc.ContextSourceServiceServicer):
    def __init__(
        self,
        memories: MemoryServicer,
        episodes: EpisodeServicer,
        working_memory: WorkingMemoryServicer,
        embedder: Embedder | None = None,
    ) -> None:
        self._memories = memories
        self._episodes = episodes
        self._working_memory = working_memory
        # The recall's embedder, when it shares one model run between concurrent calls of one text.
        self._shared_runs = embedder if isinstance(embedder, CachingEmbedder) and embedder.max_entries else None

    async def GatherContext(self, request: pb.GatherContextRequest, context: Any) -> pb.GatherContextResponse:
        budget = _part_budget(context)
        parts: dict[str, Awaitable[Any]] = {}
        vector: asyncio.Future[tuple[list[float], str] | None] = asyncio.get_running_loop().create_future()
        if request.HasField("working_memory"):
            parts["working_memory"] = self._working_memory.GetWorkingMemory(request.working_memory, context)
        if request.HasField("recall"):
            early = self._embed_early(request)
            parts["recall"] = self._recall(request.recall, None if early else vector, context)
            if early:
                _resolve_with(vector, early)
        else:
            vector.set_result(None)
        if request.HasField("recent_episodes"):
            parts["recent_episodes"] = self._episodes.ListEpisodes(_for_context(request.recent_episodes), context)
        if request.HasField("episode_search"):
            shares = request.HasField("recall") and request.recall.query == request.episode_search.query
            parts["episode_search"] = self._search_episodes(
                request.episode_search, vector if shares else None, budget, context
            )
        if request.HasField("open_threads"):
            parts["open_threads"] = self._episodes.ListOpenThreads(_for_context(request.open_threads), context)
        if request.HasField("salient_facts"):
            parts["salient_facts"] = self._memories.ListMemories(_for_context(request.salient_facts), context)
        if request.HasField("user_facts"):
            parts["user_facts"] = self._memories.ListMemories(_for_context(request.user_facts), context)
        answered = await _answer_all(parts, budget)
        response = pb.GatherContextResponse()
        for name, (found, error) in answered.items():
            part = getattr(response, name)
            if error is not None:
                part.error.CopyFrom(error)
            else:
                part.response.CopyFrom(found)
        return response

    async def RecordContextUse(self, request: pb.RecordContextUseRequest, context: Any) -> pb.RecordContextUseResponse:
        budget = _part_budget(context)
        parts: dict[str, Awaitable[int]] = {}
        if request.HasField("memory_access"):
            parts["memory_access"] = _recorded(self._memories.RecordAccess(request.memory_access, context))
        if request.HasField("episode_access"):
            parts["episode_access"] = _recorded(self._episodes.RecordEpisodeAccess(request.episode_access, context))
        if request.session_id or request.context_fingerprint:
            if not request.session_id:
                raise errors.InvalidArgument("session_id", "is required with context_fingerprint")
            update = wm_pb.UpdateWorkingMemoryRequest(
                session_id=request.session_id,
                working_memory=wm_pb.WorkingMemory(context_fingerprint=request.context_fingerprint),
                update_mask=FINGERPRINT_MASK,
            )
            parts["context_fingerprint"] = _fingerprint_written(
                self._working_memory.UpdateWorkingMemory(update, context)
            )
        answered = await _answer_all(parts, budget)
        response = pb.RecordContextUseResponse()
        for name, (recorded, error) in answered.items():
            part = getattr(response, name)
            if error is not None:
                part.error.CopyFrom(error)
            else:
                part.recorded = recorded
        return response

    def _embed_early(self, request: pb.GatherContextRequest) -> asyncio.Task[tuple[list[float], str]] | None:
        """Recall's own query embedding, started at once when the episode search of the same query
        needs it: the embedder runs one model pass for concurrent calls of one text, so recall's
        embedding is this one, and the search need not wait for the rest of recall. None when the
        embedder does not share runs (then the search waits for recall's answer)."""
        wanted = (
            request.HasField("episode_search")
            and request.recall.query == request.episode_search.query
            and not request.episode_search.query_embedding
            and self._shared_runs is not None
        )
        if not wanted or self._shared_runs is None:
            return None
        embedder = self._shared_runs

        async def embed() -> tuple[list[float], str]:
            (found,) = await embedder.embed([dense_query(request.recall.query)])
            return [float(value) for value in found], embedder.model_name

        return asyncio.ensure_future(embed())

    async def _recall(
        self,
        request: memory_service_pb2.RecallRequest,
        vector: asyncio.Future[tuple[list[float], str] | None] | None,
        context: Any,
    ) -> memory_service_pb2.RecallResponse:
        """Recall; ``vector``, when given, is set to its query vector (None when it failed)."""
        asked = _for_context(request)
        asked.include_query_embedding = True  # for the episode search of the same call
        try:
            response = await self._memories.Recall(asked, context)
            if vector is not None:
                vector.set_result((list(response.query_embedding), response.embedding_model))
        finally:
            if vector is not None and not vector.done():  # recall failed: the search embeds the query itself
                vector.set_result(None)
        if not request.include_query_embedding:
            del response.query_embedding[:]
        return response

    async def _search_episodes(
        self,
        request: episode_service_pb2.SearchEpisodesRequest,
        vector: asyncio.Future[tuple[list[float], str] | None] | None,
        budget: float | None,
        context: Any,
    ) -> episode_service_pb2.SearchEpisodesResponse:
        """Waits for recall's vector at most half the part's time, then embeds the query itself."""
        asked = _for_context(request)
        if vector is not None and not asked.query_embedding:
            try:
                given = await asyncio.wait_for(asyncio.shield(vector), None if budget is None else budget * VECTOR_WAIT)
            except TimeoutError:
                given = None
            if given is not None and given[0]:
                asked.query_embedding.extend(given[0])
                asked.query_embedding_model = given[1]
        return await self._episodes.SearchEpisodes(asked, context)


def _resolve_with(
    vector: asyncio.Future[tuple[list[float], str] | None], early: asyncio.Task[tuple[list[float], str]]
) -> None:
    """``vector`` set to what ``early`` embeds, or None when it fails (the search then embeds)."""

    def done(task: asyncio.Task[tuple[list[float], str]]) -> None:
        if vector.done():
            return
        failed = task.cancelled() or task.exception() is not None
        vector.set_result(None if failed else task.result())

    early.add_done_callback(done)


def _for_context(request: T) -> T:
    """A copy of ``request`` reading for a context when it did not say how to match its scope."""
    asked = type(request)()
    asked.CopyFrom(request)
    if asked.scope_match == scope_pb2.SCOPE_MATCH_UNSPECIFIED:
        asked.scope_match = scope_pb2.SCOPE_MATCH_CONTEXT
    return asked


async def _recorded(call: Awaitable[Any]) -> int:
    return (await call).recorded


async def _fingerprint_written(call: Awaitable[Any]) -> int:
    """1 once written; bad input names the request's own fields (``session_id``, ``context_fingerprint``)."""
    try:
        await call
    except errors.InvalidArgument as error:
        raise _OwnField(error.field.removeprefix("working_memory."), error.description, reason=error.reason) from None
    return 1


class _OwnField(errors.InvalidArgument):
    """Bad input naming a field of the call's own request, not of a part's."""


def _part_budget(context: Any) -> float | None:
    """How long a part may run: the call's time left less the margin (None: no deadline)."""
    remaining = context.time_remaining() if context is not None else None
    if remaining is None:
        return None
    return max(0.0, remaining - DEADLINE_MARGIN_SECONDS)


async def _answer_all(
    parts: dict[str, Awaitable[T]], budget: float | None
) -> dict[str, tuple[T | None, pb.PartError | None]]:
    """Every part at once, each its answer or its error; the first part's bad input (in the order
    the parts were asked for) fails the whole call, naming the field under its part."""
    names = list(parts)
    outcomes = await asyncio.gather(*(_answer(name, parts[name], budget) for name in names))
    invalid = [(name, outcome) for name, outcome in zip(names, outcomes, strict=True) if isinstance(outcome, Exception)]
    if invalid:
        name, error = invalid[0]
        field = error.field if isinstance(error, _OwnField) else f"{name}.{error.field}"
        raise errors.InvalidArgument(field, error.description, reason=error.reason)
    return dict(zip(names, outcomes, strict=True))


async def _answer(
    name: str, call: Awaitable[T], budget: float | None
) -> tuple[T | None, pb.PartError | None] | errors.InvalidArgument:
    """A part's answer or its error, as the server's error interceptor would have made its status."""
    try:
        return await asyncio.wait_for(call, budget), None
    except errors.InvalidArgument as error:
        return error
    except TimeoutError:
        return None, _error(errors.DeadlineExceeded(f"{name} did not answer before the call's deadline"))
    except errors.LoreError as error:
        if isinstance(error, errors.DependencyUnavailable):
            log.warning("dependency unavailable in context part %s: %s", name, error.message)
        return None, _error(error)
    except POSTGRES_DRIVER_UNAVAILABLE as error:
        return None, _error(postgres_unavailable(error))
    except REDIS_DRIVER_UNAVAILABLE as error:
        return None, _error(redis_unavailable(error))
    except UNSTORABLE_TEXT:
        return errors.InvalidArgument("request", "text must not contain U+0000 (NUL) or characters the store refuses")
    except Exception:
        log.exception("context part %s failed", name)
        return None, pb.PartError(code=grpc_code_for(errors.LoreError("")).value[0], message="internal error")


def _error(error: errors.LoreError) -> pb.PartError:
    return pb.PartError(code=grpc_code_for(error).value[0], message=error.message, reason=error.reason)
