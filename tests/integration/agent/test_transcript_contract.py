"""One contract, two back ends: the fake transcript and turn loop of tests/fakes_agent.py and the
Postgres adapters on the real database answer the same assertions, so the unit tests built on the
fakes test what production does."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest
from agent_svc.adapters.postgres_transcript import PostgresTranscript
from agent_svc.adapters.postgres_turn_loop import PostgresTurnLoop
from agent_svc.domain.jobs import Job, episode_job, reflect_job
from agent_svc.domain.transcript import (
    Appended,
    Scope,
    Session,
    ToolInteraction,
    Turn,
    requester_of,
    session_id_for,
    turn_id_for,
)
from agent_svc.domain.turn_loop import KeptResult, TurnResult
from lore_runtime.stores import tenant_transaction

from tests.fakes_agent import InMemoryTranscript, InMemoryTurnLoop

# Old enough that no other test's sessions come before these in the idle scan.
T0 = datetime(2001, 2, 3, 4, 5, 6, 789_000, tzinfo=UTC)


@dataclass
class Backend:
    transcript: PostgresTranscript | InMemoryTranscript
    loop: PostgresTurnLoop | InMemoryTurnLoop
    queued: Callable[[Job], Awaitable[int]]  # jobs waiting with that job's dedupe key
    turn_rows: Callable[[str], Awaitable[int]]  # turns stored for the org


@pytest.fixture
async def backend(database) -> AsyncIterator[Backend]:
    if database is None:
        transcript = InMemoryTranscript()

        async def fake_queued(job: Job) -> int:
            return sum(waiting.dedupe_key == job.dedupe_key for waiting in transcript.queued)

        async def fake_turn_rows(org_id: str) -> int:
            return transcript.turn_count(org_id)

        yield Backend(transcript, InMemoryTurnLoop(transcript), fake_queued, fake_turn_rows)
        return
    pool = await asyncpg.create_pool(database.app_dsn, min_size=1, max_size=4)

    async def pg_queued(job: Job) -> int:
        return await pool.fetchval(
            "SELECT count(*) FROM agent.pgqueuer WHERE dedupe_key = $1 AND status = 'queued'", job.dedupe_key
        )

    async def pg_turn_rows(org_id: str) -> int:
        async with tenant_transaction(pool, org_id) as connection:
            return await connection.fetchval("SELECT count(*) FROM agent.turns WHERE org_id = $1", org_id)

    try:
        yield Backend(PostgresTranscript(pool), PostgresTurnLoop(pool), pg_queued, pg_turn_rows)
    finally:
        await pool.close()


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


def session_of(org_id: str, request_id: str = "", at: datetime = T0, user_id: str = "u-1") -> Session:
    return Session(session_id_for(org_id, request_id), org_id, Scope(user_id=user_id), "active", at, at)


def turn(session_id: str, key: str, content: str = "hello", role: str = "user", **fields) -> Turn:
    at, metadata = fields.pop("at", T0), fields.pop("metadata", {})
    return Turn(turn_id_for(session_id, key), session_id, 0, role, content, at, metadata, key, **fields)


def reflect_on(org_id: str, session_id: str) -> Callable[[Appended], list[Job]]:
    """The use cases' callback: a reflect job through the last stored turn, for real writes only."""
    return lambda done: [reflect_job(org_id, session_id, done.turns[-1].sequence)] if done.created else []


async def test_a_retried_start_returns_the_first_session(backend: Backend) -> None:
    org = new_org()
    first = await backend.transcript.start(session_of(org, "r-1"), "r-1")
    later = T0 + timedelta(hours=1)
    retried = await backend.transcript.start(session_of(org, "r-1", at=later, user_id="u-2"), "r-1")

    assert retried == first
    assert (first.status, first.turn_count, first.reflected_through, first.ended_at) == ("active", 0, 0, None)
    assert first.started_at == first.last_active_at == T0 and first.scope == Scope(user_id="u-1")


async def test_a_request_id_is_its_requesters_own(backend: Backend) -> None:
    org = new_org()
    alice, bob = requester_of("app", "alice"), requester_of("app", "bob")
    first = Session(session_id_for(org, "r-1", alice), org, Scope(user_id="alice"), "active", T0, T0)
    other = Session(session_id_for(org, "r-1", bob), org, Scope(user_id="bob"), "active", T0, T0)

    started = await backend.transcript.start(first, "r-1", alice)
    theirs = await backend.transcript.start(other, "r-1", bob)

    assert theirs.id != started.id and theirs.scope == Scope(user_id="bob")
    assert await backend.transcript.start(first, "r-1", alice) == started
    assert await backend.transcript.start(other, "r-1", bob) == theirs


