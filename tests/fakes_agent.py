"""Hand-written fakes of the agent's ports (agent_svc.usecases.*_ports), for unit tests of its use
cases.

``InMemoryTranscript`` and ``InMemoryTurnLoop`` are kept honest by
tests/integration/agent/test_transcript_contract.py, which runs the same assertions against them
and the Postgres adapters. Like the adapters they share one store (the watermark is a column of
the session), so build the turn loop on the transcript: ``InMemoryTurnLoop(transcript)``.

``queued`` mirrors the job queue (agent.pgqueuer): a job is recorded only inside a write — an
append the session accepted, an end that ended an active session — and, as pgqueuer's
``on_conflict="skip"`` does, a job whose dedupe key is still waiting is not queued twice.
``requested`` keeps every job a ``then`` callback returned, duplicates included.

``InMemoryErasureStore`` keeps erasures beside an ``InMemoryTranscript`` (sessions and turns are
the transcript's; turn results the ``InMemoryTurnLoop``'s, when given), as the Postgres store keeps
them beside the transcript's tables; tests/integration/agent/test_erasure_store_contract.py keeps it
honest.

Every fake of a remote service (working memory, assembler, model, memories, observations, engagement,
episodes, timeline, subject eraser) has ``down``: set it and its calls raise ``DependencyUnavailable`` (working
memory's lease answers None instead, as the gRPC adapter does). ``calls`` logs what was asked.

The fakes of the other services are held to the ``Grpc*`` adapters the agent runs with by
tests/integration/agent/port_contracts/ (the same assertions on the fake and on the adapter against the
in-process services; outages on both sides): memories, observations, engagement, episodes, working memory,
timeline, subject eraser (the assembler's only for outages: its fake's context is canned). Where they
disagreed, the adapter was right and the fake was changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from agent_svc.adapters.grpc_observations import slot_of, subject_of
from agent_svc.domain.digest import DayEpisode, Digest
from agent_svc.domain.engagement import PROMOTION_THRESHOLD, ActiveHypothesis, EngagementView
from agent_svc.domain.extraction import EpisodeDraft, ExtractedClaim, Plan
from agent_svc.domain.jobs import Job, erase_job
from agent_svc.domain.thread_closure import OpenThreadRef
from agent_svc.domain.transcript import Appended, Scope, Session, ToolInteraction, Turn
from agent_svc.domain.turn_loop import Assembled, KeptResult, Opaque, TurnResult
from agent_svc.usecases.digest_ports import StoredDigest
from agent_svc.usecases.erasure_ports import ErasedObservations, Erasure
from agent_svc.usecases.memory_ports import MemoryWrite
from agent_svc.usecases.reflection_ports import Evidence
from agent_svc.usecases.turn_loop_ports import EmotionPoint
from lore_runtime.errors import Conflict, DependencyUnavailable, FailedPrecondition, InvalidArgument, QuotaExceeded

_NAMESPACE = uuid.UUID("0c1d2e3f-4a5b-4c6d-8e7f-a0b1c2d3e4f5")


class Remote:
    """What every fake of a remote service shares: an outage switch and a log of calls."""

    def __init__(self) -> None:
        self.down = False
        self.calls: list[str] = []

    def _enter(self, method: str) -> None:
        self.calls.append(method)
        if self.down:
            raise DependencyUnavailable(f"{type(self).__name__}.{method} is down", reason="UNAVAILABLE")


# --- the transcript and what the turn loop keeps beside it (Postgres in production) ---------------


class InMemoryTranscript:
    def __init__(self) -> None:
        self.sessions: dict[tuple[str, str], Session] = {}
        self.turns_by_session: dict[tuple[str, str], list[Turn]] = {}
        self._request_ids: dict[tuple[str, str, str], str] = {}
        self.queued: list[Job] = []
        self.requested: list[Job] = []
        # Erasure's fence (InMemoryErasureStore sets it): a new session or turn of a scope being
        # erased is refused, as Postgres's triggers refuse it.
        self.fence: Callable[[str, Scope], Awaitable[bool]] | None = None

    async def _refuse_while_erasing(self, org_id: str, scope: Scope) -> None:
        if self.fence is not None and await self.fence(org_id, scope):
            raise Conflict("this subject is being erased", reason="SUBJECT_ERASING")

    def _enqueue(self, jobs: Sequence[Job]) -> None:
        for job in jobs:
            self.requested.append(job)
            if all(waiting.dedupe_key != job.dedupe_key for waiting in self.queued):
                self.queued.append(job)

    def finish(self, job: Job) -> None:
        """The worker ran ``job``: an identical one may be queued again."""
        self.queued.remove(job)

    async def start(self, session: Session, request_id: str, requester: str = "") -> Session:
        await self._refuse_while_erasing(session.org_id, session.scope)
        if request_id and (existing := self._request_ids.get((session.org_id, requester, request_id))) is not None:
            return self.sessions[(session.org_id, existing)]
        stored = dataclasses.replace(
            session,
            status="active",
            last_active_at=session.started_at,
            ended_at=None,
            end_reason="",
            turn_count=0,
            metadata=dict(session.metadata),
            reflected_through=0,
        )
        self.sessions[(session.org_id, session.id)] = stored
        self.turns_by_session[(session.org_id, session.id)] = []
        if request_id:
            self._request_ids[(session.org_id, requester, request_id)] = session.id
        return stored

    async def get(self, org_id: str, session_id: str) -> Session | None:
        return self.sessions.get((org_id, session_id))

    async def list(
        self, org_id: str, scope: Scope, status: str | None, limit: int, after: tuple[datetime, str] | None
    ) -> list[Session]:
        def wanted(session: Session) -> bool:
            return (
                session.org_id == org_id
                and all(
                    not given or given == held
                    for given, held in zip(_scope_ids(scope), _scope_ids(session.scope), strict=True)
                )
                and (not status or session.status == status)
                and (after is None or _session_order(session) < (after[0], uuid.UUID(after[1])))
            )

        found = sorted(filter(wanted, self.sessions.values()), key=_session_order, reverse=True)
        return found[:limit]

    async def end(
        self,
        org_id: str,
        session_id: str,
        reason: str,
        now: datetime,
        then: Callable[[Session], Sequence[Job]] = lambda session: (),
    ) -> Session | None:
        session = self.sessions.get((org_id, session_id))
        if session is None or session.status != "active":
            return session
        ended = dataclasses.replace(session, status="ended", end_reason=reason, ended_at=now)
        jobs = list(then(ended))  # the callback runs inside the write: if it raises, nothing is stored
        self.sessions[(org_id, session_id)] = ended
        self._enqueue(jobs)
        return ended

    async def append(
        self,
        org_id: str,
        session_id: str,
        turns: Sequence[Turn],
        now: datetime,
        then: Callable[[Appended], Sequence[Job]] = lambda appended: (),
    ) -> Appended:
        session = self.sessions.get((org_id, session_id))
        if session is None or session.status != "active":
            return Appended([], 0, accepted=False)
        await self._refuse_while_erasing(org_id, session.scope)
        existing = self.turns_by_session[(org_id, session_id)]
        new: list[Turn] = []
        stored: list[Turn] = []
        sequence = session.turn_count
        for turn in turns:
            if turn.idempotency_key:
                same = [t for t in [*existing, *new] if t.idempotency_key == turn.idempotency_key]
                if same:
                    stored.append(same[0])
                    continue
            sequence += 1
            written = dataclasses.replace(
                turn,
                session_id=session_id,
                sequence=sequence,
                metadata=dict(turn.metadata),
                tool_interactions=tuple(_stored_tool(tool) for tool in turn.tool_interactions),
            )
            new.append(written)
            stored.append(written)
        appended = Appended(stored, len(new))
        jobs = list(then(appended))  # as Postgres: called for every accepted append, replays included
        existing.extend(new)
        if new:
            self.sessions[(org_id, session_id)] = dataclasses.replace(
                session, turn_count=sequence, last_active_at=max(session.last_active_at, now)
            )
        self._enqueue(jobs)
        return appended

    async def turns(self, org_id: str, session_id: str, limit: int, after_sequence: int) -> list[Turn]:
        found = [t for t in self.turns_by_session.get((org_id, session_id), []) if t.sequence > after_sequence]
        return found[:limit]

    async def turn(self, org_id: str, turn_id: str) -> Turn | None:
        for (org, _), turns in self.turns_by_session.items():
            if org == org_id:
                for turn in turns:
                    if turn.id == turn_id:
                        return turn
        return None

    def turn_count(self, org_id: str) -> int:
        """Turns stored for the org, across its sessions (what a contract test counts)."""
        return sum(len(turns) for (org, _), turns in self.turns_by_session.items() if org == org_id)


def _scope_ids(scope: Scope) -> tuple[str, str, str]:
    return scope.user_id, scope.agent_id, scope.team_id


def _session_order(session: Session) -> tuple[datetime, uuid.UUID]:
    return session.started_at, uuid.UUID(session.id)


def _stored_tool(tool: ToolInteraction) -> ToolInteraction:
    """As the JSON column gives it back: plain dict and tuple."""
    return dataclasses.replace(tool, result=dict(tool.result), salient_fields=tuple(tool.salient_fields))


class InMemoryTurnLoop:
    """Turn results, the reflection watermark (kept on the transcript's session, as the column is),
    the idle scan, the active scopes, and a per-session lock."""

    def __init__(self, transcript: InMemoryTranscript) -> None:
        self._transcript = transcript
        self._results: dict[tuple[str, str], TurnResult] = {}
        self._saved_at: dict[tuple[str, str], datetime] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.marks: list[tuple[str, int]] = []  # (session, sequence) for every mark_reflected

    async def result(self, org_id: str, turn_id: str) -> TurnResult | None:
        return self._results.get((org_id, turn_id))

    async def kept_result(self, org_id: str, turn_id: str) -> KeptResult | None:
        result = self._results.get((org_id, turn_id))
        return KeptResult(result, self._saved_at[(org_id, turn_id)]) if result is not None else None

    async def save_result(
        self, org_id: str, session_id: str, turn_id: str, result: TurnResult, now: datetime
    ) -> TurnResult:
        if (org_id, session_id) not in self._transcript.sessions:
            raise LookupError(f"session {session_id} is not in org {org_id} (a foreign key in Postgres)")
        self._saved_at.setdefault((org_id, turn_id), now)
        return self._results.setdefault((org_id, turn_id), result)

    async def prune_results(self, before: datetime, batch: int = 1_000) -> int:
        doomed = [key for key, saved in self._saved_at.items() if saved < before]
        for key in doomed:
            del self._saved_at[key], self._results[key]
        return len(doomed)

    async def reflected_through(self, org_id: str, session_id: str) -> int:
        session = self._transcript.sessions.get((org_id, session_id))
        return session.reflected_through if session is not None else 0

    async def mark_reflected(self, org_id: str, session_id: str, sequence: int) -> None:
        self.marks.append((session_id, sequence))
        session = self._transcript.sessions.get((org_id, session_id))
        if session is not None:
            self._transcript.sessions[(org_id, session_id)] = dataclasses.replace(
                session, reflected_through=max(session.reflected_through, sequence)
            )

    async def idle_sessions(self, before: datetime, limit: int) -> list[tuple[str, str]]:
        idle = sorted(
            (s for s in self._transcript.sessions.values() if s.status == "active" and s.last_active_at < before),
            key=lambda s: s.last_active_at,
        )
        return [(s.org_id, s.id) for s in idle[:limit]]

    async def active_scopes(self, start: datetime, end: datetime) -> list[tuple[str, Scope]]:
        found = {
            (s.org_id, *_scope_ids(s.scope))
            for s in self._transcript.sessions.values()
            if s.started_at < end and s.last_active_at >= start
        }
        return [(org, Scope(*ids)) for org, *ids in sorted(found)]

    @contextlib.asynccontextmanager
    async def session_lock(self, session_id: str) -> AsyncIterator[None]:
        async with self._locks.setdefault(session_id, asyncio.Lock()):
            yield


# --- the services the turn loop and the jobs call ----------------------------------------------


@dataclass
class SessionWorkingMemory:
    turns: list[Turn] = field(default_factory=list)
    last_tool_result: ToolInteraction | None = None
    summary: str = ""
    plan: Plan | None = None
    emotions: list[EmotionPoint] = field(default_factory=list)


class FakeWorkingMemory(Remote):
    """The memory service's working memory as the agent uses it: a lease per session (a turn
    waits for the one before it), turns kept once per transcript id, reflection's updates
    merged as the gRPC adapter merges them (emotions deduplicated by turn, the last five)."""

    def __init__(self) -> None:
        super().__init__()
        self.sessions: dict[str, SessionWorkingMemory] = {}
        self.appends: list[tuple[str, str]] = []  # (session, turn id) for every append that arrived
        self.released: list[tuple[str, str]] = []
        self._locks: dict[str, asyncio.Lock] = {}
        self._holders: dict[str, tuple[str, int]] = {}
        self._tokens: dict[str, int] = {}

    def memory(self, session_id: str) -> SessionWorkingMemory:
        return self.sessions.setdefault(session_id, SessionWorkingMemory())

    def held(self, session_id: str) -> bool:
        return session_id in self._holders

    async def acquire_lease(self, session_id: str, holder: str) -> int | None:
        self.calls.append("acquire_lease")
        if self.down:
            return None
        await self._locks.setdefault(session_id, asyncio.Lock()).acquire()
        token = self._tokens.get(session_id, 0) + 1
        self._tokens[session_id] = token
        self._holders[session_id] = (holder, token)
        return token

    async def acquire_lease_and_append(self, session_id: str, holder: str, turn: Turn) -> int | None:
        """As the memory service's AppendTurn with ``acquire_lease``: the append only once the lease is held."""
        self.calls.append("acquire_lease_and_append")
        if self.down:
            return None
        await self._locks.setdefault(session_id, asyncio.Lock()).acquire()
        token = self._tokens.get(session_id, 0) + 1
        self._tokens[session_id] = token
        self._holders[session_id] = (holder, token)
        self._append(session_id, turn)
        return token

    async def release_lease(self, session_id: str, holder: str) -> None:
        self._enter("release_lease")
        if self._holders.get(session_id, ("",))[0] == holder:
            del self._holders[session_id]
            self._locks[session_id].release()
            self.released.append((session_id, holder))

    async def append_turn(self, session_id: str, turn: Turn, fencing_token: int | None) -> None:
        self._enter("append_turn")
        self._append(session_id, turn)

    def _append(self, session_id: str, turn: Turn) -> None:
        self.appends.append((session_id, turn.id))
        memory = self.memory(session_id)
        if all(kept.id != turn.id for kept in memory.turns):
            memory.turns.append(turn)

    async def set_last_tool_result(self, session_id: str, tool: ToolInteraction) -> None:
        self._enter("set_last_tool_result")
        self.memory(session_id).last_tool_result = tool

    async def reflect(self, session_id: str, summary: str, plan: Plan | None, emotions: Sequence[EmotionPoint]) -> None:
        self._enter("reflect")
        memory = self.memory(session_id)
        memory.summary = summary
        if plan is not None:
            memory.plan = plan
        if emotions:
            seen = {point.turn_id for point in memory.emotions}
            memory.emotions = [*memory.emotions, *(p for p in emotions if p.turn_id not in seen)][-5:]


