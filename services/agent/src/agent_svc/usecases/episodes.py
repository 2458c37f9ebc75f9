"""Session boundaries and episodes: a session ends when asked (EndSession) or after a period of
silence (the idle scan); either way the episode extraction job is queued in the same
transaction as the end, and the job turns the whole conversation into an episode."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from agent_svc.domain.extraction import Extractor, Utterance
from agent_svc.domain.jobs import episode_job
from agent_svc.domain.turn_loop import REFLECTED_ROLES
from agent_svc.usecases.ports import Clock, Episodes, Transcript, TurnLoopStore

PAGE = 500
# The extractor reads at most this many turns (the most recent) of a very long conversation.
MAX_EPISODE_TURNS = 2_000
IDLE_SCAN_LIMIT = 500


@dataclass(frozen=True, slots=True)
class EpisodeServices:
    transcript: Transcript
    extractor: Extractor
    episodes: Episodes


async def extract_episode(org_id: str, session_id: str, services: EpisodeServices) -> str:
    """The episode of an ended session (its id), or "" when there is nothing to remember."""
    session = await services.transcript.get(org_id, session_id)
    if session is None or session.status != "ended" or session.ended_at is None:
        return ""
    turns, after = [], 0
    while page := await services.transcript.turns(org_id, session_id, PAGE, after):
        turns += [turn for turn in page if turn.role in REFLECTED_ROLES]
        after = page[-1].sequence
    if not turns:
        return ""
    turns = turns[-MAX_EPISODE_TURNS:]
    draft = await services.extractor.summarise([Utterance(t.role, t.content, t.id) for t in turns])
    return await services.episodes.create(session, draft, len(turns), turns[0].created_at, session.ended_at)


async def end_idle_sessions(
    idle_after: timedelta, *, transcript: Transcript, results: TurnLoopStore, clock: Clock
) -> dict[str, int]:
    """End every session silent for ``idle_after`` (each in its own org's transaction), queueing
    its episode; for the scheduled scan, which runs as a system principal."""
    now = clock.now()
    ended = 0
    for org_id, session_id in await results.idle_sessions(now - idle_after, IDLE_SCAN_LIMIT):
        session = await transcript.end(
            org_id, session_id, "idle", now, then=lambda s, org=org_id: [episode_job(org, s.id)]
        )
        ended += session is not None
    return {"ended": ended}
