"""One contract for every EpisodeIndex: the fake of tests/fakes_episodes.py, qdrant-edge, qdrant-client.

The ``episode_index`` fixture runs each test against all three. Vectors are small random unit
vectors; no embedding model is involved.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from memory_svc.adapters.qdrant_client_episodes import QdrantClientEpisodeIndex
from memory_svc.adapters.qdrant_edge_episodes import QdrantEdgeEpisodeIndex
from memory_svc.domain.episode import (
    ActionItem,
    Episode,
    OpenThread,
    Outcome,
    ThreadStatus,
    UserState,
    resolve_thread,
)
from memory_svc.domain.model import Scope, ScopeMatch
from qdrant_client import AsyncQdrantClient

from tests.fakes_episodes import InMemoryEpisodeIndex

DIMENSION = 8
MODEL = "test/random-unit"
T0 = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)


@pytest.fixture(params=["fake", "qdrant_edge", "qdrant_client_local"])
async def episode_index(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[object]:
    if request.param == "fake":
        yield InMemoryEpisodeIndex()
    elif request.param == "qdrant_edge":
        index = await QdrantEdgeEpisodeIndex.open(
            tmp_path / "qdrant" / "episodes", embedding_model=MODEL, dimension=DIMENSION
        )
        yield index
        await index.close()
    else:
        index = await QdrantClientEpisodeIndex.open(
            AsyncQdrantClient(location=":memory:"), embedding_model=MODEL, dimension=DIMENSION, owns_client=True
        )
        yield index
        await index.close()


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:12]}"


def make_episode(org_id: str, ended_at: datetime = T0, **fields: object) -> Episode:
    values: dict[str, object] = {
        "id": str(uuid.uuid4()),
        "org_id": org_id,
        "conversation_id": f"conv-{uuid.uuid4().hex[:8]}",
        "scope": Scope(),
        "summary": "We planned the trip to Lisbon.",
        "key_topics": (),
        "entities_discussed": (),
        "user_state": UserState(),
        "outcomes": (),
        "open_threads": (),
        "decisions": (),
        "action_items": (),
        "next_session_questions": (),
        "message_count": 0,
        "started_at": ended_at - timedelta(minutes=30),
        "ended_at": ended_at,
        "importance": 0.5,
        "created_at": ended_at,
        "last_accessed_at": ended_at,
    }
    values.update(fields)
    return Episode(**values)  # type: ignore[arg-type]


def vector(seed: int) -> np.ndarray:
    row = np.random.default_rng(seed).standard_normal(DIMENSION).astype(np.float32)
    return row / np.linalg.norm(row)


async def put(index, *episodes: Episode) -> None:
    for position, episode in enumerate(episodes):
        await index.upsert(episode, vector(position))


async def list_all(index, org: str, scope: Scope, page_size: int, **filters) -> tuple[list[str], int]:
    ids, pages, cursor = [], 0, None
    while True:
        page = await index.list(org, scope, page_size, cursor, **filters)
        pages += 1
        assert len(page.episodes) <= page_size
        ids += [episode.id for episode in page.episodes]
        if page.next_cursor is None:
            return ids, pages
        cursor = page.next_cursor
        assert pages < 100


async def test_get_returns_the_episode_exactly_as_upserted(episode_index) -> None:
    org = new_org()
    episode = make_episode(
        org,
        conversation_id="session-42",
        scope=Scope(user_id="u-1", agent_id="a-1", team_id="t-1"),
        summary="Alice and the agent planned the Lisbon move; ünïcødé survives.",
        key_topics=("moving", "lisbon"),
        entities_discussed=("alice", "lisbon"),
        user_state=UserState(mood="hopeful", confidence="medium", focus="logistics"),
        outcomes=(Outcome("decision", "move in May"), Outcome("learning", "visas take 6 weeks")),
        open_threads=(
            OpenThread("find a flat", ThreadStatus.OPEN, "near Alfama"),
            OpenThread("visa", ThreadStatus.BLOCKED, "waiting for papers"),
            OpenThread("flights", ThreadStatus.RESOLVED, ""),
        ),
        decisions=("move in May",),
        action_items=(ActionItem("book movers", "alice", "by Friday"), ActionItem("renew passport")),
        next_session_questions=("did the visa arrive?",),
        message_count=37,
        started_at=T0 - timedelta(hours=1, microseconds=3),
        ended_at=T0,
        importance=0.8125,
        created_at=T0 + timedelta(seconds=1),
        last_accessed_at=T0 + timedelta(days=2),
        access_count=3,
        current_salience=0.123456789,
        metadata={"source": "import", "dia": "D1:3"},
    )
    await episode_index.upsert(episode, vector(1))

    got = await episode_index.get(org, episode.id)

    assert got == episode
    assert got.ended_at.utcoffset() == timedelta(0)


async def test_get_answers_none_for_unknown_malformed_and_other_orgs_ids(episode_index) -> None:
    ours, theirs = new_org(), new_org()
    episode = make_episode(theirs)
    await put(episode_index, episode)

    assert await episode_index.get(ours, episode.id) is None
    assert await episode_index.get(ours, str(uuid.uuid4())) is None
    assert await episode_index.get(ours, "not-a-uuid") is None
    assert (await episode_index.get(theirs, episode.id)) == episode


async def test_upsert_never_overwrites_another_orgs_episode(episode_index) -> None:
    ours, theirs = new_org(), new_org()
    original = make_episode(theirs, summary="theirs")
    await put(episode_index, original)

    await episode_index.upsert(make_episode(ours, id=original.id, summary="hijack"), vector(9))

    assert await episode_index.get(theirs, original.id) == original
    assert await episode_index.get(ours, original.id) is None


async def test_list_is_newest_first_by_ended_at(episode_index) -> None:
    org = new_org()
    offsets = [3, 0, 7, 1, 5]
    episodes = [make_episode(org, T0 + timedelta(hours=hours)) for hours in offsets]
    await put(episode_index, *episodes)

    page = await episode_index.list(org, Scope(), 10)

    assert [episode.ended_at for episode in page.episodes] == sorted(
        (episode.ended_at for episode in episodes), reverse=True
    )
    assert page.next_cursor is None


@pytest.mark.parametrize("page_size", [1, 2, 3, 7])
async def test_pagination_has_no_duplicates_or_gaps_even_with_ties(episode_index, page_size: int) -> None:
    org = new_org()
    # Seven episodes ending at three distinct moments (ties in the same microsecond) plus singles.
    moments = [T0, T0, T0, T0 + timedelta(microseconds=1), T0 - timedelta(days=1), T0 - timedelta(days=1), T0]
    episodes = [make_episode(org, moment) for moment in moments]
    await put(episode_index, *episodes)
    expected = [e.id for e in sorted(episodes, key=lambda e: (e.ended_at, e.id), reverse=True)]

    ids, pages = await list_all(episode_index, org, Scope(), page_size)

    assert ids == expected
    assert pages == -(-len(expected) // page_size)  # the look-ahead: no empty last page


async def test_a_new_episode_does_not_shift_later_pages(episode_index) -> None:
    org = new_org()
    episodes = [make_episode(org, T0 - timedelta(hours=hours)) for hours in range(5)]
    await put(episode_index, *episodes)

    first = await episode_index.list(org, Scope(), 2)
    await put(episode_index, make_episode(org, T0 + timedelta(hours=1)))
    second = await episode_index.list(org, Scope(), 2, first.next_cursor)

    assert [e.id for e in first.episodes + second.episodes] == [e.id for e in episodes[:4]]


async def test_list_filters_by_scope_ended_after_and_salience(episode_index) -> None:
    org = new_org()
    alice = make_episode(org, T0, scope=Scope(user_id="alice", agent_id="a-1"), current_salience=0.9)
    alice_old = make_episode(org, T0 - timedelta(days=10), scope=Scope(user_id="alice"), current_salience=0.2)
    bob = make_episode(org, T0, scope=Scope(user_id="bob"))
    await put(episode_index, alice, alice_old, bob)

    by_user = await episode_index.list(org, Scope(user_id="alice"), 10)
    by_user_and_agent = await episode_index.list(org, Scope(user_id="alice", agent_id="a-1"), 10)
    recent = await episode_index.list(org, Scope(user_id="alice"), 10, ended_after=T0 - timedelta(days=1))
    salient = await episode_index.list(org, Scope(), 10, min_salience=0.5)
    everyone = await episode_index.list(org, Scope(), 10)

    assert [e.id for e in by_user.episodes] == [alice.id, alice_old.id]
    assert [e.id for e in by_user_and_agent.episodes] == [alice.id]
    assert [e.id for e in recent.episodes] == [alice.id]
    assert {e.id for e in salient.episodes} == {alice.id, bob.id}
    assert {e.id for e in everyone.episodes} == {alice.id, alice_old.id, bob.id}


async def test_list_never_returns_another_orgs_episodes(episode_index) -> None:
    ours, theirs = new_org(), new_org()
    mine = make_episode(ours, scope=Scope(user_id="u-1"), open_threads=(OpenThread("x"),))
    await put(episode_index, mine, make_episode(theirs, scope=Scope(user_id="u-1"), open_threads=(OpenThread("y"),)))

    listed = await episode_index.list(ours, Scope(user_id="u-1"), 10)
    threads = await episode_index.list_open_threads(ours, Scope(), 10)

    assert [e.id for e in listed.episodes] == [mine.id]
    assert [thread.episode_id for thread in threads.threads] == [mine.id]


async def test_open_threads_come_newest_first_across_episodes(episode_index) -> None:
    org = new_org()
    old = make_episode(
        org,
        T0 - timedelta(days=2),
        conversation_id="c-old",
        open_threads=(OpenThread("old-a"), OpenThread("old-b", ThreadStatus.BLOCKED, "needs approval")),
    )
    resolved_only = make_episode(org, T0 - timedelta(days=1), open_threads=(OpenThread("done", ThreadStatus.RESOLVED),))
    none = make_episode(org, T0 + timedelta(hours=1))
    new = make_episode(
        org,
        T0,
        conversation_id="c-new",
        open_threads=(OpenThread("new-a"), OpenThread("closed", ThreadStatus.RESOLVED), OpenThread("new-c")),
    )
    await put(episode_index, old, resolved_only, none, new)

    page = await episode_index.list_open_threads(org, Scope(), 10)

    assert [thread.thread.topic for thread in page.threads] == ["new-a", "new-c", "old-a", "old-b"]
    assert [thread.conversation_id for thread in page.threads] == ["c-new", "c-new", "c-old", "c-old"]
    assert [thread.ended_at for thread in page.threads] == [T0, T0, old.ended_at, old.ended_at]
    assert page.threads[3].thread == OpenThread("old-b", ThreadStatus.BLOCKED, "needs approval")
    assert page.next_cursor is None


async def test_an_episode_rewritten_with_its_threads_resolved_leaves_the_open_threads(episode_index) -> None:
    """ResolveThread rewrites the episode whole: the open-thread filter must follow the new statuses."""
    org = new_org()
    episode = make_episode(org, open_threads=(OpenThread("visa"), OpenThread("flat", ThreadStatus.BLOCKED)))
    await put(episode_index, episode)
    first, _ = resolve_thread(episode, 0, "Applied for the D7.")
    both, _ = resolve_thread(first, 1, "")

    await episode_index.upsert(first, vector(0))
    one_left = await episode_index.list_open_threads(org, Scope(), 10)
    await episode_index.upsert(both, vector(0))
    none_left = await episode_index.list_open_threads(org, Scope(), 10)

    assert [(t.thread.topic, t.index) for t in one_left.threads] == [("flat", 1)]
    assert none_left.threads == []
    stored = await episode_index.get(org, episode.id)
    assert stored is not None and stored.open_threads == (
        OpenThread("visa", ThreadStatus.RESOLVED, "", "Applied for the D7."),
        OpenThread("flat", ThreadStatus.RESOLVED),
    )


@pytest.mark.parametrize("page_size", [1, 2, 3])
async def test_open_threads_paginate_without_duplicates_or_gaps(episode_index, page_size: int) -> None:
    org = new_org()
    episodes = [
        make_episode(
            org,
            moment,
            scope=Scope(user_id="u"),
            open_threads=tuple(OpenThread(f"{n}-{k}") for k in range(count)),
        )
        for n, (moment, count) in enumerate(
            [(T0, 2), (T0, 1), (T0 - timedelta(hours=1), 3), (T0 - timedelta(hours=2), 1), (T0, 0)]
        )
    ]
    await put(
        episode_index, *episodes, make_episode(org, T0, scope=Scope(user_id="other"), open_threads=(OpenThread("x"),))
    )
    expected = [
        thread.topic
        for episode in sorted(episodes, key=lambda e: (e.ended_at, e.id), reverse=True)
        for thread in episode.open_threads
    ]

    topics, cursor = [], None
    for _ in range(20):
        page = await episode_index.list_open_threads(org, Scope(user_id="u"), page_size, cursor)
        assert len(page.threads) <= page_size
        topics += [thread.thread.topic for thread in page.threads]
        cursor = page.next_cursor
        if cursor is None:
            break

    assert topics == expected


# One org's episodes for the scope matches: two users, the org's shared ones, two agents, two teams.
SCOPES = {
    "alice": Scope(user_id="alice"),
    "alice+bot": Scope(user_id="alice", agent_id="bot"),
    "alice+other-bot": Scope(user_id="alice", agent_id="other-bot"),
    "alice+team": Scope(user_id="alice", team_id="team-1"),
    "bob": Scope(user_id="bob"),
    "bob+bot": Scope(user_id="bob", agent_id="bot"),
    "shared": Scope(),
    "shared+bot": Scope(agent_id="bot"),
    "shared+other-bot": Scope(agent_id="other-bot"),
    "team": Scope(team_id="team-1"),
    "other-team": Scope(team_id="team-2"),
}
SHARED = {"shared", "shared+bot", "shared+other-bot"}
CONTEXT_READS = [
    (Scope(user_id="alice"), {"alice", "alice+bot", "alice+other-bot"} | SHARED),
    (Scope(user_id="alice", agent_id="bot"), {"alice", "alice+bot", "shared", "shared+bot"}),
    (
        Scope(user_id="alice", team_id="team-1"),
        {"alice", "alice+bot", "alice+other-bot", "alice+team", "team"} | SHARED,
    ),
    (
        Scope(user_id="alice", agent_id="bot", team_id="team-1"),
        {"alice", "alice+bot", "alice+team", "shared", "shared+bot", "team"},
    ),
    (Scope(), SHARED),
    (Scope(agent_id="bot"), {"shared", "shared+bot"}),
    (Scope(user_id="carol"), SHARED),
]
BROWSE_READS = [
    (Scope(user_id="alice"), {"alice", "alice+bot", "alice+other-bot", "alice+team"}),
    (Scope(agent_id="bot"), {"alice+bot", "bob+bot", "shared+bot"}),
    (Scope(), set(SCOPES)),
]


async def scoped_population(index) -> tuple[str, dict[str, str]]:
    """An episode with one open thread per scope of ``SCOPES`` (distinct ``ended_at``), in a new org,
    plus alice's episode in another org; returns the org and the names of the episode ids."""
    org = new_org()
    episodes = {
        name: make_episode(org, T0 - timedelta(minutes=n), scope=scope, open_threads=(OpenThread(name),))
        for n, (name, scope) in enumerate(SCOPES.items())
    }
    elsewhere = make_episode(new_org(), scope=Scope(user_id="alice"), open_threads=(OpenThread("elsewhere"),))
    await put(index, *episodes.values(), elsewhere)
    return org, {episode.id: name for name, episode in episodes.items()}


