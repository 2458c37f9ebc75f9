"""``LoreClient``: the public REST API as typed async methods (one ``httpx.AsyncClient`` inside).

Every request goes through ``_call``: the body is serialised once (so a retry, and a retry of
the caller with the same ``idempotency_key``, sends the same bytes, which is how the gateway
recognises a repeat), errors become ``LoreApiError``, and 429/503 answers are retried at most
``max_retries`` times after ``Retry-After`` — only when a repeat cannot do the work twice: a GET,
or a POST carrying an ``Idempotency-Key``.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import quote

import httpx

from lore_client import inputs as i
from lore_client.errors import LoreApiError
from lore_client.inputs import NewEvidence, NewHypothesisEvidence, NewMemory, NewTurn, ScopeLike, TimeLike
from lore_client.models import (
    AssembledContext,
    Engagement,
    Episode,
    EpisodeThread,
    ErasureJob,
    Finding,
    Hypothesis,
    ImportResult,
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
    TurnResult,
    Unknown,
)

T = TypeVar("T")
Query = list[tuple[str, str]]

RETRIED_STATUSES = frozenset({429, 503})


def _id(value: str) -> str:
    if not value:
        raise ValueError("an id is required")
    return quote(value, safe="")


def _query(**fields: Any) -> Query:
    """Query parameters of a GET (names already camelCase or dotted); unset values left out,
    sequences repeated, booleans as ``true``/``false``."""
    items: Query = []
    for name, value in fields.items():
        if value is None or value == "" or value == []:
            continue
        values = value if isinstance(value, list | tuple) else [value]
        for one in values:
            items.append((name, ("true" if one else "false") if isinstance(one, bool) else str(one)))
    return items


def _enum(prefix: str, value: str | None) -> str | None:
    """An optional enum argument's full name (``inputs.enum_name``), ``None`` when not given."""
    return i.enum_name(prefix, value) if value else None


def _scope_query(scope: ScopeLike | None) -> dict[str, str]:
    return {f"scope.{key}": value for key, value in i.scope_json(scope).items()}


