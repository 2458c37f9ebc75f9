"""The context sources over gRPC: the memory service (working memory, recall, episodes, open
threads, facts, access: gathered in one call, ContextSourceService) and the observations service
(beliefs, engagement).

Each call carries its own deadline (``timeout``); the caller's tenant travels in metadata by the
channel's interceptor. A downstream failure is re-raised as the ``LoreError`` it stands for;
the fan-out reports it as SOURCE_UNAVAILABLE.

Every read is made *for a context*: memories, episodes and open threads are asked for with
``SCOPE_MATCH_CONTEXT``, beliefs with the context's agent, user and team (SearchObservations
always applies the context rule; QueryObservations is asked to). The services enforce the rule;
the records that carry their scope (memories, episodes, beliefs) are checked again here with the
same rule (``Scope.shows``), so a service that does not honour it — an older replica during a
rolling upgrade — can cost a context an item, never show it another user's. A dropped record is
logged: it means a service is wrong.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

import grpc
from google.protobuf import field_mask_pb2, json_format, timestamp_pb2
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import (
    context_source_service_pb2,
    context_source_service_pb2_grpc,
    episode_service_pb2,
    episode_service_pb2_grpc,
    memory_service_pb2,
    memory_service_pb2_grpc,
    working_memory_service_pb2,
    working_memory_service_pb2_grpc,
)
from lore.observations.v1 import (
    engagement_service_pb2,
    engagement_service_pb2_grpc,
    observation_service_pb2,
    observation_service_pb2_grpc,
)
from lore_runtime.errors import DependencyUnavailable, LoreError
from lore_runtime.grpc_errors import error_for_code, from_rpc_error

from assembler_svc.domain.gathered import (
    Belief,
    EngagementDigest,
    EpisodeDigest,
    Finding,
    Hypothesis,
    QueryVector,
    Recalled,
    RecalledMemory,
    Scope,
    SessionState,
    ThreadDigest,
    Unknown,
)
from assembler_svc.domain.memory_reads import (
    ContextUse,
    EpisodeSearchRead,
    EpisodesRead,
    ListRead,
    MemoryGathered,
    MemoryReads,
    RecallRead,
)
from assembler_svc.domain.profile import Learnt
from assembler_svc.domain.tool_results import ToolResult
from assembler_svc.usecases.memory_gather import gather_each, record_each

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")
CONTEXT = scope_pb2.SCOPE_MATCH_CONTEXT
# What "salient facts" means for priming: what was learned, not the raw transcript.
FACT_TYPES = (
    memory_service_pb2.MEMORY_TYPE_FACT,
    memory_service_pb2.MEMORY_TYPE_PREFERENCE,
    memory_service_pb2.MEMORY_TYPE_COMMITMENT,
    memory_service_pb2.MEMORY_TYPE_DECISION,
    memory_service_pb2.MEMORY_TYPE_INSIGHT,
    memory_service_pb2.MEMORY_TYPE_SKILL,
    memory_service_pb2.MEMORY_TYPE_OPINION,
)
# What a user profile is made of, of the memories: what was learnt about the user.
PROFILE_TYPES = (memory_service_pb2.MEMORY_TYPE_FACT, memory_service_pb2.MEMORY_TYPE_PREFERENCE)
CURRENT_MEMORY = (memory_service_pb2.MEMORY_STATUS_ACTIVE, memory_service_pb2.MEMORY_STATUS_WARM)


async def _call(call: Awaitable[T]) -> T:
    try:
        return await call
    except grpc.aio.AioRpcError as error:
        raise from_rpc_error(error) from None


def _scope(scope: Scope) -> scope_pb2.Scope:
    return scope_pb2.Scope(user_id=scope.user_id, agent_id=scope.agent_id, team_id=scope.team_id)


def _scope_of(scope: scope_pb2.Scope) -> Scope:
    return Scope(user_id=scope.user_id, agent_id=scope.agent_id, team_id=scope.team_id)


def shown_in_context(context: Scope, records: Iterable[R], scope_of: Callable[[R], Scope | None], what: str) -> list[R]:
    """The records a context for ``context`` may show (``None`` from ``scope_of``: never shown)."""
    kept, dropped = [], 0
    for record in records:
        owner = scope_of(record)
        if owner is not None and context.shows(owner):
            kept.append(record)
        else:
            dropped += 1
    if dropped:
        log.warning(
            "dropped %d %s outside the context's scope: the service did not apply the context match", dropped, what
        )
    return kept


def observation_scope(observation: observation_service_pb2.Observation) -> Scope | None:
    if observation.unattributed:
        return None  # recorded before beliefs had a scope: never in a context
    return Scope(user_id=observation.scope.user_id, agent_id=observation.agent_id, team_id=observation.scope.team_id)


def _time(message: timestamp_pb2.Timestamp, present: bool = True) -> datetime | None:
    if not present or (message.seconds == 0 and message.nanos == 0):
        return None
    return message.ToDatetime(tzinfo=UTC)


def _send_vector(
    request: episode_service_pb2.SearchEpisodesRequest | observation_service_pb2.SearchObservationsRequest,
    vector: QueryVector | None,
) -> None:
    """The caller's embedding of the query, when it has one, for the service to reuse (it does only
    when its own model made it) instead of embedding the query again."""
    if vector is not None:
        request.query_embedding.extend(vector.values)
        request.query_embedding_model = vector.model


def _enum_name(enum_type, value: int, prefix: str) -> str:
    return enum_type.Name(value).removeprefix(prefix).lower()


# What ``session_state`` reads of the working memory: of the recent turns only their keys (their
# contents are neither converted nor sent).
SESSION_READ = field_mask_pb2.FieldMask(
    paths=[
        "summary",
        "active_plan",
        "pending_slots",
        "emotion_trajectory",
        "last_tool_result",
        "context_fingerprint",
        "recent_turns.*.id",
        "recent_turns.*.idempotency_key",
    ]
)


class GrpcMemorySources:
    """The memory service's sources. ``gather`` and ``record_use`` are one call each
    (ContextSourceService); a service that answers them UNIMPLEMENTED (an older replica during a
    rolling upgrade) is asked one RPC per part instead, with the same requests."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._memories = memory_service_pb2_grpc.MemoryServiceStub(channel)
        self._episodes = episode_service_pb2_grpc.EpisodeServiceStub(channel)
        self._working = working_memory_service_pb2_grpc.WorkingMemoryServiceStub(channel)
        self._context = context_source_service_pb2_grpc.ContextSourceServiceStub(channel)

    async def gather(self, reads: MemoryReads, *, timeout: float) -> MemoryGathered:
        request = gather_request(reads)
        started = time.monotonic()
        try:
            response = await self._context.GatherContext(request, timeout=timeout)
        except grpc.aio.AioRpcError as error:
            if error.code() is grpc.StatusCode.UNIMPLEMENTED:
                log.info("the memory service does not gather a context in one call: one call per source")
                left = max(0.001, timeout - (time.monotonic() - started))
                return await gather_each(self, reads, timeout=left)
            failure = from_rpc_error(error)
            return MemoryGathered(failures=dict.fromkeys(reads.asked(), failure))
        return gathered(reads, response)

    async def record_use(self, use: ContextUse, *, timeout: float) -> None:
        if not use.writes_anything():
            return
        request = context_source_service_pb2.RecordContextUseRequest()
        if use.memory_ids:
            request.memory_access.CopyFrom(_access_request(use))
        if use.episode_ids:
            request.episode_access.CopyFrom(
                episode_service_pb2.RecordEpisodeAccessRequest(
                    episode_ids=use.episode_ids, session_id=use.session_id, reason=use.reason
                )
            )
        if use.fingerprint is not None:
            request.session_id = use.session_id
            request.context_fingerprint = use.fingerprint
        started = time.monotonic()
        try:
            response = await self._context.RecordContextUse(request, timeout=timeout)
        except grpc.aio.AioRpcError as error:
            if error.code() is grpc.StatusCode.UNIMPLEMENTED:
                return await record_each(self, use, timeout=max(0.001, timeout - (time.monotonic() - started)))
            raise from_rpc_error(error) from None
        failed = [
            f"{name}: {part_failure(getattr(response, name).error)}"
            for name in ("memory_access", "episode_access", "context_fingerprint")
            if response.HasField(name) and getattr(response, name).WhichOneof("outcome") == "error"
        ]
        if failed:
            raise DependencyUnavailable("; ".join(failed), reason="UNAVAILABLE")

    async def working_memory(self, session_id: str, *, timeout: float) -> SessionState:
        request = _working_memory_request(session_id)
        found = (await _call(self._working.GetWorkingMemory(request, timeout=timeout))).working_memory
        return session_state(found)

    async def recall(
        self, query: str, scope: Scope, k: int, session_id: str, *, with_vectors: bool, timeout: float
    ) -> Recalled:
        read = RecallRead(query, scope, k, session_id, with_vectors)
        response = await _call(self._memories.Recall(_recall_request(read), timeout=timeout))
        return recalled(response, scope)

    async def recent_episodes(
        self, scope: Scope, limit: int, min_salience: float, *, timeout: float
    ) -> list[EpisodeDigest]:
        request = _episodes_request(EpisodesRead(scope, limit, min_salience))
        response = await _call(self._episodes.ListEpisodes(request, timeout=timeout))
        return listed_episodes(response, scope)

    async def search_episodes(
        self,
        query: str,
        scope: Scope,
        k: int,
        min_salience: float,
        *,
        query_vector: QueryVector | None = None,
        timeout: float,
    ) -> list[EpisodeDigest]:
        request = _episode_search_request(EpisodeSearchRead(query, scope, k, min_salience))
        _send_vector(request, query_vector)
        response = await _call(self._episodes.SearchEpisodes(request, timeout=timeout))
        return searched_episodes(response, scope)

    async def record_episode_access(
        self, episode_ids: Sequence[str], session_id: str, reason: str, *, timeout: float
    ) -> None:
        request = episode_service_pb2.RecordEpisodeAccessRequest(
            episode_ids=list(episode_ids), session_id=session_id, reason=reason
        )
        await _call(self._episodes.RecordEpisodeAccess(request, timeout=timeout))

    async def open_threads(self, scope: Scope, limit: int, *, timeout: float) -> list[ThreadDigest]:
        request = _threads_request(ListRead(scope, limit))
        return open_threads(await _call(self._episodes.ListOpenThreads(request, timeout=timeout)))

    async def salient_facts(self, scope: Scope, limit: int, *, timeout: float) -> list[RecalledMemory]:
        request = _facts_request(ListRead(scope, limit), FACT_TYPES)
        return salient_facts(await _call(self._memories.ListMemories(request, timeout=timeout)), scope)

    async def user_facts(self, scope: Scope, limit: int, *, timeout: float) -> list[Learnt]:
        request = _facts_request(ListRead(scope, limit), PROFILE_TYPES)
        return user_facts(await _call(self._memories.ListMemories(request, timeout=timeout)), scope)

    async def record_access(self, memory_ids: Sequence[str], session_id: str, reason: str, *, timeout: float) -> None:
        request = memory_service_pb2.RecordAccessRequest(memory_ids=memory_ids, session_id=session_id, reason=reason)
        await _call(self._memories.RecordAccess(request, timeout=timeout))

    async def save_fingerprint(self, session_id: str, fingerprint: str, *, timeout: float) -> None:
        request = working_memory_service_pb2.UpdateWorkingMemoryRequest(
            session_id=session_id,
            working_memory=working_memory_service_pb2.WorkingMemory(context_fingerprint=fingerprint),
            update_mask=field_mask_pb2.FieldMask(paths=["context_fingerprint"]),
        )
        await _call(self._working.UpdateWorkingMemory(request, timeout=timeout))