async def test_appended_turns_get_gap_free_sequences_and_round_trip(backend: Backend) -> None:
    org = new_org()
    session = await backend.transcript.start(session_of(org), "")
    tool = ToolInteraction(
        "weather",
        intent="Lisbon today",
        result={"temp_c": 21, "sky": ["sunny"]},
        summary="21°C",
        salient_fields=("temp_c",),
        occurred_at=T0,
    )
    now = T0 + timedelta(minutes=1)

    first = await backend.transcript.append(
        org,
        session.id,
        [turn(session.id, "a", "one", metadata={"channel": "web"}), turn(session.id, "b", "two", role="assistant")],
        now,
    )
    second = await backend.transcript.append(
        org, session.id, [turn(session.id, "c", "three", tool_interactions=(tool,), source="import")], now
    )

    assert (first.created, first.accepted, second.created) == (2, True, 1)
    stored = await backend.transcript.turns(org, session.id, 10, 0)
    assert [(t.sequence, t.role, t.content, t.source) for t in stored] == [
        (1, "user", "one", "live"),
        (2, "assistant", "two", "live"),
        (3, "user", "three", "import"),
    ]
    assert stored == [*first.turns, *second.turns]
    assert stored[0].metadata == {"channel": "web"} and stored[0].created_at == T0
    assert stored[2].tool_interactions == (tool,)
    assert await backend.transcript.turns(org, session.id, 1, 1) == [stored[1]]
    assert await backend.transcript.turn(org, stored[2].id) == stored[2]
    session = await backend.transcript.get(org, session.id)
    assert (session.turn_count, session.last_active_at) == (3, now)


async def test_a_turns_speaker_round_trips(backend: Backend) -> None:
    org = new_org()
    session = await backend.transcript.start(session_of(org), "")

    appended = await backend.transcript.append(
        org, session.id, [turn(session.id, "a", "one", speaker="Noor"), turn(session.id, "b", "two")], T0
    )

    stored = await backend.transcript.turns(org, session.id, 10, 0)
    assert [t.speaker for t in stored] == ["Noor", ""] and stored == appended.turns


async def test_a_replayed_key_returns_the_stored_turn_and_writes_nothing(backend: Backend) -> None:
    org = new_org()
    session = await backend.transcript.start(session_of(org), "")
    first = await backend.transcript.append(
        org, session.id, [turn(session.id, "k", "original")], T0, then=reflect_on(org, session.id)
    )
    later = T0 + timedelta(hours=1)

    replay = await backend.transcript.append(
        org, session.id, [turn(session.id, "k", "changed", at=later)], later, then=reflect_on(org, session.id)
    )
    mixed = await backend.transcript.append(
        org, session.id, [turn(session.id, "k", "again"), turn(session.id, "new", "fresh")], later
    )

    assert (replay.created, replay.accepted, replay.turns) == (0, True, first.turns)
    assert replay.turns[0].content == "original"
    assert (mixed.created, [t.sequence for t in mixed.turns]) == (1, [1, 2])
    assert await backend.turn_rows(org) == 2
    stored = await backend.transcript.get(org, session.id)
    assert stored.turn_count == 2
    assert await backend.queued(reflect_job(org, session.id, 1)) == 1


async def test_then_sees_what_was_stored_and_its_jobs_are_queued_with_it(backend: Backend) -> None:
    org = new_org()
    session = await backend.transcript.start(session_of(org), "")
    seen: list[Appended] = []

    def then(done: Appended) -> list[Job]:
        seen.append(done)
        return reflect_on(org, session.id)(done)

    await backend.transcript.append(org, session.id, [turn(session.id, "a"), turn(session.id, "b")], T0, then=then)
    await backend.transcript.append(org, session.id, [turn(session.id, "b")], T0, then=then)

    assert [(done.created, [t.sequence for t in done.turns]) for done in seen] == [(2, [1, 2]), (0, [2])]
    assert await backend.queued(reflect_job(org, session.id, 2)) == 1
    assert await backend.queued(reflect_job(org, session.id, 1)) == 0


async def test_a_then_that_raises_writes_nothing(backend: Backend) -> None:
    """How a use case refuses a batch after seeing what is stored (a key reused for another turn)."""
    org = new_org()
    session = await backend.transcript.start(session_of(org), "")
    await backend.transcript.append(org, session.id, [turn(session.id, "a", "first")], T0)

    def refuse(done: Appended) -> list[Job]:
        raise RuntimeError("refused")

    with pytest.raises(RuntimeError, match="refused"):
        await backend.transcript.append(
            org, session.id, [turn(session.id, "b", "new"), turn(session.id, "a", "other")], T0, then=refuse
        )

    assert [t.content for t in await backend.transcript.turns(org, session.id, 10, 0)] == ["first"]
    assert (await backend.transcript.get(org, session.id)).turn_count == 1


