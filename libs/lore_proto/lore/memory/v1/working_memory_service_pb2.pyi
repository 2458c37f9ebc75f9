import datetime

from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from lore.common.v1 import turn_pb2 as _turn_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Plan(_message.Message):
    __slots__ = ("goal", "progress", "next_step")
    GOAL_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    NEXT_STEP_FIELD_NUMBER: _ClassVar[int]
    goal: str
    progress: str
    next_step: str
    def __init__(self, goal: _Optional[str] = ..., progress: _Optional[str] = ..., next_step: _Optional[str] = ...) -> None: ...

class EmotionReading(_message.Message):
    __slots__ = ("emotion", "valence", "intensity", "turn_id", "observed_at")
    EMOTION_FIELD_NUMBER: _ClassVar[int]
    VALENCE_FIELD_NUMBER: _ClassVar[int]
    INTENSITY_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVED_AT_FIELD_NUMBER: _ClassVar[int]
    emotion: str
    valence: float
    intensity: float
    turn_id: str
    observed_at: _timestamp_pb2.Timestamp
    def __init__(self, emotion: _Optional[str] = ..., valence: _Optional[float] = ..., intensity: _Optional[float] = ..., turn_id: _Optional[str] = ..., observed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PendingSlot(_message.Message):
    __slots__ = ("name", "tool_name", "prompt")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    name: str
    tool_name: str
    prompt: str
    def __init__(self, name: _Optional[str] = ..., tool_name: _Optional[str] = ..., prompt: _Optional[str] = ...) -> None: ...

class WorkingMemory(_message.Message):
    __slots__ = ("session_id", "recent_turns", "summary", "active_plan", "emotion_trajectory", "pending_slots", "last_tool_result", "turn_count", "context_fingerprint", "updated_at", "expires_at")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    RECENT_TURNS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_PLAN_FIELD_NUMBER: _ClassVar[int]
    EMOTION_TRAJECTORY_FIELD_NUMBER: _ClassVar[int]
    PENDING_SLOTS_FIELD_NUMBER: _ClassVar[int]
    LAST_TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    TURN_COUNT_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    recent_turns: _containers.RepeatedCompositeFieldContainer[_turn_pb2.Turn]
    summary: str
    active_plan: Plan
    emotion_trajectory: _containers.RepeatedCompositeFieldContainer[EmotionReading]
    pending_slots: _containers.RepeatedCompositeFieldContainer[PendingSlot]
    last_tool_result: _turn_pb2.ToolInteraction
    turn_count: int
    context_fingerprint: str
    updated_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, session_id: _Optional[str] = ..., recent_turns: _Optional[_Iterable[_Union[_turn_pb2.Turn, _Mapping]]] = ..., summary: _Optional[str] = ..., active_plan: _Optional[_Union[Plan, _Mapping]] = ..., emotion_trajectory: _Optional[_Iterable[_Union[EmotionReading, _Mapping]]] = ..., pending_slots: _Optional[_Iterable[_Union[PendingSlot, _Mapping]]] = ..., last_tool_result: _Optional[_Union[_turn_pb2.ToolInteraction, _Mapping]] = ..., turn_count: _Optional[int] = ..., context_fingerprint: _Optional[str] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SessionLease(_message.Message):
    __slots__ = ("session_id", "holder", "fencing_token", "expires_at")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    holder: str
    fencing_token: int
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, session_id: _Optional[str] = ..., holder: _Optional[str] = ..., fencing_token: _Optional[int] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetWorkingMemoryRequest(_message.Message):
    __slots__ = ("session_id", "read_mask")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    READ_MASK_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    read_mask: _field_mask_pb2.FieldMask
    def __init__(self, session_id: _Optional[str] = ..., read_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class GetWorkingMemoryResponse(_message.Message):
    __slots__ = ("working_memory",)
    WORKING_MEMORY_FIELD_NUMBER: _ClassVar[int]
    working_memory: WorkingMemory
    def __init__(self, working_memory: _Optional[_Union[WorkingMemory, _Mapping]] = ...) -> None: ...

class AppendTurnRequest(_message.Message):
    __slots__ = ("session_id", "turn", "fencing_token", "read_mask", "acquire_lease")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    READ_MASK_FIELD_NUMBER: _ClassVar[int]
    ACQUIRE_LEASE_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    turn: _turn_pb2.Turn
    fencing_token: int
    read_mask: _field_mask_pb2.FieldMask
    acquire_lease: LeaseToAcquire
    def __init__(self, session_id: _Optional[str] = ..., turn: _Optional[_Union[_turn_pb2.Turn, _Mapping]] = ..., fencing_token: _Optional[int] = ..., read_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ..., acquire_lease: _Optional[_Union[LeaseToAcquire, _Mapping]] = ...) -> None: ...

class LeaseToAcquire(_message.Message):
    __slots__ = ("holder", "ttl_ms", "wait_ms")
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    holder: str
    ttl_ms: int
    wait_ms: int
    def __init__(self, holder: _Optional[str] = ..., ttl_ms: _Optional[int] = ..., wait_ms: _Optional[int] = ...) -> None: ...

class AppendTurnResponse(_message.Message):
    __slots__ = ("working_memory", "lease")
    WORKING_MEMORY_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    working_memory: WorkingMemory
    lease: SessionLease
    def __init__(self, working_memory: _Optional[_Union[WorkingMemory, _Mapping]] = ..., lease: _Optional[_Union[SessionLease, _Mapping]] = ...) -> None: ...

class UpdateWorkingMemoryRequest(_message.Message):
    __slots__ = ("session_id", "working_memory", "update_mask", "fencing_token")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    WORKING_MEMORY_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    working_memory: WorkingMemory
    update_mask: _field_mask_pb2.FieldMask
    fencing_token: int
    def __init__(self, session_id: _Optional[str] = ..., working_memory: _Optional[_Union[WorkingMemory, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ..., fencing_token: _Optional[int] = ...) -> None: ...

class UpdateWorkingMemoryResponse(_message.Message):
    __slots__ = ("working_memory",)
    WORKING_MEMORY_FIELD_NUMBER: _ClassVar[int]
    working_memory: WorkingMemory
    def __init__(self, working_memory: _Optional[_Union[WorkingMemory, _Mapping]] = ...) -> None: ...

class ClearWorkingMemoryRequest(_message.Message):
    __slots__ = ("session_id",)
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class ClearWorkingMemoryResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AcquireSessionLeaseRequest(_message.Message):
    __slots__ = ("session_id", "holder", "ttl_ms", "wait_ms")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    TTL_MS_FIELD_NUMBER: _ClassVar[int]
    WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    holder: str
    ttl_ms: int
    wait_ms: int
    def __init__(self, session_id: _Optional[str] = ..., holder: _Optional[str] = ..., ttl_ms: _Optional[int] = ..., wait_ms: _Optional[int] = ...) -> None: ...

class AcquireSessionLeaseResponse(_message.Message):
    __slots__ = ("lease",)
    LEASE_FIELD_NUMBER: _ClassVar[int]
    lease: SessionLease
    def __init__(self, lease: _Optional[_Union[SessionLease, _Mapping]] = ...) -> None: ...

class ReleaseSessionLeaseRequest(_message.Message):
    __slots__ = ("session_id", "holder", "fencing_token")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    holder: str
    fencing_token: int
    def __init__(self, session_id: _Optional[str] = ..., holder: _Optional[str] = ..., fencing_token: _Optional[int] = ...) -> None: ...

class ReleaseSessionLeaseResponse(_message.Message):
    __slots__ = ("released",)
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    released: bool
    def __init__(self, released: _Optional[bool] = ...) -> None: ...
