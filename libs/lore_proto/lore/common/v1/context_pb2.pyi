from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SectionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SECTION_KIND_UNSPECIFIED: _ClassVar[SectionKind]
    SECTION_KIND_PERSONA: _ClassVar[SectionKind]
    SECTION_KIND_USER_PROFILE: _ClassVar[SectionKind]
    SECTION_KIND_WORKING_SUMMARY: _ClassVar[SectionKind]
    SECTION_KIND_GUIDANCE: _ClassVar[SectionKind]
    SECTION_KIND_TOOL_RESULTS: _ClassVar[SectionKind]
    SECTION_KIND_MEMORIES: _ClassVar[SectionKind]
    SECTION_KIND_OBSERVATIONS: _ClassVar[SectionKind]
    SECTION_KIND_OPINIONS: _ClassVar[SectionKind]

class CandidateSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CANDIDATE_SOURCE_UNSPECIFIED: _ClassVar[CandidateSource]
    CANDIDATE_SOURCE_WORKING_MEMORY: _ClassVar[CandidateSource]
    CANDIDATE_SOURCE_MEMORY: _ClassVar[CandidateSource]
    CANDIDATE_SOURCE_EPISODE: _ClassVar[CandidateSource]
    CANDIDATE_SOURCE_OPEN_THREAD: _ClassVar[CandidateSource]
    CANDIDATE_SOURCE_OBSERVATION: _ClassVar[CandidateSource]
    CANDIDATE_SOURCE_ENGAGEMENT: _ClassVar[CandidateSource]
    CANDIDATE_SOURCE_CALLER: _ClassVar[CandidateSource]

class ManifestOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MANIFEST_OUTCOME_UNSPECIFIED: _ClassVar[ManifestOutcome]
    MANIFEST_OUTCOME_KEPT: _ClassVar[ManifestOutcome]
    MANIFEST_OUTCOME_BELOW_THRESHOLD: _ClassVar[ManifestOutcome]
    MANIFEST_OUTCOME_DUPLICATE: _ClassVar[ManifestOutcome]
    MANIFEST_OUTCOME_OVER_BUDGET: _ClassVar[ManifestOutcome]
    MANIFEST_OUTCOME_SOURCE_UNAVAILABLE: _ClassVar[ManifestOutcome]
SECTION_KIND_UNSPECIFIED: SectionKind
SECTION_KIND_PERSONA: SectionKind
SECTION_KIND_USER_PROFILE: SectionKind
SECTION_KIND_WORKING_SUMMARY: SectionKind
SECTION_KIND_GUIDANCE: SectionKind
SECTION_KIND_TOOL_RESULTS: SectionKind
SECTION_KIND_MEMORIES: SectionKind
SECTION_KIND_OBSERVATIONS: SectionKind
SECTION_KIND_OPINIONS: SectionKind
CANDIDATE_SOURCE_UNSPECIFIED: CandidateSource
CANDIDATE_SOURCE_WORKING_MEMORY: CandidateSource
CANDIDATE_SOURCE_MEMORY: CandidateSource
CANDIDATE_SOURCE_EPISODE: CandidateSource
CANDIDATE_SOURCE_OPEN_THREAD: CandidateSource
CANDIDATE_SOURCE_OBSERVATION: CandidateSource
CANDIDATE_SOURCE_ENGAGEMENT: CandidateSource
CANDIDATE_SOURCE_CALLER: CandidateSource
MANIFEST_OUTCOME_UNSPECIFIED: ManifestOutcome
MANIFEST_OUTCOME_KEPT: ManifestOutcome
MANIFEST_OUTCOME_BELOW_THRESHOLD: ManifestOutcome
MANIFEST_OUTCOME_DUPLICATE: ManifestOutcome
MANIFEST_OUTCOME_OVER_BUDGET: ManifestOutcome
MANIFEST_OUTCOME_SOURCE_UNAVAILABLE: ManifestOutcome

