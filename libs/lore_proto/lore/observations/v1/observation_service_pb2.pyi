import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from lore.common.v1 import scope_pb2 as _scope_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ObservationKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OBSERVATION_KIND_UNSPECIFIED: _ClassVar[ObservationKind]
    OBSERVATION_KIND_OPERATOR_PREFERENCE: _ClassVar[ObservationKind]
    OBSERVATION_KIND_PROJECT_STATE: _ClassVar[ObservationKind]
    OBSERVATION_KIND_WORLD_FACT: _ClassVar[ObservationKind]
    OBSERVATION_KIND_SELF_MODEL: _ClassVar[ObservationKind]
    OBSERVATION_KIND_RELATIONSHIP_FACT: _ClassVar[ObservationKind]
    OBSERVATION_KIND_TOOLING_STATE: _ClassVar[ObservationKind]

class SubjectType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUBJECT_TYPE_UNSPECIFIED: _ClassVar[SubjectType]
    SUBJECT_TYPE_ENTITY: _ClassVar[SubjectType]
    SUBJECT_TYPE_PROJECT: _ClassVar[SubjectType]
    SUBJECT_TYPE_TOOL: _ClassVar[SubjectType]
    SUBJECT_TYPE_AGENT: _ClassVar[SubjectType]
    SUBJECT_TYPE_GLOBAL: _ClassVar[SubjectType]

class ObservationStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OBSERVATION_STATUS_UNSPECIFIED: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_ACTIVE: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_STALE: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_SUPERSEDED: _ClassVar[ObservationStatus]
    OBSERVATION_STATUS_INVALIDATED: _ClassVar[ObservationStatus]