class FakeContextAssembler(Remote):
    """Context ``"context for <message>"``, Prime ``b"prime:<user>:<initial message>"``; ``error``
    makes both raise that instead (not an outage)."""

    def __init__(self) -> None:
        super().__init__()
        self.error: Exception | None = None
        self.asked: list[tuple[str, str, object]] = []  # (session, message, the options' message or None)
        self.primed: list[tuple[Scope, str]] = []  # (scope, initial message)

    async def assemble(self, session: Session, message: str, options: Opaque | None) -> Assembled:
        self._enter("assemble")
        if self.error is not None:
            raise self.error
        self.asked.append((session.id, message, None if options is None else options.message))
        payload = f"payload:{message}".encode()
        return Assembled(text=f"context for {message}", payload=payload, message=Opaque(payload))

    async def prime(self, scope: Scope, initial_message: str) -> Opaque:
        self._enter("prime")
        if self.error is not None:
            raise self.error
        self.primed.append((scope, initial_message))
        return Opaque(f"prime:{scope.user_id}:{initial_message}".encode())


class FakeLanguageModel(Remote):
    """Answers ``answer`` (by default ``"You said: <last message>"``)."""

    def __init__(self, answer: str | None = None) -> None:
        super().__init__()
        self.answer = answer
        self.prompts: list[list[tuple[str, str]]] = []

    async def reply(self, messages: list[tuple[str, str]]) -> str:
        self._enter("reply")
        self.prompts.append(list(messages))
        return self.answer if self.answer is not None else f"You said: {messages[-1][1]}"


