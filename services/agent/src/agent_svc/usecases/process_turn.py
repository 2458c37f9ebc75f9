"""ProcessTurn, the per-turn loop of ARCHITECTURE.md §5.

1. perceive: the input is checked and normalised before anything happens (nothing is written
   for a bad turn);
2. the session's lease is taken (turns of one session run one at a time, sessions in parallel),
   and the turn is stored in the transcript together with its reflection job, in one
   transaction: once ProcessTurn answers, the turn and its follow-up work are both durable;
3. the turn joins working memory (its tool result becomes the last tool result), then the
   assembler builds the context for it;
4. with a language model, the reply is generated and stored as the assistant's turn;
5. the result is kept, so a retry with the same idempotency key gets the first result back and
   writes nothing.

An assistant turn is the caller's own reply (its model answered, not Lore's): steps 1, 2, 3's
working memory and 5 only. It is stored with its reflection job like a user turn (so what the agent
promised or thought is learnt), but no context is assembled for it and nothing is generated, even
when a language model is configured: the caller has answered already.

Only the transcript is essential: when working memory, the assembler or the model cannot be
reached the turn is still stored and acknowledged, with whatever could be built (reflection,
queued durably, catches up once the services are back).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

from lore_runtime.clock import Clock
from lore_runtime.errors import Conflict, DeadlineExceeded, DependencyUnavailable, FailedPrecondition, InvalidArgument
from lore_runtime.redaction import ALL_KINDS, Kind

from agent_svc.domain.forget_requests import ForgetOutcome, forget_request
from agent_svc.domain.jobs import reflect_job
from agent_svc.domain.secret_answers import bare_answer_start, without_answered_secret
from agent_svc.domain.transcript import (
    Appended,
    Session,
    Turn,
    TurnDraft,
    bounded_id,
    key_reused,
    normalise_content,
    repeats,
    speaker_name,
    turn_id_for,
    validate_metadata,
    validate_tool_interactions,
)
from agent_svc.domain.turn_loop import CONTEXT_ROLES, PROCESSED_ROLES, Assembled, Opaque, ProcessedTurn, TurnResult
from agent_svc.usecases.forget import ForgetServices, forget_in_turn
from agent_svc.usecases.sessions import get_session
from agent_svc.usecases.transcript_ports import Transcript
from agent_svc.usecases.turn_loop_ports import ContextAssembler, LanguageModel, TurnLoopStore, WorkingMemory

log = logging.getLogger(__name__)

# What a turn may lose without failing: the services after the transcript.
DEGRADABLE = (DependencyUnavailable, DeadlineExceeded)
# Working-memory writes may also find the lease lost (a turn that outlived it): a newer turn owns
# the session's working memory now, so this one's write is skipped rather than the turn failed.
WORKING_MEMORY_DEGRADABLE = (*DEGRADABLE, Conflict)


@dataclass(frozen=True, slots=True)
class TurnServices:
    transcript: Transcript
    results: TurnLoopStore
    working_memory: WorkingMemory
    assembler: ContextAssembler
    clock: Clock
    model: LanguageModel | None = None
    # Spoken memory control ("forget what I said about X"): what such a turn forgets, before its context.
    forget: ForgetServices | None = None
    # The secret kinds redacted (LORE_REDACT): a bare answer to the assistant's question for one is too.
    redact: frozenset[Kind] = ALL_KINDS


def perceive(session: Session, given: TurnDraft, services: TurnServices) -> Turn:
    """The turn ProcessTurn stores: a role left unspecified is a user turn ("assistant": the caller's
    reply), said now."""
    role = given.role or "user"
    if role not in PROCESSED_ROLES:
        raise InvalidArgument(
            "turn.role", "ProcessTurn takes a user or assistant turn; system and tool turns go through ImportTurns"
        )
    content = normalise_content(given.content)
    key = bounded_id(given.idempotency_key, "turn.idempotency_key")
    return Turn(
        id=turn_id_for(session.id, key),
        session_id=session.id,
        sequence=0,
        role=role,
        content=content,
        created_at=services.clock.now(),
        metadata=validate_metadata(given.metadata, "turn.metadata"),
        idempotency_key=key,
        tool_interactions=validate_tool_interactions(given.tool_interactions),
        speaker=speaker_name(given.speaker, "turn.speaker"),
    )


async def process_turn(
    org_id: str, session_id: str, given: TurnDraft, options: Opaque | None, services: TurnServices
) -> ProcessedTurn:
    session = await get_session(org_id, session_id, transcript=services.transcript)
    turn = await _without_answered_secret(org_id, session, perceive(session, given, services), services)
    if session.status != "active":
        raise FailedPrecondition(f"session {session.id} has ended: it takes no more turns", reason="SESSION_ENDED")
    # A retry is recognised by the append itself (its key is already stored), under the lease: so a
    # retry that arrives while the first attempt still runs waits for it and returns its result.
    # The lease and the turn's place in working memory are one call (working memory keeps a turn once
    # per transcript id, so a retry's append there changes nothing).
    token = await services.working_memory.acquire_lease_and_append(session.id, turn.id, turn)
    try:
        stored = await _store(org_id, session, turn, services)
        if stored.created == 0 and not repeats(turn, stored.turns[0]):
            raise key_reused("turn.idempotency_key", stored.turns[0])  # nothing was written
        if stored.created == 0 and (replay := await _replay(org_id, session, stored.turns[0], services)) is not None:
            return replay
        said = stored.turns[0]  # the stored turn: a retry whose first attempt failed half-way completes it
        await _join_working_memory(session, said, token, services)
        if said.role not in CONTEXT_ROLES:
            # The caller's own reply: kept like any result, so a retry replays it and writes nothing.
            kept = await services.results.save_result(org_id, session.id, said.id, TurnResult(), services.clock.now())
            return ProcessedTurn(said, kept)
        forgot = await _forget(org_id, session, said, services)
        assembled = await _assemble(session, said, options, services)
        reply, reply_turn, reply_status = await _respond(org_id, session, said, assembled, token, services)
        result = await services.results.save_result(
            org_id,
            session.id,
            said.id,
            TurnResult(
                reply=reply,
                reply_turn_id=reply_turn.id if reply_turn else "",
                context=assembled.payload,
                forget_status=forgot.status,
                forgotten=forgot.forgotten,
                reply_status=reply_status,
            ),
            services.clock.now(),
        )
        # The assembler's message goes back as it came, unless another attempt's result was kept first.
        ours = assembled.message if result.context == assembled.payload else None
        return ProcessedTurn(said, result, reply_turn, context=ours)
    finally:
        if token is not None:
            await _quietly(services.working_memory.release_lease(session.id, turn.id), "release the session lease")


async def _without_answered_secret(org_id: str, session: Session, turn: Turn, services: TurnServices) -> Turn:
    """A user's bare answer to the assistant's question for a secret, with the secret replaced
    (domain/secret_answers.py). The question is the newest turn before this one (a retry of this turn
    finds itself stored: it is skipped, so the retry is redacted the same way); only a turn shaped like
    a bare answer costs the read."""
    if turn.role != "user" or not services.redact or bare_answer_start(turn.content) is None:
        return turn
    newest = await services.transcript.turns(org_id, session.id, 2, max(0, session.turn_count - 2))
    before = [other for other in newest if other.id != turn.id]
    if not before or before[-1].role != "assistant":
        return turn
    content = without_answered_secret(before[-1].content, turn.content, services.redact)
    return turn if content == turn.content else dataclasses.replace(turn, content=content)


async def _store(org_id: str, session: Session, turn: Turn, services: TurnServices) -> Appended:
    def reflect(appended: Appended) -> list:
        return [reflect_job(org_id, session.id, appended.turns[-1].sequence)] if appended.created else []

    appended = await services.transcript.append(org_id, session.id, [turn], services.clock.now(), then=reflect)
    if not appended.accepted:
        raise FailedPrecondition(f"session {session.id} has ended: it takes no more turns", reason="SESSION_ENDED")
    return appended


async def _replay(org_id: str, session: Session, turn: Turn, services: TurnServices) -> ProcessedTurn | None:
    """The first result of a turn already processed under this idempotency key, if it finished."""
    result = await services.results.result(org_id, turn.id)
    if result is None:
        return None
    stored = await services.transcript.turn(org_id, turn.id)
    if stored is None:
        return None
    reply_turn = await services.transcript.turn(org_id, result.reply_turn_id) if result.reply_turn_id else None
    return ProcessedTurn(stored, result, reply_turn, replayed=True)


async def _join_working_memory(session: Session, turn: Turn, token: int | None, services: TurnServices) -> None:
    """The rest of the turn's way into working memory: the append, when the lease call could not make it
    (the memory service was unreachable), and the last tool result."""
    if token is None:
        await _quietly(services.working_memory.append_turn(session.id, turn, None), "append the turn to working memory")
    if turn.tool_interactions:
        await _quietly(
            services.working_memory.set_last_tool_result(session.id, turn.tool_interactions[-1]),
            "keep the last tool result",
        )


async def _forget(org_id: str, session: Session, turn: Turn, services: TurnServices) -> ForgetOutcome:
    """What the turn asks to forget, forgotten before its context is assembled (usecases/forget.py).
    Reflection does it again in order, durably: a service down now costs the answer's list only."""
    request = forget_request(turn.content)
    if request is None or services.forget is None:
        return ForgetOutcome("")
    try:
        earlier = await services.transcript.turns(org_id, session.id, 2, max(0, turn.sequence - 3))
        before = [other for other in earlier if other.sequence < turn.sequence]
        reflected = await services.results.reflected_through(org_id, session.id)
        return await forget_in_turn(session.scope, turn, request, before, services.forget, reflected_through=reflected)
    except DEGRADABLE as error:
        log.warning("turn %s: forgetting waits for reflection, a service is unavailable (%s)", turn.id, error)
        return ForgetOutcome("")


