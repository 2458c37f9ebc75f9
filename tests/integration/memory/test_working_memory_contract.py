"""One contract for the working-memory ports, run against the fakes and the Redis adapters."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import pytest
import redis.asyncio as redis
from lore_runtime import errors
from memory_svc.adapters.redis_session_leases import RedisSessionLeases
from memory_svc.adapters.redis_working_memory import RedisWorkingMemoryStore
from memory_svc.domain.working_memory import (
    EmotionReading,
    PendingSlot,
    Plan,
    ToolResult,
    Turn,
    TurnRole,
    WorkingMemory,
)
from memory_svc.usecases.working_memory_ports import TurnsRead, keys_of

from tests.fakes_working_memory import InMemorySessionLeases, InMemoryWorkingMemoryStore
from tests.polling import holds_for

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
TTL = timedelta(hours=24)
# How long a taker waits for a 50 ms lease to lapse: generous, for a loaded machine; it ends at the lapse.
LAPSE_WAIT_MS = 30_000
LAPSE_WAIT = timedelta(milliseconds=LAPSE_WAIT_MS)


@dataclass
class Backend:
    name: str
    store: object
    leases: object
    redis: redis.Redis | None = None


@pytest.fixture(params=["fake", "redis"])
async def backend(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[Backend]:
    if request.param == "fake":
        leases = InMemorySessionLeases()
        yield Backend("fake", InMemoryWorkingMemoryStore(leases), leases)
        return
    client = redis.Redis.from_url(redis_url)
    prefix = f"lore-test-{secrets.token_hex(4)}"
    try:
        yield Backend(
            "redis",
            RedisWorkingMemoryStore(client, key_prefix=f"{prefix}:wm", lease_prefix=f"{prefix}:lease"),
            RedisSessionLeases(client, key_prefix=f"{prefix}:lease", memory_prefix=f"{prefix}:wm"),
            client,
        )
    finally:
        await client.aclose()


def turn(content: str, number: int = 0, **kwargs) -> Turn:
    return Turn(
        role=kwargs.pop("role", TurnRole.USER),
        content=content,
        id=f"t-{number}-{secrets.token_hex(3)}",
        session_id=kwargs.pop("session_id", "s-1"),
        created_at=NOW,
        **kwargs,
    )


async def append(backend: Backend, org_id: str, value: Turn, *, max_turns: int = 20, now: datetime = NOW):
    return await backend.store.append_turn(org_id, value.session_id, value, max_turns=max_turns, ttl=TTL, now=now)


async def test_a_turn_round_trips_with_every_field(backend, org_id):
    tool = ToolResult(
        tool_name="flights",
        intent="find a flight to Lisbon",
        result={"flight": {"departure": "09:00", "seats": 3.0, "direct": True, "legs": ["LHR", "LIS"], "note": None}},
        summary="one direct flight at 09:00",
        salient_fields=("flight.departure",),
        occurred_at=NOW,
    )
    written = turn("book it", metadata={"turn_ref": "D1:3"}, idempotency_key="k-1", tool_interactions=(tool,))
    appended = await append(backend, org_id, written)
    read = await backend.store.get(org_id, "s-1")
    assert read == appended
    assert read.turn_count == 1
    assert read.recent_turns == (Turn(**{**_fields(written), "sequence": 1}),)
    assert read.updated_at == NOW and read.expires_at == NOW + TTL


def _fields(value: Turn) -> dict:
    return {name: getattr(value, name) for name in Turn.__slots__}


async def test_an_unknown_session_reads_as_none(backend, org_id):
    assert await backend.store.get(org_id, "never") is None


async def test_append_keeps_the_last_n_turns_and_counts_every_turn(backend, org_id):
    for number in range(8):
        memory = await append(backend, org_id, turn(f"turn {number}", number), max_turns=3)
    assert memory.turn_count == 8
    assert [(t.sequence, t.content) for t in memory.recent_turns] == [(6, "turn 5"), (7, "turn 6"), (8, "turn 7")]
    assert await backend.store.get(org_id, "s-1") == memory


async def test_a_replayed_idempotency_key_appends_nothing(backend, org_id):
    await append(backend, org_id, turn("one", idempotency_key="k-1"))
    memory = await append(backend, org_id, turn("one again", idempotency_key="k-1"))
    assert memory.turn_count == 1 and [t.content for t in memory.recent_turns] == ["one"]


async def test_every_write_renews_the_ttl(backend, org_id):
    await append(backend, org_id, turn("one"))
    later = NOW + timedelta(hours=3)
    memory = await append(backend, org_id, turn("two"), now=later)
    assert memory.updated_at == later and memory.expires_at == later + TTL
    updated = await backend.store.update(
        org_id, "s-1", WorkingMemory("s-1", summary="s"), ["summary"], ttl=TTL, now=later + timedelta(hours=1)
    )
    assert updated.expires_at == later + timedelta(hours=1) + TTL
    if backend.redis is not None:
        for key in backend.store.keys(org_id, "s-1"):
            ttl_ms = await backend.redis.pttl(key)
            assert 0 < ttl_ms <= TTL.total_seconds() * 1000


async def test_a_mask_update_replaces_only_the_named_fields(backend, org_id):
    full = WorkingMemory(
        "s-1",
        summary="they want a flight",
        active_plan=Plan("book a flight", "found options", "ask for a date"),
        emotion_trajectory=(EmotionReading("curious", 0.4, 0.6, "t-1", NOW), EmotionReading("calm", 0.1, 0.2)),
        pending_slots=(PendingSlot("date", "flights", "Which day?"),),
        last_tool_result=ToolResult("flights", "search", {"count": 2.0}, "two flights", ("count",), NOW),
        context_fingerprint="fp-1",
    )
    paths = ["summary", "active_plan", "emotion_trajectory", "pending_slots", "last_tool_result", "context_fingerprint"]
    await append(backend, org_id, turn("hello"))
    written = await backend.store.update(org_id, "s-1", full, paths, ttl=TTL, now=NOW)
    assert written.turn_count == 1 and len(written.recent_turns) == 1
    for path in paths:
        assert getattr(written, path) == getattr(full, path)

    changed = await backend.store.update(
        org_id, "s-1", WorkingMemory("s-1", summary="new", context_fingerprint="zzz"), ["summary"], ttl=TTL, now=NOW
    )
    assert changed.summary == "new"
    assert changed.context_fingerprint == "fp-1"
    assert changed.active_plan == full.active_plan and changed.last_tool_result == full.last_tool_result

    cleared = await backend.store.update(
        org_id, "s-1", WorkingMemory("s-1"), ["active_plan", "last_tool_result", "pending_slots"], ttl=TTL, now=NOW
    )
    assert cleared.active_plan is None and cleared.last_tool_result is None and cleared.pending_slots == ()
    assert await backend.store.get(org_id, "s-1") == cleared


async def test_update_creates_a_missing_working_memory(backend, org_id):
    memory = await backend.store.update(
        org_id, "s-new", WorkingMemory("s-new", summary="hi"), ["summary"], ttl=TTL, now=NOW
    )
    assert memory.summary == "hi" and memory.turn_count == 0 and memory.recent_turns == ()
    assert await backend.store.get(org_id, "s-new") == memory


async def test_clear_forgets_everything_including_idempotency_keys(backend, org_id):
    await append(backend, org_id, turn("one", idempotency_key="k-1"))
    await backend.store.clear(org_id, "s-1")
    await backend.store.clear(org_id, "s-1")  # idempotent
    assert await backend.store.get(org_id, "s-1") is None
    memory = await append(backend, org_id, turn("one", idempotency_key="k-1"))
    assert memory.turn_count == 1


async def test_the_same_session_id_in_two_orgs_never_mixes(backend, org_id):
    other = f"{org_id}-other"
    await append(backend, org_id, turn("mine"))
    assert await backend.store.get(other, "s-1") is None
    await append(backend, other, turn("theirs"))
    await backend.store.clear(other, "s-1")
    mine = await backend.store.get(org_id, "s-1")
    assert [t.content for t in mine.recent_turns] == ["mine"]


async def test_ids_with_separators_do_not_collide(backend, org_id):
    await append(backend, f"{org_id}:a", turn("one", session_id="b"))
    assert await backend.store.get(org_id, "a:b") is None


async def test_fifty_concurrent_appends_lose_no_turn(backend, org_id):
    await asyncio.gather(*(append(backend, org_id, turn(f"turn {n}", n), max_turns=20) for n in range(50)))
    memory = await backend.store.get(org_id, "s-1")
    assert memory.turn_count == 50
    assert [t.sequence for t in memory.recent_turns] == list(range(31, 51))
    if backend.redis is not None:
        _, turns_key = backend.store.keys(org_id, "s-1")
        assert await backend.redis.llen(turns_key) == 20


async def test_a_second_acquire_waits_then_fails_with_session_busy(backend, org_id):
    first = await backend.leases.acquire(org_id, "s-1", "req-1", timedelta(seconds=5), timedelta(0))
    assert first.holder == "req-1" and first.session_id == "s-1"
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(errors.Conflict) as raised:
        await backend.leases.acquire(org_id, "s-1", "req-2", timedelta(seconds=5), timedelta(milliseconds=150))
    assert raised.value.reason == "SESSION_BUSY"
    assert loop.time() - started >= 0.14


async def test_a_waiting_acquire_gets_the_lease_once_released(backend, org_id):
    first = await backend.leases.acquire(org_id, "s-1", "req-1", timedelta(seconds=5), timedelta(0))
    waiting = asyncio.create_task(
        backend.leases.acquire(org_id, "s-1", "req-2", timedelta(seconds=5), timedelta(seconds=2))
    )
    await holds_for(lambda: not waiting.done(), 0.05, "req-2 waiting while req-1 holds the lease")
    assert await backend.leases.release(org_id, "s-1", "req-1", first.fencing_token)
    second = await waiting
    assert second.holder == "req-2" and second.fencing_token > first.fencing_token


async def test_fencing_tokens_strictly_increase_across_acquisitions(backend, org_id):
    tokens = []
    for number in range(5):
        lease = await backend.leases.acquire(org_id, "s-1", f"req-{number}", timedelta(seconds=5), timedelta(0))
        tokens.append(lease.fencing_token)
        assert await backend.leases.release(org_id, "s-1", f"req-{number}", lease.fencing_token)
    assert tokens == sorted(set(tokens))


async def test_release_needs_the_holder_and_its_current_token(backend, org_id):
    lease = await backend.leases.acquire(org_id, "s-1", "req-1", timedelta(seconds=5), timedelta(0))
    assert not await backend.leases.release(org_id, "s-1", "req-1", lease.fencing_token - 1)
    assert not await backend.leases.release(org_id, "s-1", "req-2", lease.fencing_token)
    assert not await backend.leases.release(f"{org_id}-other", "s-1", "req-1", lease.fencing_token)
    assert await backend.leases.release(org_id, "s-1", "req-1", lease.fencing_token)
    assert not await backend.leases.release(org_id, "s-1", "req-1", lease.fencing_token)


async def test_an_expired_lease_can_be_taken_and_its_old_token_no_longer_releases(backend, org_id):
    old = await backend.leases.acquire(org_id, "s-1", "req-1", timedelta(milliseconds=50), timedelta(0))
    # Never released: req-2's wait ends only once req-1's lease has lapsed.
    new = await backend.leases.acquire(org_id, "s-1", "req-2", timedelta(seconds=5), LAPSE_WAIT)
    assert new.fencing_token > old.fencing_token
    assert not await backend.leases.release(org_id, "s-1", "req-1", old.fencing_token)
    assert await backend.leases.release(org_id, "s-1", "req-2", new.fencing_token)


async def test_a_holder_whose_lease_was_taken_over_can_no_longer_write(backend, org_id):
    old = await backend.leases.acquire(org_id, "s-1", "turn-1", timedelta(milliseconds=50), timedelta(0))
    await backend.store.append_turn(
        org_id, "s-1", turn("mine", session_id="s-1"), max_turns=20, ttl=TTL, now=NOW, fencing_token=old.fencing_token
    )
    # turn-1 stalls past its lease; turn-2 takes the session over once it has lapsed.
    new = await backend.leases.acquire(org_id, "s-1", "turn-2", timedelta(seconds=5), LAPSE_WAIT)

    with pytest.raises(errors.Conflict) as stale_append:
        await backend.store.append_turn(
            org_id,
            "s-1",
            turn("late", session_id="s-1"),
            max_turns=20,
            ttl=TTL,
            now=NOW,
            fencing_token=old.fencing_token,
        )
    with pytest.raises(errors.Conflict) as stale_update:
        await backend.store.update(
            org_id,
            "s-1",
            WorkingMemory("s-1", summary="stale"),
            ["summary"],
            ttl=TTL,
            now=NOW,
            fencing_token=old.fencing_token,
        )
    assert stale_append.value.reason == stale_update.value.reason == "LEASE_LOST"
    current = await backend.store.get(org_id, "s-1")
    assert [t.content for t in current.recent_turns] == ["mine"] and current.summary == ""  # nothing written

    await backend.store.update(
        org_id,
        "s-1",
        WorkingMemory("s-1", summary="fresh"),
        ["summary"],
        ttl=TTL,
        now=NOW,
        fencing_token=new.fencing_token,
    )
    written = await backend.store.append_turn(
        org_id, "s-1", turn("next", session_id="s-1"), max_turns=20, ttl=TTL, now=NOW, fencing_token=new.fencing_token
    )
    assert [t.content for t in written.recent_turns] == ["mine", "next"] and written.summary == "fresh"


async def test_leases_of_two_orgs_are_independent(backend, org_id):
    await backend.leases.acquire(org_id, "s-1", "req-1", timedelta(seconds=5), timedelta(0))
    other = await backend.leases.acquire(f"{org_id}-other", "s-1", "req-1", timedelta(seconds=5), timedelta(0))
    assert other.holder == "req-1"


async def test_an_unreachable_redis_is_dependency_unavailable(org_id):
    client = redis.Redis.from_url("redis://127.0.0.1:1", socket_connect_timeout=1)
    try:
        store, leases = RedisWorkingMemoryStore(client), RedisSessionLeases(client)
        for call in (
            store.get(org_id, "s-1"),
            append(Backend("redis", store, leases), org_id, turn("one")),
            leases.acquire(org_id, "s-1", "req-1", timedelta(seconds=1), timedelta(0)),
        ):
            with pytest.raises(errors.DependencyUnavailable) as raised:
                await call
            assert raised.value.reason == "REDIS_UNAVAILABLE"
    finally:
        await client.aclose()


async def test_a_get_reads_the_turns_in_full_as_keys_or_not_at_all_and_the_rest_in_full(backend, org_id):
    await append(backend, org_id, turn("one", 1, idempotency_key="turn:a", metadata={"k": "v"}))
    await append(backend, org_id, turn("two", 2))
    await backend.store.update(
        org_id, "s-1", WorkingMemory(session_id="s-1", summary="so far"), ["summary"], ttl=TTL, now=NOW
    )
    full = await backend.store.get(org_id, "s-1")
    assert await backend.store.get(org_id, "s-1", turns=TurnsRead.ALL) == full

    keys = await backend.store.get(org_id, "s-1", turns=TurnsRead.KEYS)
    none = await backend.store.get(org_id, "s-1", turns=TurnsRead.NONE)
    assert keys == replace(full, recent_turns=tuple(keys_of(t) for t in full.recent_turns))
    assert [(t.id, t.sequence, t.idempotency_key, t.content) for t in keys.recent_turns] == [
        (full.recent_turns[0].id, 1, "turn:a", ""),
        (full.recent_turns[1].id, 2, "", ""),
    ]
    assert none == replace(full, recent_turns=())
    for how in TurnsRead:
        assert await backend.store.get(org_id, "never", turns=how) is None
        assert await backend.store.get(f"{org_id}-other", "s-1", turns=how) is None


async def test_an_append_reads_back_its_turns_as_asked_and_writes_the_same_either_way(backend, org_id):
    first = turn("one", 1, idempotency_key="turn:a")
    full = await append(backend, org_id, first)
    second = turn("two", 2)
    lean = await backend.store.append_turn(org_id, "s-1", second, max_turns=20, ttl=TTL, now=NOW, turns=TurnsRead.NONE)
    keyed = await backend.store.append_turn(
        org_id, "s-1", turn("three", 3), max_turns=20, ttl=TTL, now=NOW, turns=TurnsRead.KEYS
    )
    replayed = await backend.store.append_turn(
        org_id, "s-1", first, max_turns=20, ttl=TTL, now=NOW, turns=TurnsRead.NONE
    )

    stored = await backend.store.get(org_id, "s-1")
    assert [t.content for t in stored.recent_turns] == ["one", "two", "three"]
    assert (full.turn_count, lean.turn_count, keyed.turn_count, replayed.turn_count) == (1, 2, 3, 3)
    assert lean.recent_turns == () and replayed == replace(stored, recent_turns=())
    assert keyed == replace(stored, recent_turns=tuple(keys_of(t) for t in stored.recent_turns))


# --- the lease and the append in one step (AppendTurn with acquire_lease) -------------------------


async def take_and_append(backend: Backend, org_id: str, holder: str, value: Turn, *, wait_ms: int = 0, ttl_ms=5_000):
    return await backend.leases.acquire_and_append(
        org_id,
        value.session_id,
        holder,
        timedelta(milliseconds=ttl_ms),
        timedelta(milliseconds=wait_ms),
        value,
        max_turns=20,
        memory_ttl=TTL,
        now=NOW,
    )


async def test_acquire_and_append_takes_the_lease_and_appends_under_it(backend, org_id):
    lease, written = await take_and_append(backend, org_id, "turn-1", turn("hello", idempotency_key="turn:1"))

    assert lease.holder == "turn-1" and lease.session_id == "s-1" and lease.fencing_token > 0
    assert [t.content for t in written.recent_turns] == ["hello"] and written.turn_count == 1
    assert written.expires_at == NOW + TTL
    assert await backend.store.get(org_id, "s-1") == written
    # The lease is the session's: a second holder is refused, the holder's token writes and releases.
    with pytest.raises(errors.Conflict):
        await backend.leases.acquire(org_id, "s-1", "turn-2", timedelta(seconds=5), timedelta(0))
    fenced = await backend.store.append_turn(
        org_id, "s-1", turn("reply"), max_turns=20, ttl=TTL, now=NOW, fencing_token=lease.fencing_token
    )
    assert [t.content for t in fenced.recent_turns] == ["hello", "reply"]
    assert await backend.leases.release(org_id, "s-1", "turn-1", lease.fencing_token)


async def test_a_busy_session_waits_then_is_refused_with_session_busy_and_nothing_written(backend, org_id):
    held = await backend.leases.acquire(org_id, "s-1", "turn-1", timedelta(seconds=5), timedelta(0))
    loop = asyncio.get_running_loop()
    started = loop.time()

    with pytest.raises(errors.Conflict) as raised:
        await take_and_append(backend, org_id, "turn-2", turn("second", idempotency_key="turn:2"), wait_ms=150)

    assert raised.value.reason == "SESSION_BUSY" and loop.time() - started >= 0.14
    assert await backend.store.get(org_id, "s-1") is None, "a refused call writes nothing"
    if backend.redis is not None:
        assert not [key async for key in backend.redis.scan_iter(f"*:wm:*{org_id}*")]
    # Its idempotency key was not recorded either: once the lease is free the same turn lands.
    assert await backend.leases.release(org_id, "s-1", "turn-1", held.fencing_token)
    lease, written = await take_and_append(backend, org_id, "turn-2", turn("second", idempotency_key="turn:2"))
    assert lease.fencing_token > held.fencing_token and [t.content for t in written.recent_turns] == ["second"]
    if backend.redis is not None:
        assert len([key async for key in backend.redis.scan_iter(f"*:wm:*{org_id}*")]) == 2  # hash, turns


async def test_a_waiting_acquire_and_append_lands_once_the_lease_is_released(backend, org_id):
    first, _ = await take_and_append(backend, org_id, "turn-1", turn("first", idempotency_key="turn:1"))
    waiting = asyncio.create_task(
        take_and_append(backend, org_id, "turn-2", turn("second", idempotency_key="turn:2"), wait_ms=2_000)
    )
    await holds_for(lambda: not waiting.done(), 0.05, "turn-2 waiting while turn-1 holds the lease")
    assert [t.content for t in (await backend.store.get(org_id, "s-1")).recent_turns] == ["first"], "still waiting"

    assert await backend.leases.release(org_id, "s-1", "turn-1", first.fencing_token)
    second, written = await waiting

    assert second.fencing_token > first.fencing_token
    assert [(t.content, t.sequence) for t in written.recent_turns] == [("first", 1), ("second", 2)]


async def test_concurrent_takers_append_one_at_a_time_in_lease_order(backend, org_id):
    async def one(number: int) -> int:
        lease, _ = await take_and_append(
            backend, org_id, f"turn-{number}", turn(f"m{number}", idempotency_key=f"turn:{number}"), wait_ms=5_000
        )
        await asyncio.sleep(0.005)  # holds the lease a moment: the others queue behind it
        assert await backend.leases.release(org_id, "s-1", f"turn-{number}", lease.fencing_token)
        return lease.fencing_token

    tokens = await asyncio.gather(*(one(number) for number in range(8)))

    memory = await backend.store.get(org_id, "s-1")
    assert len(set(tokens)) == 8 and memory.turn_count == 8
    by_token = [f"m{number}" for _, number in sorted(zip(tokens, range(8), strict=True))]
    assert [t.content for t in memory.recent_turns] == by_token, "appended in the order the lease was granted"


async def test_a_replayed_turn_takes_the_lease_and_appends_nothing(backend, org_id):
    first, _ = await take_and_append(backend, org_id, "turn-1", turn("hello", idempotency_key="turn:1"))
    assert await backend.leases.release(org_id, "s-1", "turn-1", first.fencing_token)

    again, written = await take_and_append(backend, org_id, "turn-1", turn("hello", idempotency_key="turn:1"))

    assert again.fencing_token > first.fencing_token
    assert [t.content for t in written.recent_turns] == ["hello"] and written.turn_count == 1


async def test_a_newer_acquire_and_append_fences_the_older_holder_out(backend, org_id):
    old, _ = await take_and_append(backend, org_id, "turn-1", turn("mine"), ttl_ms=50)
    # turn-1 stalls past its lease; turn-2 takes the session over in one call, once it has lapsed.
    new, _ = await take_and_append(backend, org_id, "turn-2", turn("yours"), wait_ms=LAPSE_WAIT_MS)

    with pytest.raises(errors.Conflict) as stale:
        await backend.store.append_turn(
            org_id, "s-1", turn("late"), max_turns=20, ttl=TTL, now=NOW, fencing_token=old.fencing_token
        )
    assert stale.value.reason == "LEASE_LOST" and new.fencing_token > old.fencing_token
    assert not await backend.leases.release(org_id, "s-1", "turn-1", old.fencing_token)
    assert [t.content for t in (await backend.store.get(org_id, "s-1")).recent_turns] == ["mine", "yours"]


async def test_acquire_and_append_never_touches_another_orgs_session(backend, org_id):
    other = f"{org_id}-other"
    theirs, _ = await take_and_append(backend, other, "turn-1", turn("theirs", idempotency_key="turn:1"))

    # Same session id, same holder, same idempotency key: another org's lease neither blocks nor is taken.
    mine, written = await take_and_append(backend, org_id, "turn-1", turn("mine", idempotency_key="turn:1"))

    assert [t.content for t in written.recent_turns] == ["mine"] and written.turn_count == 1
    assert [t.content for t in (await backend.store.get(other, "s-1")).recent_turns] == ["theirs"]
    assert await backend.leases.release(other, "s-1", "turn-1", theirs.fencing_token)
    assert await backend.leases.release(org_id, "s-1", "turn-1", mine.fencing_token)
