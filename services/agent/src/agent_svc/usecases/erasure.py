"""Erasure (ARCHITECTURE.md §2): ``ForgetSubject`` removes a subject's data everywhere, as a
durable job, and leaves a tombstone — who, when, how many records per store; never content.

``forget_subject`` records the request and queues the job in one transaction, so an
acknowledged erasure is never lost. ``run_erasure`` is the job. It works in an order that a
re-run can always resume:

0. from the moment the request is accepted, the erasure's unfinished row is a fence: Postgres
   refuses a new session, turn or turn result of the subject (migration ``0009_erasure_fence.sql``:
   409 ``SUBJECT_ERASING``), and reflection and episode jobs stop before writing for it;
1. the memory and observations services fence the subject too (``FenceSubject``, each in its own
   schema): the writes the gateway routes straight to them (Remember, UpdateMemory, Observe,
   ContradictObservation, engagement state naming the user, ...) answer 409 ``SUBJECT_ERASING``
   until the fence is lifted; a fence waits for the writes under way, so what they accepted
   before is there for the sweep below;
2. the subject's sessions are read, and the job waits until none of their reflect or episode jobs
   still runs (one that began before the fence may be writing); from then on nothing writes for
   the subject, so what follows is the final sweep. Their turn ids, and the subject's memory ids,
   are read while they still exist;
3. ``ObservationService.EraseSubject``: beliefs about the subject, every belief scoped to the
   subject's user (whatever it is about: since beliefs have a scope, a user's carry their user
   id), evidence citing those turns and memories, and every belief whose support all went with
   them, while the ones that kept some support are recomputed (in chunks of the service's limit,
   each with a request id derived from the erasure, the chunk's index and its content: a replayed
   chunk is answered from the observations service's tombstone, a chunk whose content changed
   runs); with a user, the org's engagement state naming the user or citing those sources goes too;
4. stored turn results of other sessions whose context showed an erased belief not scoped to the
   subject's user (the observations service names them);
5. ``MemoryService.ForgetSubject``: memories, episodes, access log, the sessions' working memory;
6. the transcript (turn results, turns, sessions) and the jobs still waiting for those sessions,
   with its counts, in one transaction;
7. a deferred ``MemoryService.PurgeErased``: the memory service soon rewrites its stores' files so
   the erased text is gone from the disk too (docs/operations.md, "Erasure and purge");
8. the memory and observations services lift their fences (``LiftSubjectFence``);
9. completed: only now does the agent's fence lift, and the same ids may start again with nothing old.

Every step is idempotent, so a job that crashed or hit an unavailable service is simply run
again by the queue (retries with backoff) and completes once every service answers.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from lore_runtime.clock import Clock
from lore_runtime.errors import DeadlineExceeded, InvalidArgument, NotFound
from lore_runtime.text_rules import OBSERVABLE_ID

from agent_svc.domain.jobs import erase_job
from agent_svc.domain.transcript import Scope, bounded_id
from agent_svc.usecases.erasure_ports import Erasure, ErasureStore, SubjectEraser

# The observations service's MAX_SOURCE_IDS_TO_ERASE: source ids per EraseSubject call.
SOURCE_IDS_PER_CALL = 1_000
# How long one run waits for the subject's sessions' jobs to stop, and how often it looks; a job
# still running then fails this run, and the queue retries the erasure with its backoff.
JOBS_WAIT_S = 60.0
JOBS_POLL_S = 0.2


@dataclass(frozen=True, slots=True)
class ErasureServices:
    store: ErasureStore
    eraser: SubjectEraser
    clock: Clock
    pause: Callable[[float], Awaitable[None]] = asyncio.sleep


def validate_subject(subject: Scope) -> Scope:
    checked = Scope(
        bounded_id(subject.user_id, "subject.user_id"),
        bounded_id(subject.agent_id, "subject.agent_id"),
        bounded_id(subject.team_id, "subject.team_id"),
    )
    if not (checked.user_id or checked.agent_id or checked.team_id):
        raise InvalidArgument("subject", "name a user, agent or team: an empty subject would be the whole org")
    return checked


async def forget_subject(
    org_id: str, principal: str, subject: Scope, request_id: str, services: ErasureServices, requester: str = ""
) -> Erasure:
    """Record the erasure and queue its job together; a request id the requester
    (``transcript.requester_of``) replays returns the erasure it first recorded, in its current
    state, and queues nothing (unless that erasure is dead-lettered: asking again is how an
    operator retries it). Another caller's equal request id records its own erasure."""
    subject = validate_subject(subject)
    request_id = bounded_id(request_id, "request_id")
    pending = Erasure(
        id=str(uuid.uuid4()),
        org_id=org_id,
        subject=subject,
        principal=principal,
        status="pending",
        requested_at=services.clock.now(),
    )
    stored = await services.store.request(pending, request_id, lambda e: [erase_job(e.org_id, e.id)], requester)
    if stored.id != pending.id:
        current = await services.store.get(org_id, stored.id) or stored
        if current.status == "dead_lettered":
            await services.store.requeue(current, [erase_job(org_id, current.id)])
        return current
    return stored


