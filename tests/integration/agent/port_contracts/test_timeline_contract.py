"""The Timeline port: FakeTimeline and GrpcTimeline on the memory service answer alike (what the
daily-digest job relies on: a day's episodes of exactly one scope, oldest first; one digest per
scope and day, a rewrite landing on it with its status kept; warm and active digests listed)."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta

import pytest
from agent_svc.adapters.grpc_episodes import GrpcEpisodes
from agent_svc.adapters.grpc_timeline import GrpcTimeline
from agent_svc.domain.digest import DayEpisode, Digest
from agent_svc.domain.extraction import ActionItem, EpisodeDraft, Thread
from agent_svc.domain.transcript import Scope, Session

from tests.fakes_agent import FakeTimeline
from tests.integration.agent.port_contracts.conftest import ActingAs, new_org

DAY = date(2026, 3, 2)
START = datetime(2026, 3, 2, tzinfo=UTC)
END = START + timedelta(days=1)
SCOPE = Scope(user_id="u-1", agent_id="a-1")


class Side:
    def __init__(self, channels) -> None:
        self.org = new_org()
        if channels:
            self.timeline = GrpcTimeline(channels["memory"])
            self._episodes = ActingAs(GrpcEpisodes(channels["memory"]), self.org)
        else:
            self.timeline = FakeTimeline()
            self._episodes = None

    async def add_episode(self, scope: Scope, ended_at: datetime, draft: EpisodeDraft) -> None:
        """An episode that ended at ``ended_at``: created on the memory service, given to the fake as
        the adapter reads it."""
        if self._episodes is not None:
            session = Session(str(uuid.uuid4()), self.org, scope, "ended", ended_at, ended_at)
            await self._episodes.create(session, draft, 2, ended_at - timedelta(minutes=5), ended_at)
            return
        self.timeline.add_episode(
            self.org,
            scope,
            ended_at,
            DayEpisode(
                draft.summary,
                draft.decisions,
                tuple(thread.topic for thread in draft.open_threads if thread.status != "resolved"),
                tuple(item.task for item in draft.action_items),
                draft.key_topics,
            ),
        )


@pytest.fixture
def side(channels) -> Side:
    return Side(channels)


async def test_the_days_episodes_of_exactly_the_scope_oldest_first(side) -> None:
    draft = EpisodeDraft(
        summary="Planned the move.",
        key_topics=("move",),
        open_threads=(Thread("visa"), Thread("movers", "resolved")),
        decisions=("Lisbon",),
        action_items=(ActionItem("user", "Call the movers"),),
    )
    await side.add_episode(SCOPE, START + timedelta(hours=15), EpisodeDraft(summary="Afternoon."))
    await side.add_episode(SCOPE, START + timedelta(hours=9), draft)
    await side.add_episode(SCOPE, START - timedelta(minutes=1), EpisodeDraft(summary="The day before."))
    await side.add_episode(SCOPE, END, EpisodeDraft(summary="The day after."))
    await side.add_episode(Scope(user_id="u-2", agent_id="a-1"), START + timedelta(hours=10), EpisodeDraft("Theirs."))
    on_a_team = Scope(user_id="u-1", agent_id="a-1", team_id="t-1")
    await side.add_episode(on_a_team, START + timedelta(hours=11), EpisodeDraft(summary="The team's."))

    found = await side.timeline.episodes(side.org, SCOPE, START, END)

    assert found == [
        DayEpisode("Planned the move.", ("Lisbon",), ("visa",), ("Call the movers",), ("move",)),
        DayEpisode("Afternoon."),
    ]


async def test_one_digest_per_scope_and_day_a_rewrite_keeps_its_id_and_status(side) -> None:
    await side.timeline.write_digest(side.org, SCOPE, Digest(DAY, "One conversation.", 1))
    (written,) = await side.timeline.digests(side.org, SCOPE)
    await side.timeline.set_status(side.org, written.id, "warm")

    await side.timeline.write_digest(side.org, SCOPE, Digest(DAY, "Two conversations.", 2))
    await side.timeline.write_digest(side.org, SCOPE, Digest(DAY, "Two conversations.", 2))

    (rewritten,) = await side.timeline.digests(side.org, SCOPE)
    assert (rewritten.id, rewritten.day, rewritten.status) == (written.id, DAY, "warm")


async def test_digests_lists_the_scopes_active_and_warm_digests_by_day(side) -> None:
    days = [DAY + timedelta(days=n) for n in range(3)]
    for day in days:
        await side.timeline.write_digest(side.org, SCOPE, Digest(day, f"On {day}.", 1))
    await side.timeline.write_digest(side.org, Scope(user_id="u-2", agent_id="a-1"), Digest(DAY, "Theirs.", 1))
    listed = {digest.day: digest for digest in await side.timeline.digests(side.org, SCOPE)}
    await side.timeline.set_status(side.org, listed[days[0]].id, "archived")
    await side.timeline.set_status(side.org, listed[days[1]].id, "warm")

    found = await side.timeline.digests(side.org, SCOPE)

    assert sorted((digest.day, digest.status) for digest in found) == [(days[1], "warm"), (days[2], "active")]