# --- The requests of the memory service's reads, one per part of a gather -----------------------


def _working_memory_request(session_id: str) -> working_memory_service_pb2.GetWorkingMemoryRequest:
    return working_memory_service_pb2.GetWorkingMemoryRequest(session_id=session_id, read_mask=SESSION_READ)


def _recall_request(read: RecallRead) -> memory_service_pb2.RecallRequest:
    return memory_service_pb2.RecallRequest(
        query=read.query,
        scope=_scope(read.scope),
        k=read.k,
        record_access=False,
        include_embeddings=read.with_vectors,
        session_id=read.session_id,
        include_query_embedding=True,
        scope_match=CONTEXT,
    )


def _episodes_request(read: EpisodesRead) -> episode_service_pb2.ListEpisodesRequest:
    return episode_service_pb2.ListEpisodesRequest(
        scope=_scope(read.scope), page_size=read.limit, min_salience=read.min_salience, scope_match=CONTEXT
    )


def _episode_search_request(read: EpisodeSearchRead) -> episode_service_pb2.SearchEpisodesRequest:
    return episode_service_pb2.SearchEpisodesRequest(
        scope=_scope(read.scope), scope_match=CONTEXT, query=read.query, k=read.k, min_salience=read.min_salience
    )


def _threads_request(read: ListRead) -> episode_service_pb2.ListOpenThreadsRequest:
    return episode_service_pb2.ListOpenThreadsRequest(
        scope=_scope(read.scope), page_size=read.limit, scope_match=CONTEXT
    )