async def listed_names(index, org: str, names: dict[str, str], scope: Scope, match: ScopeMatch) -> list[str]:
    """Every episode ``list`` selects, two per page, in order."""
    ids, cursor = [], None
    for _ in range(20):
        page = await index.list(org, scope, 2, cursor, scope_match=match)
        ids += [episode.id for episode in page.episodes]
        if (cursor := page.next_cursor) is None:
            break
    return [names[episode_id] for episode_id in ids]


async def thread_topics(index, org: str, scope: Scope, match: ScopeMatch) -> list[str]:
    topics, cursor = [], None
    for _ in range(20):
        page = await index.list_open_threads(org, scope, 2, cursor, scope_match=match)
        topics += [thread.thread.topic for thread in page.threads]
        if (cursor := page.next_cursor) is None:
            break
    return topics


def newest_first(expected: set[str]) -> list[str]:
    return [name for name in SCOPES if name in expected]  # SCOPES' order is newest first


async def test_a_context_read_shows_the_users_and_the_orgs_episodes_never_another_users(episode_index) -> None:
    org, names = await scoped_population(episode_index)

    for scope, expected in CONTEXT_READS:
        listed = await listed_names(episode_index, org, names, scope, ScopeMatch.CONTEXT)
        threads = await thread_topics(episode_index, org, scope, ScopeMatch.CONTEXT)
        assert listed == threads == newest_first(expected), scope
        assert not any(name.startswith("bob") for name in listed)
        if not scope.user_id:
            assert not any(SCOPES[name].user_id for name in listed)