class LoreClient:
    """An async client of Lore's gateway.

    ``base_url``: the gateway (``http://127.0.0.1:8080`` for ``./lore up``); ``api_key``: an API
    key or JWT, sent as ``Authorization: Bearer``; ``timeout``: seconds per request;
    ``transport``: an httpx transport (``httpx.ASGITransport(app=...)`` in tests);
    ``max_retries``: repeats of a 429/503 for idempotent requests (0: never);
    ``max_retry_wait``: a longer ``Retry-After`` is not waited for — the error is raised;
    ``limits``: the connection pool (``httpx.Limits(max_connections=64)`` for many concurrent
    calls: httpx keeps only 20 idle connections by default, so more callers than that reconnect;
    ignored when ``transport`` is given, which brings its own pool).

    Use as ``async with LoreClient(url, key) as lore: ...`` or call ``aclose()``.
    ``with_options(timeout=…, max_retries=…)`` gives a view with other settings on the same
    connection pool, for the few calls that need them (a long import, a call that must not retry).
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8080",
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        max_retries: int = 2,
        max_retry_wait: float = 30.0,
        headers: Mapping[str, str] | None = None,
        limits: httpx.Limits | None = None,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        default_headers = {"Accept": "application/json", **(headers or {})}
        if api_key:
            default_headers["Authorization"] = f"Bearer {api_key}"
        pool = {"limits": limits} if limits is not None else {}
        self._http = httpx.AsyncClient(
            base_url=base_url, headers=default_headers, timeout=timeout, transport=transport, **pool
        )
        self._owns_http = True
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self._sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def with_options(self, *, timeout: float | None = None, max_retries: int | None = None) -> LoreClient:
        """This client with another ``timeout`` (seconds per request) or ``max_retries``, sharing
        its connection pool and credential: ``await lore.with_options(timeout=300).import_turns(…)``.
        Closing the view does not close the pool; closing the original does, for both."""
        if max_retries is not None and max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        view = copy.copy(self)
        view._owns_http = False
        if timeout is not None:
            view.timeout = timeout
        if max_retries is not None:
            view.max_retries = max_retries
        return view

    async def __aenter__(self) -> LoreClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    # -- the one I/O seam -----------------------------------------------------------------

    async def _call(
        self,
        method: str,
        path: str,
        *,
        body: Mapping[str, Any] | None = None,
        params: Query | None = None,
        idempotency_key: str | None = None,
        accept: frozenset[int] = frozenset(),
    ) -> dict[str, Any]:
        headers = {}
        content = None
        if method in ("POST", "PATCH"):
            content = json.dumps(body or {}, separators=(",", ":"), ensure_ascii=False).encode()
            headers["Content-Type"] = "application/json"
        if idempotency_key is not None:
            if method != "POST":
                raise ValueError("idempotency_key applies to POST requests only")
            headers["Idempotency-Key"] = idempotency_key
        retryable = method == "GET" or idempotency_key is not None
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    method, path, content=content, params=params, headers=headers, timeout=self.timeout
                )
            except httpx.TransportError as error:
                raise LoreApiError.from_transport(error) from error
            if response.is_success or response.status_code in accept:
                return response.json() if response.content else {}
            error = LoreApiError.from_response(response)
            wait = error.retry_after if error.retry_after is not None else 0.25 * 2**attempt
            if not (retryable and response.status_code in RETRIED_STATUSES and attempt < self.max_retries):
                raise error
            if wait > self.max_retry_wait:
                raise error
            attempt += 1
            await self._sleep(wait)

    async def _page(self, path: str, key: str, build: Callable[[dict[str, Any]], T], **query: Any) -> Page[T]:
        """One page of a list route: ``query`` is its query string (``_query``), ``key`` the list."""
        answer = await self._call("GET", path, params=_query(**query))
        return Page.from_json(answer, key, build)

    async def _pages(self, fetch: Callable[[str], Awaitable[Page[T]]]) -> AsyncIterator[T]:
        token = ""
        while True:
            page = await fetch(token)
            for item in page.items:
                yield item
            if not page.next_page_token or page.next_page_token == token:
                return
            token = page.next_page_token

    # -- sessions ------------------------------------------------------------------------

    async def start_session(
        self,
        scope: ScopeLike,
        *,
        metadata: Mapping[str, str] | None = None,
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> Session:
        """``POST /v1/sessions``; a repeated ``request_id`` returns the same session."""
        body = i.compact({"scope": i.scope_json(scope), "metadata": dict(metadata or {}), "requestId": request_id})
        answer = await self._call("POST", "/v1/sessions", body=body, idempotency_key=idempotency_key)
        return Session.from_json(answer.get("session") or {})

    async def get_session(self, session_id: str) -> Session:
        answer = await self._call("GET", f"/v1/sessions/{_id(session_id)}")
        return Session.from_json(answer.get("session") or {})

    async def list_sessions(
        self,
        scope: ScopeLike | None = None,
        *,
        status: str | None = None,
        page_size: int | None = None,
        page_token: str = "",
    ) -> Page[Session]:
        return await self._page(
            "/v1/sessions",
            "sessions",
            Session.from_json,
            **_scope_query(scope),
            status=_enum(i.SESSION_STATUS, status),
            pageSize=page_size,
            pageToken=page_token,
        )

    def iter_sessions(
        self, scope: ScopeLike | None = None, *, status: str | None = None, page_size: int | None = None
    ) -> AsyncIterator[Session]:
        """Every session of the filter, following ``nextPageToken`` page by page."""
        return self._pages(
            lambda token: self.list_sessions(scope, status=status, page_size=page_size, page_token=token)
        )

    async def end_session(self, session_id: str, *, idempotency_key: str | None = None) -> Session:
        """``POST /v1/sessions/{id}:end``: queues the episode of the conversation."""
        answer = await self._call(
            "POST", f"/v1/sessions/{_id(session_id)}:end", body={}, idempotency_key=idempotency_key
        )
        return Session.from_json(answer.get("session") or {})

    async def process_turn(
        self,
        session_id: str,
        content: str,
        *,
        role: str = "user",
        metadata: Mapping[str, str] | None = None,
        turn_idempotency_key: str = "",
        context_options: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> TurnResult:
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
        answer = await self._call(
            "POST", f"/v1/sessions/{_id(session_id)}/turns", body=body, idempotency_key=idempotency_key
        )
        return TurnResult.from_json(answer)

    async def list_turns(self, session_id: str, *, page_size: int | None = None, page_token: str = "") -> Page[Turn]:
        path = f"/v1/sessions/{_id(session_id)}/turns"
        return await self._page(path, "turns", Turn.from_json, pageSize=page_size, pageToken=page_token)

    def iter_turns(self, session_id: str, *, page_size: int | None = None) -> AsyncIterator[Turn]:
        return self._pages(lambda token: self.list_turns(session_id, page_size=page_size, page_token=token))

    async def import_turns(
        self,
        session_id: str,
        turns: Sequence[NewTurn],
        *,
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> ImportResult:
        """``POST /v1/sessions/{id}/turns:import``: historical turns (≤ 500 a call) with their times."""
        body = i.compact({"turns": [turn.to_json() for turn in turns], "requestId": request_id})
        answer = await self._call(
            "POST", f"/v1/sessions/{_id(session_id)}/turns:import", body=body, idempotency_key=idempotency_key
        )
        return ImportResult.from_json(answer)

    # -- memories ------------------------------------------------------------------------

    async def remember(
        self,
        memories: NewMemory | Sequence[NewMemory],
        *,
        scope: ScopeLike | None = None,
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> list[Memory]:
        """``POST /v1/memories``: one memory or a batch (≤ 100); ``scope`` applies to those without one."""
        batch = [memories] if isinstance(memories, NewMemory) else list(memories)
        body = i.compact({"memories": [memory.to_json(scope) for memory in batch], "requestId": request_id})
        answer = await self._call("POST", "/v1/memories", body=body, idempotency_key=idempotency_key)
        return [Memory.from_json(m) for m in answer.get("memories") or ()]

    async def search(
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
    ) -> list[RecallResult]:
        """``POST /v1/memories:search`` (Recall): hybrid dense + lexical, best first.
        ``scope_match="context"`` finds what a context for ``scope`` may show (the user's memories
        and the organisation's shared ones, never another user's) instead of matching its ids."""
        body = i.compact(
            {
                "query": query,
                "scope": i.scope_json(scope),
                "scopeMatch": _enum(i.SCOPE_MATCH, scope_match),
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
        answer = await self._call("POST", "/v1/memories:search", body=body, idempotency_key=idempotency_key)
        return [RecallResult.from_json(r) for r in answer.get("results") or ()]

    async def list_memories(
        self,
        scope: ScopeLike | None = None,
        *,
        memory_types: str | Sequence[str] | None = None,
        statuses: str | Sequence[str] | None = None,
        order_by: str | None = None,
        scope_match: str | None = None,
        page_size: int | None = None,
        page_token: str = "",
    ) -> Page[Memory]:
        """``GET /v1/memories``; ``scope_match="context"`` lists as ``search`` finds with it."""
        return await self._page(
            "/v1/memories",
            "memories",
            Memory.from_json,
            **_scope_query(scope),
            memoryTypes=i.enum_names(i.MEMORY_TYPE, memory_types),
            statuses=i.enum_names(i.MEMORY_STATUS, statuses),
            orderBy=_enum(i.MEMORY_ORDER, order_by),
            scopeMatch=_enum(i.SCOPE_MATCH, scope_match),
            pageSize=page_size,
            pageToken=page_token,
        )

    def iter_memories(
        self,
        scope: ScopeLike | None = None,
        *,
        memory_types: str | Sequence[str] | None = None,
        statuses: str | Sequence[str] | None = None,
        order_by: str | None = None,
        scope_match: str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[Memory]:
        """Every memory of the filter, following ``nextPageToken`` page by page."""
        filters: dict[str, Any] = {
            "memory_types": memory_types,
            "statuses": statuses,
            "order_by": order_by,
            "scope_match": scope_match,
        }
        return self._pages(lambda token: self.list_memories(scope, **filters, page_size=page_size, page_token=token))

    async def get_memory(self, memory_id: str) -> Memory:
        answer = await self._call("GET", f"/v1/memories/{_id(memory_id)}")
        return Memory.from_json(answer.get("memory") or {})

    async def update_memory(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        memory_type: str | None = None,
        importance: float | None = None,
        metadata: Mapping[str, str] | None = None,
        entities: Sequence[str] | None = None,
        valid_at: TimeLike | None = None,
    ) -> Memory:
        """``PATCH /v1/memories/{id}``: the fields given (not ``None``) are set, and only those
        (the ``updateMask`` is built from them; ``metadata={}`` clears the metadata)."""
        fields = {
            "content": content,
            "memoryType": _enum(i.MEMORY_TYPE, memory_type),
            "importance": importance,
            "metadata": dict(metadata) if metadata is not None else None,
            "entities": list(entities) if entities is not None else None,
            "validAt": i.time_json(valid_at),
        }
        memory = {name: value for name, value in fields.items() if value is not None}
        if not memory:
            raise ValueError("update_memory: name at least one field to update")
        body = {"memory": memory, "updateMask": ",".join(memory)}
        answer = await self._call("PATCH", f"/v1/memories/{_id(memory_id)}", body=body)
        return Memory.from_json(answer.get("memory") or {})

    async def forget_memory(self, memory_id: str) -> None:
        """``DELETE /v1/memories/{id}``: archives it (kept for audit, out of recall)."""
        await self._call("DELETE", f"/v1/memories/{_id(memory_id)}")

    # -- episodes and context -------------------------------------------------------------

    async def list_episodes(
        self,
        scope: ScopeLike | None = None,
        *,
        ended_after: TimeLike | None = None,
        min_salience: float | None = None,
        scope_match: str | None = None,
        page_size: int | None = None,
        page_token: str = "",
    ) -> Page[Episode]:
        """``GET /v1/episodes``; ``scope_match="context"``: the episodes a context for ``scope`` may show."""
        return await self._page(
            "/v1/episodes",
            "episodes",
            Episode.from_json,
            **_scope_query(scope),
            endedAfter=i.time_json(ended_after),
            minSalience=min_salience,
            scopeMatch=_enum(i.SCOPE_MATCH, scope_match),
            pageSize=page_size,
            pageToken=page_token,
        )

    async def list_open_threads(
        self,
        scope: ScopeLike | None = None,
        *,
        scope_match: str | None = None,
        page_size: int | None = None,
        page_token: str = "",
    ) -> Page[EpisodeThread]:
        """``GET /v1/open-threads``; ``scope_match="context"``: the threads of the episodes a context
        for ``scope`` may show."""
        return await self._page(
            "/v1/open-threads",
            "threads",
            EpisodeThread.from_json,
            **_scope_query(scope),
            scopeMatch=_enum(i.SCOPE_MATCH, scope_match),
            pageSize=page_size,
            pageToken=page_token,
        )

    async def prime(self, scope: ScopeLike, *, initial_message: str = "", budget_tokens: int | None = None) -> Prime:
        """``GET /v1/memory/prime``: what to remember at the start of a conversation."""
        params = _query(**_scope_query(scope), initialMessage=initial_message, budgetTokens=budget_tokens)
        return Prime.from_json(await self._call("GET", "/v1/memory/prime", params=params))

    async def assemble_context(
        self,
        message: str,
        scope: ScopeLike | None = None,
        *,
        session_id: str = "",
        options: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> AssembledContext:
        """``POST /v1/context:assemble``; ``options`` is the proto3 JSON of ``AssembleOptions``."""
        body = i.compact(
            {"sessionId": session_id, "scope": i.scope_json(scope), "message": message, "options": dict(options or {})}
        )
        answer = await self._call("POST", "/v1/context:assemble", body=body, idempotency_key=idempotency_key)
        return AssembledContext.from_json(answer.get("context"))

    # -- observations --------------------------------------------------------------------

    async def observe(
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
    ) -> ObserveResult:
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
        answer = await self._call("POST", "/v1/observations:observe", body=body, idempotency_key=idempotency_key)
        return ObserveResult.from_json(answer)

    async def query_observations(
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
    ) -> Page[Observation]:
        """``GET /v1/observations``: by filters, best first. ``agent_id``, ``user_id`` and
        ``team_id`` keep only that agent's, user's, team's beliefs (any when empty); with
        ``scope_match="context"`` they select what a context for them may show instead (the user's
        and the organisation's shared beliefs, never another user's nor unattributed ones)."""
        return await self._page(
            "/v1/observations",
            "observations",
            Observation.from_json,
            agentId=agent_id,
            userId=user_id,
            teamId=team_id,
            scopeMatch=_enum(i.SCOPE_MATCH, scope_match),
            kind=_enum(i.OBSERVATION_KIND, kind),
            subjectType=_enum(i.SUBJECT_TYPE, subject_type),
            subjectId=subject_id,
            canonicalKey=canonical_key,
            status=_enum(i.OBSERVATION_STATUS, status),
            minConfidence=min_confidence,
            tags=list(tags),
            pageSize=page_size,
            pageToken=page_token,
        )

    async def search_observations(
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
    ) -> list[ObservationHit]:
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
        answer = await self._call("POST", "/v1/observations:search", body=body, idempotency_key=idempotency_key)
        return [ObservationHit.from_json(r) for r in answer.get("results") or ()]

    async def get_observation(self, observation_id: str) -> Observation:
        answer = await self._call("GET", f"/v1/observations/{_id(observation_id)}")
        return Observation.from_json(answer.get("observation") or {})

    async def observation_history(self, observation_id: str) -> list[Observation]:
        """The supersession chain, newest first."""
        answer = await self._call("GET", f"/v1/observations/{_id(observation_id)}/history")
        return [Observation.from_json(o) for o in answer.get("observations") or ()]

    async def confirm_observation(
        self, observation_id: str, *, note: str = "", request_id: str = "", idempotency_key: str | None = None
    ) -> Observation:
        body = i.compact({"note": note, "requestId": request_id})
        answer = await self._call(
            "POST", f"/v1/observations/{_id(observation_id)}:confirm", body=body, idempotency_key=idempotency_key
        )
        return Observation.from_json(answer.get("observation") or {})

    async def contradict_observation(
        self,
        observation_id: str,
        evidence: NewEvidence,
        *,
        correction: str = "",
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> ObserveResult:
        body = i.compact({"evidence": evidence.to_json(), "correction": correction, "requestId": request_id})
        answer = await self._call(
            "POST", f"/v1/observations/{_id(observation_id)}:contradict", body=body, idempotency_key=idempotency_key
        )
        return ObserveResult.from_json(answer)

    # -- engagement ----------------------------------------------------------------------

    async def get_engagement(self) -> Engagement:
        return Engagement.from_json(await self._call("GET", "/v1/engagement"))

    async def form_hypothesis(
        self,
        statement: str,
        evidence: Sequence[NewHypothesisEvidence] = (),
        *,
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> Hypothesis:
        body = i.compact(
            {"statement": statement, "evidence": [item.to_json() for item in evidence], "requestId": request_id}
        )
        answer = await self._call("POST", "/v1/engagement/hypotheses", body=body, idempotency_key=idempotency_key)
        return Hypothesis.from_json(answer.get("hypothesis") or {})

    async def add_hypothesis_evidence(
        self,
        hypothesis_id: str,
        evidence: NewHypothesisEvidence,
        *,
        request_id: str = "",
        idempotency_key: str | None = None,
    ) -> Hypothesis:
        body = i.compact({"evidence": evidence.to_json(), "requestId": request_id})
        path = f"/v1/engagement/hypotheses/{_id(hypothesis_id)}/evidence"
        answer = await self._call("POST", path, body=body, idempotency_key=idempotency_key)
        return Hypothesis.from_json(answer.get("hypothesis") or {})

    async def revise_hypothesis(
        self,
        hypothesis_id: str,
        *,
        reason: str,
        confidence: float | None = None,
        statement: str = "",
        idempotency_key: str | None = None,
    ) -> Hypothesis:
        body = i.compact({"confidence": confidence, "reason": reason, "statement": statement})
        path = f"/v1/engagement/hypotheses/{_id(hypothesis_id)}:revise"
        answer = await self._call("POST", path, body=body, idempotency_key=idempotency_key)
        return Hypothesis.from_json(answer.get("hypothesis") or {})

    async def promote_hypothesis(
        self, hypothesis_id: str, *, statement: str = "", source: str = "", idempotency_key: str | None = None
    ) -> tuple[Hypothesis, Finding]:
        body = i.compact({"statement": statement, "source": source})
        path = f"/v1/engagement/hypotheses/{_id(hypothesis_id)}:promote"
        answer = await self._call("POST", path, body=body, idempotency_key=idempotency_key)
        return Hypothesis.from_json(answer.get("hypothesis") or {}), Finding.from_json(answer.get("finding") or {})

    async def archive_hypothesis(
        self, hypothesis_id: str, *, note: str, idempotency_key: str | None = None
    ) -> Hypothesis:
        path = f"/v1/engagement/hypotheses/{_id(hypothesis_id)}:archive"
        answer = await self._call("POST", path, body={"note": note}, idempotency_key=idempotency_key)
        return Hypothesis.from_json(answer.get("hypothesis") or {})

    async def add_unknown(
        self, question: str, *, why_it_matters: str = "", request_id: str = "", idempotency_key: str | None = None
    ) -> Unknown:
        body = i.compact({"question": question, "whyItMatters": why_it_matters, "requestId": request_id})
        answer = await self._call("POST", "/v1/engagement/unknowns", body=body, idempotency_key=idempotency_key)
        return Unknown.from_json(answer.get("unknown") or {})

    async def resolve_unknown(self, unknown_id: str, resolution: str, *, idempotency_key: str | None = None) -> Unknown:
        path = f"/v1/engagement/unknowns/{_id(unknown_id)}:resolve"
        answer = await self._call("POST", path, body={"resolution": resolution}, idempotency_key=idempotency_key)
        return Unknown.from_json(answer.get("unknown") or {})

    async def advance_week(self, *, expected_week_number: int | None = None, idempotency_key: str | None = None) -> int:
        """Start the next week; ``expected_week_number`` makes a concurrent advance fail instead of
        skipping a week. Returns the new week number."""
        body = i.compact({"expectedWeekNumber": expected_week_number})
        answer = await self._call("POST", "/v1/engagement:advanceWeek", body=body, idempotency_key=idempotency_key)
        return int(answer.get("weekNumber", 0))

    # -- erasure, status, operations -----------------------------------------------------

    async def forget_subject(
        self, subject: ScopeLike, *, request_id: str = "", idempotency_key: str | None = None
    ) -> ErasureJob:
        """``POST /v1/subjects:forget`` (scope ``subjects:forget``): erasure as a durable job;
        the same ``request_id`` again returns the job's current state."""
        body = i.compact({"subject": i.scope_json(subject), "requestId": request_id})
        answer = await self._call("POST", "/v1/subjects:forget", body=body, idempotency_key=idempotency_key)
        return ErasureJob.from_json(answer.get("job") or {})

    async def status(self) -> Status:
        """``GET /v1/status`` (no credential needed): answered, not raised, when a service is down."""
        return Status.from_json(await self._call("GET", "/v1/status", accept=frozenset({503})))

    async def job_stats(self) -> list[JobKindStats]:
        """``GET /v1/admin/jobs`` (``admin`` scope): background jobs by kind and state."""
        answer = await self._call("GET", "/v1/admin/jobs")
        return [JobKindStats.from_json(k) for k in answer.get("kinds") or ()]
