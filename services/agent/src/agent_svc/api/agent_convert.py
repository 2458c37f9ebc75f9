"""pb2 <-> domain for the AgentService."""

from __future__ import annotations

from collections.abc import Sequence

from lore.agent.v1 import agent_service_pb2 as pb
from lore.common.v1 import scope_pb2, turn_pb2
from lore_runtime import proto_turns
from lore_runtime.errors import InvalidArgument
from lore_runtime.proto_time import from_timestamp, to_timestamp

from agent_svc.domain.forget_requests import AMBIGUOUS, FORGOTTEN, NOTHING_MATCHED, ForgetOutcome, ForgottenItem
from agent_svc.domain.jobs import JobRecord, QueueCounts
from agent_svc.domain.transcript import Scope, Session, ToolInteraction, Turn, TurnDraft, bounded_id
from agent_svc.domain.turn_loop import AVAILABLE, CONTEXT_ROLES, EXPIRED, NONE, Opaque, ProcessedTurn, TurnContext
from agent_svc.usecases.erasure_ports import Erasure
from agent_svc.usecases.sessions import Started

STATUS_TO_PB = {"active": pb.SESSION_STATUS_ACTIVE, "ended": pb.SESSION_STATUS_ENDED}
STATUS_FROM_PB = {value: name for name, value in STATUS_TO_PB.items()}
END_REASON_TO_PB = {
    "": pb.SESSION_END_REASON_UNSPECIFIED,
    "requested": pb.SESSION_END_REASON_REQUESTED,
    "idle": pb.SESSION_END_REASON_IDLE,
}
FORGET_STATUS_TO_PB = {
    "": pb.FORGET_STATUS_UNSPECIFIED,
    FORGOTTEN: pb.FORGET_STATUS_FORGOTTEN,
    NOTHING_MATCHED: pb.FORGET_STATUS_NOTHING_MATCHED,
    AMBIGUOUS: pb.FORGET_STATUS_AMBIGUOUS,
}
REPLY_STATUS_TO_PB = {
    "": pb.REPLY_STATUS_UNSPECIFIED,
    "generated": pb.REPLY_STATUS_GENERATED,
    "timed_out": pb.REPLY_STATUS_TIMED_OUT,
    "unavailable": pb.REPLY_STATUS_UNAVAILABLE,
    "empty": pb.REPLY_STATUS_EMPTY,
}
ROLE_TO_PB = proto_turns.ROLE_TO_PB
ROLE_FROM_PB = proto_turns.ROLE_FROM_PB
ERASURE_STATUS_TO_PB = {
    "pending": pb.ERASURE_STATUS_PENDING,
    "running": pb.ERASURE_STATUS_RUNNING,
    "completed": pb.ERASURE_STATUS_COMPLETED,
    "dead_lettered": pb.ERASURE_STATUS_DEAD_LETTERED,
}


def drafts_from_pb(turns: Sequence[turn_pb2.Turn]) -> list[TurnDraft]:
    """ImportTurns' turns, each time checked naming its index (``turns[2].created_at``)."""
    return [draft_from_pb(turn, f"turns[{index}]") for index, turn in enumerate(turns)]


def draft_from_pb(turn: turn_pb2.Turn, field: str = "turn") -> TurnDraft:
    """An imported turn: an unknown role is left "" for ImportTurns to refuse naming the turn."""
    return TurnDraft(
        role=ROLE_FROM_PB.get(turn.role, ""),
        content=turn.content,
        created_at=from_timestamp(turn, "created_at", f"{field}.created_at"),
        metadata=dict(turn.metadata),
        idempotency_key=turn.idempotency_key,
        speaker=turn.speaker,
    )


def turn_input_from_pb(turn: turn_pb2.Turn) -> TurnDraft:
    """ProcessTurn's turn: said now (``created_at`` is not read), with its tool interactions."""
    if turn.role not in ROLE_FROM_PB and turn.role != turn_pb2.TURN_ROLE_UNSPECIFIED:
        raise InvalidArgument("turn.role", f"unknown role {turn.role}")
    tools = tuple(
        proto_turns.tool_from_pb(tool, ToolInteraction, f"turn.tool_interactions[{index}]")
        for index, tool in enumerate(turn.tool_interactions)
    )
    return TurnDraft(
        role=ROLE_FROM_PB.get(turn.role, ""),
        content=turn.content,
        metadata=dict(turn.metadata),
        idempotency_key=turn.idempotency_key,
        tool_interactions=tools,
        speaker=turn.speaker,
    )


def options_from_pb(request: pb.ProcessTurnRequest) -> Opaque | None:
    """The caller's AssembleOptions, handed to the assembler as they came (None: not given)."""
    return Opaque(request.context_options) if request.HasField("context_options") else None


def processed_to_pb(done: ProcessedTurn) -> pb.ProcessTurnResponse:
    response = pb.ProcessTurnResponse(turn=turn_to_pb(done.turn), reply=done.result.reply)
    if done.turn.role in CONTEXT_ROLES:  # an assistant turn has none: the field stays absent
        if done.context is not None:  # assembled by this call: the assembler's message, not re-parsed
            response.context.CopyFrom(done.context.message)
        else:  # a replay: the kept bytes
            response.context.ParseFromString(done.result.context)
    if done.reply_turn is not None:
        response.reply_turn.CopyFrom(turn_to_pb(done.reply_turn))
    response.forget_status = FORGET_STATUS_TO_PB[done.result.forget_status]
    response.reply_status = REPLY_STATUS_TO_PB[done.result.reply_status]
    response.forgotten.extend(forgotten_to_pb(done.result.forgotten))
    return response


