"""One contract, two back ends: the fake erasure store of tests/fakes_agent.py and the Postgres
adapter on the real database answer the same assertions, so the unit tests of erasure built on the
fake test what production does. Sessions, turns and turn results are the transcript's and the turn
loop's (the erasure store deletes them), so each back end builds the three on one store."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
from agent_svc.adapters.postgres_erasure import PostgresErasureStore
from agent_svc.adapters.postgres_transcript import PostgresTranscript
from agent_svc.adapters.postgres_turn_loop import PostgresTurnLoop
from agent_svc.domain.jobs import Job, episode_job, erase_job, reflect_job
from agent_svc.domain.transcript import Scope, Session, Turn, requester_of, session_id_for, turn_id_for
from agent_svc.domain.turn_loop import TurnResult
from agent_svc.usecases.erasure_ports import Erasure
from lore_runtime.errors import Conflict

from tests.fakes_agent import InMemoryErasureStore, InMemoryTranscript, InMemoryTurnLoop

T0 = datetime(2001, 2, 3, 4, 5, 6, 789_000, tzinfo=UTC)


@dataclass
class Backend:
    store: PostgresErasureStore | InMemoryErasureStore
    transcript: PostgresTranscript | InMemoryTranscript
    loop: PostgresTurnLoop | InMemoryTurnLoop
    queued: Callable[[Job], Awaitable[int]]  # jobs waiting with that job's dedupe key
    dead_letter: Callable[[Job], Awaitable[None]]  # the worker gives up on the job: it is parked
    # Jobs of the transcript's queue (reflect, episode) with that job's dedupe key, waiting or parked.
    session_jobs: Callable[[Job], Awaitable[int]]


@pytest.fixture
async def backend(database) -> AsyncIterator[Backend]:
    if database is None:
        transcript = InMemoryTranscript()
        loop = InMemoryTurnLoop(transcript)
        store = InMemoryErasureStore(transcript, loop)

        async def fake_queued(job: Job) -> int:
            return sum(waiting.dedupe_key == job.dedupe_key for waiting in store.queued)

        async def fake_dead_letter(job: Job) -> None:
            store.dead_letter(job)

        async def fake_session_jobs(job: Job) -> int:
            return sum(waiting.dedupe_key == job.dedupe_key for waiting in transcript.queued)

        yield Backend(store, transcript, loop, fake_queued, fake_dead_letter, fake_session_jobs)
        return
    pool = await asyncpg.create_pool(database.app_dsn, min_size=1, max_size=4)

    async def pg_queued(job: Job) -> int:
        return await pool.fetchval(
            "SELECT count(*) FROM agent.pgqueuer WHERE dedupe_key = $1 AND status = 'queued'", job.dedupe_key
        )

    async def pg_dead_letter(job: Job) -> None:
        # What the worker's retry executor does with a job out of attempts (on_failure="hold").
        await pool.execute(
            "UPDATE agent.pgqueuer SET status = 'failed' WHERE dedupe_key = $1 AND status IN ('queued', 'picked')",
            job.dedupe_key,
        )

    async def pg_session_jobs(job: Job) -> int:
        return await pool.fetchval("SELECT count(*) FROM agent.pgqueuer WHERE dedupe_key = $1", job.dedupe_key)

    try:
        yield Backend(
            PostgresErasureStore(pool),
            PostgresTranscript(pool),
            PostgresTurnLoop(pool),
            pg_queued,
            pg_dead_letter,
            pg_session_jobs,
        )
    finally:
        await pool.close()


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


def pending(org_id: str, subject: Scope = Scope(user_id="u-1"), principal: str = "admin@example.com") -> Erasure:
    return Erasure(str(uuid.uuid4()), org_id, subject, principal, "pending", T0)


def erase_on(erasure: Erasure) -> list[Job]:
    """The use case's callback: the erasure's job."""
    return [erase_job(erasure.org_id, erasure.id)]


async def requested(backend: Backend, org_id: str, subject: Scope = Scope(user_id="u-1")) -> Erasure:
    return await backend.store.request(pending(org_id, subject), "", erase_on)


async def session_in(backend: Backend, org_id: str, scope: Scope, said: int = 1, request_id: str = "") -> str:
    """A session of ``scope`` with ``said`` turns; its id."""
    session_id = session_id_for(org_id, request_id)
    await backend.transcript.start(Session(session_id, org_id, scope, "active", T0, T0), request_id)
    turns = [
        Turn(turn_id_for(session_id, f"k{n}"), session_id, 0, "user", f"turn {n}", T0, {}, f"k{n}") for n in range(said)
    ]
    await backend.transcript.append(org_id, session_id, turns, T0)
    return session_id


async def turn_ids_of(backend: Backend, org_id: str, session_id: str) -> list[str]:
    return [turn.id for turn in await backend.transcript.turns(org_id, session_id, 100, 0)]


# --- request ---------------------------------------------------------------------------------------


async def test_a_request_stores_a_pending_erasure_and_queues_its_job(backend: Backend) -> None:
    org = new_org()
    asked = pending(org, Scope(user_id="u-1", agent_id="aria"), "p" * 300)
    seen: list[Erasure] = []

    def then(erasure: Erasure) -> list[Job]:
        seen.append(erasure)
        return erase_on(erasure)

    stored = await backend.store.request(asked, "r-1", then)

    assert (stored.id, stored.org_id, stored.subject) == (asked.id, org, Scope(user_id="u-1", agent_id="aria"))
    assert (stored.status, stored.requested_at, stored.completed_at, stored.counts) == ("pending", T0, None, {})
    assert stored.principal == "p" * 256, "the principal is cut to the column's 256 characters"
    assert seen == [stored], "the callback sees the stored erasure"
    assert await backend.queued(erase_job(org, stored.id)) == 1
    assert await backend.store.get(org, stored.id) == stored


async def test_a_request_is_stored_pending_with_no_counts_whatever_it_carries(backend: Backend) -> None:
    org = new_org()
    asked = Erasure(str(uuid.uuid4()), org, Scope(team_id="t-1"), "admin", "running", T0, None, {"turns": 4})

    stored = await backend.store.request(asked, "", erase_on)

    assert (stored.status, stored.counts) == ("pending", {})
    assert await backend.store.get(org, asked.id) == stored


async def test_a_repeated_request_id_returns_the_first_erasure_and_queues_nothing(backend: Backend) -> None:
    org = new_org()
    calls: list[str] = []

    def then(erasure: Erasure) -> list[Job]:
        calls.append(erasure.id)
        return erase_on(erasure)

    first = await backend.store.request(pending(org), "r-1", then)
    later = Erasure(str(uuid.uuid4()), org, Scope(agent_id="other"), "someone else", "pending", T0 + timedelta(days=1))
    again = await backend.store.request(later, "r-1", then)

    assert again == first
    assert calls == [first.id], "jobs are named only for the request that stored the erasure"
    assert await backend.queued(erase_job(org, first.id)) == 1
    assert await backend.queued(erase_job(org, later.id)) == 0
    assert await backend.store.get(org, later.id) is None


async def test_a_repeated_request_id_returns_the_erasure_in_its_current_state(backend: Backend) -> None:
    org = new_org()
    first = await backend.store.request(pending(org), "r-1", erase_on)
    await backend.store.mark_running(org, first.id)
    await backend.store.record(org, first.id, {"memories": 2})

    again = await backend.store.request(pending(org), "r-1", erase_on)

    assert (again.id, again.status, again.counts) == (first.id, "running", {"memories": 2})


async def test_request_ids_are_per_org_and_an_empty_one_never_matches(backend: Backend) -> None:
    org, other = new_org(), new_org()
    mine = await backend.store.request(pending(org), "r-1", erase_on)
    theirs = await backend.store.request(pending(other), "r-1", erase_on)
    unkeyed = [await backend.store.request(pending(org), "", erase_on) for _ in range(2)]

    assert theirs.id != mine.id and theirs.org_id == other
    assert unkeyed[0].id != unkeyed[1].id
    for erasure in (mine, theirs, *unkeyed):
        assert await backend.queued(erase_job(erasure.org_id, erasure.id)) == 1


async def test_a_request_id_is_its_requesters_own(backend: Backend) -> None:
    org = new_org()
    alice = await backend.store.request(pending(org), "r-1", erase_on, requester_of("tutor-app", "alice"))
    bob_erasure = Erasure(str(uuid.uuid4()), org, Scope(user_id="bob"), "tutor-app", "pending", T0)
    bob = await backend.store.request(bob_erasure, "r-1", erase_on, requester_of("tutor-app", "bob"))
    retried = await backend.store.request(pending(org), "r-1", erase_on, requester_of("tutor-app", "alice"))

    assert bob.id == bob_erasure.id != alice.id, "another caller's equal request id records its own erasure"
    assert bob.subject == Scope(user_id="bob")
    assert retried.id == alice.id
    assert await backend.queued(erase_job(org, bob.id)) == 1


# --- get, the dead-letter state and requeue ---------------------------------------------------------


async def test_another_org_sees_no_erasure(backend: Backend) -> None:
    org, other = new_org(), new_org()
    erasure = await requested(backend, org)

    assert await backend.store.get(other, erasure.id) is None
    assert await backend.store.get(org, str(uuid.uuid4())) is None
    assert await backend.store.mark_running(other, erasure.id) is None
    await backend.store.record(other, erasure.id, {"turns": 9})
    assert await backend.store.get(org, erasure.id) == erasure


async def test_an_erasure_reads_dead_lettered_while_its_job_is_parked_until_requeued(backend: Backend) -> None:
    org = new_org()
    erasure = await requested(backend, org)
    job = erase_job(org, erasure.id)
    running = await backend.store.mark_running(org, erasure.id)
    await backend.dead_letter(job)

    assert await backend.queued(job) == 0
    dead = await backend.store.get(org, erasure.id)
    assert dead == Erasure(**{**_fields(running), "status": "dead_lettered"})
    assert await backend.store.get(new_org(), erasure.id) is None

    await backend.store.requeue(dead, [job])

    assert await backend.queued(job) == 1
    assert (await backend.store.get(org, erasure.id)).status == "running", "its own state once queued again"


async def test_a_completed_erasure_never_reads_dead_lettered(backend: Backend) -> None:
    org = new_org()
    erasure = await requested(backend, org)
    await backend.store.complete(org, erasure.id, T0)
    await backend.dead_letter(erase_job(org, erasure.id))

    assert (await backend.store.get(org, erasure.id)).status == "completed"


async def test_requeue_skips_a_job_still_waiting(backend: Backend) -> None:
    org = new_org()
    erasure = await requested(backend, org)
    job = erase_job(org, erasure.id)

    await backend.store.requeue(erasure, [job])
    await backend.store.requeue(erasure, [job, job])

    assert await backend.queued(job) == 1
    assert (await backend.store.get(org, erasure.id)).status == "pending"


# --- mark_running and complete ------------------------------------------------------------------------


async def test_mark_running_runs_a_pending_erasure_and_leaves_a_completed_one(backend: Backend) -> None:
    org = new_org()
    erasure = await requested(backend, org)

    running = await backend.store.mark_running(org, erasure.id)

    assert running == Erasure(**{**_fields(erasure), "status": "running"})
    assert await backend.store.mark_running(org, erasure.id) == running
    assert await backend.store.get(org, erasure.id) == running
    done = await backend.store.complete(org, erasure.id, T0 + timedelta(minutes=5))
    assert await backend.store.mark_running(org, erasure.id) == done
    assert await backend.store.get(org, erasure.id) == done
    assert await backend.store.mark_running(org, str(uuid.uuid4())) is None


async def test_complete_keeps_the_first_completion_time_and_the_counts(backend: Backend) -> None:
    org = new_org()
    erasure = await requested(backend, org)
    await backend.store.record(org, erasure.id, {"memories": 3})
    finished = T0 + timedelta(minutes=5)

    done = await backend.store.complete(org, erasure.id, finished)
    again = await backend.store.complete(org, erasure.id, finished + timedelta(hours=1))

    assert (done.status, done.completed_at, done.counts) == ("completed", finished, {"memories": 3})
    assert again == done
    assert await backend.store.get(org, erasure.id) == done
    assert await backend.store.request(pending(org), "", erase_on) != done


# --- what the job reads: the subject's sessions and their turns -------------------------------------


async def test_subject_sessions_are_those_whose_scope_has_every_id_the_subject_sets(backend: Backend) -> None:
    org, other = new_org(), new_org()
    full = await session_in(backend, org, Scope("u-1", "aria", "t-1"))
    user_only = await session_in(backend, org, Scope(user_id="u-1"))
    same_agent = await session_in(backend, org, Scope("u-2", "aria"))
    await session_in(backend, org, Scope("u-2", "bob", "t-2"))
    await session_in(backend, other, Scope("u-1", "aria", "t-1"))

    async def found(subject: Scope) -> list[str]:
        return await backend.store.subject_sessions(org, subject)

    assert await found(Scope(user_id="u-1")) == sorted([full, user_only])
    assert await found(Scope(agent_id="aria")) == sorted([full, same_agent])
    assert await found(Scope(user_id="u-1", agent_id="aria")) == [full]
    assert await found(Scope(team_id="t-1")) == [full]
    assert await found(Scope(user_id="u-1", team_id="t-2")) == []
    assert await found(Scope(user_id="u-nobody")) == []


async def test_a_subject_with_no_ids_matches_no_session(backend: Backend) -> None:
    org = new_org()
    await session_in(backend, org, Scope(user_id="u-1"))
    await session_in(backend, org, Scope())

    assert await backend.store.subject_sessions(org, Scope()) == []


async def test_subject_sessions_never_include_another_orgs(backend: Backend) -> None:
    org, other = new_org(), new_org()
    await session_in(backend, other, Scope(user_id="u-1"))

    assert await backend.store.subject_sessions(org, Scope(user_id="u-1")) == []


async def test_turn_ids_are_the_org_sessions_turns_once_each_in_id_order(backend: Backend) -> None:
    org, other = new_org(), new_org()
    first = await session_in(backend, org, Scope(user_id="u-1"), said=2)
    second = await session_in(backend, org, Scope(user_id="u-1"), said=1)
    untouched = await session_in(backend, org, Scope(user_id="u-1"), said=1)
    foreign = await session_in(backend, other, Scope(user_id="u-1"), said=1)
    expected = sorted([*await turn_ids_of(backend, org, first), *await turn_ids_of(backend, org, second)])

    assert len(expected) == 3
    assert await backend.store.turn_ids(org, [second, first]) == expected
    assert await backend.store.turn_ids(org, [first, second, first]) == expected
    assert await backend.store.turn_ids(org, [first, second, foreign, str(uuid.uuid4())]) == expected
    assert await backend.store.turn_ids(org, []) == []
    assert await backend.store.turn_ids(other, [first, untouched]) == []


# --- record and delete_transcript ----------------------------------------------------------------


async def test_record_merges_counts_keeping_the_larger_of_each(backend: Backend) -> None:
    org = new_org()
    erasure = await requested(backend, org)

    await backend.store.record(org, erasure.id, {"memories": 3, "episodes": 1})
    await backend.store.record(org, erasure.id, {"memories": 0, "observations": 2})  # a re-run found less
    await backend.store.record(org, erasure.id, {"episodes": 5})
    await backend.store.record(org, erasure.id, {})

    stored = await backend.store.get(org, erasure.id)
    assert stored.counts == {"memories": 3, "episodes": 5, "observations": 2}
    await backend.store.record(org, str(uuid.uuid4()), {"memories": 1})  # no such erasure: nothing to merge into


async def test_delete_transcript_deletes_the_orgs_sessions_with_their_turns_and_results(backend: Backend) -> None:
    org, other = new_org(), new_org()
    doomed = await session_in(backend, org, Scope(user_id="u-1"), said=2)
    quiet = await session_in(backend, org, Scope(user_id="u-1"), said=1)
    kept = await session_in(backend, org, Scope(user_id="u-2"), said=1)
    foreign = await session_in(backend, other, Scope(user_id="u-1"), said=1)
    answered = (await turn_ids_of(backend, org, doomed))[0]
    await backend.loop.save_result(org, doomed, answered, TurnResult("hi"), T0)
    foreign_turn = (await turn_ids_of(backend, other, foreign))[0]
    await backend.loop.save_result(other, foreign, foreign_turn, TurnResult("hey"), T0)
    erasure = await requested(backend, org)

    await backend.store.delete_transcript(org, erasure.id, [doomed, quiet, foreign, str(uuid.uuid4())])

    assert await backend.transcript.get(org, doomed) is None
    assert await backend.transcript.get(org, quiet) is None
    assert await backend.transcript.turns(org, doomed, 100, 0) == []
    assert await backend.loop.result(org, answered) is None
    assert len(await turn_ids_of(backend, org, kept)) == 1
    assert await backend.transcript.get(other, foreign) is not None, "another org's session stays"
    assert len(await turn_ids_of(backend, other, foreign)) == 1
    assert await backend.loop.result(other, foreign_turn) == TurnResult("hey")
    assert (await backend.store.get(org, erasure.id)).counts == {"turns": 3, "sessions": 2, "jobs": 0}


async def test_delete_transcript_drops_the_jobs_still_waiting_for_the_sessions_and_no_one_elses(
    backend: Backend,
) -> None:
    org, other = new_org(), new_org()
    doomed = await session_in(backend, org, Scope(user_id="u-1"))
    kept = await session_in(backend, org, Scope(user_id="u-2"))
    foreign = await session_in(backend, other, Scope(user_id="u-1"))
    jobs = {}
    for owner, session_id in ((org, doomed), (org, kept), (other, foreign)):
        said = [Turn(turn_id_for(session_id, "late"), session_id, 0, "user", "later", T0, {}, "late")]
        queued = [reflect_job(owner, session_id, 2), episode_job(owner, session_id)]
        await backend.transcript.append(owner, session_id, said, T0, then=lambda _, queued=queued: queued)
        jobs[session_id] = queued
    erasure = await requested(backend, org)

    await backend.store.delete_transcript(org, erasure.id, [doomed, foreign])

    assert [await backend.session_jobs(job) for job in jobs[doomed]] == [0, 0]
    assert [await backend.session_jobs(job) for job in jobs[kept]] == [1, 1]
    assert [await backend.session_jobs(job) for job in jobs[foreign]] == [1, 1], "another org's stay"
    assert (await backend.store.get(org, erasure.id)).counts["jobs"] == 2


async def test_forget_shown_drops_every_stored_turn_result_whose_context_showed_an_erased_belief(
    backend: Backend,
) -> None:
    org, other = new_org(), new_org()
    erasure = await requested(backend, org)
    shown, unrelated = str(uuid.uuid4()), str(uuid.uuid4())
    results = {}
    for owner, user, context in (
        (org, "u-2", f"items: {shown} and more".encode()),
        (org, "u-3", f"items: {unrelated}".encode()),
        (other, "u-2", f"items: {shown}".encode()),
    ):
        session_id = await session_in(backend, owner, Scope(user_id=user))
        turn = (await turn_ids_of(backend, owner, session_id))[0]
        await backend.loop.save_result(owner, session_id, turn, TurnResult("hi", context=context), T0)
        results[(owner, user)] = turn

    await backend.store.forget_shown(org, erasure.id, [shown])
    await backend.store.forget_shown(org, erasure.id, [shown])  # a re-run finds nothing more

    assert await backend.loop.result(org, results[(org, "u-2")]) is None
    assert await backend.loop.result(org, results[(org, "u-3")]) is not None
    assert await backend.loop.result(other, results[(other, "u-2")]) is not None, "another org's stay"
    assert (await backend.store.get(org, erasure.id)).counts == {"cached_contexts": 1}


async def test_a_rerun_of_delete_transcript_never_lowers_its_counts(backend: Backend) -> None:
    org = new_org()
    session = await session_in(backend, org, Scope(user_id="u-1"), said=2)
    erasure = await requested(backend, org)
    await backend.store.record(org, erasure.id, {"memories": 4})

    await backend.store.delete_transcript(org, erasure.id, [session])
    await backend.store.delete_transcript(org, erasure.id, [session])
    await backend.store.delete_transcript(org, erasure.id, [])

    counts = (await backend.store.get(org, erasure.id)).counts
    assert counts == {"memories": 4, "turns": 2, "sessions": 1, "jobs": 0}


async def test_an_erased_sessions_request_id_starts_a_new_session(backend: Backend) -> None:
    org = new_org()
    session = await session_in(backend, org, Scope(user_id="u-1"), said=2, request_id="start-1")
    erasure = await requested(backend, org)
    await backend.store.delete_transcript(org, erasure.id, [session])

    again = await session_in(backend, org, Scope(user_id="u-3"), said=1, request_id="start-1")

    restarted = await backend.transcript.get(org, again)
    assert (restarted.status, restarted.scope, restarted.turn_count) == ("active", Scope(user_id="u-3"), 1)


# --- the fence -------------------------------------------------------------------------------------


async def test_an_unfinished_erasure_fences_its_subject_until_it_completes(backend: Backend) -> None:
    org, other = new_org(), new_org()
    scope = Scope(user_id="u-1", agent_id="aria")
    before = await session_in(backend, org, scope)
    erasure = await requested(backend, org, Scope(user_id="u-1"))

    assert await backend.store.erasing(org, scope) and await backend.store.erasing(org, Scope(user_id="u-1"))
    assert not await backend.store.erasing(org, Scope(user_id="u-2", agent_id="aria")), "another user"
    assert not await backend.store.erasing(org, Scope(agent_id="aria")), "the subject names a user"
    assert not await backend.store.erasing(other, scope), "another org"
    late = [Turn(turn_id_for(before, "late"), before, 0, "user", "later", T0, {}, "late")]
    for write in (session_in(backend, org, scope), backend.transcript.append(org, before, late, T0)):
        with pytest.raises(Conflict) as refused:
            await write
        assert refused.value.reason == "SUBJECT_ERASING"
    await session_in(backend, org, Scope(user_id="u-2", agent_id="aria"))
    await session_in(backend, other, scope)

    await backend.store.complete(org, erasure.id, T0)

    assert not await backend.store.erasing(org, scope)
    await session_in(backend, org, scope)


async def test_running_session_jobs_count_none_when_no_job_runs(backend: Backend) -> None:
    org = new_org()
    session = await session_in(backend, org, Scope(user_id="u-1"))
    assert await backend.store.running_session_jobs(org, [session]) == 0
    assert await backend.store.running_session_jobs(org, []) == 0


def _fields(erasure: Erasure) -> dict:
    return {name: getattr(erasure, name) for name in Erasure.__dataclass_fields__}