@dataclass(frozen=True)
class StoredMemory:
    id: str
    scope: Scope
    session_id: str
    write: MemoryWrite


def memory_id_for(key: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"memory\x00{key}"))


class FakeMemories(Remote):
    """Remember, idempotent by key: the id is derived from the key, so a write repeated is the
    same id twice in ``writes`` but one entry in ``items``. ``remembered`` logs each call's
    keys (one call per reflected turn); ``index`` writes imported turns as ``message`` memories
    with key ``turn:<turn id>``, as the gRPC adapter does."""

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[str, StoredMemory] = {}
        self.writes: list[tuple[str, MemoryWrite]] = []
        self.remembered: list[list[str]] = []
        self.superseded: set[str] = set()
        self.completed: set[str] = set()

    def _write(self, scope: Scope, session_id: str, write: MemoryWrite) -> str:
        memory_id = memory_id_for(write.key)
        self.writes.append((memory_id, write))
        self.items.setdefault(memory_id, StoredMemory(memory_id, scope, session_id, write))
        return memory_id

    async def remember(self, scope: Scope, session_id: str, items: Sequence[MemoryWrite]) -> list[str]:
        self._enter("remember")
        self.remembered.append([item.key for item in items])
        return [self._write(scope, session_id, item) for item in items]

    async def index(self, scope: Scope, session_id: str, turns: Sequence[Turn]) -> None:
        self._enter("index")
        for turn in turns:
            self._write(scope, session_id, MemoryWrite.message(turn))

    async def supersede(self, memory_ids: Sequence[str]) -> int:
        """As the gRPC adapter: current facts and preferences among the ids become superseded."""
        self._enter("supersede")
        replaceable = [
            memory_id
            for memory_id in dict.fromkeys(memory_ids)
            if memory_id in self.items
            and self.items[memory_id].write.kind in ("fact", "preference")
            and memory_id not in self.superseded
        ]
        self.superseded.update(replaceable)
        return len(replaceable)

    async def complete_commitments(self, scope: Scope, contents: Sequence[str]) -> int:
        """As the gRPC adapter: the scope's (browse match) current commitments with exactly that content."""
        self._enter("complete_commitments")
        wanted = {name: value for name, value in dataclasses.asdict(scope).items() if value}
        done = [
            memory_id
            for memory_id, item in self.items.items()
            if item.write.kind == "commitment"
            and item.write.content in set(contents)
            and all(getattr(item.scope, name) == value for name, value in wanted.items())
            and memory_id not in self.completed
        ]
        self.completed.update(done)
        return len(done)

    def of_kind(self, kind: str) -> list[StoredMemory]:
        return [item for item in self.items.values() if item.write.kind == kind]


