"""Episode use cases on the in-memory fake: validation, idempotent create, pagination, tokens."""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from lore_runtime import errors
from lore_runtime.page_tokens import PageTokens
from memory_svc.domain.episode import (
    MAX_LIST_ITEMS,
    MAX_STRING_CHARS,
    MAX_SUMMARY_CHARS,
    ActionItem,
    EpisodeDraft,
    OpenThread,
    Outcome,
    ThreadStatus,
    episode_id,
)
from memory_svc.domain.model import Scope
from memory_svc.usecases.episodes import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_SIZE,
    PageRequest,
    create_episode,
    get_episode,
    list_episodes,
    list_open_threads,
)

from tests.fakes import FixedClock, HashingEmbedder
from tests.fakes_episodes import InMemoryEpisodeIndex

T0 = datetime(2026, 1, 1, tzinfo=UTC)

TOKENS = PageTokens()


@pytest.fixture
def deps() -> dict[str, object]:
    return {"index": InMemoryEpisodeIndex(), "embedder": HashingEmbedder(), "clock": FixedClock(T0)}


def draft(**fields: object) -> EpisodeDraft:
    values: dict[str, object] = {
        "conversation_id": f"conv-{uuid.uuid4().hex[:8]}",
        "summary": "Planned the Lisbon move.",
        "scope": Scope(user_id="alice"),
        "ended_at": T0,
    }
    values.update(fields)
    return EpisodeDraft(**values)  # type: ignore[arg-type]


def new_org() -> str:
    return f"org-{uuid.uuid4().hex[:8]}"


async def test_create_embeds_the_summary_and_fills_server_fields(deps) -> None:
    org = new_org()
    episode = await create_episode(org, draft(importance=None, started_at=None, ended_at=None), "r-1", **deps)

    assert episode.id == episode_id(org, episode.conversation_id, "r-1")
    assert uuid.UUID(episode.id).version == 5
    assert (episode.started_at, episode.ended_at, episode.created_at, episode.last_accessed_at) == (T0, T0, T0, T0)
    assert (episode.importance, episode.access_count, episode.current_salience) == (0.5, 0, 1.0)
    assert deps["embedder"].calls == [1]
    assert await get_episode(org, episode.id, index=deps["index"], clock=deps["clock"]) == episode


async def test_a_retried_create_lands_once_and_returns_the_stored_episode(deps) -> None:
    org = new_org()
    sent = draft(conversation_id="session-1")
    first = await create_episode(org, sent, "req-1", **deps)
    deps["clock"].advance(minutes=5)

    again = await create_episode(org, sent, "req-1", **deps)

    # The stored episode, with its salience as of the replay (five minutes later).
    assert again == replace(first, current_salience=again.current_salience)
    assert again.current_salience == pytest.approx(0.5 ** (5 / (30 * 24 * 60)))
    assert deps["index"].upserts == 1
    assert deps["embedder"].calls == [1]


async def test_different_request_ids_or_orgs_give_different_episodes(deps) -> None:
    org = new_org()
    sent = draft(conversation_id="session-1")
    one = await create_episode(org, sent, "req-1", **deps)
    two = await create_episode(org, sent, "req-2", **deps)
    other = await create_episode(new_org(), sent, "req-1", **deps)

    assert len({one.id, two.id, other.id}) == 3


async def test_get_never_returns_another_orgs_episode(deps) -> None:
    episode = await create_episode(new_org(), draft(), "r", **deps)

    with pytest.raises(errors.NotFound):
        await get_episode(new_org(), episode.id, index=deps["index"], clock=deps["clock"])
    with pytest.raises(errors.NotFound):
        await get_episode(new_org(), "", index=deps["index"], clock=deps["clock"])


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"summary": "  "}, "episode.summary"),
        ({"summary": "x" * (MAX_SUMMARY_CHARS + 1)}, "episode.summary"),
        ({"conversation_id": ""}, "episode.conversation_id"),
        ({"key_topics": ("a",) * (MAX_LIST_ITEMS + 1)}, "episode.key_topics"),
        ({"key_topics": ("ok", "")}, "episode.key_topics[1]"),
        ({"decisions": ("y" * (MAX_STRING_CHARS + 1),)}, "episode.decisions[0]"),
        ({"open_threads": (OpenThread("a"), OpenThread("b"), OpenThread(""))}, "episode.open_threads[2].topic"),
        ({"open_threads": (OpenThread("a", context="c" * 1001),)}, "episode.open_threads[0].context"),
        ({"outcomes": (Outcome("decision", ""),)}, "episode.outcomes[0].content"),
        ({"action_items": (ActionItem(""),)}, "episode.action_items[0].task"),
        ({"importance": 1.5}, "episode.importance"),
        ({"importance": float("nan")}, "episode.importance"),
        ({"message_count": -1}, "episode.message_count"),
        ({"started_at": T0, "ended_at": T0 - timedelta(seconds=1)}, "episode.ended_at"),
        ({"metadata": {"k": "v" * 2000}}, "episode.metadata[k]"),
    ],
)
async def test_create_refuses_an_invalid_episode_naming_the_field(deps, fields, field) -> None:
    with pytest.raises(errors.InvalidArgument) as raised:
        await create_episode(new_org(), draft(**fields), "r", **deps)

    assert raised.value.field == field
    assert deps["index"].upserts == 0