def _facts_request(read: ListRead, memory_types: Sequence[int]) -> memory_service_pb2.ListMemoriesRequest:
    return memory_service_pb2.ListMemoriesRequest(
        scope=_scope(read.scope),
        memory_types=memory_types,
        statuses=CURRENT_MEMORY,
        page_size=read.limit,
        order_by=memory_service_pb2.MEMORY_ORDER_SALIENCE,
        scope_match=CONTEXT,
    )


def _access_request(use: ContextUse) -> memory_service_pb2.RecordAccessRequest:
    return memory_service_pb2.RecordAccessRequest(
        memory_ids=use.memory_ids, session_id=use.session_id, reason=use.reason
    )


def gather_request(reads: MemoryReads) -> context_source_service_pb2.GatherContextRequest:
    """The GatherContext request of ``reads``: each part the request of its own RPC."""
    request = context_source_service_pb2.GatherContextRequest()
    if reads.working_memory is not None:
        request.working_memory.CopyFrom(_working_memory_request(reads.working_memory))
    if reads.recall is not None:
        request.recall.CopyFrom(_recall_request(reads.recall))
    if reads.recent_episodes is not None:
        request.recent_episodes.CopyFrom(_episodes_request(reads.recent_episodes))
    if reads.episode_search is not None:
        request.episode_search.CopyFrom(_episode_search_request(reads.episode_search))
    if reads.open_threads is not None:
        request.open_threads.CopyFrom(_threads_request(reads.open_threads))
    if reads.salient_facts is not None:
        request.salient_facts.CopyFrom(_facts_request(reads.salient_facts, FACT_TYPES))
    if reads.user_facts is not None:
        request.user_facts.CopyFrom(_facts_request(reads.user_facts, PROFILE_TYPES))
    return request