async def test_a_browse_read_keeps_the_ids_the_scope_sets(episode_index) -> None:
    org, names = await scoped_population(episode_index)

    for scope, expected in BROWSE_READS:
        listed = await listed_names(episode_index, org, names, scope, ScopeMatch.BROWSE)
        assert listed == await thread_topics(episode_index, org, scope, ScopeMatch.BROWSE) == newest_first(expected)
        assert listed == [names[episode.id] for episode in (await episode_index.list(org, scope, 50)).episodes]


async def test_erasure_keeps_the_browse_match(episode_index) -> None:
    org, names = await scoped_population(episode_index)

    deleted = await episode_index.delete_scope(org, Scope(user_id="alice"))

    alices = {"alice", "alice+bot", "alice+other-bot", "alice+team"}
    assert {names[episode_id] for episode_id in deleted} == alices  # the org's shared episodes stay
    remaining = await listed_names(episode_index, org, names, Scope(), ScopeMatch.BROWSE)
    assert remaining == newest_first(set(SCOPES) - alices)


async def test_empty_org_lists_nothing(episode_index) -> None:
    org = new_org()
    assert (await episode_index.list(org, Scope(), 5)).episodes == []
    assert (await episode_index.list_open_threads(org, Scope(), 5)).threads == []


async def test_delete_scope_erases_only_the_subject_of_that_org(episode_index) -> None:
    org, other = new_org(), new_org()
    subject, bystander = Scope(user_id="leaving"), Scope(user_id="staying")
    doomed = [
        make_episode(org, scope=subject, open_threads=(OpenThread("visa"),)),
        make_episode(org, T0 - timedelta(days=1), scope=Scope(user_id="leaving", agent_id="a-1")),
    ]
    kept = [make_episode(org, scope=bystander), make_episode(other, scope=subject), make_episode(org)]
    await put(episode_index, *doomed, *kept)

    deleted = await episode_index.delete_scope(org, subject)

    assert sorted(deleted) == sorted(episode.id for episode in doomed)
    assert [await episode_index.get(org, episode.id) for episode in doomed] == [None, None]
    assert (await episode_index.list(org, subject, 10)).episodes == []
    assert (await episode_index.list_open_threads(org, subject, 10)).threads == []
    assert await episode_index.get(org, kept[0].id) == kept[0]
    assert await episode_index.get(other, kept[1].id) == kept[1]
    assert await episode_index.get(org, kept[2].id) == kept[2]
    assert await episode_index.delete_scope(org, subject) == []  # idempotent


