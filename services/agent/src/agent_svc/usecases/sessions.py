"""Sessions and their transcript: start (idempotent by request id, primed on request), read, list, end.

Reading a session of another org, or one that does not exist, is the same NOT_FOUND: the
transcript store filters by org (and row-level security does it again).

A start may ask for the Prime ("what I remember", seed 001: called when a conversation starts). The
session is durable first; the Prime is made afterwards for the session's scope, and an assembler
that cannot make it costs the Prime (``prime_unavailable``), never the session.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from lore_runtime.clock import Clock
from lore_runtime.errors import AlreadyExists, InvalidArgument, LoreError, NotFound
from lore_runtime.page_tokens import PageTokens, fingerprint

from agent_svc.domain.jobs import episode_job
from agent_svc.domain.transcript import Scope, Session, Turn, session_id_for, validate_metadata
from agent_svc.domain.turn_loop import Opaque
from agent_svc.usecases.transcript_ports import Transcript
from agent_svc.usecases.turn_loop_ports import ContextAssembler

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
# The assembler's Prime takes an initial message of at most this many characters; refused here,
# before the session is written, rather than costing the Prime after.
MAX_INITIAL_MESSAGE_CHARS = 4_000


@dataclass(frozen=True, slots=True)
class Started:
    """A started session and, when asked for, its Prime: the assembler's PrimeResponse as it
    answered (opaque here), or ``prime_unavailable`` when it could not be made."""

    session: Session
    prime: Opaque | None = None
    prime_unavailable: bool = False


def page_size(value: int) -> int:
    if value < 0 or value > MAX_PAGE_SIZE:
        raise InvalidArgument("page_size", f"must be between 0 and {MAX_PAGE_SIZE} (0 means {DEFAULT_PAGE_SIZE})")
    return value or DEFAULT_PAGE_SIZE


def valid_session_id(value: str, field: str = "id") -> str:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise InvalidArgument(field, "must be a session id (a UUID)") from None


async def start_session(
    org_id: str,
    scope: Scope,
    metadata: Mapping[str, str],
    request_id: str,
    *,
    requester: str = "",
    transcript: Transcript,
    clock: Clock,
) -> Session:
    """``request_id`` is the requester's (``requester_of``): another caller's equal id starts its own session."""
    now = clock.now()
    session = Session(
        id=session_id_for(org_id, request_id, requester),
        org_id=org_id,
        scope=scope,
        status="active",
        started_at=now,
        last_active_at=now,
        metadata=validate_metadata(metadata),
    )
    started = await transcript.start(session, request_id, requester)
    if started.scope != session.scope:
        # The id names another scope's session: handing it over would mix two users' conversations.
        raise AlreadyExists(
            "request_id already started a session of another scope: use a new request id for a new session",
            reason="REQUEST_ID_REUSED",
            metadata={"field": "request_id"},
        )
    return started


def valid_initial_message(value: str) -> str:
    if len(value) > MAX_INITIAL_MESSAGE_CHARS:
        raise InvalidArgument("initial_message", f"at most {MAX_INITIAL_MESSAGE_CHARS} characters")
    return value.strip()


async def start_and_prime(
    org_id: str,
    scope: Scope,
    metadata: Mapping[str, str],
    request_id: str,
    initial_message: str,
    include_prime: bool,
    *,
    requester: str = "",
    transcript: Transcript,
    clock: Clock,
    assembler: ContextAssembler,
) -> Started:
    """StartSession: the session, then (asked for by ``include_prime`` or an initial message) the
    Prime of the session's scope. A retried start returns the same session with a fresh Prime."""
    message = valid_initial_message(initial_message)
    session = await start_session(
        org_id, scope, metadata, request_id, requester=requester, transcript=transcript, clock=clock
    )
    if not (include_prime or message):
        return Started(session)
    try:
        primed = await assembler.prime(session.scope, message)
    except LoreError as error:  # whatever the assembler answered: the session stands without it
        log.warning("session %s started without its prime: %s (%s)", session.id, error.reason, error)
        return Started(session, prime_unavailable=True)
    return Started(session, primed)


async def get_session(org_id: str, session_id: str, *, transcript: Transcript) -> Session:
    return _found(await transcript.get(org_id, valid_session_id(session_id)), session_id)


async def list_sessions(
    org_id: str,
    scope: Scope,
    status: str | None,
    size: int,
    token: str,
    *,
    transcript: Transcript,
    tokens: PageTokens,
) -> tuple[list[Session], str]:
    """Newest first, keyset (started_at, id): each session once; the token is bound to the filters."""
    limit = page_size(size)
    filters = fingerprint(scope.user_id, scope.agent_id, scope.team_id, status)
    after = _session_cursor(tokens.open(token, org_id, "sessions", filters)) if token else None
    found = await transcript.list(org_id, scope, status, limit + 1, after)
    return _page(found, limit, lambda last: tokens.seal(org_id, "sessions", filters, _session_position(last)))


async def end_session(org_id: str, session_id: str, *, transcript: Transcript, clock: Clock) -> Session:
    """End the session and queue its episode extraction (in the same transaction)."""
    ended = await transcript.end(
        org_id, valid_session_id(session_id), "requested", clock.now(), then=lambda s: [episode_job(org_id, s.id)]
    )
    return _found(ended, session_id)


def _found(session: Session | None, session_id: str) -> Session:
    """The session, or NOT_FOUND: another org's session is as absent as one never started."""
    if session is None:
        raise NotFound(f"session {session_id} not found", reason="SESSION_NOT_FOUND")
    return session


async def list_turns(
    org_id: str, session_id: str, size: int, token: str, *, transcript: Transcript, tokens: PageTokens
) -> tuple[list[Turn], str]:
    """In sequence order, keyset by sequence; the token is bound to the session."""
    session = await get_session(org_id, session_id, transcript=transcript)
    limit = page_size(size)
    filters = fingerprint(session.id)
    after = _sequence_cursor(tokens.open(token, org_id, "turns", filters)) if token else 0
    found = await transcript.turns(org_id, session.id, limit + 1, after)
    return _page(found, limit, lambda last: tokens.seal(org_id, "turns", filters, {"s": last.sequence}))


def _page(found: Sequence[T], limit: int, token_after: Callable[[T], str]) -> tuple[list[T], str]:
    """The first ``limit`` of the ``limit + 1`` rows read, and the token after the last of them
    when there were more ("" on the last page)."""
    page = list(found[:limit])
    return page, (token_after(page[-1]) if len(found) > limit else "")


def _session_position(session: Session) -> dict[str, str]:
    return {"t": session.started_at.isoformat(), "i": session.id}


def _session_cursor(position: dict[str, object]) -> tuple[datetime, str]:
    try:
        started = datetime.fromisoformat(str(position["t"]))
        return started, str(uuid.UUID(str(position["i"])))
    except (KeyError, ValueError):
        raise InvalidArgument("page_token", "is not a page token this service issued") from None


def _sequence_cursor(position: dict[str, object]) -> int:
    sequence = position.get("s")
    if not isinstance(sequence, int) or sequence < 0:
        raise InvalidArgument("page_token", "is not a page token this service issued")
    return sequence