def gathered(reads: MemoryReads, response: context_source_service_pb2.GatherContextResponse) -> MemoryGathered:
    """Each part of ``response`` as its own RPC's answer is read, or its failure."""
    converters: dict[str, Callable[[Any], Any]] = {
        "working_memory": lambda found: session_state(found.working_memory),
        "recall": lambda found: recalled(found, reads.recall.scope),  # type: ignore[union-attr]
        "recent_episodes": lambda found: listed_episodes(found, reads.recent_episodes.scope),  # type: ignore[union-attr]
        "episode_search": lambda found: searched_episodes(found, reads.episode_search.scope),  # type: ignore[union-attr]
        "open_threads": open_threads,
        "salient_facts": lambda found: salient_facts(found, reads.salient_facts.scope),  # type: ignore[union-attr]
        "user_facts": lambda found: user_facts(found, reads.user_facts.scope),  # type: ignore[union-attr]
    }
    found: dict[str, Any] = {}
    failures: dict[str, Exception] = {}
    for name in reads.asked():
        part = getattr(response, name)
        outcome = part.WhichOneof("outcome") if response.HasField(name) else None
        if outcome == "response":
            found[name] = converters[name](part.response)
        elif outcome == "error":
            failures[name] = part_failure(part.error)
        else:
            failures[name] = DependencyUnavailable(f"the memory service did not answer {name}", reason="UNAVAILABLE")
    return MemoryGathered(**found, failures=failures)