async def test_an_identical_job_still_waiting_is_not_queued_twice(backend: Backend) -> None:
    org = new_org()
    session = await backend.transcript.start(session_of(org), "")
    job = Job("reflect", org, {"session_id": session.id, "through": 99})

    await backend.transcript.append(org, session.id, [turn(session.id, "a")], T0, then=lambda done: [job])
    await backend.transcript.append(org, session.id, [turn(session.id, "b")], T0, then=lambda done: [job])

    assert await backend.queued(job) == 1


async def test_ending_twice_queues_one_episode_job(backend: Backend) -> None:
    org = new_org()
    session = await backend.transcript.start(session_of(org), "")
    end_at = T0 + timedelta(hours=1)
    calls: list[str] = []

    def then(ended: Session) -> list[Job]:
        calls.append(ended.status)
        return [episode_job(org, ended.id)]

    ended = await backend.transcript.end(org, session.id, "requested", end_at, then=then)
    again = await backend.transcript.end(org, session.id, "idle", end_at + timedelta(hours=1), then=then)

    assert (ended.status, ended.end_reason, ended.ended_at) == ("ended", "requested", end_at)
    assert again == ended
    assert calls == ["ended"]
    assert await backend.queued(episode_job(org, session.id)) == 1
    assert await backend.transcript.end(org, str(uuid.uuid4()), "requested", end_at, then=then) is None


async def test_an_ended_session_takes_no_turn(backend: Backend) -> None:
    org = new_org()
    session = await backend.transcript.start(session_of(org), "")
    await backend.transcript.end(org, session.id, "requested", T0)

    appended = await backend.transcript.append(
        org, session.id, [turn(session.id, "a")], T0, then=lambda done: [reflect_job(org, session.id, 1)]
    )

    assert appended == Appended([], 0, accepted=False)
    assert await backend.turn_rows(org) == 0
    assert await backend.queued(reflect_job(org, session.id, 1)) == 0
    assert (await backend.transcript.get(org, session.id)).turn_count == 0


async def test_another_org_sees_nothing(backend: Backend) -> None:
    org, other = new_org(), new_org()
    session = await backend.transcript.start(session_of(org), "")
    await backend.transcript.append(org, session.id, [turn(session.id, "a")], T0)
    (stored,) = await backend.transcript.turns(org, session.id, 10, 0)
    await backend.loop.save_result(org, session.id, stored.id, TurnResult("hi"), T0)

    assert await backend.transcript.get(other, session.id) is None
    assert await backend.transcript.list(other, Scope(), None, 10, None) == []
    assert await backend.transcript.turns(other, session.id, 10, 0) == []
    assert await backend.transcript.turn(other, stored.id) is None
    assert await backend.transcript.end(other, session.id, "requested", T0) is None
    assert (await backend.transcript.append(other, session.id, [turn(session.id, "b")], T0)).accepted is False
    assert await backend.loop.result(other, stored.id) is None
    assert await backend.loop.reflected_through(other, session.id) == 0
    await backend.loop.mark_reflected(other, session.id, 5)
    assert await backend.loop.reflected_through(org, session.id) == 0
    assert (await backend.transcript.get(org, session.id)).status == "active"
    assert await backend.turn_rows(org) == 1


async def test_sessions_list_newest_first_filtered_by_scope_and_status(backend: Backend) -> None:
    org = new_org()
    sessions = [
        await backend.transcript.start(session_of(org, at=T0 + timedelta(minutes=i), user_id=user), "")
        for i, user in enumerate(["u-a", "u-a", "u-b", "u-a"])
    ]
    await backend.transcript.end(org, sessions[1].id, "requested", T0)

    page = await backend.transcript.list(org, Scope(user_id="u-a"), None, 2, None)
    rest = await backend.transcript.list(org, Scope(user_id="u-a"), None, 2, (page[-1].started_at, page[-1].id))
    active = await backend.transcript.list(org, Scope(), "active", 10, None)

    assert [s.id for s in page] == [sessions[3].id, sessions[1].id]
    assert [s.id for s in rest] == [sessions[0].id]
    assert [s.id for s in active] == [sessions[3].id, sessions[2].id, sessions[0].id]


async def test_the_watermark_never_goes_backwards(backend: Backend) -> None:
    org = new_org()
    session = await backend.transcript.start(session_of(org), "")

    assert await backend.loop.reflected_through(org, session.id) == 0
    await backend.loop.mark_reflected(org, session.id, 3)
    await backend.loop.mark_reflected(org, session.id, 2)

    assert await backend.loop.reflected_through(org, session.id) == 3
    assert (await backend.transcript.get(org, session.id)).reflected_through == 3
    await backend.loop.mark_reflected(org, session.id, 7)
    assert await backend.loop.reflected_through(org, session.id) == 7