def forgotten_to_pb(items: Sequence[ForgottenItem]) -> list[pb.ForgottenItem]:
    return [pb.ForgottenItem(id=item.id, type=item.type, text=item.text) for item in items]


def forget_outcome_to_pb(outcome: ForgetOutcome) -> pb.ForgetAboutResponse:
    return pb.ForgetAboutResponse(
        forgotten=forgotten_to_pb(outcome.forgotten), status=FORGET_STATUS_TO_PB[outcome.status]
    )


def started_to_pb(started: Started) -> pb.StartSessionResponse:
    response = pb.StartSessionResponse(
        session=session_to_pb(started.session), prime_unavailable=started.prime_unavailable
    )
    if started.prime is not None:
        response.prime.CopyFrom(started.prime.message)
    return response


def scope_from_pb(scope: scope_pb2.Scope, field: str = "scope") -> Scope:
    return Scope(
        bounded_id(scope.user_id, f"{field}.user_id"),
        bounded_id(scope.agent_id, f"{field}.agent_id"),
        bounded_id(scope.team_id, f"{field}.team_id"),
    )


def status_from_pb(value: int) -> str | None:
    if value == pb.SESSION_STATUS_UNSPECIFIED:
        return None
    try:
        return STATUS_FROM_PB[value]
    except KeyError:
        raise InvalidArgument("status", f"unknown session status {value}") from None


def session_to_pb(session: Session) -> pb.Session:
    message = pb.Session(
        id=session.id,
        scope=scope_pb2.Scope(
            user_id=session.scope.user_id, agent_id=session.scope.agent_id, team_id=session.scope.team_id
        ),
        status=STATUS_TO_PB[session.status],
        end_reason=END_REASON_TO_PB[session.end_reason],
        started_at=to_timestamp(session.started_at),
        last_active_at=to_timestamp(session.last_active_at),
        turn_count=session.turn_count,
        reflected_turns=session.reflected_through,
    )
    if session.ended_at is not None:
        message.ended_at.CopyFrom(to_timestamp(session.ended_at))
    message.metadata.update(session.metadata)
    return message


def turn_to_pb(turn: Turn) -> turn_pb2.Turn:
    message = turn_pb2.Turn(
        id=turn.id,
        session_id=turn.session_id,
        sequence=turn.sequence,
        role=ROLE_TO_PB[turn.role],
        content=turn.content,
        created_at=to_timestamp(turn.created_at),
        idempotency_key=turn.idempotency_key,
        tool_interactions=[proto_turns.tool_to_pb(tool) for tool in turn.tool_interactions],
        speaker=turn.speaker,
    )
    message.metadata.update(turn.metadata)
    return message


def erasure_to_pb(erasure: Erasure) -> pb.ErasureJob:
    message = pb.ErasureJob(
        id=erasure.id, status=ERASURE_STATUS_TO_PB[erasure.status], requested_at=to_timestamp(erasure.requested_at)
    )
    if erasure.completed_at is not None:
        message.completed_at.CopyFrom(to_timestamp(erasure.completed_at))
    message.counts.update(erasure.counts)
    return message


def job_counts_to_pb(counts: QueueCounts) -> pb.JobKindStats:
    return pb.JobKindStats(
        kind=counts.kind,
        queued=counts.queued,
        running=counts.running,
        retrying=counts.retrying,
        dead=counts.dead,
        oldest_queued_seconds=counts.oldest_queued_seconds,
    )


_CONTEXT_STATUS = {
    AVAILABLE: pb.TURN_CONTEXT_STATUS_AVAILABLE,
    EXPIRED: pb.TURN_CONTEXT_STATUS_EXPIRED,
    NONE: pb.TURN_CONTEXT_STATUS_NONE,
}


def turn_context_to_pb(found: TurnContext) -> pb.GetTurnContextResponse:
    response = pb.GetTurnContextResponse(
        status=_CONTEXT_STATUS[found.status], reason=found.reason, message=found.message, turn=turn_to_pb(found.turn)
    )
    if found.status == AVAILABLE:
        response.context.ParseFromString(found.context)  # the kept bytes, as a replay returns them
    if found.assembled_at is not None:
        response.assembled_at.CopyFrom(to_timestamp(found.assembled_at))
    if found.expires_at is not None:
        response.expires_at.CopyFrom(to_timestamp(found.expires_at))
    return response


def job_to_pb(job: JobRecord) -> pb.Job:
    message = pb.Job(
        id=str(job.id),
        kind=job.kind,
        state=job.state,
        attempts=job.attempts,
        last_error=job.last_error,
        session_id=job.session_id,
        through_sequence=job.through_sequence,
        erasure_id=job.erasure_id,
        created_at=to_timestamp(job.created_at),
        updated_at=to_timestamp(job.updated_at),
    )
    if job.last_error_at is not None:
        message.last_error_at.CopyFrom(to_timestamp(job.last_error_at))
    if job.next_attempt_at is not None:
        message.next_attempt_at.CopyFrom(to_timestamp(job.next_attempt_at))
    return message
