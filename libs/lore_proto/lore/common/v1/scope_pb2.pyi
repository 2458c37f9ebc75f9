from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ScopeMatch(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SCOPE_MATCH_UNSPECIFIED: _ClassVar[ScopeMatch]
    SCOPE_MATCH_CONTEXT: _ClassVar[ScopeMatch]
SCOPE_MATCH_UNSPECIFIED: ScopeMatch
SCOPE_MATCH_CONTEXT: ScopeMatch

class Scope(_message.Message):
    __slots__ = ("user_id", "agent_id", "team_id")
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    agent_id: str
    team_id: str
    def __init__(self, user_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., team_id: _Optional[str] = ...) -> None: ...