class EvidenceStance(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVIDENCE_STANCE_UNSPECIFIED: _ClassVar[EvidenceStance]
    EVIDENCE_STANCE_SUPPORT: _ClassVar[EvidenceStance]
    EVIDENCE_STANCE_CONTRADICT: _ClassVar[EvidenceStance]
    EVIDENCE_STANCE_CONTEXT: _ClassVar[EvidenceStance]

class SourceType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SOURCE_TYPE_UNSPECIFIED: _ClassVar[SourceType]
    SOURCE_TYPE_MEMORY_ITEM: _ClassVar[SourceType]
    SOURCE_TYPE_MESSAGE: _ClassVar[SourceType]
    SOURCE_TYPE_EPISODE: _ClassVar[SourceType]
    SOURCE_TYPE_ENTITY: _ClassVar[SourceType]

class ObserveOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OBSERVE_OUTCOME_UNSPECIFIED: _ClassVar[ObserveOutcome]
    OBSERVE_OUTCOME_CREATED: _ClassVar[ObserveOutcome]
    OBSERVE_OUTCOME_SUPPORTED: _ClassVar[ObserveOutcome]
    OBSERVE_OUTCOME_CONTRADICTED: _ClassVar[ObserveOutcome]
    OBSERVE_OUTCOME_SUPERSEDED: _ClassVar[ObserveOutcome]
OBSERVATION_KIND_UNSPECIFIED: ObservationKind
OBSERVATION_KIND_OPERATOR_PREFERENCE: ObservationKind
OBSERVATION_KIND_PROJECT_STATE: ObservationKind
OBSERVATION_KIND_WORLD_FACT: ObservationKind
OBSERVATION_KIND_SELF_MODEL: ObservationKind
OBSERVATION_KIND_RELATIONSHIP_FACT: ObservationKind
OBSERVATION_KIND_TOOLING_STATE: ObservationKind
SUBJECT_TYPE_UNSPECIFIED: SubjectType
SUBJECT_TYPE_ENTITY: SubjectType
SUBJECT_TYPE_PROJECT: SubjectType
SUBJECT_TYPE_TOOL: SubjectType
SUBJECT_TYPE_AGENT: SubjectType
SUBJECT_TYPE_GLOBAL: SubjectType
OBSERVATION_STATUS_UNSPECIFIED: ObservationStatus
OBSERVATION_STATUS_ACTIVE: ObservationStatus
OBSERVATION_STATUS_STALE: ObservationStatus
OBSERVATION_STATUS_SUPERSEDED: ObservationStatus
OBSERVATION_STATUS_INVALIDATED: ObservationStatus
EVIDENCE_STANCE_UNSPECIFIED: EvidenceStance
EVIDENCE_STANCE_SUPPORT: EvidenceStance
EVIDENCE_STANCE_CONTRADICT: EvidenceStance
EVIDENCE_STANCE_CONTEXT: EvidenceStance
SOURCE_TYPE_UNSPECIFIED: SourceType
SOURCE_TYPE_MEMORY_ITEM: SourceType
SOURCE_TYPE_MESSAGE: SourceType
SOURCE_TYPE_EPISODE: SourceType
SOURCE_TYPE_ENTITY: SourceType
OBSERVE_OUTCOME_UNSPECIFIED: ObserveOutcome
OBSERVE_OUTCOME_CREATED: ObserveOutcome
OBSERVE_OUTCOME_SUPPORTED: ObserveOutcome
OBSERVE_OUTCOME_CONTRADICTED: ObserveOutcome
OBSERVE_OUTCOME_SUPERSEDED: ObserveOutcome

class ConfidenceComponents(_message.Message):
    __slots__ = ("source_count", "source_diversity", "support_weight", "contradiction_weight", "recency_weight", "operator_confirmed_boost")
    SOURCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_DIVERSITY_FIELD_NUMBER: _ClassVar[int]
    SUPPORT_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    CONTRADICTION_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    RECENCY_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_CONFIRMED_BOOST_FIELD_NUMBER: _ClassVar[int]
    source_count: int
    source_diversity: float
    support_weight: float
    contradiction_weight: float
    recency_weight: float
    operator_confirmed_boost: float
    def __init__(self, source_count: _Optional[int] = ..., source_diversity: _Optional[float] = ..., support_weight: _Optional[float] = ..., contradiction_weight: _Optional[float] = ..., recency_weight: _Optional[float] = ..., operator_confirmed_boost: _Optional[float] = ...) -> None: ...

class Evidence(_message.Message):
    __slots__ = ("id", "observation_id", "stance", "weight", "source_type", "source_id", "excerpt", "observed_at", "operator_confirmed", "created_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_ID_FIELD_NUMBER: _ClassVar[int]
    STANCE_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    EXCERPT_FIELD_NUMBER: _ClassVar[int]
    OBSERVED_AT_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_CONFIRMED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    observation_id: str
    stance: EvidenceStance
    weight: float
    source_type: SourceType
    source_id: str
    excerpt: str
    observed_at: _timestamp_pb2.Timestamp
    operator_confirmed: bool
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., observation_id: _Optional[str] = ..., stance: _Optional[_Union[EvidenceStance, str]] = ..., weight: _Optional[float] = ..., source_type: _Optional[_Union[SourceType, str]] = ..., source_id: _Optional[str] = ..., excerpt: _Optional[str] = ..., observed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., operator_confirmed: _Optional[bool] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class EvidenceInput(_message.Message):
    __slots__ = ("stance", "weight", "source_type", "source_id", "excerpt", "observed_at")
    STANCE_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    EXCERPT_FIELD_NUMBER: _ClassVar[int]
    OBSERVED_AT_FIELD_NUMBER: _ClassVar[int]
    stance: EvidenceStance
    weight: float
    source_type: SourceType
    source_id: str
    excerpt: str
    observed_at: _timestamp_pb2.Timestamp
    def __init__(self, stance: _Optional[_Union[EvidenceStance, str]] = ..., weight: _Optional[float] = ..., source_type: _Optional[_Union[SourceType, str]] = ..., source_id: _Optional[str] = ..., excerpt: _Optional[str] = ..., observed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("id", "agent_id", "kind", "subject_type", "subject_id", "slot", "canonical_key", "summary", "detail", "tags", "confidence", "confidence_components", "freshness", "last_supported_at", "revalidation_due_at", "status", "supersedes_observation_id", "created_at", "updated_at", "evidence", "scope", "unattributed")
    ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_TYPE_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    SLOT_FIELD_NUMBER: _ClassVar[int]
    CANONICAL_KEY_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    FRESHNESS_FIELD_NUMBER: _ClassVar[int]
    LAST_SUPPORTED_AT_FIELD_NUMBER: _ClassVar[int]
    REVALIDATION_DUE_AT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDES_OBSERVATION_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    UNATTRIBUTED_FIELD_NUMBER: _ClassVar[int]
    id: str
    agent_id: str
    kind: ObservationKind
    subject_type: SubjectType
    subject_id: str
    slot: str
    canonical_key: str
    summary: str
    detail: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    confidence: float
    confidence_components: ConfidenceComponents
    freshness: float
    last_supported_at: _timestamp_pb2.Timestamp
    revalidation_due_at: _timestamp_pb2.Timestamp
    status: ObservationStatus
    supersedes_observation_id: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    evidence: _containers.RepeatedCompositeFieldContainer[Evidence]
    scope: _scope_pb2.Scope
    unattributed: bool
    def __init__(self, id: _Optional[str] = ..., agent_id: _Optional[str] = ..., kind: _Optional[_Union[ObservationKind, str]] = ..., subject_type: _Optional[_Union[SubjectType, str]] = ..., subject_id: _Optional[str] = ..., slot: _Optional[str] = ..., canonical_key: _Optional[str] = ..., summary: _Optional[str] = ..., detail: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., confidence: _Optional[float] = ..., confidence_components: _Optional[_Union[ConfidenceComponents, _Mapping]] = ..., freshness: _Optional[float] = ..., last_supported_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., revalidation_due_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., status: _Optional[_Union[ObservationStatus, str]] = ..., supersedes_observation_id: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., evidence: _Optional[_Iterable[_Union[Evidence, _Mapping]]] = ..., scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., unattributed: _Optional[bool] = ...) -> None: ...

class ObservationCandidate(_message.Message):
    __slots__ = ("kind", "subject_type", "subject_id", "slot", "summary", "detail", "tags", "evidence")
    KIND_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_TYPE_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    SLOT_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    kind: ObservationKind
    subject_type: SubjectType
    subject_id: str
    slot: str
    summary: str
    detail: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    evidence: _containers.RepeatedCompositeFieldContainer[EvidenceInput]
    def __init__(self, kind: _Optional[_Union[ObservationKind, str]] = ..., subject_type: _Optional[_Union[SubjectType, str]] = ..., subject_id: _Optional[str] = ..., slot: _Optional[str] = ..., summary: _Optional[str] = ..., detail: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., evidence: _Optional[_Iterable[_Union[EvidenceInput, _Mapping]]] = ...) -> None: ...

class SearchObservationsResult(_message.Message):
    __slots__ = ("observation", "score", "similarity", "lexical_score", "embedding")
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_SCORE_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    observation: Observation
    score: float
    similarity: float
    lexical_score: float
    embedding: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, observation: _Optional[_Union[Observation, _Mapping]] = ..., score: _Optional[float] = ..., similarity: _Optional[float] = ..., lexical_score: _Optional[float] = ..., embedding: _Optional[_Iterable[float]] = ...) -> None: ...

class ObserveRequest(_message.Message):
    __slots__ = ("agent_id", "candidate", "request_id", "scope")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    candidate: ObservationCandidate
    request_id: str
    scope: _scope_pb2.Scope
    def __init__(self, agent_id: _Optional[str] = ..., candidate: _Optional[_Union[ObservationCandidate, _Mapping]] = ..., request_id: _Optional[str] = ..., scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ...) -> None: ...

class ObserveResponse(_message.Message):
    __slots__ = ("observation", "outcome")
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    observation: Observation
    outcome: ObserveOutcome
    def __init__(self, observation: _Optional[_Union[Observation, _Mapping]] = ..., outcome: _Optional[_Union[ObserveOutcome, str]] = ...) -> None: ...

class GetObservationRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetObservationResponse(_message.Message):
    __slots__ = ("observation",)
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    observation: Observation
    def __init__(self, observation: _Optional[_Union[Observation, _Mapping]] = ...) -> None: ...

class QueryObservationsRequest(_message.Message):
    __slots__ = ("agent_id", "kind", "subject_type", "subject_id", "canonical_key", "status", "min_confidence", "tags", "page_size", "page_token", "user_id", "team_id", "scope_match")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_TYPE_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    CANONICAL_KEY_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MIN_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_MATCH_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    kind: ObservationKind
    subject_type: SubjectType
    subject_id: str
    canonical_key: str
    status: ObservationStatus
    min_confidence: float
    tags: _containers.RepeatedScalarFieldContainer[str]
    page_size: int
    page_token: str
    user_id: str
    team_id: str
    scope_match: _scope_pb2.ScopeMatch
    def __init__(self, agent_id: _Optional[str] = ..., kind: _Optional[_Union[ObservationKind, str]] = ..., subject_type: _Optional[_Union[SubjectType, str]] = ..., subject_id: _Optional[str] = ..., canonical_key: _Optional[str] = ..., status: _Optional[_Union[ObservationStatus, str]] = ..., min_confidence: _Optional[float] = ..., tags: _Optional[_Iterable[str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., user_id: _Optional[str] = ..., team_id: _Optional[str] = ..., scope_match: _Optional[_Union[_scope_pb2.ScopeMatch, str]] = ...) -> None: ...

class QueryObservationsResponse(_message.Message):
    __slots__ = ("observations", "next_page_token")
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    observations: _containers.RepeatedCompositeFieldContainer[Observation]
    next_page_token: str
    def __init__(self, observations: _Optional[_Iterable[_Union[Observation, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class SearchObservationsRequest(_message.Message):
    __slots__ = ("agent_id", "query", "kinds", "statuses", "min_confidence", "k", "query_embedding", "query_embedding_model", "user_id", "team_id", "include_embeddings")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    MIN_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    QUERY_EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    QUERY_EMBEDDING_MODEL_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    TEAM_ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_EMBEDDINGS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    query: str
    kinds: _containers.RepeatedScalarFieldContainer[ObservationKind]
    statuses: _containers.RepeatedScalarFieldContainer[ObservationStatus]
    min_confidence: float
    k: int
    query_embedding: _containers.RepeatedScalarFieldContainer[float]
    query_embedding_model: str
    user_id: str
    team_id: str
    include_embeddings: bool
    def __init__(self, agent_id: _Optional[str] = ..., query: _Optional[str] = ..., kinds: _Optional[_Iterable[_Union[ObservationKind, str]]] = ..., statuses: _Optional[_Iterable[_Union[ObservationStatus, str]]] = ..., min_confidence: _Optional[float] = ..., k: _Optional[int] = ..., query_embedding: _Optional[_Iterable[float]] = ..., query_embedding_model: _Optional[str] = ..., user_id: _Optional[str] = ..., team_id: _Optional[str] = ..., include_embeddings: _Optional[bool] = ...) -> None: ...

class SearchObservationsResponse(_message.Message):
    __slots__ = ("results", "embedding_model")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_MODEL_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[SearchObservationsResult]
    embedding_model: str
    def __init__(self, results: _Optional[_Iterable[_Union[SearchObservationsResult, _Mapping]]] = ..., embedding_model: _Optional[str] = ...) -> None: ...

class ConfirmObservationRequest(_message.Message):
    __slots__ = ("id", "note", "request_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    note: str
    request_id: str
    def __init__(self, id: _Optional[str] = ..., note: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ConfirmObservationResponse(_message.Message):
    __slots__ = ("observation",)
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    observation: Observation
    def __init__(self, observation: _Optional[_Union[Observation, _Mapping]] = ...) -> None: ...

class ContradictObservationRequest(_message.Message):
    __slots__ = ("id", "evidence", "request_id", "correction")
    ID_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CORRECTION_FIELD_NUMBER: _ClassVar[int]
    id: str
    evidence: EvidenceInput
    request_id: str
    correction: str
    def __init__(self, id: _Optional[str] = ..., evidence: _Optional[_Union[EvidenceInput, _Mapping]] = ..., request_id: _Optional[str] = ..., correction: _Optional[str] = ...) -> None: ...

class ContradictObservationResponse(_message.Message):
    __slots__ = ("observation", "outcome")
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    observation: Observation
    outcome: ObserveOutcome
    def __init__(self, observation: _Optional[_Union[Observation, _Mapping]] = ..., outcome: _Optional[_Union[ObserveOutcome, str]] = ...) -> None: ...

class GetObservationHistoryRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetObservationHistoryResponse(_message.Message):
    __slots__ = ("observations",)
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    observations: _containers.RepeatedCompositeFieldContainer[Observation]
    def __init__(self, observations: _Optional[_Iterable[_Union[Observation, _Mapping]]] = ...) -> None: ...

class RunRevalidationRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class RunRevalidationResponse(_message.Message):
    __slots__ = ("checked", "marked_stale", "marked_invalidated")
    CHECKED_FIELD_NUMBER: _ClassVar[int]
    MARKED_STALE_FIELD_NUMBER: _ClassVar[int]
    MARKED_INVALIDATED_FIELD_NUMBER: _ClassVar[int]
    checked: int
    marked_stale: int
    marked_invalidated: int
    def __init__(self, checked: _Optional[int] = ..., marked_stale: _Optional[int] = ..., marked_invalidated: _Optional[int] = ...) -> None: ...

class EraseSubjectRequest(_message.Message):
    __slots__ = ("subject_type", "subject_id", "source_ids", "request_id", "user_id")
    SUBJECT_TYPE_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_IDS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    USER_ID_FIELD_NUMBER: _ClassVar[int]
    subject_type: SubjectType
    subject_id: str
    source_ids: _containers.RepeatedScalarFieldContainer[str]
    request_id: str
    user_id: str
    def __init__(self, subject_type: _Optional[_Union[SubjectType, str]] = ..., subject_id: _Optional[str] = ..., source_ids: _Optional[_Iterable[str]] = ..., request_id: _Optional[str] = ..., user_id: _Optional[str] = ...) -> None: ...

class EraseSubjectResponse(_message.Message):
    __slots__ = ("observations_erased", "evidence_erased", "tombstone_id", "recomputed_observation_ids", "shared_erased_observation_ids", "hypotheses_erased", "hypothesis_evidence_erased", "findings_erased", "unknowns_erased")
    OBSERVATIONS_ERASED_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_ERASED_FIELD_NUMBER: _ClassVar[int]
    TOMBSTONE_ID_FIELD_NUMBER: _ClassVar[int]
    RECOMPUTED_OBSERVATION_IDS_FIELD_NUMBER: _ClassVar[int]
    SHARED_ERASED_OBSERVATION_IDS_FIELD_NUMBER: _ClassVar[int]
    HYPOTHESES_ERASED_FIELD_NUMBER: _ClassVar[int]
    HYPOTHESIS_EVIDENCE_ERASED_FIELD_NUMBER: _ClassVar[int]
    FINDINGS_ERASED_FIELD_NUMBER: _ClassVar[int]
    UNKNOWNS_ERASED_FIELD_NUMBER: _ClassVar[int]
    observations_erased: int
    evidence_erased: int
    tombstone_id: str
    recomputed_observation_ids: _containers.RepeatedScalarFieldContainer[str]
    shared_erased_observation_ids: _containers.RepeatedScalarFieldContainer[str]
    hypotheses_erased: int
    hypothesis_evidence_erased: int
    findings_erased: int
    unknowns_erased: int
    def __init__(self, observations_erased: _Optional[int] = ..., evidence_erased: _Optional[int] = ..., tombstone_id: _Optional[str] = ..., recomputed_observation_ids: _Optional[_Iterable[str]] = ..., shared_erased_observation_ids: _Optional[_Iterable[str]] = ..., hypotheses_erased: _Optional[int] = ..., hypothesis_evidence_erased: _Optional[int] = ..., findings_erased: _Optional[int] = ..., unknowns_erased: _Optional[int] = ...) -> None: ...

class ExportObservationsRequest(_message.Message):
    __slots__ = ("page_size",)
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    def __init__(self, page_size: _Optional[int] = ...) -> None: ...

class ExportObservationsResponse(_message.Message):
    __slots__ = ("observations",)
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    observations: _containers.RepeatedCompositeFieldContainer[Observation]
    def __init__(self, observations: _Optional[_Iterable[_Union[Observation, _Mapping]]] = ...) -> None: ...

class ImportObservationsRequest(_message.Message):
    __slots__ = ("observations",)
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    observations: _containers.RepeatedCompositeFieldContainer[Observation]
    def __init__(self, observations: _Optional[_Iterable[_Union[Observation, _Mapping]]] = ...) -> None: ...

class ImportObservationsResponse(_message.Message):
    __slots__ = ("imported", "skipped")
    IMPORTED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    imported: int
    skipped: int
    def __init__(self, imported: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class FenceSubjectRequest(_message.Message):
    __slots__ = ("subject", "erasure_id")
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    ERASURE_ID_FIELD_NUMBER: _ClassVar[int]
    subject: _scope_pb2.Scope
    erasure_id: str
    def __init__(self, subject: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., erasure_id: _Optional[str] = ...) -> None: ...

class FenceSubjectResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LiftSubjectFenceRequest(_message.Message):
    __slots__ = ("erasure_id",)
    ERASURE_ID_FIELD_NUMBER: _ClassVar[int]
    erasure_id: str
    def __init__(self, erasure_id: _Optional[str] = ...) -> None: ...

class LiftSubjectFenceResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
