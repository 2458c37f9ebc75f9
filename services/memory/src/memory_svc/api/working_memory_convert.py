"""pb2 <-> domain for WorkingMemoryService. Field validation is the use cases' (they name the field)."""

from __future__ import annotations

from lore.common.v1 import turn_pb2
from lore.memory.v1 import working_memory_service_pb2 as pb
from lore_runtime import errors
from lore_runtime.proto_time import from_timestamp, to_timestamp
from lore_runtime.proto_turns import ROLE_FROM_PB, ROLE_TO_PB, tool_from_pb, tool_to_pb

from memory_svc.domain.working_memory import (
    EmotionReading,
    PendingSlot,
    Plan,
    SessionLease,
    ToolResult,
    Turn,
    TurnRole,
    WorkingMemory,
)

_ROLE_FROM_PB = {value: TurnRole(name) for value, name in ROLE_FROM_PB.items()}


def role_from_pb(value: int, field: str) -> TurnRole | None:
    """None for TURN_ROLE_UNSPECIFIED (the use case refuses it); an unknown number is refused here."""
    if value == turn_pb2.TURN_ROLE_UNSPECIFIED:
        return None
    try:
        return _ROLE_FROM_PB[value]
    except KeyError:
        raise errors.InvalidArgument(field, f"unknown role {value}") from None


def turn_from_pb(message: turn_pb2.Turn, field: str = "turn") -> Turn:
    """The caller's turn; ``id``, ``sequence`` and ``session_id`` are the server's and ignored."""
    return Turn(
        role=role_from_pb(message.role, f"{field}.role"),
        content=message.content,
        created_at=from_timestamp(message, "created_at"),
        metadata=dict(message.metadata),
        idempotency_key=message.idempotency_key,
        tool_interactions=tuple(tool_from_pb(tool, ToolResult) for tool in message.tool_interactions),
    )


def turn_to_pb(turn: Turn) -> turn_pb2.Turn:
    message = turn_pb2.Turn(
        id=turn.id,
        session_id=turn.session_id,
        sequence=turn.sequence,
        role=ROLE_TO_PB[turn.role] if turn.role else turn_pb2.TURN_ROLE_UNSPECIFIED,
        content=turn.content,
        metadata=turn.metadata,
        idempotency_key=turn.idempotency_key,
        tool_interactions=[tool_to_pb(tool) for tool in turn.tool_interactions],
    )
    if turn.created_at is not None:
        message.created_at.CopyFrom(to_timestamp(turn.created_at))
    return message


def working_memory_from_pb(message: pb.WorkingMemory, session_id: str) -> WorkingMemory:
    """The values an UpdateWorkingMemory carries (the mask says which of them count)."""
    return WorkingMemory(
        session_id=session_id,
        summary=message.summary,
        active_plan=(
            Plan(message.active_plan.goal, message.active_plan.progress, message.active_plan.next_step)
            if message.HasField("active_plan")
            else None
        ),
        emotion_trajectory=tuple(
            EmotionReading(
                emotion=reading.emotion,
                valence=reading.valence,
                intensity=reading.intensity,
                turn_id=reading.turn_id,
                observed_at=from_timestamp(reading, "observed_at"),
            )
            for reading in message.emotion_trajectory
        ),
        pending_slots=tuple(
            PendingSlot(name=slot.name, tool_name=slot.tool_name, prompt=slot.prompt) for slot in message.pending_slots
        ),
        last_tool_result=tool_from_pb(message.last_tool_result, ToolResult)
        if message.HasField("last_tool_result")
        else None,
        context_fingerprint=message.context_fingerprint,
    )


def working_memory_to_pb(memory: WorkingMemory) -> pb.WorkingMemory:
    message = pb.WorkingMemory(
        session_id=memory.session_id,
        recent_turns=[turn_to_pb(turn) for turn in memory.recent_turns],
        summary=memory.summary,
        pending_slots=[
            pb.PendingSlot(name=slot.name, tool_name=slot.tool_name, prompt=slot.prompt)
            for slot in memory.pending_slots
        ],
        turn_count=memory.turn_count,
        context_fingerprint=memory.context_fingerprint,
    )
    if memory.active_plan is not None:
        plan = memory.active_plan
        message.active_plan.CopyFrom(pb.Plan(goal=plan.goal, progress=plan.progress, next_step=plan.next_step))
    for reading in memory.emotion_trajectory:
        entry = message.emotion_trajectory.add(
            emotion=reading.emotion, valence=reading.valence, intensity=reading.intensity, turn_id=reading.turn_id
        )
        if reading.observed_at is not None:
            entry.observed_at.CopyFrom(to_timestamp(reading.observed_at))
    if memory.last_tool_result is not None:
        message.last_tool_result.CopyFrom(tool_to_pb(memory.last_tool_result))
    if memory.updated_at is not None:
        message.updated_at.CopyFrom(to_timestamp(memory.updated_at))
    if memory.expires_at is not None:
        message.expires_at.CopyFrom(to_timestamp(memory.expires_at))
    return message


def lease_to_pb(lease: SessionLease) -> pb.SessionLease:
    return pb.SessionLease(
        session_id=lease.session_id,
        holder=lease.holder,
        fencing_token=lease.fencing_token,
        expires_at=to_timestamp(lease.expires_at),
    )
