"""The episode job closes the same user's earlier threads a later session answered
(usecases/threads.py), on the agent's fakes: never another user's, never its own episode's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from agent_svc.domain.extraction import EpisodeDraft, Thread
from agent_svc.domain.transcript import Scope, Session, Turn
from agent_svc.usecases.memory_ports import MemoryWrite
from agent_svc.usecases.threads import close_answered_threads

from tests.fakes_agent import FakeEpisodes, FakeMemories

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
REPORT = "send the tax report to Marta"


def session(session_id: str, user: str, at: datetime) -> Session:
    return Session(session_id, "org-a", Scope(user_id=user, agent_id="aria"), "ended", at, at, at)


def turns(session_id: str, lines: list[tuple[str, str]], at: datetime) -> list[Turn]:
    return [
        Turn(f"{session_id}-{i}", session_id, i + 1, role, text, at + timedelta(minutes=i))
        for i, (role, text) in enumerate(lines)
    ]


def commitment(key: str, content: str) -> MemoryWrite:
    return MemoryWrite(key, "commitment", content, 0.6, T0, ("t-1",))


async def create(episodes: FakeEpisodes, session_: Session, *topics: str) -> str:
    return await create_with(episodes, session_, *(Thread(topic) for topic in topics))


async def create_with(episodes: FakeEpisodes, session_: Session, *threads: Thread) -> str:
    draft = EpisodeDraft(summary="s", open_threads=threads)
    return await episodes.create(session_, draft, 2, session_.started_at, session_.ended_at)


async def test_a_later_session_of_the_same_user_closes_the_thread_it_reports_done() -> None:
    episodes = FakeEpisodes()
    first = await create(episodes, session("s-1", "ana", T0), REPORT, "Which gym is open on Sundays?")
    other_user = await create(episodes, session("s-bo", "bo", T0), REPORT)
    later = session("s-2", "ana", T0 + timedelta(days=3))
    said = turns("s-2", [("user", "I sent the tax report to Marta yesterday.")], later.started_at)
    own = await create(episodes, later, "tax report to Marta follow-up call")

    closed = await close_answered_threads(later, said, episodes, own)
    again = await close_answered_threads(later, said, episodes, own)

    assert closed == 1 and again == 0
    assert list(episodes.resolved) == [(first, 0)]
    assert episodes.resolved[(first, 0)] == 'The user said: "I sent the tax report to Marta yesterday."'
    assert (other_user, 0) not in episodes.resolved  # bo's thread is bo's
    remaining = await episodes.open_threads(later.scope, 50)
    assert [(t.episode_id, t.topic) for t in remaining] == [
        (own, "tax report to Marta follow-up call"),
        (
            first,
            "Which gym is open on Sundays?",
        ),
    ]


async def test_a_session_without_a_user_closes_nothing() -> None:
    episodes = FakeEpisodes()
    await create(episodes, session("s-1", "", T0), REPORT)
    org_session = session("s-2", "", T0 + timedelta(days=1))

    closed = await close_answered_threads(
        org_session, turns("s-2", [("user", "I sent the tax report to Marta.")], T0 + timedelta(days=1)), episodes
    )

    assert closed == 0 and episodes.resolved == {}
    assert "open_threads" not in episodes.calls


async def test_a_closed_commitment_thread_completes_the_commitment_behind_it() -> None:
    episodes, memories = FakeEpisodes(), FakeMemories()
    ana = session("s-1", "ana", T0)
    promised = "The user will send the tax report to Marta (by Friday)."
    other = "The user will call the bank (by Monday)."
    [kept, untouched] = await memories.remember(
        ana.scope, "s-1", [commitment("c-1", promised), commitment("c-2", other)]
    )
    await create_with(episodes, ana, Thread(REPORT, context=promised), Thread("call the bank", context=other))
    later = session("s-2", "ana", T0 + timedelta(days=3))

    await close_answered_threads(
        later,
        turns("s-2", [("user", "Sent the tax report to Marta, done.")], later.started_at),
        episodes,
        memories=memories,
    )

    assert memories.completed == {kept}
    assert untouched not in memories.completed