@dataclass(frozen=True)
class Observed:
    scope: Scope
    claim: ExtractedClaim
    evidence: Evidence
    request_id: str


@dataclass
class HeldObservation:
    """An observation (a belief) as the fake observations service holds it: its claim, the weight of its
    support and contradiction (one per line), and the memories among its evidence, in the order recorded."""

    summary: str
    support: int = 1
    contradiction: int = 0
    memory_ids: list[str] = field(default_factory=list)


def _same_claim(a: str, b: str) -> bool:
    """As the service compares claims: case, spacing and final punctuation aside."""

    def normalised(text: str) -> str:
        return " ".join(text.casefold().split()).rstrip(".!;")

    return normalised(a) == normalised(b)


class FakeObservations(Remote):
    """Observe as the observations service decides it, for a claim with one line of evidence (the turn)
    and its memories as context (tests/integration/agent/port_contracts/test_observations_contract.py holds it
    to GrpcObservations). A belief is the current one of its scope and key (kind, subject, slot as the
    adapter normalises them). The same claim supports it; a different one is recorded against it,
    memories included, and supersedes it once its contradiction reaches its support (a tie goes to the
    newer claim): the call then returns the superseded belief's memories, this call's among them (the
    caller drops its own). A replayed request id answers what it first answered.

    ``observed`` logs every call that got through, with the scope the belief is recorded under (the
    session's: its user, agent and team); ``fail_for_turns`` makes the calls whose evidence is one of
    those turns fail (the service answered UNAVAILABLE)."""

    def __init__(self) -> None:
        super().__init__()
        self.observed: list[Observed] = []
        self.fail_for_turns: set[str] = set()
        self.current: dict[tuple, HeldObservation] = {}
        self._answers: dict[str, HeldObservation | None] = {}  # request id -> the belief it superseded

    async def observe(self, scope: Scope, claim: ExtractedClaim, evidence: Evidence, request_id: str) -> list[str]:
        self._enter("observe")
        if evidence.turn_id in self.fail_for_turns:
            raise DependencyUnavailable(f"observe failed for turn {evidence.turn_id}", reason="UNAVAILABLE")
        self.observed.append(Observed(scope, claim, evidence, request_id))
        if request_id in self._answers:
            replaced = self._answers[request_id]
        else:
            replaced = self._decide(scope, claim, evidence)
            if request_id:
                self._answers[request_id] = replaced
        return list(replaced.memory_ids) if replaced is not None else []

    def _decide(self, scope: Scope, claim: ExtractedClaim, evidence: Evidence) -> HeldObservation | None:
        """The belief the claim superseded, if it did."""
        key = (scope, claim.kind, *subject_of(scope, claim), slot_of(claim.slot))
        held = self.current.get(key)
        if held is None:
            self.current[key] = HeldObservation(claim.summary, memory_ids=list(evidence.memory_ids))
            return None
        held.memory_ids.extend(evidence.memory_ids)
        if _same_claim(held.summary, claim.summary):
            held.support += 1
            return None
        held.contradiction += 1
        if held.contradiction < held.support:
            return None
        self.current[key] = HeldObservation(claim.summary, memory_ids=list(evidence.memory_ids))
        return held


