import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from lore.assembler.v1 import assembler_service_pb2 as _assembler_service_pb2
from lore.common.v1 import context_pb2 as _context_pb2
from lore.common.v1 import scope_pb2 as _scope_pb2
from lore.common.v1 import turn_pb2 as _turn_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SessionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SESSION_STATUS_UNSPECIFIED: _ClassVar[SessionStatus]
    SESSION_STATUS_ACTIVE: _ClassVar[SessionStatus]
    SESSION_STATUS_ENDED: _ClassVar[SessionStatus]

class SessionEndReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SESSION_END_REASON_UNSPECIFIED: _ClassVar[SessionEndReason]
    SESSION_END_REASON_REQUESTED: _ClassVar[SessionEndReason]
    SESSION_END_REASON_IDLE: _ClassVar[SessionEndReason]

class ErasureStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERASURE_STATUS_UNSPECIFIED: _ClassVar[ErasureStatus]
    ERASURE_STATUS_PENDING: _ClassVar[ErasureStatus]
    ERASURE_STATUS_RUNNING: _ClassVar[ErasureStatus]
    ERASURE_STATUS_COMPLETED: _ClassVar[ErasureStatus]
    ERASURE_STATUS_DEAD_LETTERED: _ClassVar[ErasureStatus]

class ReplyStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REPLY_STATUS_UNSPECIFIED: _ClassVar[ReplyStatus]
    REPLY_STATUS_GENERATED: _ClassVar[ReplyStatus]
    REPLY_STATUS_TIMED_OUT: _ClassVar[ReplyStatus]
    REPLY_STATUS_UNAVAILABLE: _ClassVar[ReplyStatus]
    REPLY_STATUS_EMPTY: _ClassVar[ReplyStatus]

class ForgetStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FORGET_STATUS_UNSPECIFIED: _ClassVar[ForgetStatus]
    FORGET_STATUS_FORGOTTEN: _ClassVar[ForgetStatus]
    FORGET_STATUS_NOTHING_MATCHED: _ClassVar[ForgetStatus]
    FORGET_STATUS_AMBIGUOUS: _ClassVar[ForgetStatus]

class TurnContextStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TURN_CONTEXT_STATUS_UNSPECIFIED: _ClassVar[TurnContextStatus]
    TURN_CONTEXT_STATUS_AVAILABLE: _ClassVar[TurnContextStatus]
    TURN_CONTEXT_STATUS_EXPIRED: _ClassVar[TurnContextStatus]
    TURN_CONTEXT_STATUS_NONE: _ClassVar[TurnContextStatus]
SESSION_STATUS_UNSPECIFIED: SessionStatus
SESSION_STATUS_ACTIVE: SessionStatus
SESSION_STATUS_ENDED: SessionStatus
SESSION_END_REASON_UNSPECIFIED: SessionEndReason
SESSION_END_REASON_REQUESTED: SessionEndReason
SESSION_END_REASON_IDLE: SessionEndReason
ERASURE_STATUS_UNSPECIFIED: ErasureStatus
ERASURE_STATUS_PENDING: ErasureStatus
ERASURE_STATUS_RUNNING: ErasureStatus
ERASURE_STATUS_COMPLETED: ErasureStatus
ERASURE_STATUS_DEAD_LETTERED: ErasureStatus
REPLY_STATUS_UNSPECIFIED: ReplyStatus
REPLY_STATUS_GENERATED: ReplyStatus
REPLY_STATUS_TIMED_OUT: ReplyStatus
REPLY_STATUS_UNAVAILABLE: ReplyStatus
REPLY_STATUS_EMPTY: ReplyStatus
FORGET_STATUS_UNSPECIFIED: ForgetStatus
FORGET_STATUS_FORGOTTEN: ForgetStatus
FORGET_STATUS_NOTHING_MATCHED: ForgetStatus
FORGET_STATUS_AMBIGUOUS: ForgetStatus
TURN_CONTEXT_STATUS_UNSPECIFIED: TurnContextStatus
TURN_CONTEXT_STATUS_AVAILABLE: TurnContextStatus
TURN_CONTEXT_STATUS_EXPIRED: TurnContextStatus
TURN_CONTEXT_STATUS_NONE: TurnContextStatus

