"""ImportTurns: historical turns with their real timestamps, into the transcript and into
long-term memory as ``message`` memories valid at the time they were said.

Every turn is checked before anything is written (one bad turn writes none). A turn without an
idempotency key gets one derived from its role, time and content (``automatic_key``), so
re-importing a file writes nothing twice. The transcript is written first; indexing follows,
idempotent per turn, for every turn of the call — also those already in the transcript — so a
call that failed between the two is completed by retrying it. User and assistant turns become
memories; system and tool turns stay in the transcript only. The new turns' reflection job is
queued with them (the same transaction), so history is read for facts and beliefs like live turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from lore_runtime.clock import Clock
from lore_runtime.errors import FailedPrecondition, InvalidArgument
from lore_runtime.redaction import ALL_KINDS, Kind

from agent_svc.domain.jobs import Job, reflect_job
from agent_svc.domain.secret_answers import without_answered_secret
from agent_svc.domain.transcript import (
    ROLES,
    Appended,
    Turn,
    TurnDraft,
    automatic_key,
    bounded_id,
    key_reused,
    normalise_content,
    repeats,
    speaker_name,
    turn_id_for,
    validate_metadata,
)
from agent_svc.usecases.memory_ports import MessageIndex
from agent_svc.usecases.sessions import get_session
from agent_svc.usecases.transcript_ports import Transcript

MAX_IMPORT_TURNS = 500
INDEXED_ROLES = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class Imported:
    imported: int
    skipped: int


def prepare(
    session_id: str, drafts: Sequence[TurnDraft], now: datetime, redact: frozenset[Kind] = ALL_KINDS
) -> list[Turn]:
    """The batch's turns, validated; a user's bare answer to the assistant's question for a secret,
    the turn before it in the batch, has the secret replaced (domain/secret_answers.py) before its
    automatic key is derived from its words."""
    if not drafts:
        raise InvalidArgument("turns", "must not be empty")
    if len(drafts) > MAX_IMPORT_TURNS:
        raise InvalidArgument("turns", f"at most {MAX_IMPORT_TURNS} per call")
    turns = []
    for index, draft in enumerate(drafts):
        where = f"turns[{index}]"
        if draft.role not in ROLES:
            raise InvalidArgument(f"{where}.role", f"must be one of {', '.join(ROLES)}")
        content = normalise_content(draft.content, f"{where}.content")
        if draft.role == "user" and turns and turns[-1].role == "assistant" and redact:
            content = without_answered_secret(turns[-1].content, content, redact)
        created = draft.created_at or now
        if created > now:
            raise InvalidArgument(f"{where}.created_at", "must not be in the future")
        key = bounded_id(draft.idempotency_key, f"{where}.idempotency_key") or automatic_key(
            draft.role, created, content
        )
        metadata = validate_metadata(draft.metadata, f"{where}.metadata")
        speaker = speaker_name(draft.speaker, f"{where}.speaker")
        turns.append(
            Turn(
                turn_id_for(session_id, key),
                session_id,
                0,
                draft.role,
                content,
                created,
                metadata,
                key,
                source="import",
                speaker=speaker,
            )
        )
    return turns


async def import_turns(
    org_id: str,
    session_id: str,
    drafts: Sequence[TurnDraft],
    *,
    transcript: Transcript,
    messages: MessageIndex,
    clock: Clock,
    redact: frozenset[Kind] = ALL_KINDS,
) -> Imported:
    session = await get_session(org_id, session_id, transcript=transcript)
    now = clock.now()

    prepared = prepare(session.id, drafts, now, redact)

    def reflect(done: Appended) -> list[Job]:
        # Raised here, inside the append's transaction: a batch with one reused key writes nothing.
        for index, (draft, given, stored) in enumerate(zip(drafts, prepared, done.turns, strict=True)):
            if draft.idempotency_key.strip() and not repeats(given, stored, timed=draft.created_at is not None):
                raise key_reused(f"turns[{index}].idempotency_key", stored)
        return [reflect_job(org_id, session.id, max(turn.sequence for turn in done.turns))] if done.created else []

    appended = await transcript.append(org_id, session.id, prepared, now, then=reflect)
    if not appended.accepted:
        raise FailedPrecondition(f"session {session.id} has ended: it takes no more turns", reason="SESSION_ENDED")
    await messages.index(session.scope, session.id, [turn for turn in appended.turns if turn.role in INDEXED_ROLES])
    return Imported(imported=appended.created, skipped=len(drafts) - appended.created)