class FakeEngagement(Remote):
    """The org's engagement state as the EngagementService keeps it, in memory: the confidence
    rule from the 0.5 prior (no revisions), request-id replays, ``max_active`` / ``max_open`` as
    the service's limits (QuotaExceeded beyond). ``hypotheses`` by id, ``unknowns`` in order."""

    def __init__(self, max_active: int = 50, max_open: int = 100) -> None:
        super().__init__()
        self.max_active, self.max_open = max_active, max_open
        self.hypotheses: dict[str, dict] = {}
        self.unknowns: list[str] = []
        self._requests: dict[str, str] = {}

    def _view(self, hypothesis_id: str) -> ActiveHypothesis:
        h = self.hypotheses[hypothesis_id]
        support = sum(1 for _, supports, _ in h["evidence"] if supports)
        contradiction = len(h["evidence"]) - support
        return ActiveHypothesis(
            hypothesis_id,
            h["statement"],
            (support + 1.0) / (support + contradiction + 2.0),
            contradiction,
            len(h["evidence"]),
            h["status"] == "active",
        )

    def statements(self, status: str = "active") -> list[str]:
        return [h["statement"] for h in self.hypotheses.values() if h["status"] == status]

    async def state(self) -> EngagementView:
        self._enter("state")
        active = tuple(self._view(i) for i, h in self.hypotheses.items() if h["status"] == "active")
        return EngagementView(active, tuple(self.unknowns))

    async def form(self, statement: str, request_id: str) -> ActiveHypothesis:
        self._enter("form")
        if request_id in self._requests:
            return self._view(self._requests[request_id])
        if len(self.statements()) >= self.max_active:
            raise QuotaExceeded("too many active hypotheses", reason="TOO_MANY_ACTIVE_HYPOTHESES")
        hypothesis_id = str(uuid.uuid5(_NAMESPACE, request_id))
        self.hypotheses[hypothesis_id] = {"statement": statement, "evidence": [], "status": "active"}
        self._requests[request_id] = hypothesis_id
        return self._view(hypothesis_id)

    async def add_evidence(
        self, hypothesis_id: str, statement: str, supports: bool, source: str, request_id: str
    ) -> ActiveHypothesis:
        self._enter("add_evidence")
        if request_id not in self._requests:
            if self.hypotheses[hypothesis_id]["status"] != "active":
                raise FailedPrecondition("the hypothesis is closed", reason="HYPOTHESIS_CLOSED")
            self.hypotheses[hypothesis_id]["evidence"].append((statement, supports, source))
            self._requests[request_id] = hypothesis_id
        return self._view(hypothesis_id)

    async def promote(self, hypothesis_id: str, source: str) -> None:
        """As the service: only an active hypothesis at the threshold with no contradiction outstanding."""
        self._enter("promote")
        view = self._view(hypothesis_id)
        if not view.active or view.confidence < PROMOTION_THRESHOLD or view.outstanding_contradictions:
            raise FailedPrecondition("cannot promote the hypothesis", reason="PROMOTION_BLOCKED")
        self.hypotheses[hypothesis_id]["status"] = "promoted"

    async def archive(self, hypothesis_id: str, note: str) -> None:
        self._enter("archive")
        if self.hypotheses[hypothesis_id]["status"] != "active":
            raise FailedPrecondition("the hypothesis is closed", reason="HYPOTHESIS_CLOSED")
        self.hypotheses[hypothesis_id]["status"] = "archived"

    async def add_unknown(self, question: str, why_it_matters: str, request_id: str) -> None:
        self._enter("add_unknown")
        if request_id in self._requests:
            return
        for name, text in (("question", question), ("why_it_matters", why_it_matters)):
            if not text.strip():
                raise InvalidArgument(name, "is required")
        if len(self.unknowns) >= self.max_open:
            raise QuotaExceeded("too many open unknowns", reason="TOO_MANY_OPEN_UNKNOWNS")
        self.unknowns.append(question)
        self._requests[request_id] = question