async def test_delete_removes_one_episode_of_that_org_only(episode_index) -> None:
    org, other = new_org(), new_org()
    doomed, kept = make_episode(org, open_threads=(OpenThread("visa"),)), make_episode(org, T0 - timedelta(days=1))
    theirs = make_episode(other)
    await put(episode_index, doomed, kept, theirs)

    assert await episode_index.delete(org, theirs.id) is False  # another org's: untouched
    assert await episode_index.delete(org, "not-a-uuid") is False
    assert await episode_index.delete(org, doomed.id) is True

    assert await episode_index.get(org, doomed.id) is None
    assert [e.id for e in (await episode_index.list(org, Scope(), 10)).episodes] == [kept.id]
    assert (await episode_index.list_open_threads(org, Scope(), 10)).threads == []
    assert await episode_index.get(other, theirs.id) == theirs
    assert await episode_index.delete(org, doomed.id) is False  # idempotent


# --------------------------------------------------------------------------- search, get_many, update_salience


def cosine(left: np.ndarray, right: np.ndarray) -> float:
    return float(np.dot(left, right) / (np.linalg.norm(left) * np.linalg.norm(right)))


async def test_search_returns_the_nearest_summaries_first_with_their_cosine(episode_index) -> None:
    org = new_org()
    episodes = [make_episode(org, T0 - timedelta(hours=n)) for n in range(6)]
    for seed, episode in enumerate(episodes):
        await episode_index.upsert(episode, vector(seed))
    query = vector(3) + 0.2 * vector(4)
    expected = sorted(((cosine(query, vector(seed)), e.id) for seed, e in enumerate(episodes)), reverse=True)

    hits = await episode_index.search(org, Scope(), query, 3)

    assert [episode.id for episode, _ in hits] == [episode_id for _, episode_id in expected[:3]]
    assert [score for _, score in hits] == pytest.approx([score for score, _ in expected[:3]], abs=1e-5)
    assert hits[0][0] == episodes[3]  # the whole episode, as stored
    assert await episode_index.search(org, Scope(), query, 0) == []