async def test_save_result_keeps_the_first_result(backend: Backend) -> None:
    org = new_org()
    session = await backend.transcript.start(session_of(org), "")
    appended = await backend.transcript.append(
        org, session.id, [turn(session.id, "a"), turn(session.id, "r", "reply", role="assistant")], T0
    )
    user, reply = appended.turns
    first = TurnResult("reply", reply.id, b"\x00context\xff")

    assert await backend.loop.result(org, user.id) is None
    assert await backend.loop.save_result(org, session.id, user.id, first, T0) == first
    kept = await backend.loop.save_result(org, session.id, user.id, TurnResult("other", "", b""), T0)

    assert kept == first
    assert await backend.loop.result(org, user.id) == first
    empty = TurnResult()
    assert await backend.loop.save_result(org, session.id, reply.id, empty, T0) == empty


async def test_results_older_than_the_retention_are_pruned_in_every_org(backend: Backend) -> None:
    kept_results = {}
    for org in (new_org(), new_org()):
        session = await backend.transcript.start(session_of(org), "")
        old, new = (
            await backend.transcript.append(org, session.id, [turn(session.id, "a"), turn(session.id, "b")], T0)
        ).turns
        await backend.loop.save_result(org, session.id, old.id, TurnResult("old"), T0)
        await backend.loop.save_result(org, session.id, new.id, TurnResult("new"), T0 + timedelta(days=10))
        kept_results[org] = (old.id, new.id)

    deleted = await backend.loop.prune_results(T0 + timedelta(days=1), batch=1)  # several batches

    assert deleted >= 2
    for org, (old_id, new_id) in kept_results.items():
        assert await backend.loop.result(org, old_id) is None
        assert await backend.loop.result(org, new_id) == TurnResult("new")
    assert await backend.loop.prune_results(T0 + timedelta(days=1)) == 0


async def test_idle_sessions_are_the_active_ones_silent_since_before(backend: Backend) -> None:
    org = new_org()
    quiet = await backend.transcript.start(session_of(org, at=T0), "")
    quieter = await backend.transcript.start(session_of(org, at=T0 - timedelta(minutes=1)), "")
    busy = await backend.transcript.start(session_of(org, at=T0), "")
    await backend.transcript.append(org, busy.id, [turn(busy.id, "a")], T0 + timedelta(hours=1))
    ended = await backend.transcript.start(session_of(org, at=T0), "")
    await backend.transcript.end(org, ended.id, "requested", T0)

    idle = [found for found in await backend.loop.idle_sessions(T0 + timedelta(minutes=30), 500) if found[0] == org]

    assert idle == [(org, quieter.id), (org, quiet.id)]


async def test_active_scopes_are_the_scopes_with_a_session_in_the_period(backend: Backend) -> None:
    org = new_org()
    await backend.transcript.start(session_of(org, at=T0, user_id="u-b"), "")
    await backend.transcript.start(session_of(org, at=T0, user_id="u-a"), "")
    await backend.transcript.start(session_of(org, at=T0 + timedelta(minutes=1), user_id="u-a"), "")
    await backend.transcript.start(session_of(org, at=T0 + timedelta(days=2), user_id="u-late"), "")
    early = await backend.transcript.start(session_of(org, at=T0 - timedelta(days=2), user_id="u-early"), "")
    await backend.transcript.append(org, early.id, [turn(early.id, "a")], T0 - timedelta(days=2))

    found = [
        scope
        for owner, scope in await backend.loop.active_scopes(T0 - timedelta(hours=1), T0 + timedelta(days=1))
        if owner == org
    ]

    assert found == [Scope(user_id="u-a"), Scope(user_id="u-b")]


async def test_the_session_lock_lets_one_holder_in_at_a_time(backend: Backend) -> None:
    session_id = str(uuid.uuid4())
    order: list[str] = []

    async def hold(name: str) -> None:
        async with backend.loop.session_lock(session_id):
            order.append(f"{name} in")
            await asyncio.sleep(0.05)  # holds the lock a moment: the other tries meanwhile
            order.append(f"{name} out")

    await asyncio.gather(hold("a"), hold("b"))

    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])


async def test_a_kept_result_comes_with_the_time_it_was_kept_in_its_org_only(backend: Backend) -> None:
    org = new_org()
    session = await backend.transcript.start(session_of(org), "")
    user = (await backend.transcript.append(org, session.id, [turn(session.id, "a")], T0)).turns[0]
    first = TurnResult("", "", b"\x00context")

    assert await backend.loop.kept_result(org, user.id) is None
    await backend.loop.save_result(org, session.id, user.id, first, T0 + timedelta(seconds=2))
    await backend.loop.save_result(org, session.id, user.id, TurnResult("later"), T0 + timedelta(hours=1))

    assert await backend.loop.kept_result(org, user.id) == KeptResult(first, T0 + timedelta(seconds=2))
    assert await backend.loop.kept_result(new_org(), user.id) is None