@dataclass(frozen=True)
class CreatedEpisode:
    id: str
    session: Session
    draft: EpisodeDraft
    message_count: int
    started_at: datetime
    ended_at: datetime


class FakeEpisodes(Remote):
    """CreateEpisode once per session (request id ``episode:<session>``): a re-run gets the same id."""

    def __init__(self) -> None:
        super().__init__()
        self.created: dict[str, CreatedEpisode] = {}
        self.resolved: dict[tuple[str, int], str] = {}

    async def create(
        self, session: Session, draft: EpisodeDraft, message_count: int, started_at: datetime, ended_at: datetime
    ) -> str:
        self._enter("create")
        if not draft.summary.strip():  # as the memory service validates an episode
            raise InvalidArgument("episode.summary", "must not be empty")
        episode_id = str(uuid.uuid5(_NAMESPACE, f"episode\x00{session.id}"))
        self.created.setdefault(
            session.id, CreatedEpisode(episode_id, session, draft, message_count, started_at, ended_at)
        )
        return episode_id

    async def open_threads(self, scope: Scope, limit: int) -> list[OpenThreadRef]:
        """Browse match: episodes whose scope has every id ``scope`` sets; newest first."""
        self._enter("open_threads")
        wanted = {name: value for name, value in dataclasses.asdict(scope).items() if value}
        found = [
            OpenThreadRef(created.id, index, thread.topic, thread.context, created.ended_at)
            for created in sorted(self.created.values(), key=lambda c: (c.ended_at, c.id), reverse=True)
            if all(getattr(created.session.scope, name) == value for name, value in wanted.items())
            for index, thread in enumerate(created.draft.open_threads)
            if thread.status != "resolved" and (created.id, index) not in self.resolved
        ]
        return found[:limit]

    async def resolve_thread(self, episode_id: str, index: int, resolution: str) -> None:
        self._enter("resolve_thread")
        self.resolved.setdefault((episode_id, index), resolution)  # idempotent: the first note is kept


class FakeActiveScopes:
    """ActiveScopes given outright: (org, scope, first active, last active) per entry."""

    def __init__(self, active: Sequence[tuple[str, Scope, datetime, datetime]] = ()) -> None:
        self.active = list(active)
        self.asked: list[tuple[datetime, datetime]] = []

    async def active_scopes(self, start: datetime, end: datetime) -> list[tuple[str, Scope]]:
        self.asked.append((start, end))
        found = {(org, scope): None for org, scope, first, last in self.active if first < end and last >= start}
        return list(found)


class FakeTimeline(Remote):
    """The memory service as the digest job sees it: episodes by (org, scope) with their end time,
    a day's oldest first; one digest per (org, scope, day) — a rewrite lands on the same item and
    keeps its status. Held to GrpcTimeline by
    tests/integration/agent/port_contracts/test_timeline_contract.py."""

    def __init__(self) -> None:
        super().__init__()
        self.day_episodes: dict[tuple[str, Scope], list[tuple[datetime, DayEpisode]]] = {}
        self.stored: dict[tuple[str, Scope, date], tuple[StoredDigest, Digest]] = {}
        self.writes: list[tuple[str, Scope, Digest]] = []
        self.status_changes: list[tuple[str, str, str]] = []  # (org, digest id, status)

    def add_episode(self, org_id: str, scope: Scope, at: datetime, episode: DayEpisode) -> None:
        self.day_episodes.setdefault((org_id, scope), []).append((at, episode))

    def add_digest(self, org_id: str, scope: Scope, day: date, status: str = "active") -> StoredDigest:
        stored = StoredDigest(self._digest_id(org_id, scope, day), day, status)
        self.stored[(org_id, scope, day)] = (stored, Digest(day, f"digest of {day}", 1))
        return stored

    @staticmethod
    def _digest_id(org_id: str, scope: Scope, day: date) -> str:
        return str(uuid.uuid5(_NAMESPACE, f"digest\x00{org_id}\x00{_scope_ids(scope)}\x00{day.isoformat()}"))

    async def episodes(self, org_id: str, scope: Scope, start: datetime, end: datetime) -> list[DayEpisode]:
        self._enter("episodes")
        held = sorted(self.day_episodes.get((org_id, scope), []), key=lambda entry: entry[0])  # oldest first
        return [episode for at, episode in held if start <= at < end]

    async def write_digest(self, org_id: str, scope: Scope, digest: Digest) -> None:
        self._enter("write_digest")
        self.writes.append((org_id, scope, digest))
        key = (org_id, scope, digest.day)
        status = self.stored[key][0].status if key in self.stored else "active"
        self.stored[key] = (StoredDigest(self._digest_id(org_id, scope, digest.day), digest.day, status), digest)

    async def digests(self, org_id: str, scope: Scope) -> list[StoredDigest]:
        self._enter("digests")
        return [
            stored
            for (org, owner, _), (stored, _) in sorted(self.stored.items(), key=lambda entry: entry[0][2])
            if org == org_id and owner == scope and stored.status in ("active", "warm")
        ]

    async def set_status(self, org_id: str, digest_id: str, status: str) -> None:
        self._enter("set_status")
        self.status_changes.append((org_id, digest_id, status))
        for key, (stored, digest) in self.stored.items():
            if key[0] == org_id and stored.id == digest_id:
                self.stored[key] = (dataclasses.replace(stored, status=status), digest)