def part_failure(error: context_source_service_pb2.PartError) -> LoreError:
    """A part's error as the domain error its own RPC would have been re-raised as."""
    return error_for_code(error.code, error.message, error.reason)


# --- The answers of the memory service's reads, as the fan-out's values --------------------------


def recalled(response: memory_service_pb2.RecallResponse, scope: Scope) -> Recalled:
    vector = QueryVector(tuple(response.query_embedding), response.embedding_model)
    memories = [
        recalled_memory(
            result.memory,
            similarity=result.similarity,
            salience=result.salience,
            vector=tuple(result.embedding) or None,
        )
        for result in shown_in_context(scope, response.results, lambda r: _scope_of(r.memory.scope), "memories")
    ]
    return Recalled(memories, vector if vector.values else None)


def listed_episodes(response: episode_service_pb2.ListEpisodesResponse, scope: Scope) -> list[EpisodeDigest]:
    return [
        episode_digest(episode)
        for episode in shown_in_context(scope, response.episodes, lambda e: _scope_of(e.scope), "episodes")
    ]


def searched_episodes(response: episode_service_pb2.SearchEpisodesResponse, scope: Scope) -> list[EpisodeDigest]:
    shown = shown_in_context(scope, response.results, lambda r: _scope_of(r.episode.scope), "episodes")
    return [episode_digest(result.episode, result.similarity) for result in shown]


def open_threads(response: episode_service_pb2.ListOpenThreadsResponse) -> list[ThreadDigest]:
    # An open thread names its episode, not the episode's scope: the service's match is the wall.
    return [
        ThreadDigest(
            episode_id=found.episode_id,
            conversation_id=found.conversation_id,
            topic=found.thread.topic,
            context=found.thread.context,
            ended_at=_time(found.ended_at, found.HasField("ended_at")),
        )
        for found in response.threads
    ]


def salient_facts(response: memory_service_pb2.ListMemoriesResponse, scope: Scope) -> list[RecalledMemory]:
    return [
        recalled_memory(memory, similarity=0.0, salience=memory.current_salience)
        for memory in shown_in_context(scope, response.memories, lambda m: _scope_of(m.scope), "memories")
    ]


def user_facts(response: memory_service_pb2.ListMemoriesResponse, scope: Scope) -> list[Learnt]:
    shown = shown_in_context(scope, response.memories, lambda m: _scope_of(m.scope), "memories")
    # The user's own only: the org's shared records (no user) are nobody's profile.
    return [learnt_fact(memory) for memory in shown if scope.user_id and memory.scope.user_id == scope.user_id]


