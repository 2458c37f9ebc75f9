import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from lore.common.v1 import context_pb2 as _context_pb2
from lore.common.v1 import scope_pb2 as _scope_pb2
from lore.common.v1 import turn_pb2 as _turn_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SectionBudget(_message.Message):
    __slots__ = ("section", "tokens")
    SECTION_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    section: _context_pb2.SectionKind
    tokens: int
    def __init__(self, section: _Optional[_Union[_context_pb2.SectionKind, str]] = ..., tokens: _Optional[int] = ...) -> None: ...

class AssembleOptions(_message.Message):
    __slots__ = ("persona", "user_profile", "tool_results", "expressed_opinions", "section_budgets", "min_score", "recall_k", "min_observation_confidence", "record_access", "persona_mode")
    PERSONA_FIELD_NUMBER: _ClassVar[int]
    USER_PROFILE_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULTS_FIELD_NUMBER: _ClassVar[int]
    EXPRESSED_OPINIONS_FIELD_NUMBER: _ClassVar[int]
    SECTION_BUDGETS_FIELD_NUMBER: _ClassVar[int]
    MIN_SCORE_FIELD_NUMBER: _ClassVar[int]
    RECALL_K_FIELD_NUMBER: _ClassVar[int]
    MIN_OBSERVATION_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ACCESS_FIELD_NUMBER: _ClassVar[int]
    PERSONA_MODE_FIELD_NUMBER: _ClassVar[int]
    persona: str
    user_profile: str
    tool_results: _containers.RepeatedCompositeFieldContainer[_turn_pb2.ToolInteraction]
    expressed_opinions: _containers.RepeatedScalarFieldContainer[str]
    section_budgets: _containers.RepeatedCompositeFieldContainer[SectionBudget]
    min_score: float
    recall_k: int
    min_observation_confidence: float
    record_access: bool
    persona_mode: str
    def __init__(self, persona: _Optional[str] = ..., user_profile: _Optional[str] = ..., tool_results: _Optional[_Iterable[_Union[_turn_pb2.ToolInteraction, _Mapping]]] = ..., expressed_opinions: _Optional[_Iterable[str]] = ..., section_budgets: _Optional[_Iterable[_Union[SectionBudget, _Mapping]]] = ..., min_score: _Optional[float] = ..., recall_k: _Optional[int] = ..., min_observation_confidence: _Optional[float] = ..., record_access: _Optional[bool] = ..., persona_mode: _Optional[str] = ...) -> None: ...

class AssembleContextRequest(_message.Message):
    __slots__ = ("session_id", "scope", "message", "options")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    scope: _scope_pb2.Scope
    message: str
    options: AssembleOptions
    def __init__(self, session_id: _Optional[str] = ..., scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., message: _Optional[str] = ..., options: _Optional[_Union[AssembleOptions, _Mapping]] = ...) -> None: ...

class AssembleContextResponse(_message.Message):
    __slots__ = ("context",)
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    context: _context_pb2.AssembledContext
    def __init__(self, context: _Optional[_Union[_context_pb2.AssembledContext, _Mapping]] = ...) -> None: ...

class PrimedItem(_message.Message):
    __slots__ = ("source", "id", "text", "score", "occurred_at", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    source: _context_pb2.CandidateSource
    id: str
    text: str
    score: float
    occurred_at: _timestamp_pb2.Timestamp
    metadata: _containers.ScalarMap[str, str]
    def __init__(self, source: _Optional[_Union[_context_pb2.CandidateSource, str]] = ..., id: _Optional[str] = ..., text: _Optional[str] = ..., score: _Optional[float] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...

class PrimeRequest(_message.Message):
    __slots__ = ("scope", "initial_message", "budget_tokens")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    INITIAL_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    BUDGET_TOKENS_FIELD_NUMBER: _ClassVar[int]
    scope: _scope_pb2.Scope
    initial_message: str
    budget_tokens: int
    def __init__(self, scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., initial_message: _Optional[str] = ..., budget_tokens: _Optional[int] = ...) -> None: ...

class PrimeResponse(_message.Message):
    __slots__ = ("recent_context", "open_threads", "salient_facts", "observations", "entities", "formatted_context", "manifest")
    RECENT_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    OPEN_THREADS_FIELD_NUMBER: _ClassVar[int]
    SALIENT_FACTS_FIELD_NUMBER: _ClassVar[int]
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    FORMATTED_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    MANIFEST_FIELD_NUMBER: _ClassVar[int]
    recent_context: _containers.RepeatedCompositeFieldContainer[PrimedItem]
    open_threads: _containers.RepeatedCompositeFieldContainer[PrimedItem]
    salient_facts: _containers.RepeatedCompositeFieldContainer[PrimedItem]
    observations: _containers.RepeatedCompositeFieldContainer[PrimedItem]
    entities: _containers.RepeatedScalarFieldContainer[str]
    formatted_context: str
    manifest: _containers.RepeatedCompositeFieldContainer[_context_pb2.ManifestEntry]
    def __init__(self, recent_context: _Optional[_Iterable[_Union[PrimedItem, _Mapping]]] = ..., open_threads: _Optional[_Iterable[_Union[PrimedItem, _Mapping]]] = ..., salient_facts: _Optional[_Iterable[_Union[PrimedItem, _Mapping]]] = ..., observations: _Optional[_Iterable[_Union[PrimedItem, _Mapping]]] = ..., entities: _Optional[_Iterable[str]] = ..., formatted_context: _Optional[str] = ..., manifest: _Optional[_Iterable[_Union[_context_pb2.ManifestEntry, _Mapping]]] = ...) -> None: ...

class GetUserProfileRequest(_message.Message):
    __slots__ = ("user_id", "agent_id", "team_id", "user_profile", "budget_tokens")
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    USER_PROFILE_FIELD_NUMBER: _ClassVar[int]
    BUDGET_TOKENS_FIELD_NUMBER: _ClassVar[int]
    user_id: str
    agent_id: str
    team_id: str
    user_profile: str
    budget_tokens: int
    def __init__(self, user_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., team_id: _Optional[str] = ..., user_profile: _Optional[str] = ..., budget_tokens: _Optional[int] = ...) -> None: ...

class ProfileLine(_message.Message):
    __slots__ = ("text", "kind", "source_id", "confidence", "updated_at")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    text: str
    kind: str
    source_id: str
    confidence: float
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, text: _Optional[str] = ..., kind: _Optional[str] = ..., source_id: _Optional[str] = ..., confidence: _Optional[float] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class UserProfile(_message.Message):
    __slots__ = ("lines", "text", "tokens")
    LINES_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    lines: _containers.RepeatedCompositeFieldContainer[ProfileLine]
    text: str
    tokens: int
    def __init__(self, lines: _Optional[_Iterable[_Union[ProfileLine, _Mapping]]] = ..., text: _Optional[str] = ..., tokens: _Optional[int] = ...) -> None: ...

class GetUserProfileResponse(_message.Message):
    __slots__ = ("profile",)
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    profile: UserProfile
    def __init__(self, profile: _Optional[_Union[UserProfile, _Mapping]] = ...) -> None: ...