# --- erasure ------------------------------------------------------------------------------------


class InMemoryErasureStore:
    """Erasures of the orgs, beside the transcript whose sessions and turns they erase (and the turn
    loop whose turn results go with them, when given). Kept honest by
    tests/integration/agent/test_erasure_store_contract.py.

    ``queued`` mirrors the job queue as ``InMemoryTranscript.queued`` does (a job whose dedupe key
    is still waiting is not queued twice); ``dead_letter`` parks a job as the worker does once its
    attempts are spent, and ``get`` then reports its unfinished erasure ``dead_lettered``."""

    def __init__(self, transcript: InMemoryTranscript, loop: InMemoryTurnLoop | None = None) -> None:
        self._transcript = transcript
        self._loop = loop
        transcript.fence = self.erasing
        self.erasures: dict[tuple[str, str], Erasure] = {}
        self._request_ids: dict[tuple[str, str, str], str] = {}
        self.queued: list[Job] = []
        self.dead: list[Job] = []
        self.running: list[Job] = []  # reflect or episode jobs a worker runs now

    def _enqueue(self, jobs: Sequence[Job]) -> None:
        for job in jobs:
            if all(waiting.dedupe_key != job.dedupe_key for waiting in self.queued):
                self.queued.append(job)

    def dead_letter(self, job: Job) -> None:
        """The worker gave up on ``job``: it leaves the queue for the dead-letter state."""
        self.queued = [waiting for waiting in self.queued if waiting.dedupe_key != job.dedupe_key]
        self.dead.append(job)

    async def request(
        self, erasure: Erasure, request_id: str, then: Callable[[Erasure], Sequence[Job]], requester: str = ""
    ) -> Erasure:
        if request_id and (existing := self._request_ids.get((erasure.org_id, requester, request_id))) is not None:
            return self.erasures[(erasure.org_id, existing)]
        stored = dataclasses.replace(  # as the row is inserted: pending, no counts, the principal cut
            erasure, status="pending", completed_at=None, counts={}, principal=erasure.principal[:256]
        )
        jobs = list(then(stored))
        self.erasures[(erasure.org_id, erasure.id)] = stored
        if request_id:
            self._request_ids[(erasure.org_id, requester, request_id)] = erasure.id
        self._enqueue(jobs)
        return stored

    async def get(self, org_id: str, erasure_id: str) -> Erasure | None:
        erasure = self.erasures.get((org_id, erasure_id))
        if erasure is None or erasure.status == "completed":
            return erasure
        key = erase_job(org_id, erasure_id).dedupe_key
        parked = any(job.dedupe_key == key for job in self.dead)
        if parked and all(job.dedupe_key != key for job in self.queued):
            return dataclasses.replace(erasure, status="dead_lettered")
        return erasure

    async def requeue(self, erasure: Erasure, jobs: Sequence[Job]) -> None:
        self._enqueue(jobs)

    async def mark_running(self, org_id: str, erasure_id: str) -> Erasure | None:
        erasure = self.erasures.get((org_id, erasure_id))
        if erasure is not None and erasure.status != "completed":
            erasure = self.erasures[(org_id, erasure_id)] = dataclasses.replace(erasure, status="running")
        return erasure

    async def subject_sessions(self, org_id: str, subject: Scope) -> list[str]:
        given = [(index, value) for index, value in enumerate(_scope_ids(subject)) if value]
        if not given:
            return []
        return sorted(
            session.id
            for (org, _), session in self._transcript.sessions.items()
            if org == org_id and all(_scope_ids(session.scope)[index] == value for index, value in given)
        )

    async def erasing(self, org_id: str, scope: Scope) -> bool:
        """The fence: an unfinished erasure whose every given id equals the scope's."""
        return any(
            org == org_id
            and erasure.status != "completed"
            and all(
                not given or given == held
                for given, held in zip(_scope_ids(erasure.subject), _scope_ids(scope), strict=True)
            )
            for (org, _), erasure in self.erasures.items()
        )

    async def running_session_jobs(self, org_id: str, session_ids: Sequence[str]) -> int:
        """Jobs a test marks running (``running``) for those sessions."""
        return sum(job.org_id == org_id and job.args.get("session_id") in session_ids for job in self.running)

    async def turn_ids(self, org_id: str, session_ids: Sequence[str]) -> list[str]:
        return sorted(
            turn.id
            for session_id in dict.fromkeys(session_ids)  # once each, as ``= ANY(...)`` matches
            for turn in self._transcript.turns_by_session.get((org_id, session_id), [])
        )

    async def record(self, org_id: str, erasure_id: str, counts: dict[str, int]) -> None:
        erasure = self.erasures.get((org_id, erasure_id))
        if erasure is None:  # not in the org: the UPDATE matches no row
            return
        merged = {**erasure.counts, **{key: max(value, erasure.counts.get(key, 0)) for key, value in counts.items()}}
        self.erasures[(org_id, erasure_id)] = dataclasses.replace(erasure, counts=merged)

    async def delete_transcript(self, org_id: str, erasure_id: str, session_ids: Sequence[str]) -> None:
        turns = sessions = 0
        for session_id in session_ids:
            deleted = self._transcript.turns_by_session.pop((org_id, session_id), [])
            turns += len(deleted)
            sessions += self._transcript.sessions.pop((org_id, session_id), None) is not None
            if self._loop is not None:  # the turn results go with their turns
                for turn in deleted:
                    self._loop._results.pop((org_id, turn.id), None)
                    self._loop._saved_at.pop((org_id, turn.id), None)
        # The request ids went with the rows: a retried start makes a new session.
        live = self._transcript._request_ids
        for key in [key for key, session_id in live.items() if key[0] == org_id and session_id in session_ids]:
            del live[key]
        # The jobs still waiting for those sessions go with them (Postgres: also the dead-lettered ones).
        waiting = self._transcript.queued
        doomed = [job for job in waiting if job.org_id == org_id and job.args.get("session_id") in session_ids]
        self._transcript.queued = [job for job in waiting if job not in doomed]
        await self.record(org_id, erasure_id, {"turns": turns, "sessions": sessions, "jobs": len(doomed)})

    async def forget_shown(self, org_id: str, erasure_id: str, observation_ids: Sequence[str]) -> None:
        if not observation_ids or self._loop is None:
            return
        results = self._loop._results
        doomed = [
            key
            for key, result in results.items()
            if key[0] == org_id and any(shown.encode() in result.context for shown in observation_ids)
        ]
        for key in doomed:
            del results[key]
            self._loop._saved_at.pop(key, None)
        await self.record(org_id, erasure_id, {"cached_contexts": len(doomed)})

    async def complete(self, org_id: str, erasure_id: str, now: datetime) -> Erasure:
        erasure = self.erasures[(org_id, erasure_id)]
        done = dataclasses.replace(erasure, status="completed", completed_at=erasure.completed_at or now)
        self.erasures[(org_id, erasure_id)] = done
        return done