class GrpcObservationSources:
    def __init__(self, channel: grpc.aio.Channel) -> None:
        self._observations = observation_service_pb2_grpc.ObservationServiceStub(channel)
        self._engagement = engagement_service_pb2_grpc.EngagementServiceStub(channel)

    async def search_beliefs(
        self,
        query: str,
        scope: Scope,
        min_confidence: float,
        k: int,
        *,
        query_vector: QueryVector | None = None,
        timeout: float,
    ) -> list[Belief]:
        request = observation_service_pb2.SearchObservationsRequest(
            agent_id=scope.agent_id,
            user_id=scope.user_id,
            team_id=scope.team_id,
            query=query,
            min_confidence=min_confidence,
            k=k,
        )
        _send_vector(request, query_vector)
        request.include_embeddings = query_vector is not None  # for near-duplicates against the memories' vectors
        response = await _call(self._observations.SearchObservations(request, timeout=timeout))
        shown = shown_in_context(scope, response.results, lambda r: observation_scope(r.observation), "beliefs")
        # Comparable with the memories' vectors only when the same model made both.
        comparable = query_vector is not None and response.embedding_model == query_vector.model
        return [
            belief(result.observation, result.similarity, scope, tuple(result.embedding) if comparable else None)
            for result in shown
        ]

    async def top_beliefs(self, scope: Scope, min_confidence: float, k: int, *, timeout: float) -> list[Belief]:
        request = observation_service_pb2.QueryObservationsRequest(
            agent_id=scope.agent_id,
            user_id=scope.user_id,
            team_id=scope.team_id,
            scope_match=CONTEXT,
            status=observation_service_pb2.OBSERVATION_STATUS_ACTIVE,
            min_confidence=min_confidence,
            page_size=k,
        )
        response = await _call(self._observations.QueryObservations(request, timeout=timeout))
        shown = shown_in_context(scope, response.observations, observation_scope, "beliefs")
        return [belief(observation, 0.0, scope) for observation in shown]

    async def engagement(self, *, timeout: float) -> EngagementDigest:
        # The digest: the open part and the findings, no evidence lines or closed records (the status
        # filters below keep a full answer from an older service right too).
        request = engagement_service_pb2.GetEngagementRequest(view=engagement_service_pb2.ENGAGEMENT_VIEW_DIGEST)
        found = await _call(self._engagement.GetEngagement(request, timeout=timeout))
        return EngagementDigest(
            week_number=found.week_number,
            hypotheses=tuple(
                Hypothesis(h.id, h.statement, h.confidence)
                for h in found.hypotheses
                if h.status == engagement_service_pb2.HYPOTHESIS_STATUS_ACTIVE
            ),
            unknowns=tuple(
                Unknown(u.id, u.question, u.why_it_matters)
                for u in found.unknowns
                if u.status == engagement_service_pb2.UNKNOWN_STATUS_OPEN
            ),
            first_session=found.first_session,
            findings=tuple(Finding(f.id, f.statement, f.source) for f in found.findings),
        )


def session_state(found: working_memory_service_pb2.WorkingMemory) -> SessionState:
    plan = found.active_plan
    plan_text = ""
    if plan.goal:
        plan_text = f"Plan: {plan.goal}."
        plan_text += f" Done so far: {plan.progress}." if plan.progress else ""
        plan_text += f" Next: {plan.next_step}." if plan.next_step else ""
    pending = tuple(
        f"Still needed for {slot.tool_name or 'the task'}: {slot.name}" + (f" ({slot.prompt})" if slot.prompt else "")
        for slot in found.pending_slots
    )
    latest = found.emotion_trajectory[-1] if found.emotion_trajectory else None
    return SessionState(
        summary=found.summary,
        plan=plan_text,
        pending=pending,
        mood=latest.emotion if latest else "",
        mood_valence=latest.valence if latest else 0.0,
        last_tool_result=tool_result(found.last_tool_result) if found.HasField("last_tool_result") else None,
        fingerprint=found.context_fingerprint,
        recent_turn_ids=frozenset(transcript_turn_id(turn) for turn in found.recent_turns),
    )


