"""Sessions and their transcript: start (idempotent by request id), read, list, end.

Reading a session of another org, or one that does not exist, is the same NOT_FOUND: the
transcript store filters by org (and row-level security does it again).
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping
from datetime import datetime

from lore_runtime.errors import InvalidArgument, NotFound

from agent_svc.domain.jobs import episode_job
from agent_svc.domain.transcript import Scope, Session, Turn, session_id_for, validate_metadata
from agent_svc.usecases.ports import Clock, Transcript

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500


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
    org_id: str, scope: Scope, metadata: Mapping[str, str], request_id: str, *, transcript: Transcript, clock: Clock
) -> Session:
    now = clock.now()
    session = Session(
        id=session_id_for(org_id, request_id),
        org_id=org_id,
        scope=scope,
        status="active",
        started_at=now,
        last_active_at=now,
        metadata=validate_metadata(metadata),
    )
    return await transcript.start(session, request_id)


async def get_session(org_id: str, session_id: str, *, transcript: Transcript) -> Session:
    found = await transcript.get(org_id, valid_session_id(session_id))
    if found is None:
        raise NotFound(f"session {session_id} not found", reason="SESSION_NOT_FOUND")
    return found


async def list_sessions(
    org_id: str, scope: Scope, status: str | None, size: int, token: str, *, transcript: Transcript
) -> tuple[list[Session], str]:
    limit = page_size(size)
    found = await transcript.list(org_id, scope, status, limit + 1, _decode_session_token(token))
    page = found[:limit]
    more = len(found) > limit
    return page, (_session_token(page[-1]) if more else "")


async def end_session(org_id: str, session_id: str, *, transcript: Transcript, clock: Clock) -> Session:
    """End the session and queue its episode extraction (in the same transaction)."""
    ended = await transcript.end(
        org_id, valid_session_id(session_id), "requested", clock.now(), then=lambda s: [episode_job(org_id, s.id)]
    )
    if ended is None:
        raise NotFound(f"session {session_id} not found", reason="SESSION_NOT_FOUND")
    return ended


async def list_turns(
    org_id: str, session_id: str, size: int, token: str, *, transcript: Transcript
) -> tuple[list[Turn], str]:
    session = await get_session(org_id, session_id, transcript=transcript)
    limit = page_size(size)
    after = _decode_sequence_token(token)
    found = await transcript.turns(org_id, session.id, limit + 1, after)
    page = found[:limit]
    return page, (_encode(f"t:{page[-1].sequence}") if len(found) > limit else "")


def _encode(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _decode(token: str) -> str:
    try:
        return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        raise InvalidArgument("page_token", "not a token this service issued") from None


def _session_token(session: Session) -> str:
    return _encode(f"s:{session.started_at.isoformat()}|{session.id}")


def _decode_session_token(token: str) -> tuple[datetime, str] | None:
    if not token:
        return None
    text = _decode(token)
    try:
        kind, _, rest = text.partition(":")
        started, _, session_id = rest.partition("|")
        if kind != "s":
            raise ValueError(kind)
        return datetime.fromisoformat(started), str(uuid.UUID(session_id))
    except ValueError:
        raise InvalidArgument("page_token", "not a token this service issued") from None


def _decode_sequence_token(token: str) -> int:
    if not token:
        return 0
    text = _decode(token)
    kind, _, number = text.partition(":")
    if kind != "t" or not number.isdigit():
        raise InvalidArgument("page_token", "not a token this service issued")
    return int(number)