async def test_search_never_returns_another_orgs_or_another_users_episodes(episode_index) -> None:
    org, names = await scoped_population(episode_index)
    query = vector(0)

    for scope, expected in CONTEXT_READS:
        hits = await episode_index.search(org, scope, query, 50, scope_match=ScopeMatch.CONTEXT)
        assert {names[episode.id] for episode, _ in hits} == expected, scope
    for scope, expected in BROWSE_READS:
        hits = await episode_index.search(org, scope, query, 50)
        assert {names[episode.id] for episode, _ in hits} == expected, scope
    assert await episode_index.search(new_org(), Scope(user_id="alice"), query, 50) == []


async def test_search_keeps_the_stored_salience_asked_for(episode_index) -> None:
    org = new_org()
    faded = make_episode(org, current_salience=0.1)
    salient = make_episode(org, current_salience=0.8)
    await put(episode_index, faded, salient)

    hits = await episode_index.search(org, Scope(), vector(0), 10, min_salience=0.5)

    assert [episode.id for episode, _ in hits] == [salient.id]


async def test_get_many_returns_only_the_orgs_episodes(episode_index) -> None:
    ours, theirs = new_org(), new_org()
    mine = [make_episode(ours), make_episode(ours, T0 - timedelta(days=1))]
    other = make_episode(theirs)
    await put(episode_index, *mine, other)

    found = await episode_index.get_many(ours, [mine[1].id, other.id, "not-a-uuid", str(uuid.uuid4()), mine[0].id])

    assert sorted(episode.id for episode in found) == sorted(episode.id for episode in mine)
    assert await episode_index.get_many(ours, []) == []


async def test_update_salience_writes_only_the_salience_fields_of_the_orgs_episodes(episode_index) -> None:
    ours, theirs = new_org(), new_org()
    mine = make_episode(ours, open_threads=(OpenThread("visa"),), summary="Lisbon")
    other = make_episode(theirs, summary="theirs")
    await put(episode_index, mine, other)
    later = T0 + timedelta(days=3, microseconds=7)

    await episode_index.update_salience(
        ours,
        [
            replace(mine, access_count=2, last_accessed_at=later, current_salience=1.2, summary="ignored"),
            replace(other, org_id=ours, access_count=9, current_salience=0.01),
        ],
    )

    stored = await episode_index.get(ours, mine.id)
    assert stored == replace(mine, access_count=2, last_accessed_at=later, current_salience=1.2)
    assert await episode_index.get(theirs, other.id) == other  # never another org's
    listed = await episode_index.list(ours, Scope(), 10, min_salience=1.0)
    assert [episode.id for episode in listed.episodes] == [mine.id]  # the salience index follows
    hits = await episode_index.search(ours, Scope(), vector(0), 1)
    assert hits[0][1] == pytest.approx(1.0, abs=1e-5)  # the vector is kept
