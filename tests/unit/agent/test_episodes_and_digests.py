"""Episodes of ended sessions, the idle scan, and daily digests, on fakes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

import pytest
from agent_svc.domain.digest import MAX_DIGEST_CHARS, DayEpisode, compose_digest, status_for_age
from agent_svc.domain.extraction import EpisodeDraft, Utterance
from agent_svc.domain.jobs import episode_job
from agent_svc.domain.rules import RuleExtractor
from agent_svc.domain.transcript import Scope, Turn, turn_id_for
from agent_svc.usecases.digests import DigestServices, age_digests, run_daily_digests, write_daily_digest
from agent_svc.usecases.episodes import EpisodeServices, end_idle_sessions, extract_episode
from agent_svc.usecases.sessions import end_session, start_session

from tests.fakes import FixedClock
from tests.fakes_agent import FakeActiveScopes, FakeEpisodes, FakeTimeline, InMemoryTranscript, InMemoryTurnLoop

ORG = "org-a"
SCOPE = Scope(user_id="u-1")
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def transcript() -> InMemoryTranscript:
    return InMemoryTranscript()


@pytest.fixture
def episodes() -> FakeEpisodes:
    return FakeEpisodes()


def services(transcript: InMemoryTranscript, episodes: FakeEpisodes) -> EpisodeServices:
    return EpisodeServices(transcript, RuleExtractor(), episodes)


async def new_session(transcript: InMemoryTranscript, request_id: str, at: datetime = T0) -> str:
    return (await start_session(ORG, SCOPE, {}, request_id, transcript=transcript, clock=FixedClock(at))).id


async def say(transcript: InMemoryTranscript, session_id: str, lines: list[tuple[str, str]], at: datetime) -> None:
    turns = [
        Turn(turn_id_for(session_id, f"k{i}"), session_id, 0, role, text, at + timedelta(minutes=i), {}, f"k{i}")
        for i, (role, text) in enumerate(lines)
    ]
    await transcript.append(ORG, session_id, turns, at + timedelta(minutes=len(lines)))


# --- episodes -----------------------------------------------------------------------------------


async def test_an_active_session_has_no_episode_yet(transcript, episodes) -> None:
    session_id = await new_session(transcript, "s")
    await say(transcript, session_id, [("user", "I'm vegetarian.")], T0)

    assert await extract_episode(ORG, session_id, services(transcript, episodes)) == ""
    assert episodes.calls == []


async def test_an_empty_or_unknown_session_has_no_episode(transcript, episodes) -> None:
    session_id = await new_session(transcript, "s")
    await say(transcript, session_id, [("system", "Be brief."), ("tool", "weather: 21°C")], T0)
    await end_session(ORG, session_id, transcript=transcript, clock=FixedClock(T0 + timedelta(hours=1)))

    assert await extract_episode(ORG, session_id, services(transcript, episodes)) == ""
    assert await extract_episode("org-b", session_id, services(transcript, episodes)) == ""
    assert episodes.calls == []


async def test_the_episode_counts_user_and_assistant_turns_and_spans_their_times(transcript, episodes) -> None:
    session_id = await new_session(transcript, "s")
    await say(
        transcript,
        session_id,
        [
            ("system", "Be brief."),
            ("user", "I'm vegetarian."),
            ("tool", "recipes: 3 found"),
            ("assistant", "Noted, I will suggest vegetarian recipes."),
        ],
        T0,
    )
    # Ended two hours after its last turn (an import, or the idle scan): the episode is its turns' span.
    await end_session(ORG, session_id, transcript=transcript, clock=FixedClock(T0 + timedelta(hours=2)))

    episode_id = await extract_episode(ORG, session_id, services(transcript, episodes))

    created = episodes.created[session_id]
    assert episode_id == created.id
    last_turn = T0 + timedelta(minutes=3)
    assert (created.message_count, created.started_at, created.ended_at) == (2, T0 + timedelta(minutes=1), last_turn)
    assert created.draft.summary == (
        "The user and the assistant talked about vegetarian recipes. The user is vegetarian. "
        "The assistant will suggest vegetarian recipes."
    ), "told as what was said then: no 'Still open' a later answer would leave stale"
    assert [t.context for t in created.draft.open_threads] == ["The assistant will suggest vegetarian recipes."]
    assert created.session.id == session_id and created.session.status == "ended"
    assert await extract_episode(ORG, session_id, services(transcript, episodes)) == episode_id, "re-run: same id"


@pytest.mark.parametrize("lines", [[("user", "hi")], [("user", "hey"), ("assistant", "Hi! 👋"), ("user", "ok thanks")]])
async def test_a_session_that_gives_no_summary_has_no_episode_and_its_job_succeeds(transcript, episodes, lines) -> None:
    session_id = await new_session(transcript, "s")
    await say(transcript, session_id, lines, T0)
    await end_session(ORG, session_id, transcript=transcript, clock=FixedClock(T0 + timedelta(hours=1)))

    assert await extract_episode(ORG, session_id, services(transcript, episodes)) == ""
    assert episodes.created == {}


class SummarylessExtractor(RuleExtractor):
    """A language model that answered topics and decisions but no summary."""

    def __init__(self, **found: tuple[str, ...]) -> None:
        self._found = found

    async def summarise(self, turns: Sequence[Utterance]) -> EpisodeDraft:
        return EpisodeDraft(summary=" ", **self._found)


@pytest.mark.parametrize(
    ("found", "summary"),
    [
        ({"key_topics": ("train tickets", "Lisbon")}, "Talked about train tickets, Lisbon."),
        ({"key_topics": ("Lisbon",), "decisions": ("Take the 9:00 train.",)}, "Take the 9:00 train."),
    ],
)
async def test_an_extractor_without_a_summary_gets_one_from_what_it_found(transcript, episodes, found, summary) -> None:
    session_id = await new_session(transcript, "s")
    await say(transcript, session_id, [("user", "Booked the train to Lisbon.")], T0)
    await end_session(ORG, session_id, transcript=transcript, clock=FixedClock(T0 + timedelta(hours=1)))

    extracted = EpisodeServices(transcript, SummarylessExtractor(**found), episodes)
    episode_id = await extract_episode(ORG, session_id, extracted)

    assert episode_id and episodes.created[session_id].draft.summary == summary


async def test_end_idle_sessions_ends_only_idle_ones_and_queues_one_episode_each(transcript) -> None:
    results = InMemoryTurnLoop(transcript)
    idle_a = await new_session(transcript, "idle-a", T0)
    idle_b = await new_session(transcript, "idle-b", T0 + timedelta(minutes=5))
    recent = await new_session(transcript, "recent", T0)
    await say(transcript, recent, [("user", "still here")], T0 + timedelta(minutes=50))
    ended = await new_session(transcript, "ended", T0)
    await end_session(ORG, ended, transcript=transcript, clock=FixedClock(T0))
    transcript.queued.clear()
    clock = FixedClock(T0 + timedelta(hours=1))

    summary = await end_idle_sessions(timedelta(minutes=30), transcript=transcript, results=results, clock=clock)

    assert summary == {"ended": 2}
    assert transcript.queued == [episode_job(ORG, idle_a), episode_job(ORG, idle_b)]
    for session_id, status, reason in (
        (idle_a, "ended", "idle"),
        (idle_b, "ended", "idle"),
        (recent, "active", ""),
        (ended, "ended", "requested"),
    ):
        session = await transcript.get(ORG, session_id)
        assert (session.status, session.end_reason) == (status, reason)
    assert (await transcript.get(ORG, idle_a)).ended_at == clock.now()

    again = await end_idle_sessions(timedelta(minutes=30), transcript=transcript, results=results, clock=clock)
    assert again == {"ended": 0} and len(transcript.queued) == 2


# --- digests: composition -----------------------------------------------------------------------

DAY = date(2026, 3, 9)


def test_a_quiet_day_has_no_digest() -> None:
    assert compose_digest(DAY, []) is None


def test_a_digest_lists_each_conversation_then_decisions_todos_and_open_threads() -> None:
    digest = compose_digest(
        DAY,
        [
            DayEpisode(
                "Planned the move.", decisions=("Rent in Lisbon",), action_items=("Book movers",), topics=("move",)
            ),
            DayEpisode(
                "  Talked about food. ",
                decisions=("Rent in Lisbon ", "Cook at home"),
                open_threads=("Which district",),
                topics=("food", "move"),
            ),
        ],
    )

    assert digest is not None
    assert digest.text == (
        "2026-03-09: 2 conversations.\n"
        "- Planned the move.\n"
        "- Talked about food.\n"
        "Decided: Rent in Lisbon; Cook at home.\n"
        "To do: Book movers.\n"
        "Still open: Which district."
    )
    assert (digest.day, digest.episodes, digest.topics) == (DAY, 2, ("move", "food"))


def test_lists_are_deduplicated_in_order_and_capped_at_five() -> None:
    decisions = tuple(f"decision {i}" for i in range(8))
    digest = compose_digest(DAY, [DayEpisode("One.", decisions=("decision 0", *decisions, " "))])

    assert digest is not None
    assert digest.text == (
        "2026-03-09: 1 conversation.\n- One.\nDecided: decision 0; decision 1; decision 2; decision 3; decision 4."
    )


def test_a_digest_is_bounded_in_length() -> None:
    episodes = [DayEpisode("word " * 300) for _ in range(5)]

    digest = compose_digest(DAY, episodes)

    assert digest is not None
    assert len(digest.text) <= MAX_DIGEST_CHARS and digest.text.endswith("…")
    assert digest.text.startswith("2026-03-09: 5 conversations.\n- word word")
    assert digest.episodes == 5


@pytest.mark.parametrize(
    ("age", "status"),
    [(0, "active"), (6, "active"), (7, "warm"), (29, "warm"), (30, "archived"), (400, "archived")],
)
def test_status_for_age_at_its_boundaries(age: int, status: str) -> None:
    assert status_for_age(age, 7, 30) == status


# --- digests: the scheduled job -------------------------------------------------------------------


def at(day: date, hour: int) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=UTC)


async def test_write_daily_digest_covers_each_scope_active_that_day() -> None:
    other = Scope(user_id="u-2")
    quiet = Scope(user_id="u-3")
    timeline = FakeTimeline()
    timeline.add_episode(ORG, SCOPE, at(DAY, 10), DayEpisode("Planned the move."))
    timeline.add_episode(ORG, SCOPE, at(DAY + timedelta(days=1), 0), DayEpisode("Tomorrow's talk."))
    timeline.add_episode("org-b", other, at(DAY, 23), DayEpisode("Late chat."))
    scopes = FakeActiveScopes(
        [
            (ORG, SCOPE, at(DAY, 9), at(DAY, 11)),
            ("org-b", other, at(DAY, 22), at(DAY, 23)),
            (ORG, quiet, at(DAY, 8), at(DAY, 9)),
            (ORG, Scope(user_id="u-old"), at(DAY - timedelta(days=3), 8), at(DAY - timedelta(days=3), 9)),
        ]
    )
    services = DigestServices(scopes, timeline, FixedClock(at(DAY, 12)))

    written = await write_daily_digest(DAY, services)

    assert written == 2
    assert [(org, scope, digest.text) for org, scope, digest in timeline.writes] == [
        (ORG, SCOPE, "2026-03-09: 1 conversation.\n- Planned the move."),
        ("org-b", other, "2026-03-09: 1 conversation.\n- Late chat."),
    ]
    assert scopes.asked == [(at(DAY, 0), at(DAY + timedelta(days=1), 0))]


async def test_age_digests_writes_only_the_statuses_that_change() -> None:
    today = date(2026, 4, 30)
    timeline = FakeTimeline()
    fresh = timeline.add_digest(ORG, SCOPE, today - timedelta(days=3))
    due_warm = timeline.add_digest(ORG, SCOPE, today - timedelta(days=8))
    already_warm = timeline.add_digest(ORG, SCOPE, today - timedelta(days=10), status="warm")
    due_archive = timeline.add_digest(ORG, SCOPE, today - timedelta(days=31), status="warm")
    scopes = FakeActiveScopes([(ORG, SCOPE, at(today, 9), at(today, 10))])
    services = DigestServices(scopes, timeline, FixedClock(at(today, 12)))

    assert await age_digests(today, services) == 2

    assert timeline.status_changes == [(ORG, due_archive.id, "archived"), (ORG, due_warm.id, "warm")]
    assert {stored.id: stored.status for stored, _ in timeline.stored.values()} == {
        fresh.id: "active",
        due_warm.id: "warm",
        already_warm.id: "warm",
        due_archive.id: "archived",
    }
    assert await age_digests(today, services) == 0 and len(timeline.status_changes) == 2


async def test_run_daily_digests_catches_up_on_the_last_three_days() -> None:
    today = date(2026, 3, 10)
    timeline = FakeTimeline()
    for back, summary in ((3, "Three days ago."), (1, "Yesterday."), (0, "Today, not yet.")):
        timeline.add_episode(ORG, SCOPE, at(today - timedelta(days=back), 15), DayEpisode(summary))
    old = timeline.add_digest(ORG, SCOPE, today - timedelta(days=9))
    scopes = FakeActiveScopes([(ORG, SCOPE, at(today - timedelta(days=9), 9), at(today, 15))])
    services = DigestServices(scopes, timeline, FixedClock(at(today, 2)))

    first = await run_daily_digests(services)

    assert first == {"written": 2, "aged": 1}
    assert [digest.day for _, _, digest in timeline.writes] == [date(2026, 3, 7), date(2026, 3, 9)]
    assert timeline.status_changes == [(ORG, old.id, "warm")]

    second = await run_daily_digests(services)

    assert second == {"written": 2, "aged": 0}, "the rewrites land on the same items; nothing ages twice"
    assert sorted(day for _, _, day in timeline.stored) == [date(2026, 3, 1), date(2026, 3, 7), date(2026, 3, 9)]
    assert len(timeline.status_changes) == 1