async def _assemble(session: Session, turn: Turn, options: Opaque | None, services: TurnServices) -> Assembled:
    try:
        return await services.assembler.assemble(session, turn.content, options)
    except DEGRADABLE as error:
        log.warning("turn %s answered without context: the assembler is unavailable (%s)", turn.id, error)
        return Assembled()


def _reply_turn(session: Session, user_turn: Turn, text: str, services: TurnServices) -> Turn:
    key = f"reply:{user_turn.id}"
    return Turn(turn_id_for(session.id, key), session.id, 0, "assistant", text, services.clock.now(), {}, key)


async def _respond(
    org_id: str, session: Session, turn: Turn, assembled: Assembled, token: int | None, services: TurnServices
) -> tuple[str, Turn | None, str]:
    """The reply, its stored turn and its status (``REPLY_STATUSES``; "" when no model is configured)."""
    if services.model is None:
        return "", None, ""
    messages = [("system", assembled.text)] if assembled.text else []
    try:
        text = await services.model.reply([*messages, ("user", turn.content)])
    except DEGRADABLE as error:
        # The model's own deadline (LORE_LLM_REPLY_TIMEOUT_MS) or an unreachable model: the turn goes on.
        log.warning("turn %s has no reply: the language model is unavailable (%s)", turn.id, error)
        return "", None, "timed_out" if isinstance(error, DeadlineExceeded) else "unavailable"
    try:
        reply = _reply_turn(session, turn, normalise_content(text[:16_000], "reply"), services)
    except InvalidArgument:
        return "", None, "empty"  # the model said nothing printable
    stored = (await _store(org_id, session, reply, services)).turns[0]
    await _quietly(services.working_memory.append_turn(session.id, stored, token), "append the reply")
    return stored.content, stored, "generated"


async def _quietly(call, what: str) -> None:
    """A working-memory call the turn can do without."""
    try:
        await call
    except WORKING_MEMORY_DEGRADABLE as error:
        log.warning("could not %s: %s", what, error)
