"""The Episodes port: FakeEpisodes and GrpcEpisodes on the memory service answer alike (what the
episode job and thread closure rely on: one episode per session, open threads by scope newest
first, a resolved thread gone, resolving what is gone a no-op)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from agent_svc.adapters.grpc_episodes import GrpcEpisodes
from agent_svc.domain.extraction import EpisodeDraft, Thread
from agent_svc.domain.transcript import Scope, Session
from lore_runtime.errors import InvalidArgument

from tests.fakes_agent import FakeEpisodes
from tests.integration.agent.port_contracts.conftest import ActingAs, new_org

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
SCOPE = Scope(user_id="u-1", agent_id="a-1")


@pytest.fixture
def episodes(channels):
    return ActingAs(GrpcEpisodes(channels["memory"]), new_org()) if channels else FakeEpisodes()


async def create(episodes, scope: Scope, ended_minutes: int, *threads: Thread) -> str:
    session = Session(str(uuid.uuid4()), episodes_org(episodes), scope, "ended", T0, T0)
    draft = EpisodeDraft(summary=f"Talked for {ended_minutes} minutes.", open_threads=threads)
    return await episodes.create(session, draft, 4, T0, T0 + timedelta(minutes=ended_minutes))


def episodes_org(episodes) -> str:
    return getattr(episodes, "org_id", "org-fake")


async def test_an_episode_is_created_once_per_session(episodes) -> None:
    session = Session(str(uuid.uuid4()), episodes_org(episodes), SCOPE, "ended", T0, T0)
    draft = EpisodeDraft(summary="We planned the move.")

    first = await episodes.create(session, draft, 4, T0, T0 + timedelta(minutes=5))

    assert await episodes.create(session, draft, 4, T0, T0 + timedelta(minutes=5)) == first
    other = Session(str(uuid.uuid4()), session.org_id, SCOPE, "ended", T0, T0)
    assert await episodes.create(other, draft, 4, T0, T0 + timedelta(minutes=5)) != first


async def test_an_episode_without_a_summary_is_refused(episodes) -> None:
    """Why the episode job makes none when it has nothing to say (usecases/episodes.py)."""
    session = Session(str(uuid.uuid4()), episodes_org(episodes), SCOPE, "ended", T0, T0)

    with pytest.raises(InvalidArgument) as refused:
        await episodes.create(session, EpisodeDraft(summary="  ", key_topics=("move",)), 1, T0, T0)

    assert refused.value.metadata.get("field") == "episode.summary"


async def test_open_threads_are_the_scopes_unresolved_threads_newest_episode_first(episodes) -> None:
    older = await create(episodes, SCOPE, 5, Thread("visa"), Thread("movers", "resolved"), Thread("bank", "blocked"))
    newer = await create(episodes, SCOPE, 50, Thread("school"))
    await create(episodes, Scope(user_id="u-2", agent_id="a-1"), 60, Thread("not theirs"))

    found = await episodes.open_threads(SCOPE, 10)

    assert [(ref.episode_id, ref.index, ref.topic) for ref in found] == [
        (newer, 0, "school"),
        (older, 0, "visa"),
        (older, 2, "bank"),
    ]
    assert found[0].ended_at == T0 + timedelta(minutes=50)
    assert len(await episodes.open_threads(SCOPE, 2)) == 2


async def test_a_resolved_thread_is_no_longer_open_and_resolving_again_or_what_is_gone_is_a_no_op(episodes) -> None:
    episode = await create(episodes, SCOPE, 5, Thread("visa"), Thread("bank"))

    await episodes.resolve_thread(episode, 0, "Granted.")
    await episodes.resolve_thread(episode, 0, "Granted again.")
    await episodes.resolve_thread(episode, 7, "No such thread.")
    await episodes.resolve_thread(str(uuid.uuid4()), 0, "No such episode.")

    assert [ref.topic for ref in await episodes.open_threads(SCOPE, 10)] == ["bank"]
