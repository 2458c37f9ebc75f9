"""Episodes decay like memories: the formula, the half-life setting, reads at their true value,
recorded uses reviving them, and decay runs refreshing the stored copy (on the fake index)."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lore_runtime import errors
from lore_runtime.page_tokens import PageTokens
from memory_svc.domain.episode import Episode, EpisodeDraft, new_episode
from memory_svc.domain.episode_salience import accessed, as_of
from memory_svc.domain.model import MemoryType, Scope
from memory_svc.domain.salience import FLOOR, episode_half_life, parse_half_lives
from memory_svc.usecases.episode_salience import decay_episodes, record_episode_access
from memory_svc.usecases.episodes import PageRequest, create_episode, get_episode, list_episodes
from memory_svc.usecases.memory_ports import AccessRequest

from tests.fakes import FixedClock, HashingEmbedder
from tests.fakes_episodes import InMemoryEpisodeIndex

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TOKENS = PageTokens()


class IdempotentAccessLog:
    """The access log's contract (tests/integration/memory/test_access_log.py): a replayed
    request id records nothing."""

    def __init__(self) -> None:
        self.rows = []

    async def record(self, org_id, accesses):
        seen = {(row.request_id, row.memory_id) for _, row in self.rows if row.request_id}
        fresh = [
            access for access in accesses if not access.request_id or (access.request_id, access.memory_id) not in seen
        ]
        self.rows += [(org_id, access) for access in fresh]
        return [access.memory_id for access in fresh]


@pytest.fixture
def deps() -> dict[str, object]:
    return {"index": InMemoryEpisodeIndex(), "embedder": HashingEmbedder(), "clock": FixedClock(T0)}


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:8]}"


async def create(deps, org: str, summary: str = "Planned the Lisbon move.", **fields):
    draft = EpisodeDraft(
        conversation_id=f"c-{uuid.uuid4().hex[:8]}", summary=summary, scope=Scope(user_id="alice"), **fields
    )
    return await create_episode(org, draft, "r", **deps)


async def record(deps, org: str, ids, *, request_id: str = "", access_log=None, half_life_days: float = 30.0) -> int:
    return await record_episode_access(
        org,
        ids,
        AccessRequest(reason="prime", session_id="s-1", principal="assembler", request_id=request_id),
        index=deps["index"],
        access_log=access_log or IdempotentAccessLog(),
        clock=deps["clock"],
        half_life_days=half_life_days,
    )


# --------------------------------------------------------------------------- the formula and the setting


def stored(access_count: int = 0, current_salience: float = 1.0) -> Episode:
    episode = new_episode("org", EpisodeDraft(conversation_id="c", summary="Lisbon."), "r", T0)
    return replace(episode, access_count=access_count, current_salience=current_salience)


@given(st.integers(min_value=0, max_value=500), st.floats(min_value=0, max_value=36_500, allow_nan=False))
def test_an_episode_fades_by_the_memories_formula_and_never_below_the_floor(accesses, days):
    episode = stored(access_count=accesses)
    value = as_of(episode, T0 + timedelta(days=days)).current_salience
    assert value == pytest.approx(max(FLOOR, (1 + 0.1 * accesses) * 0.5 ** (days / 30)))
    assert value >= FLOOR


def test_a_use_counts_restarts_the_clock_and_revives():
    old = stored(access_count=2, current_salience=1.2)
    later = T0 + timedelta(days=90)

    used = accessed(old, later)

    assert (used.access_count, used.last_accessed_at) == (3, later)
    assert used.current_salience == pytest.approx(1.3)
    assert as_of(old, later).current_salience == pytest.approx(1.2 * 0.125)


def test_episodes_have_their_own_key_in_the_half_life_setting():
    assert episode_half_life("") == 30.0
    assert episode_half_life("fact=90, episode = 60") == 60.0
    assert parse_half_lives("fact=90,episode=60") == {MemoryType.FACT: 90.0}  # not a memory type
    for bad in ("episode=0", "episode=1,episode=2", "episodes=3"):
        with pytest.raises(ValueError):
            episode_half_life(bad)
        with pytest.raises(ValueError):
            parse_half_lives(bad)  # checked at start either way


def test_the_memory_setting_reads_the_episode_half_life():
    from lore_runtime.settings import load_settings
    from memory_svc.config import Settings

    required = {
        "LORE_MEMORY_DATABASE_URL": "postgresql://localhost/lore",
        "LORE_REDIS_URL": "redis://localhost",
        "LORE_SERVICE_TOKEN": "t" * 32,
    }
    assert load_settings(Settings, required).episode_half_life_days == 30.0
    settings = load_settings(Settings, {**required, "LORE_HALF_LIFE_DAYS": "episode=45"})
    assert (settings.episode_half_life_days, settings.half_lives) == (45.0, {})


# --------------------------------------------------------------------------- reads at their true value


async def test_get_and_list_return_the_salience_as_of_the_read(deps) -> None:
    org = new_org()
    created = await create(deps, org)
    deps["clock"].advance(days=30)

    got = await get_episode(org, created.id, index=deps["index"], clock=deps["clock"])
    listed = await list_episodes(org, PageRequest(Scope(), 10), index=deps["index"], tokens=TOKENS, clock=deps["clock"])
    slower = await get_episode(org, created.id, index=deps["index"], clock=deps["clock"], half_life_days=60)

    assert got.current_salience == pytest.approx(0.5)
    assert [episode.current_salience for episode in listed.episodes] == [got.current_salience]
    assert slower.current_salience == pytest.approx(0.5**0.5)
    assert (await deps["index"].get(org, created.id)).current_salience == 1.0  # the stored copy waits for decay


async def test_min_salience_filters_on_the_decayed_value_and_pages_past_what_it_drops(deps) -> None:
    org = new_org()
    # Five old episodes (ended later: listed first) and two fresh ones (ended earlier).
    old = [await create(deps, org, ended_at=T0 + timedelta(minutes=10 + n)) for n in range(5)]
    deps["clock"].advance(days=60)
    fresh = [await create(deps, org, ended_at=T0 + timedelta(minutes=n)) for n in range(2)]

    page = await list_episodes(
        org, PageRequest(Scope(), 2), index=deps["index"], tokens=TOKENS, clock=deps["clock"], min_salience=0.3
    )
    everything = await list_episodes(
        org, PageRequest(Scope(), 10), index=deps["index"], tokens=TOKENS, clock=deps["clock"]
    )

    assert [episode.id for episode in page.episodes] == [fresh[1].id, fresh[0].id]
    assert page.next_page_token == ""
    assert len(everything.episodes) == 7
    assert {e.id: e.current_salience for e in everything.episodes if e.id in {o.id for o in old}} == pytest.approx(
        {o.id: 0.25 for o in old}
    )


async def test_a_page_that_drops_too_many_comes_back_short_with_a_token_that_goes_on(deps) -> None:
    org = new_org()
    old = [await create(deps, org, ended_at=T0 + timedelta(minutes=100 + n)) for n in range(12)]
    deps["clock"].advance(days=60)
    fresh = await create(deps, org, ended_at=T0)
    assert len(old) > 4 * 2  # more than MAX_LIST_ROUNDS pages of size 2 to skip

    ids, token, calls = [], "", 0
    while True:
        page = await list_episodes(
            org,
            PageRequest(Scope(), 2, token),
            index=deps["index"],
            tokens=TOKENS,
            clock=deps["clock"],
            min_salience=0.3,
        )
        ids += [episode.id for episode in page.episodes]
        calls += 1
        if not (token := page.next_page_token):
            break

    assert ids == [fresh.id]
    assert calls == 2


# --------------------------------------------------------------------------- recorded uses


async def test_a_recorded_use_revives_an_episode_and_a_replay_records_nothing(deps) -> None:
    org = new_org()
    episode = await create(deps, org)
    deps["clock"].advance(days=60)
    access_log = IdempotentAccessLog()

    first = await record(deps, org, [episode.id, episode.id], request_id="r-1", access_log=access_log)
    replay = await record(deps, org, [episode.id], request_id="r-1", access_log=access_log)

    assert (first, replay) == (1, 0)
    stored = await get_episode(org, episode.id, index=deps["index"], clock=deps["clock"])
    assert (stored.access_count, stored.last_accessed_at) == (1, T0 + timedelta(days=60))
    assert stored.current_salience == pytest.approx(1.1)
    [(logged_org, row)] = access_log.rows
    assert (logged_org, row.memory_id, row.kind, row.reason, row.user_id) == (
        org,
        episode.id,
        "episode",
        "prime",
        "alice",
    )


async def test_another_orgs_or_unknown_ids_record_nothing(deps) -> None:
    theirs = await create(deps, new_org())
    access_log = IdempotentAccessLog()

    recorded = await record(deps, new_org(), [theirs.id, "not-a-uuid", str(uuid.uuid4())], access_log=access_log)

    assert recorded == 0
    assert access_log.rows == []
    assert (await deps["index"].get(theirs.org_id, theirs.id)).access_count == 0


async def test_a_use_during_a_reindex_is_logged_and_the_counters_wait(deps) -> None:
    class Reindexing(InMemoryEpisodeIndex):
        async def update_salience(self, org_id, episodes):
            raise errors.FailedPrecondition("copying", reason="REINDEX_RUNNING")

    deps["index"] = Reindexing()
    org = new_org()
    episode = await create(deps, org)
    access_log = IdempotentAccessLog()

    assert await record(deps, org, [episode.id], access_log=access_log) == 1
    assert len(access_log.rows) == 1


# --------------------------------------------------------------------------- decay runs


async def test_decay_refreshes_the_stored_copy_of_what_faded_only(deps) -> None:
    org, other = new_org(), new_org()
    old = await create(deps, org)
    theirs = await create(deps, other)
    deps["clock"].advance(days=30)
    fresh = await create(deps, org)

    updated = await decay_episodes(org, index=deps["index"], clock=deps["clock"])
    again = await decay_episodes(org, index=deps["index"], clock=deps["clock"])

    assert (updated, again) == (1, 0)
    assert (await deps["index"].get(org, old.id)).current_salience == pytest.approx(0.5)
    assert (await deps["index"].get(org, fresh.id)).current_salience == 1.0
    assert (await deps["index"].get(other, theirs.id)).current_salience == 1.0


async def test_maintenance_decays_the_episodes_of_every_org_with_memories(deps) -> None:
    from memory_svc.usecases.maintenance import run_maintenance

    from tests.fakes import InMemoryMemoryIndex, InMemoryOrderGenerations

    class Orgs(InMemoryMemoryIndex):
        async def org_ids(self):
            return [org]

    org = new_org()
    episode = await create(deps, org)
    deps["clock"].advance(days=60)

    totals = await run_maintenance(
        catalog=Orgs(),
        clock=deps["clock"],
        threshold=0.92,
        generations=InMemoryOrderGenerations(),
        episodes=deps["index"],
        episode_half_life_days=60,
    )

    assert totals["episode_salience_updated"] == 1
    assert (await deps["index"].get(org, episode.id)).current_salience == pytest.approx(0.5)