class ScoreComponents(_message.Message):
    __slots__ = ("similarity", "recency", "importance", "total")
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    RECENCY_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    similarity: float
    recency: float
    importance: float
    total: float
    def __init__(self, similarity: _Optional[float] = ..., recency: _Optional[float] = ..., importance: _Optional[float] = ..., total: _Optional[float] = ...) -> None: ...

class ContextItem(_message.Message):
    __slots__ = ("source", "id", "text", "tokens", "truncated")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    source: CandidateSource
    id: str
    text: str
    tokens: int
    truncated: bool
    def __init__(self, source: _Optional[_Union[CandidateSource, str]] = ..., id: _Optional[str] = ..., text: _Optional[str] = ..., tokens: _Optional[int] = ..., truncated: _Optional[bool] = ...) -> None: ...

class ContextSection(_message.Message):
    __slots__ = ("kind", "title", "items", "text", "tokens", "budget_tokens")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    BUDGET_TOKENS_FIELD_NUMBER: _ClassVar[int]
    kind: SectionKind
    title: str
    items: _containers.RepeatedCompositeFieldContainer[ContextItem]
    text: str
    tokens: int
    budget_tokens: int
    def __init__(self, kind: _Optional[_Union[SectionKind, str]] = ..., title: _Optional[str] = ..., items: _Optional[_Iterable[_Union[ContextItem, _Mapping]]] = ..., text: _Optional[str] = ..., tokens: _Optional[int] = ..., budget_tokens: _Optional[int] = ...) -> None: ...

class ManifestEntry(_message.Message):
    __slots__ = ("source", "id", "section", "score", "tokens", "outcome", "duplicate_of", "truncated", "reason")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    SECTION_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_OF_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    source: CandidateSource
    id: str
    section: SectionKind
    score: ScoreComponents
    tokens: int
    outcome: ManifestOutcome
    duplicate_of: str
    truncated: bool
    reason: str
    def __init__(self, source: _Optional[_Union[CandidateSource, str]] = ..., id: _Optional[str] = ..., section: _Optional[_Union[SectionKind, str]] = ..., score: _Optional[_Union[ScoreComponents, _Mapping]] = ..., tokens: _Optional[int] = ..., outcome: _Optional[_Union[ManifestOutcome, str]] = ..., duplicate_of: _Optional[str] = ..., truncated: _Optional[bool] = ..., reason: _Optional[str] = ...) -> None: ...

class ConsistencyFlag(_message.Message):
    __slots__ = ("aspect", "previous", "current", "message")
    ASPECT_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    aspect: str
    previous: str
    current: str
    message: str
    def __init__(self, aspect: _Optional[str] = ..., previous: _Optional[str] = ..., current: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class AssembledContext(_message.Message):
    __slots__ = ("sections", "manifest", "text", "total_tokens", "budget_tokens", "fingerprint", "first_session", "consistency_flags")
    SECTIONS_FIELD_NUMBER: _ClassVar[int]
    MANIFEST_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_TOKENS_FIELD_NUMBER: _ClassVar[int]
    BUDGET_TOKENS_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    FIRST_SESSION_FIELD_NUMBER: _ClassVar[int]
    CONSISTENCY_FLAGS_FIELD_NUMBER: _ClassVar[int]
    sections: _containers.RepeatedCompositeFieldContainer[ContextSection]
    manifest: _containers.RepeatedCompositeFieldContainer[ManifestEntry]
    text: str
    total_tokens: int
    budget_tokens: int
    fingerprint: str
    first_session: bool
    consistency_flags: _containers.RepeatedCompositeFieldContainer[ConsistencyFlag]
    def __init__(self, sections: _Optional[_Iterable[_Union[ContextSection, _Mapping]]] = ..., manifest: _Optional[_Iterable[_Union[ManifestEntry, _Mapping]]] = ..., text: _Optional[str] = ..., total_tokens: _Optional[int] = ..., budget_tokens: _Optional[int] = ..., fingerprint: _Optional[str] = ..., first_session: _Optional[bool] = ..., consistency_flags: _Optional[_Iterable[_Union[ConsistencyFlag, _Mapping]]] = ...) -> None: ...