async def test_entities_are_canonicalised(deps) -> None:
    episode = await create_episode(new_org(), draft(entities_discussed=(" Alice ", "alice", "Lisbon")), "r", **deps)
    assert episode.entities_discussed == ("alice", "lisbon")


async def test_list_pages_newest_first_without_duplicates_or_gaps(deps) -> None:
    org = new_org()
    created = []
    for hours in (5, 1, 3, 0, 4, 2, 2):
        created.append(await create_episode(org, draft(ended_at=T0 - timedelta(hours=hours)), "r", **deps))
    expected = [e.id for e in sorted(created, key=lambda e: (e.ended_at, e.id), reverse=True)]

    ids, token = [], ""
    for _ in range(10):
        page = await list_episodes(
            org, PageRequest(Scope(user_id="alice"), 3, token), index=deps["index"], tokens=TOKENS, clock=deps["clock"]
        )
        ids += [e.id for e in page.episodes]
        token = page.next_page_token
        if not token:
            break

    assert ids == expected


async def test_page_size_defaults_and_is_capped(deps) -> None:
    org = new_org()
    for n in range(MAX_PAGE_SIZE + 5):
        await create_episode(org, draft(ended_at=T0 - timedelta(minutes=n)), "r", **deps)

    default = await list_episodes(org, PageRequest(Scope(), 0), index=deps["index"], tokens=TOKENS, clock=deps["clock"])
    capped = await list_episodes(
        org, PageRequest(Scope(), 10_000), index=deps["index"], tokens=TOKENS, clock=deps["clock"]
    )

    assert len(default.episodes) == DEFAULT_PAGE_SIZE
    assert len(capped.episodes) == MAX_PAGE_SIZE
    with pytest.raises(errors.InvalidArgument) as raised:
        await list_episodes(org, PageRequest(Scope(), -1), index=deps["index"], tokens=TOKENS, clock=deps["clock"])
    assert raised.value.field == "page_size"


def _token(document: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(document).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "token",
    ["garbage!", "e30", _token([1, 2]), _token({"f": "x", "t": "2026-01-01T00:00:00+00:00", "i": "nope"}), "x" * 5000],
)
async def test_a_malformed_page_token_is_invalid_argument(deps, token: str) -> None:
    with pytest.raises(errors.InvalidArgument) as raised:
        await list_episodes(
            new_org(), PageRequest(Scope(), 5, token), index=deps["index"], tokens=TOKENS, clock=deps["clock"]
        )
    assert raised.value.field == "page_token"


async def test_a_page_token_only_works_for_the_query_that_issued_it(deps) -> None:
    org = new_org()
    for n in range(3):
        await create_episode(org, draft(ended_at=T0 - timedelta(minutes=n)), "r", **deps)
    page = await list_episodes(
        org, PageRequest(Scope(user_id="alice"), 1), index=deps["index"], tokens=TOKENS, clock=deps["clock"]
    )
    assert page.next_page_token

    with pytest.raises(errors.InvalidArgument) as raised:
        await list_episodes(
            org,
            PageRequest(Scope(user_id="bob"), 1, page.next_page_token),
            index=deps["index"],
            tokens=TOKENS,
            clock=deps["clock"],
        )
    assert raised.value.field == "page_token"
    with pytest.raises(errors.InvalidArgument):
        await list_open_threads(
            org, PageRequest(Scope(user_id="alice"), 1, page.next_page_token), index=deps["index"], tokens=TOKENS
        )


async def test_list_filters_by_ended_after(deps) -> None:
    org = new_org()
    old = await create_episode(org, draft(ended_at=T0 - timedelta(days=3)), "r", **deps)
    new = await create_episode(org, draft(ended_at=T0), "r", **deps)

    page = await list_episodes(
        org,
        PageRequest(Scope(), 10),
        index=deps["index"],
        tokens=TOKENS,
        clock=deps["clock"],
        ended_after=T0 - timedelta(days=1),
    )

    assert [e.id for e in page.episodes] == [new.id]
    assert old.id not in [e.id for e in page.episodes]


async def test_open_threads_page_across_episodes_newest_first(deps) -> None:
    org = new_org()
    older = draft(
        ended_at=T0 - timedelta(days=1),
        open_threads=(OpenThread("visa", ThreadStatus.BLOCKED), OpenThread("flat")),
    )
    newer = draft(ended_at=T0, open_threads=(OpenThread("movers"), OpenThread("done", ThreadStatus.RESOLVED)))
    await create_episode(org, older, "r", **deps)
    await create_episode(org, newer, "r", **deps)
    await create_episode(org, replace(newer, conversation_id="no-threads", open_threads=()), "r", **deps)

    topics, token = [], ""
    for _ in range(5):
        page = await list_open_threads(
            org, PageRequest(Scope(user_id="alice"), 2, token), index=deps["index"], tokens=TOKENS
        )
        topics += [thread.thread.topic for thread in page.threads]
        token = page.next_page_token
        if not token:
            break

    assert topics == ["movers", "visa", "flat"]