async def get_erasure(org_id: str, erasure_id: str, services: ErasureServices) -> Erasure:
    found = await services.store.get(org_id, erasure_id)
    if found is None:
        raise NotFound(f"erasure {erasure_id} not found")
    return found


def observation_subject(subject: Scope) -> tuple[str, str] | None:
    """Whom the observations are about: a user is an ``entity``, an agent an ``agent``. Teams are
    not an observation subject, and an id the observations service cannot hold as a subject has
    no beliefs about it there; either way evidence citing the subject's sources is still erased."""
    if subject.user_id:
        found = "entity", subject.user_id
    elif subject.agent_id:
        found = "agent", subject.agent_id
    else:
        return None
    return found if OBSERVABLE_ID.fullmatch(found[1]) else None


async def run_erasure(org_id: str, erasure_id: str, services: ErasureServices) -> Erasure | None:
    """The erase job: idempotent, resumable; None when the erasure does not exist."""
    store, eraser = services.store, services.eraser
    erasure = await store.mark_running(org_id, erasure_id)
    if erasure is None or erasure.status == "completed":
        return erasure
    subject = erasure.subject
    # Before anything is read: writes the services accept directly stop here (and those under way finish).
    await eraser.fence(subject, erasure_id)
    session_ids = await store.subject_sessions(org_id, subject)
    await _wait_for_session_jobs(org_id, session_ids, services)
    turn_ids = await store.turn_ids(org_id, session_ids)
    memory_ids = await eraser.memory_ids(subject)

    sources = sorted(set(turn_ids) | set(memory_ids))
    target = observation_subject(subject)
    if target is not None or sources or subject.user_id:
        # Without an observation subject the sources' evidence is erased under a subject nothing
        # is about (EraseSubject needs one), named after the erasure so its tombstone says why.
        subject_type, subject_id = target or ("entity", f"erasure-{erasure_id}")
        chunks = [sources[start : start + SOURCE_IDS_PER_CALL] for start in range(0, len(sources), SOURCE_IDS_PER_CALL)]
        erased = {"observations": 0, "evidence": 0}
        shown: list[str] = []
        for index, chunk in enumerate(chunks or [[]]):
            request_id = _chunk_request_id(erasure_id, index, chunk)
            found = await eraser.erase_observations(
                subject_type, subject_id, chunk, request_id, user_id=subject.user_id
            )
            for key, value in found.counts.items():
                erased[key] = erased.get(key, 0) + value
            shown += found.shared_ids
        await store.record(org_id, erasure_id, erased)
        # Before the memories go: a re-run until then replays the same chunks, so the same ids.
        await store.forget_shown(org_id, erasure_id, sorted(set(shown)))

    forgotten = await eraser.forget_memories(subject, session_ids, f"erasure:{erasure_id}")
    await store.record(org_id, erasure_id, forgotten)
    await store.delete_transcript(org_id, erasure_id, session_ids)
    await eraser.request_purge()
    await eraser.lift_fence(erasure_id)
    return await store.complete(org_id, erasure_id, services.clock.now())


async def _wait_for_session_jobs(org_id: str, session_ids: Sequence[str], services: ErasureServices) -> None:
    """Until no reflect or episode job of the sessions runs: one that began before the fence may be
    writing for the subject; one that starts now stops before writing anything."""
    for _ in range(round(JOBS_WAIT_S / JOBS_POLL_S)):
        if not await services.store.running_session_jobs(org_id, session_ids):
            return
        await services.pause(JOBS_POLL_S)
    running = await services.store.running_session_jobs(org_id, session_ids)
    if running:
        raise DeadlineExceeded(
            f"{running} jobs of the subject's sessions are still running: the erasure waits for them",
            reason="SESSION_JOBS_RUNNING",
        )


def _chunk_request_id(erasure_id: str, index: int, chunk: Sequence[str]) -> str:
    digest = hashlib.sha256("\0".join(chunk).encode()).hexdigest()[:16]
    return f"erasure:{erasure_id}:{index}:{digest}"