@dataclass(frozen=True)
class ObservationErasure:
    subject_type: str
    subject_id: str
    source_ids: tuple[str, ...]
    request_id: str
    user_id: str


class FakeSubjectEraser(Remote):
    """The erasure's calls to the memory and observations services: ``memories`` (id -> scope) are
    the org's long-term memories the subject's ids select; ``observation_erasures`` logs every
    EraseSubject call."""

    def __init__(self) -> None:
        super().__init__()
        self.memories: dict[str, Scope] = {}
        self.observation_erasures: list[ObservationErasure] = []
        self.forgotten: list[tuple[Scope, tuple[str, ...], str]] = []
        # What every EraseSubject answers as erased beliefs not scoped to the user; purges asked for.
        self.shared_erased: tuple[str, ...] = ()
        self.purges_requested = 0
        # The services' erasure fences (erasure id -> subject), and every fence call in order.
        self.fences: dict[str, Scope] = {}
        self.fence_calls: list[tuple[str, str]] = []

    async def fence(self, subject: Scope, erasure_id: str) -> None:
        self._enter("fence")
        self.fences.setdefault(erasure_id, subject)
        self.fence_calls.append(("fence", erasure_id))

    async def lift_fence(self, erasure_id: str) -> None:
        self._enter("lift_fence")
        self.fences.pop(erasure_id, None)
        self.fence_calls.append(("lift", erasure_id))

    def write_memory(self, scope: Scope, memory_id: str) -> str:
        """A memory written as the memory service writes it: refused while a fence covers its scope."""
        for erasure_id, subject in self.fences.items():
            wanted = [(index, value) for index, value in enumerate(_scope_ids(subject)) if value]
            if all(_scope_ids(scope)[index] == value for index, value in wanted):
                raise Conflict(f"this subject is being erased (erasure {erasure_id})", reason="SUBJECT_ERASING")
        self.memories[memory_id] = scope
        return memory_id

    async def memory_ids(self, subject: Scope) -> list[str]:
        self._enter("memory_ids")
        wanted = [(index, value) for index, value in enumerate(_scope_ids(subject)) if value]
        return sorted(
            memory_id
            for memory_id, scope in self.memories.items()
            if all(_scope_ids(scope)[index] == value for index, value in wanted)
        )

    async def forget_memories(self, subject: Scope, session_ids: Sequence[str], request_id: str) -> dict[str, int]:
        self._enter("forget_memories")
        self.forgotten.append((subject, tuple(session_ids), request_id))
        doomed = await self.memory_ids(subject)
        for memory_id in doomed:
            del self.memories[memory_id]
        return {"memories": len(doomed), "episodes": 0, "access_records": 0, "working_memories": len(session_ids)}

    async def erase_observations(
        self, subject_type: str, subject_id: str, source_ids: Sequence[str], request_id: str, *, user_id: str = ""
    ) -> ErasedObservations:
        self._enter("erase_observations")
        self.observation_erasures.append(
            ObservationErasure(subject_type, subject_id, tuple(source_ids), request_id, user_id)
        )
        # As the service answers for a subject none of whose beliefs, evidence or engagement state it holds.
        nothing = ("observations", "evidence", "observations_recomputed", "hypotheses", "hypothesis_evidence")
        return ErasedObservations(dict.fromkeys((*nothing, "findings", "unknowns"), 0), self.shared_erased)

    async def request_purge(self) -> None:
        self._enter("request_purge")
        self.purges_requested += 1
