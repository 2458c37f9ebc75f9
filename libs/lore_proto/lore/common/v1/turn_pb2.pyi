import datetime

from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TurnRole(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TURN_ROLE_UNSPECIFIED: _ClassVar[TurnRole]
    TURN_ROLE_USER: _ClassVar[TurnRole]
    TURN_ROLE_ASSISTANT: _ClassVar[TurnRole]
    TURN_ROLE_SYSTEM: _ClassVar[TurnRole]
    TURN_ROLE_TOOL: _ClassVar[TurnRole]
TURN_ROLE_UNSPECIFIED: TurnRole
TURN_ROLE_USER: TurnRole
TURN_ROLE_ASSISTANT: TurnRole
TURN_ROLE_SYSTEM: TurnRole
TURN_ROLE_TOOL: TurnRole

class ToolInteraction(_message.Message):
    __slots__ = ("tool_name", "intent", "result", "summary", "salient_fields", "occurred_at")
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    INTENT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    SALIENT_FIELDS_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    tool_name: str
    intent: str
    result: _struct_pb2.Struct
    summary: str
    salient_fields: _containers.RepeatedScalarFieldContainer[str]
    occurred_at: _timestamp_pb2.Timestamp
    def __init__(self, tool_name: _Optional[str] = ..., intent: _Optional[str] = ..., result: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., summary: _Optional[str] = ..., salient_fields: _Optional[_Iterable[str]] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Turn(_message.Message):
    __slots__ = ("id", "session_id", "sequence", "role", "content", "created_at", "metadata", "idempotency_key", "tool_interactions", "speaker")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    TOOL_INTERACTIONS_FIELD_NUMBER: _ClassVar[int]
    SPEAKER_FIELD_NUMBER: _ClassVar[int]
    id: str
    session_id: str
    sequence: int
    role: TurnRole
    content: str
    created_at: _timestamp_pb2.Timestamp
    metadata: _containers.ScalarMap[str, str]
    idempotency_key: str
    tool_interactions: _containers.RepeatedCompositeFieldContainer[ToolInteraction]
    speaker: str
    def __init__(self, id: _Optional[str] = ..., session_id: _Optional[str] = ..., sequence: _Optional[int] = ..., role: _Optional[_Union[TurnRole, str]] = ..., content: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., metadata: _Optional[_Mapping[str, str]] = ..., idempotency_key: _Optional[str] = ..., tool_interactions: _Optional[_Iterable[_Union[ToolInteraction, _Mapping]]] = ..., speaker: _Optional[str] = ...) -> None: ...
