"""GetTurnContext: the context ProcessTurn assembled for a turn, with its manifest, as the turn's
kept result holds it (the same bytes a retry replays), or why there is none.

A turn has a context only when it is a live user turn: an assistant turn is an answer (none is
assembled for it), an imported turn never went through the loop. A live user turn's result is kept
``LORE_AGENT_TURN_RESULT_DAYS`` and then purged (docs/agent.md, "Turn results"): past that the
answer is *expired*, with the time it passed the retention, not a bare not-found, so a reader can
tell a context that is gone from one that never was. The answer is always about a turn of the named
session: a turn of another session, or of another org, is NOT_FOUND, as an unknown id.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from lore_runtime.clock import Clock
from lore_runtime.errors import InvalidArgument, NotFound

from agent_svc.domain.transcript import Turn
from agent_svc.domain.turn_loop import AVAILABLE, CONTEXT_ROLES, EXPIRED, NONE, TurnContext
from agent_svc.usecases.sessions import get_session
from agent_svc.usecases.transcript_ports import Transcript
from agent_svc.usecases.turn_loop_ports import TurnLoopStore


async def get_turn_context(
    org_id: str,
    session_id: str,
    turn_id: str,
    *,
    transcript: Transcript,
    results: TurnLoopStore,
    clock: Clock,
    retention: timedelta | None,
) -> TurnContext:
    """``retention``: how long results are kept (None: forever)."""
    session = await get_session(org_id, session_id, transcript=transcript)
    turn = await transcript.turn(org_id, _turn_id(turn_id))
    if turn is None or turn.session_id != session.id:
        raise NotFound(f"turn {turn_id} not found in session {session.id}", reason="TURN_NOT_FOUND")
    if turn.source != "live":
        return _none(turn, "IMPORTED_TURN", "an imported turn: ImportTurns stores history, no context is assembled")
    if turn.role not in CONTEXT_ROLES:
        return _none(turn, "ASSISTANT_TURN", f"an {turn.role} turn is a reply: no context is assembled for it")
    kept = await results.kept_result(org_id, turn.id)
    if kept is not None:
        if not kept.result.context:
            return _none(
                turn, "NOT_ASSEMBLED", "the assembler could not be reached: the turn was answered without context"
            )
        expires = kept.kept_at + retention if retention else None
        return TurnContext(turn, AVAILABLE, context=kept.result.context, assembled_at=kept.kept_at, expires_at=expires)
    if retention and turn.created_at + retention <= clock.now():
        days = f"{retention / timedelta(days=1):g}"
        return TurnContext(
            turn,
            EXPIRED,
            "RETENTION",
            f"the turn's result is kept {days} days (LORE_AGENT_TURN_RESULT_DAYS) and has passed it",
            expires_at=turn.created_at + retention,
        )
    return _none(
        turn,
        "NOT_KEPT",
        "no result is kept for this turn: it is still being processed, or its processing stopped before the end"
        " (a retry with its idempotency key completes it)",
    )


def _none(turn: Turn, reason: str, message: str) -> TurnContext:
    return TurnContext(turn, NONE, reason, message)


def _turn_id(value: str) -> str:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise InvalidArgument("turn_id", "must be a turn id (a UUID)") from None
