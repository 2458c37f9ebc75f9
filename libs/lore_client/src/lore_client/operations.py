"""Every endpoint of Lore's REST API, written once for both clients.

Each method returns the ``Call`` of its request (``lore_client.calls``); ``LoreClient`` turns it
into an ``async def`` returning the answer, ``SyncLoreClient`` into a plain ``def``. The
docstrings below are the methods' own on both clients.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lore_client import calls as c
from lore_client import inputs as i
from lore_client.calls import Call, ClientCore, Paging, TransportT, operation, paged
from lore_client.inputs import NewEvidence, NewHypothesisEvidence, NewMemory, NewTurn, ScopeLike, TimeLike
from lore_client.models import (
    AssembledContext,
    Engagement,
    Episode,
    EpisodeThread,
    ErasureJob,
    Finding,
    ForgetResult,
    Hypothesis,
    ImportResult,
    Job,
    JobKindStats,
    Memory,
    Observation,
    ObservationHit,
    ObserveResult,
    Page,
    Prime,
    RecallResult,
    Session,
    Status,
    Turn,
    TurnContext,
    TurnResult,
    Unknown,
    UserProfile,
)


def _nothing(answer: dict[str, Any]) -> None:
    return None


class Operations(ClientCore[TransportT]):
    # -- sessions ------------------------------------------------------------------------

    @operation
    def start_session(
        self,
        scope: ScopeLike,
        *,
        metadata: Mapping[str, str] | None = None,
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> Call[Session]:
        """``POST /v1/sessions``; a repeated ``request_id`` returns the same session."""
        body = i.compact({"scope": i.scope_json(scope), "metadata": dict(metadata or {}), "requestId": request_id})
        return c.call(
            "POST", "/v1/sessions", c.one("session", Session.from_json), body=body, idempotency_key=idempotency_key
        )

    @operation
    def get_session(self, session_id: str) -> Call[Session]:
        return c.call("GET", f"/v1/sessions/{c.quote_id(session_id)}", c.one("session", Session.from_json))

    @operation
    def list_sessions(
        self,
        scope: ScopeLike | None = None,
        *,
        status: str | None = None,
        page_size: int | None = None,
        page_token: str = "",
    ) -> Call[Page[Session]]:
        return c.page_call(
            "/v1/sessions",
            "sessions",
            Session.from_json,
            **c.scope_query(scope),
            status=c.enum(i.SESSION_STATUS, status),
            pageSize=page_size,
            pageToken=page_token,
        )

    @paged
    def iter_sessions(
        self, scope: ScopeLike | None = None, *, status: str | None = None, page_size: int | None = None
    ) -> Paging[Session]:
        """Every session of the filter, following ``nextPageToken`` page by page."""
        return Paging(
            lambda token: Operations.list_sessions.build(
                self, scope, status=status, page_size=page_size, page_token=token
            )
        )

    @operation
    def end_session(self, session_id: str, *, idempotency_key: str | None = None) -> Call[Session]:
        """``POST /v1/sessions/{id}:end``: queues the episode of the conversation."""
        path = f"/v1/sessions/{c.quote_id(session_id)}:end"
        return c.call("POST", path, c.one("session", Session.from_json), body={}, idempotency_key=idempotency_key)

    @operation
    def process_turn(
        self,
        session_id: str,
        content: str,
        *,
        role: str = "user",
        metadata: Mapping[str, str] | None = None,
        turn_idempotency_key: str = "",
        context_options: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Call[TurnResult]:
        """``POST /v1/sessions/{id}/turns``: store the turn, assemble the context, reply when a
        model is configured. ``turn_idempotency_key`` is the turn's own key (unique per session;
        a retry returns the first result); ``context_options`` is the proto3 JSON of
        ``AssembleOptions`` (``{"persona": "…", "recallK": 8}``)."""
        turn = i.compact(
            {
                "role": i.enum_name(i.TURN_ROLE, role),
                "content": content,
                "metadata": dict(metadata or {}),
                "idempotencyKey": turn_idempotency_key,
            }
        )
        body = i.compact({"turn": turn, "contextOptions": dict(context_options or {})})
        path = f"/v1/sessions/{c.quote_id(session_id)}/turns"
        return c.call("POST", path, TurnResult.from_json, body=body, idempotency_key=idempotency_key)

    @operation
    def list_turns(self, session_id: str, *, page_size: int | None = None, page_token: str = "") -> Call[Page[Turn]]:
        path = f"/v1/sessions/{c.quote_id(session_id)}/turns"
        return c.page_call(path, "turns", Turn.from_json, pageSize=page_size, pageToken=page_token)

    @paged
    def iter_turns(self, session_id: str, *, page_size: int | None = None) -> Paging[Turn]:
        return Paging(
            lambda token: Operations.list_turns.build(self, session_id, page_size=page_size, page_token=token)
        )

    @operation
    def get_turn_context(self, session_id: str, turn_id: str) -> Call[TurnContext]:
        """``GET /v1/sessions/{id}/turns/{turn_id}/context``: the context assembled for the turn, with
        its manifest, while the turn's result is kept; otherwise ``status`` and ``reason`` say why
        there is none (an assistant or imported turn) or no longer one (past the retention)."""
        path = f"/v1/sessions/{c.quote_id(session_id)}/turns/{c.quote_id(turn_id)}/context"
        return c.call("GET", path, TurnContext.from_json)

    @operation
    def import_turns(
        self,
        session_id: str,
        turns: Sequence[NewTurn],
        *,
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> Call[ImportResult]:
        """``POST /v1/sessions/{id}/turns:import``: historical turns (≤ 500 a call) with their times."""
        body = i.compact({"turns": [turn.to_json() for turn in turns], "requestId": request_id})
        path = f"/v1/sessions/{c.quote_id(session_id)}/turns:import"
        return c.call("POST", path, ImportResult.from_json, body=body, idempotency_key=idempotency_key)

    # -- memories ------------------------------------------------------------------------

    @operation
    def remember(
        self,
        memories: NewMemory | Sequence[NewMemory],
        *,
        scope: ScopeLike | None = None,
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> Call[list[Memory]]:
        """``POST /v1/memories``: one memory or a batch (≤ 100); ``scope`` applies to those without one."""
        batch = [memories] if isinstance(memories, NewMemory) else list(memories)
        body = i.compact({"memories": [memory.to_json(scope) for memory in batch], "requestId": request_id})
        return c.call(
            "POST", "/v1/memories", c.each("memories", Memory.from_json), body=body, idempotency_key=idempotency_key
        )

    @operation
    def search(
        self,
        query: str,
        scope: ScopeLike | None = None,
        *,
        k: int | None = None,
        memory_types: str | Sequence[str] | None = None,
        statuses: str | Sequence[str] | None = None,
        min_salience: float | None = None,
        valid_after: TimeLike | None = None,
        valid_before: TimeLike | None = None,
        record_access: bool | None = None,
        session_id: str = "",
        scope_match: str | None = None,
        idempotency_key: str | None = None,
    ) -> Call[list[RecallResult]]:
        """``POST /v1/memories:search`` (Recall): hybrid dense + lexical, best first.
        ``scope_match="context"`` finds what a context for ``scope`` may show (the user's memories
        and the organisation's shared ones, never another user's) instead of matching its ids."""
        body = i.compact(
            {
                "query": query,
                "scope": i.scope_json(scope),
                "scopeMatch": c.enum(i.SCOPE_MATCH, scope_match),
                "k": k,
                "memoryTypes": i.enum_names(i.MEMORY_TYPE, memory_types),
                "statuses": i.enum_names(i.MEMORY_STATUS, statuses),
                "minSalience": min_salience,
                "validAfter": i.time_json(valid_after),
                "validBefore": i.time_json(valid_before),
                "recordAccess": record_access,
                "sessionId": session_id,
            }
        )
        parse = c.each("results", RecallResult.from_json)
        return c.call("POST", "/v1/memories:search", parse, body=body, idempotency_key=idempotency_key)

    @operation
    def list_memories(
        self,
        scope: ScopeLike | None = None,
        *,
        memory_types: str | Sequence[str] | None = None,
        statuses: str | Sequence[str] | None = None,
        order_by: str | None = None,
        scope_match: str | None = None,
        page_size: int | None = None,
        page_token: str = "",
    ) -> Call[Page[Memory]]:
        """``GET /v1/memories``; ``scope_match="context"`` lists as ``search`` finds with it."""
        return c.page_call(
            "/v1/memories",
            "memories",
            Memory.from_json,
            **c.scope_query(scope),
            memoryTypes=i.enum_names(i.MEMORY_TYPE, memory_types),
            statuses=i.enum_names(i.MEMORY_STATUS, statuses),
            orderBy=c.enum(i.MEMORY_ORDER, order_by),
            scopeMatch=c.enum(i.SCOPE_MATCH, scope_match),
            pageSize=page_size,
            pageToken=page_token,
        )

    @paged
    def iter_memories(
        self,
        scope: ScopeLike | None = None,
        *,
        memory_types: str | Sequence[str] | None = None,
        statuses: str | Sequence[str] | None = None,
        order_by: str | None = None,
        scope_match: str | None = None,
        page_size: int | None = None,
    ) -> Paging[Memory]:
        """Every memory of the filter, following ``nextPageToken`` page by page."""
        filters: dict[str, Any] = {
            "memory_types": memory_types,
            "statuses": statuses,
            "order_by": order_by,
            "scope_match": scope_match,
            "page_size": page_size,
        }
        return Paging(lambda token: Operations.list_memories.build(self, scope, **filters, page_token=token))

    @operation
    def get_memory(self, memory_id: str) -> Call[Memory]:
        return c.call("GET", f"/v1/memories/{c.quote_id(memory_id)}", c.one("memory", Memory.from_json))

    @operation
    def update_memory(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        memory_type: str | None = None,
        importance: float | None = None,
        metadata: Mapping[str, str] | None = None,
        entities: Sequence[str] | None = None,
        valid_at: TimeLike | None = None,
        status: str | None = None,
    ) -> Call[Memory]:
        """``PATCH /v1/memories/{id}``: the fields given (not ``None``) are set, and only those
        (the ``updateMask`` is built from them; ``metadata={}`` clears the metadata).
        ``status``: ``"completed"`` for a kept commitment, ``"active"`` to bring an archived one back."""
        fields = {
            "content": content,
            "memoryType": c.enum(i.MEMORY_TYPE, memory_type),
            "importance": importance,
            "metadata": dict(metadata) if metadata is not None else None,
            "entities": list(entities) if entities is not None else None,
            "validAt": i.time_json(valid_at),
            "status": c.enum(i.MEMORY_STATUS, status),
        }
        memory = {name: value for name, value in fields.items() if value is not None}
        if not memory:
            raise ValueError("update_memory: name at least one field to update")
        body = {"memory": memory, "updateMask": ",".join(memory)}
        return c.call("PATCH", f"/v1/memories/{c.quote_id(memory_id)}", c.one("memory", Memory.from_json), body=body)

    @operation
    def forget_memory(self, memory_id: str) -> Call[None]:
        """``DELETE /v1/memories/{id}``: archives it (kept for audit, out of recall)."""
        return c.call("DELETE", f"/v1/memories/{c.quote_id(memory_id)}", _nothing)

    @operation
    def forget_about(
        self, scope: ScopeLike, about: str, *, request_id: str = "", idempotency_key: str | None = None
    ) -> Call[ForgetResult]:
        """``POST /v1/memories:forget`` (scope ``memories:write``): the user's memories and message
        memories about ``about`` are archived and the beliefs they support invalidated, the request
        recorded as the reason; only the user's own records (``scope.user_id`` is required)."""
        body = i.compact({"scope": i.scope_json(scope), "about": about, "requestId": request_id})
        return c.call("POST", "/v1/memories:forget", ForgetResult.from_json, body=body, idempotency_key=idempotency_key)

    # -- episodes and context -------------------------------------------------------------

    @operation
    def list_episodes(
        self,
        scope: ScopeLike | None = None,
        *,
        ended_after: TimeLike | None = None,
        min_salience: float | None = None,
        scope_match: str | None = None,
        page_size: int | None = None,
        page_token: str = "",
    ) -> Call[Page[Episode]]:
        """``GET /v1/episodes``; ``scope_match="context"``: the episodes a context for ``scope`` may show."""
        return c.page_call(
            "/v1/episodes",
            "episodes",
            Episode.from_json,
            **c.scope_query(scope),
            endedAfter=i.time_json(ended_after),
            minSalience=min_salience,
            scopeMatch=c.enum(i.SCOPE_MATCH, scope_match),
            pageSize=page_size,
            pageToken=page_token,
        )

    @operation
    def list_open_threads(
        self,
        scope: ScopeLike | None = None,
        *,
        scope_match: str | None = None,
        page_size: int | None = None,
        page_token: str = "",
    ) -> Call[Page[EpisodeThread]]:
        """``GET /v1/open-threads``; ``scope_match="context"``: the threads of the episodes a context
        for ``scope`` may show."""
        return c.page_call(
            "/v1/open-threads",
            "threads",
            EpisodeThread.from_json,
            **c.scope_query(scope),
            scopeMatch=c.enum(i.SCOPE_MATCH, scope_match),
            pageSize=page_size,
            pageToken=page_token,
        )

    @operation
    def prime(self, scope: ScopeLike, *, initial_message: str = "", budget_tokens: int | None = None) -> Call[Prime]:
        """``GET /v1/memory/prime``: what to remember at the start of a conversation."""
        params = c.query(**c.scope_query(scope), initialMessage=initial_message, budgetTokens=budget_tokens)
        return c.call("GET", "/v1/memory/prime", Prime.from_json, params=params)

    @operation
    def get_user_profile(
        self,
        user_id: str,
        *,
        agent_id: str = "",
        team_id: str = "",
        user_profile: str = "",
        budget_tokens: int | None = None,
    ) -> Call[UserProfile]:
        """``GET /v1/users/{userId}/profile``: what Lore has learnt about the user (the context's user
        profile), the lines of ``user_profile`` (the caller's own profile text) first."""
        params = c.query(agentId=agent_id, teamId=team_id, userProfile=user_profile, budgetTokens=budget_tokens)
        path = f"/v1/users/{c.quote_id(user_id)}/profile"
        return c.call("GET", path, c.one("profile", UserProfile.from_json), params=params)

    @operation
    def assemble_context(
        self,
        message: str,
        scope: ScopeLike | None = None,
        *,
        session_id: str = "",
        options: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Call[AssembledContext]:
        """``POST /v1/context:assemble``; ``options`` is the proto3 JSON of ``AssembleOptions``."""
        body = i.compact(
            {"sessionId": session_id, "scope": i.scope_json(scope), "message": message, "options": dict(options or {})}
        )
        parse = c.one("context", AssembledContext.from_json)
        return c.call("POST", "/v1/context:assemble", parse, body=body, idempotency_key=idempotency_key)

    # -- observations --------------------------------------------------------------------

    @operation
    def observe(
        self,
        agent_id: str,
        *,
        kind: str,
        subject_id: str,
        summary: str,
        subject_type: str = "entity",
        slot: str = "",
        detail: str = "",
        tags: Sequence[str] = (),
        evidence: Sequence[NewEvidence] = (),
        scope: ScopeLike | None = None,
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> Call[ObserveResult]:
        """``POST /v1/observations:observe``: create, support, contradict or supersede a belief.
        ``scope`` is whose belief it is (its user and team; none: the organisation's): one current
        belief per agent, user, team and canonical key. Its agent, when given, must be ``agent_id``
        (or stands for it when ``agent_id`` is empty)."""
        candidate = i.compact(
            {
                "kind": i.enum_name(i.OBSERVATION_KIND, kind),
                "subjectType": i.enum_name(i.SUBJECT_TYPE, subject_type),
                "subjectId": subject_id,
                "slot": slot,
                "summary": summary,
                "detail": detail,
                "tags": list(tags),
                "evidence": [item.to_json() for item in evidence],
            }
        )
        body = i.compact(
            {"agentId": agent_id, "scope": i.scope_json(scope), "candidate": candidate, "requestId": request_id}
        )
        path = "/v1/observations:observe"
        return c.call("POST", path, ObserveResult.from_json, body=body, idempotency_key=idempotency_key)

    @operation
    def query_observations(
        self,
        *,
        agent_id: str = "",
        kind: str | None = None,
        subject_type: str | None = None,
        subject_id: str = "",
        canonical_key: str = "",
        status: str | None = None,
        min_confidence: float | None = None,
        tags: Sequence[str] = (),
        user_id: str = "",
        team_id: str = "",
        scope_match: str | None = None,
        page_size: int | None = None,
        page_token: str = "",
    ) -> Call[Page[Observation]]:
        """``GET /v1/observations``: by filters, best first. ``agent_id``, ``user_id`` and
        ``team_id`` keep only that agent's, user's, team's beliefs (any when empty); with
        ``scope_match="context"`` they select what a context for them may show instead (the user's
        and the organisation's shared beliefs, never another user's nor unattributed ones)."""
        return c.page_call(
            "/v1/observations",
            "observations",
            Observation.from_json,
            agentId=agent_id,
            userId=user_id,
            teamId=team_id,
            scopeMatch=c.enum(i.SCOPE_MATCH, scope_match),
            kind=c.enum(i.OBSERVATION_KIND, kind),
            subjectType=c.enum(i.SUBJECT_TYPE, subject_type),
            subjectId=subject_id,
            canonicalKey=canonical_key,
            status=c.enum(i.OBSERVATION_STATUS, status),
            minConfidence=min_confidence,
            tags=list(tags),
            pageSize=page_size,
            pageToken=page_token,
        )

    @operation
    def search_observations(
        self,
        query: str,
        *,
        agent_id: str = "",
        kinds: str | Sequence[str] | None = None,
        statuses: str | Sequence[str] | None = None,
        min_confidence: float | None = None,
        k: int | None = None,
        user_id: str = "",
        team_id: str = "",
        idempotency_key: str | None = None,
    ) -> Call[list[ObservationHit]]:
        """``POST /v1/observations:search``: by meaning and words, among the beliefs a context for
        ``agent_id``, ``user_id`` and ``team_id`` may show: that user's and team's and the
        organisation's shared ones, never another user's (without a user: only beliefs of no user;
        without an agent: any agent's)."""
        body = i.compact(
            {
                "agentId": agent_id,
                "userId": user_id,
                "teamId": team_id,
                "query": query,
                "kinds": i.enum_names(i.OBSERVATION_KIND, kinds),
                "statuses": i.enum_names(i.OBSERVATION_STATUS, statuses),
                "minConfidence": min_confidence,
                "k": k,
            }
        )
        parse = c.each("results", ObservationHit.from_json)
        return c.call("POST", "/v1/observations:search", parse, body=body, idempotency_key=idempotency_key)

    @operation
    def get_observation(self, observation_id: str) -> Call[Observation]:
        path = f"/v1/observations/{c.quote_id(observation_id)}"
        return c.call("GET", path, c.one("observation", Observation.from_json))

    @operation
    def observation_history(self, observation_id: str) -> Call[list[Observation]]:
        """The supersession chain, newest first."""
        path = f"/v1/observations/{c.quote_id(observation_id)}/history"
        return c.call("GET", path, c.each("observations", Observation.from_json))

    @operation
    def confirm_observation(
        self, observation_id: str, *, note: str = "", request_id: str = "", idempotency_key: str | None = None
    ) -> Call[Observation]:
        body = i.compact({"note": note, "requestId": request_id})
        path = f"/v1/observations/{c.quote_id(observation_id)}:confirm"
        parse = c.one("observation", Observation.from_json)
        return c.call("POST", path, parse, body=body, idempotency_key=idempotency_key)

    @operation
    def contradict_observation(
        self,
        observation_id: str,
        evidence: NewEvidence,
        *,
        correction: str = "",
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> Call[ObserveResult]:
        body = i.compact({"evidence": evidence.to_json(), "correction": correction, "requestId": request_id})
        path = f"/v1/observations/{c.quote_id(observation_id)}:contradict"
        return c.call("POST", path, ObserveResult.from_json, body=body, idempotency_key=idempotency_key)

    # -- engagement ----------------------------------------------------------------------

    @operation
    def get_engagement(self) -> Call[Engagement]:
        return c.call("GET", "/v1/engagement", Engagement.from_json)

    @operation
    def form_hypothesis(
        self,
        statement: str,
        evidence: Sequence[NewHypothesisEvidence] = (),
        *,
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> Call[Hypothesis]:
        body = i.compact(
            {"statement": statement, "evidence": [item.to_json() for item in evidence], "requestId": request_id}
        )
        parse = c.one("hypothesis", Hypothesis.from_json)
        return c.call("POST", "/v1/engagement/hypotheses", parse, body=body, idempotency_key=idempotency_key)

    @operation
    def add_hypothesis_evidence(
        self,
        hypothesis_id: str,
        evidence: NewHypothesisEvidence,
        *,
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> Call[Hypothesis]:
        body = i.compact({"evidence": evidence.to_json(), "requestId": request_id})
        return _hypothesis_call(f"{c.quote_id(hypothesis_id)}/evidence", body, idempotency_key)

    @operation
    def revise_hypothesis(
        self,
        hypothesis_id: str,
        *,
        reason: str,
        confidence: float | None = None,
        statement: str = "",
        idempotency_key: str | None = None,
    ) -> Call[Hypothesis]:
        body = i.compact({"confidence": confidence, "reason": reason, "statement": statement})
        return _hypothesis_call(f"{c.quote_id(hypothesis_id)}:revise", body, idempotency_key)

    @operation
    def promote_hypothesis(
        self, hypothesis_id: str, *, statement: str = "", source: str = "", idempotency_key: str | None = None
    ) -> Call[tuple[Hypothesis, Finding]]:
        body = i.compact({"statement": statement, "source": source})
        path = f"/v1/engagement/hypotheses/{c.quote_id(hypothesis_id)}:promote"

        def parse(answer: dict[str, Any]) -> tuple[Hypothesis, Finding]:
            return Hypothesis.from_json(answer.get("hypothesis") or {}), Finding.from_json(answer.get("finding") or {})

        return c.call("POST", path, parse, body=body, idempotency_key=idempotency_key)

    @operation
    def archive_hypothesis(
        self, hypothesis_id: str, *, note: str, idempotency_key: str | None = None
    ) -> Call[Hypothesis]:
        return _hypothesis_call(f"{c.quote_id(hypothesis_id)}:archive", {"note": note}, idempotency_key)

    @operation
    def add_unknown(
        self, question: str, *, why_it_matters: str = "", request_id: str = "", idempotency_key: str | None = None
    ) -> Call[Unknown]:
        body = i.compact({"question": question, "whyItMatters": why_it_matters, "requestId": request_id})
        parse = c.one("unknown", Unknown.from_json)
        return c.call("POST", "/v1/engagement/unknowns", parse, body=body, idempotency_key=idempotency_key)

    @operation
    def resolve_unknown(self, unknown_id: str, resolution: str, *, idempotency_key: str | None = None) -> Call[Unknown]:
        path = f"/v1/engagement/unknowns/{c.quote_id(unknown_id)}:resolve"
        parse = c.one("unknown", Unknown.from_json)
        return c.call("POST", path, parse, body={"resolution": resolution}, idempotency_key=idempotency_key)

    @operation
    def advance_week(self, *, expected_week_number: int | None = None, idempotency_key: str | None = None) -> Call[int]:
        """Start the next week; ``expected_week_number`` makes a concurrent advance fail instead of
        skipping a week. Returns the new week number."""
        body = i.compact({"expectedWeekNumber": expected_week_number})

        def parse(answer: dict[str, Any]) -> int:
            return int(answer.get("weekNumber", 0))

        return c.call("POST", "/v1/engagement:advanceWeek", parse, body=body, idempotency_key=idempotency_key)

    # -- erasure, status, operations -----------------------------------------------------

    @operation
    def forget_subject(
        self, subject: ScopeLike, *, request_id: str = "", idempotency_key: str | None = None
    ) -> Call[ErasureJob]:
        """``POST /v1/subjects:forget`` (scope ``subjects:forget``): erasure as a durable job;
        the same ``request_id`` again returns the job's current state."""
        body = i.compact({"subject": i.scope_json(subject), "requestId": request_id})
        parse = c.one("job", ErasureJob.from_json)
        return c.call("POST", "/v1/subjects:forget", parse, body=body, idempotency_key=idempotency_key)

    @operation
    def status(self) -> Call[Status]:
        """``GET /v1/status`` (no credential needed): answered, not raised, when a service is down."""
        return c.call("GET", "/v1/status", Status.from_json, accept=frozenset({503}))

    @operation
    def job_stats(self) -> Call[list[JobKindStats]]:
        """``GET /v1/admin/jobs`` (``admin`` scope): background jobs by kind and state."""
        return c.call("GET", "/v1/admin/jobs", c.each("kinds", JobKindStats.from_json))

    @operation
    def list_jobs(
        self, *, kind: str = "", state: str = "", page_size: int | None = None, page_token: str = ""
    ) -> Call[Page[Job]]:
        """``GET /v1/admin/jobs:list`` (``admin`` scope): the org's jobs, newest first; ``kind``
        (reflect, episode, erase) and ``state`` (queued, running, retrying, dead) narrow it."""
        query = {"kind": kind, "state": state, "pageSize": page_size, "pageToken": page_token}
        return c.page_call("/v1/admin/jobs:list", "jobs", Job.from_json, **query)

    @paged
    def iter_jobs(self, *, kind: str = "", state: str = "", page_size: int | None = None) -> Paging[Job]:
        """Every job of the filter, following ``nextPageToken`` page by page."""
        filters: dict[str, Any] = {"kind": kind, "state": state, "page_size": page_size}
        return Paging(lambda token: Operations.list_jobs.build(self, **filters, page_token=token))


def _hypothesis_call(path: str, body: dict[str, Any], idempotency_key: str | None) -> Call[Hypothesis]:
    """``POST /v1/engagement/hypotheses/{path}``, answered with the hypothesis as it now stands."""
    parse = c.one("hypothesis", Hypothesis.from_json)
    return c.call("POST", f"/v1/engagement/hypotheses/{path}", parse, body=body, idempotency_key=idempotency_key)
