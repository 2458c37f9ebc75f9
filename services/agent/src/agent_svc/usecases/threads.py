"""Reflection closes threads: when a session's episode is made, the open threads
of the same user's earlier episodes that this conversation answered or reported done are resolved
(the rule: domain/thread_closure.py), so Prime and contexts stop showing them as open.

A commitment whose thread closes this way is completed too (its memory, matched by exact content,
becomes ``completed``): a commitment with no thread (done in the conversation that made it, or
never made a thread) is completed only through UpdateMemory / the PATCH route.

Only a session with a user does this, and only for episodes of exactly its scope's ids (the same
user, agent and team): a conversation never closes another user's or the organisation's threads.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from agent_svc.domain.thread_closure import closures
from agent_svc.domain.transcript import Session, Turn
from agent_svc.usecases.episode_ports import Episodes
from agent_svc.usecases.memory_ports import Memories

log = logging.getLogger(__name__)

# The newest open threads looked at per session (one ListOpenThreads page).
MAX_THREADS = 50


async def close_answered_threads(
    session: Session,
    turns: Sequence[Turn],
    episodes: Episodes,
    own_episode_id: str = "",
    memories: Memories | None = None,
) -> int:
    """Resolve the earlier threads ``turns`` close (never those of ``own_episode_id``, this session's
    episode) and, with ``memories``, complete the commitments behind them; returns how many threads.
    Idempotent: a re-run resolves the same threads again, a no-op."""
    if not session.scope.user_id or not turns:
        return 0
    threads = [
        thread
        for thread in await episodes.open_threads(session.scope, MAX_THREADS)
        if thread.episode_id != own_episode_id and thread.ended_at < turns[-1].created_at
    ]
    closed = closures(threads, turns)
    for closure in closed:
        await episodes.resolve_thread(closure.thread.episode_id, closure.thread.index, closure.resolution)
    if closed and memories is not None:
        # A commitment's thread carries the commitment memory's content as its context (rules/episode.py).
        await memories.complete_commitments(session.scope, [c.thread.context for c in closed if c.thread.context])
    if closed:
        log.info("closed %d open thread(s) from session %s", len(closed), session.id)
    return len(closed)