class Session(_message.Message):
    __slots__ = ("id", "scope", "status", "end_reason", "started_at", "last_active_at", "ended_at", "turn_count", "metadata", "reflected_turns")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    END_REASON_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTIVE_AT_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    TURN_COUNT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    REFLECTED_TURNS_FIELD_NUMBER: _ClassVar[int]
    id: str
    scope: _scope_pb2.Scope
    status: SessionStatus
    end_reason: SessionEndReason
    started_at: _timestamp_pb2.Timestamp
    last_active_at: _timestamp_pb2.Timestamp
    ended_at: _timestamp_pb2.Timestamp
    turn_count: int
    metadata: _containers.ScalarMap[str, str]
    reflected_turns: int
    def __init__(self, id: _Optional[str] = ..., scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., status: _Optional[_Union[SessionStatus, str]] = ..., end_reason: _Optional[_Union[SessionEndReason, str]] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_active_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., turn_count: _Optional[int] = ..., metadata: _Optional[_Mapping[str, str]] = ..., reflected_turns: _Optional[int] = ...) -> None: ...

class ErasureJob(_message.Message):
    __slots__ = ("id", "status", "requested_at", "completed_at", "counts")
    class CountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_AT_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_AT_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    status: ErasureStatus
    requested_at: _timestamp_pb2.Timestamp
    completed_at: _timestamp_pb2.Timestamp
    counts: _containers.ScalarMap[str, int]
    def __init__(self, id: _Optional[str] = ..., status: _Optional[_Union[ErasureStatus, str]] = ..., requested_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., completed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., counts: _Optional[_Mapping[str, int]] = ...) -> None: ...

class StartSessionRequest(_message.Message):
    __slots__ = ("scope", "metadata", "request_id", "initial_message", "include_prime")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    INITIAL_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_PRIME_FIELD_NUMBER: _ClassVar[int]
    scope: _scope_pb2.Scope
    metadata: _containers.ScalarMap[str, str]
    request_id: str
    initial_message: str
    include_prime: bool
    def __init__(self, scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., metadata: _Optional[_Mapping[str, str]] = ..., request_id: _Optional[str] = ..., initial_message: _Optional[str] = ..., include_prime: _Optional[bool] = ...) -> None: ...

class StartSessionResponse(_message.Message):
    __slots__ = ("session", "prime", "prime_unavailable")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    PRIME_FIELD_NUMBER: _ClassVar[int]
    PRIME_UNAVAILABLE_FIELD_NUMBER: _ClassVar[int]
    session: Session
    prime: _assembler_service_pb2.PrimeResponse
    prime_unavailable: bool
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ..., prime: _Optional[_Union[_assembler_service_pb2.PrimeResponse, _Mapping]] = ..., prime_unavailable: _Optional[bool] = ...) -> None: ...

class GetSessionRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class ListSessionsRequest(_message.Message):
    __slots__ = ("scope", "status", "page_size", "page_token")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    scope: _scope_pb2.Scope
    status: SessionStatus
    page_size: int
    page_token: str
    def __init__(self, scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., status: _Optional[_Union[SessionStatus, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListSessionsResponse(_message.Message):
    __slots__ = ("sessions", "next_page_token")
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    sessions: _containers.RepeatedCompositeFieldContainer[Session]
    next_page_token: str
    def __init__(self, sessions: _Optional[_Iterable[_Union[Session, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ProcessTurnRequest(_message.Message):
    __slots__ = ("session_id", "turn", "context_options")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    turn: _turn_pb2.Turn
    context_options: _assembler_service_pb2.AssembleOptions
    def __init__(self, session_id: _Optional[str] = ..., turn: _Optional[_Union[_turn_pb2.Turn, _Mapping]] = ..., context_options: _Optional[_Union[_assembler_service_pb2.AssembleOptions, _Mapping]] = ...) -> None: ...

class ProcessTurnResponse(_message.Message):
    __slots__ = ("turn", "reply", "context", "reply_turn", "forgotten", "forget_status", "reply_status")
    TURN_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    REPLY_TURN_FIELD_NUMBER: _ClassVar[int]
    FORGOTTEN_FIELD_NUMBER: _ClassVar[int]
    FORGET_STATUS_FIELD_NUMBER: _ClassVar[int]
    REPLY_STATUS_FIELD_NUMBER: _ClassVar[int]
    turn: _turn_pb2.Turn
    reply: str
    context: _context_pb2.AssembledContext
    reply_turn: _turn_pb2.Turn
    forgotten: _containers.RepeatedCompositeFieldContainer[ForgottenItem]
    forget_status: ForgetStatus
    reply_status: ReplyStatus
    def __init__(self, turn: _Optional[_Union[_turn_pb2.Turn, _Mapping]] = ..., reply: _Optional[str] = ..., context: _Optional[_Union[_context_pb2.AssembledContext, _Mapping]] = ..., reply_turn: _Optional[_Union[_turn_pb2.Turn, _Mapping]] = ..., forgotten: _Optional[_Iterable[_Union[ForgottenItem, _Mapping]]] = ..., forget_status: _Optional[_Union[ForgetStatus, str]] = ..., reply_status: _Optional[_Union[ReplyStatus, str]] = ...) -> None: ...

class ForgottenItem(_message.Message):
    __slots__ = ("id", "type", "text")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: str
    text: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class ImportTurnsRequest(_message.Message):
    __slots__ = ("session_id", "turns", "request_id")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TURNS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    turns: _containers.RepeatedCompositeFieldContainer[_turn_pb2.Turn]
    request_id: str
    def __init__(self, session_id: _Optional[str] = ..., turns: _Optional[_Iterable[_Union[_turn_pb2.Turn, _Mapping]]] = ..., request_id: _Optional[str] = ...) -> None: ...

class ImportTurnsResponse(_message.Message):
    __slots__ = ("imported", "skipped")
    IMPORTED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    imported: int
    skipped: int
    def __init__(self, imported: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class ListTurnsRequest(_message.Message):
    __slots__ = ("session_id", "page_size", "page_token")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    page_size: int
    page_token: str
    def __init__(self, session_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTurnsResponse(_message.Message):
    __slots__ = ("turns", "next_page_token")
    TURNS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    turns: _containers.RepeatedCompositeFieldContainer[_turn_pb2.Turn]
    next_page_token: str
    def __init__(self, turns: _Optional[_Iterable[_Union[_turn_pb2.Turn, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class EndSessionRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class EndSessionResponse(_message.Message):
    __slots__ = ("session",)
    SESSION_FIELD_NUMBER: _ClassVar[int]
    session: Session
    def __init__(self, session: _Optional[_Union[Session, _Mapping]] = ...) -> None: ...

class ForgetSubjectRequest(_message.Message):
    __slots__ = ("subject", "request_id")
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    subject: _scope_pb2.Scope
    request_id: str
    def __init__(self, subject: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class ForgetSubjectResponse(_message.Message):
    __slots__ = ("job",)
    JOB_FIELD_NUMBER: _ClassVar[int]
    job: ErasureJob
    def __init__(self, job: _Optional[_Union[ErasureJob, _Mapping]] = ...) -> None: ...

class JobKindStats(_message.Message):
    __slots__ = ("kind", "queued", "running", "retrying", "dead", "oldest_queued_seconds")
    KIND_FIELD_NUMBER: _ClassVar[int]
    QUEUED_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    RETRYING_FIELD_NUMBER: _ClassVar[int]
    DEAD_FIELD_NUMBER: _ClassVar[int]
    OLDEST_QUEUED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    kind: str
    queued: int
    running: int
    retrying: int
    dead: int
    oldest_queued_seconds: float
    def __init__(self, kind: _Optional[str] = ..., queued: _Optional[int] = ..., running: _Optional[int] = ..., retrying: _Optional[int] = ..., dead: _Optional[int] = ..., oldest_queued_seconds: _Optional[float] = ...) -> None: ...

class GetJobStatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetJobStatsResponse(_message.Message):
    __slots__ = ("kinds",)
    KINDS_FIELD_NUMBER: _ClassVar[int]
    kinds: _containers.RepeatedCompositeFieldContainer[JobKindStats]
    def __init__(self, kinds: _Optional[_Iterable[_Union[JobKindStats, _Mapping]]] = ...) -> None: ...

class RetryJobsRequest(_message.Message):
    __slots__ = ("kinds",)
    KINDS_FIELD_NUMBER: _ClassVar[int]
    kinds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, kinds: _Optional[_Iterable[str]] = ...) -> None: ...

class RetryJobsResponse(_message.Message):
    __slots__ = ("requeued", "skipped")
    REQUEUED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    requeued: int
    skipped: int
    def __init__(self, requeued: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class GetTurnContextRequest(_message.Message):
    __slots__ = ("session_id", "turn_id")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    turn_id: str
    def __init__(self, session_id: _Optional[str] = ..., turn_id: _Optional[str] = ...) -> None: ...

class GetTurnContextResponse(_message.Message):
    __slots__ = ("status", "reason", "message", "turn", "context", "assembled_at", "expires_at")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    ASSEMBLED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    status: TurnContextStatus
    reason: str
    message: str
    turn: _turn_pb2.Turn
    context: _context_pb2.AssembledContext
    assembled_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, status: _Optional[_Union[TurnContextStatus, str]] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ..., turn: _Optional[_Union[_turn_pb2.Turn, _Mapping]] = ..., context: _Optional[_Union[_context_pb2.AssembledContext, _Mapping]] = ..., assembled_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Job(_message.Message):
    __slots__ = ("id", "kind", "state", "attempts", "last_error", "last_error_at", "session_id", "through_sequence", "erasure_id", "created_at", "updated_at", "next_attempt_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_AT_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    THROUGH_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    ERASURE_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: str
    state: str
    attempts: int
    last_error: str
    last_error_at: _timestamp_pb2.Timestamp
    session_id: str
    through_sequence: int
    erasure_id: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    next_attempt_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., state: _Optional[str] = ..., attempts: _Optional[int] = ..., last_error: _Optional[str] = ..., last_error_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., session_id: _Optional[str] = ..., through_sequence: _Optional[int] = ..., erasure_id: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., next_attempt_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListJobsRequest(_message.Message):
    __slots__ = ("kind", "state", "page_size", "page_token")
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    kind: str
    state: str
    page_size: int
    page_token: str
    def __init__(self, kind: _Optional[str] = ..., state: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListJobsResponse(_message.Message):
    __slots__ = ("jobs", "next_page_token")
    JOBS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    jobs: _containers.RepeatedCompositeFieldContainer[Job]
    next_page_token: str
    def __init__(self, jobs: _Optional[_Iterable[_Union[Job, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ForgetAboutRequest(_message.Message):
    __slots__ = ("scope", "about", "request_id")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ABOUT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    scope: _scope_pb2.Scope
    about: str
    request_id: str
    def __init__(self, scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., about: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ForgetAboutResponse(_message.Message):
    __slots__ = ("forgotten", "status")
    FORGOTTEN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    forgotten: _containers.RepeatedCompositeFieldContainer[ForgottenItem]
    status: ForgetStatus
    def __init__(self, forgotten: _Optional[_Iterable[_Union[ForgottenItem, _Mapping]]] = ..., status: _Optional[_Union[ForgetStatus, str]] = ...) -> None: ...