def transcript_turn_id(turn: turn_pb2.Turn) -> str:
    """The agent writes a turn to working memory keyed ``turn:<transcript id>`` (the id memories'
    provenance names); a turn written otherwise is known by its own id."""
    key = turn.idempotency_key
    return key.removeprefix("turn:") if key.startswith("turn:") else turn.id


def tool_result(interaction: turn_pb2.ToolInteraction) -> ToolResult:
    return ToolResult(
        tool_name=interaction.tool_name,
        intent=interaction.intent,
        summary=interaction.summary,
        fields=json_format.MessageToDict(interaction.result),
        salient_fields=tuple(interaction.salient_fields),
    )


def recalled_memory(
    memory: memory_service_pb2.Memory, *, similarity: float, salience: float, vector: tuple[float, ...] | None = None
) -> RecalledMemory:
    return RecalledMemory(
        id=memory.id,
        content=memory.content,
        memory_type=_enum_name(memory_service_pb2.MemoryType, memory.memory_type, "MEMORY_TYPE_"),
        similarity=similarity,
        salience=salience,
        importance=memory.importance,
        valid_at=_time(memory.valid_at, memory.HasField("valid_at")),
        vector=vector,
        entities=tuple(memory.entities),
        metadata=dict(memory.metadata),
        session_id=memory.provenance.session_id,
        turn_ids=tuple(memory.provenance.turn_ids),
        speaker=memory.provenance.speaker,
    )


def learnt_fact(memory: memory_service_pb2.Memory) -> Learnt:
    """A fact or preference memory as a profile item; its speaker is what reflection wrote in its
    metadata ("user", "assistant"), else its provenance's (a named speaker), else unknown ("")."""
    kind = _enum_name(memory_service_pb2.MemoryType, memory.memory_type, "MEMORY_TYPE_")
    when = _time(memory.valid_at, memory.HasField("valid_at"))
    when = when or _time(memory.created_at, memory.HasField("created_at"))
    return Learnt(
        id=memory.id,
        text=memory.content,
        kind=kind,
        confidence=memory.importance,
        updated_at=when,
        speaker=memory.metadata.get("speaker", "") or memory.provenance.speaker,
        detail=kind,
        turn_ids=tuple(memory.provenance.turn_ids),
    )


def episode_digest(episode: episode_service_pb2.Episode, similarity: float = 0.0) -> EpisodeDigest:
    outcomes = [
        f"{outcome.type}: {outcome.content}" if outcome.type else outcome.content for outcome in episode.outcomes
    ]
    outcomes += [f"decision: {decision}" for decision in episode.decisions]
    return EpisodeDigest(
        id=episode.id,
        summary=episode.summary,
        conversation_id=episode.conversation_id,
        ended_at=_time(episode.ended_at, episode.HasField("ended_at")),
        salience=episode.current_salience,
        importance=episode.importance,
        outcomes=tuple(dict.fromkeys(text.strip() for text in outcomes if text.strip())),
        similarity=similarity,
    )


def belief(
    observation: observation_service_pb2.Observation,
    similarity: float,
    scope: Scope,
    vector: tuple[float, ...] | None = None,
) -> Belief:
    about_user = bool(scope.user_id) and (
        observation.subject_type == observation_service_pb2.SUBJECT_TYPE_ENTITY
        and observation.subject_id == scope.user_id
    )
    return Belief(
        id=observation.id,
        summary=observation.summary,
        kind=_enum_name(observation_service_pb2.ObservationKind, observation.kind, "OBSERVATION_KIND_"),
        confidence=observation.confidence,
        freshness=observation.freshness,
        similarity=similarity,
        updated_at=_time(observation.updated_at, observation.HasField("updated_at")),
        sources=observation.confidence_components.source_count,
        last_supported_at=_time(observation.last_supported_at, observation.HasField("last_supported_at")),
        about_user=about_user,
        vector=vector or None,
    )
