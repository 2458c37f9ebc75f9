import datetime

from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from lore.common.v1 import provenance_pb2 as _provenance_pb2
from lore.common.v1 import scope_pb2 as _scope_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MemoryType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEMORY_TYPE_UNSPECIFIED: _ClassVar[MemoryType]
    MEMORY_TYPE_FACT: _ClassVar[MemoryType]
    MEMORY_TYPE_PREFERENCE: _ClassVar[MemoryType]
    MEMORY_TYPE_SKILL: _ClassVar[MemoryType]
    MEMORY_TYPE_INSIGHT: _ClassVar[MemoryType]
    MEMORY_TYPE_COMMITMENT: _ClassVar[MemoryType]
    MEMORY_TYPE_OPINION: _ClassVar[MemoryType]
    MEMORY_TYPE_DECISION: _ClassVar[MemoryType]
    MEMORY_TYPE_MESSAGE: _ClassVar[MemoryType]
    MEMORY_TYPE_TOOL_INTERACTION: _ClassVar[MemoryType]
    MEMORY_TYPE_SESSION_SUMMARY: _ClassVar[MemoryType]
    MEMORY_TYPE_DAILY_DIGEST: _ClassVar[MemoryType]

class MemoryOrder(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEMORY_ORDER_UNSPECIFIED: _ClassVar[MemoryOrder]
    MEMORY_ORDER_NEWEST: _ClassVar[MemoryOrder]
    MEMORY_ORDER_SALIENCE: _ClassVar[MemoryOrder]

class MemoryStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEMORY_STATUS_UNSPECIFIED: _ClassVar[MemoryStatus]
    MEMORY_STATUS_ACTIVE: _ClassVar[MemoryStatus]
    MEMORY_STATUS_WARM: _ClassVar[MemoryStatus]
    MEMORY_STATUS_CONSOLIDATED: _ClassVar[MemoryStatus]
    MEMORY_STATUS_ARCHIVED: _ClassVar[MemoryStatus]
    MEMORY_STATUS_SUPERSEDED: _ClassVar[MemoryStatus]
    MEMORY_STATUS_COMPLETED: _ClassVar[MemoryStatus]
MEMORY_TYPE_UNSPECIFIED: MemoryType
MEMORY_TYPE_FACT: MemoryType
MEMORY_TYPE_PREFERENCE: MemoryType
MEMORY_TYPE_SKILL: MemoryType
MEMORY_TYPE_INSIGHT: MemoryType
MEMORY_TYPE_COMMITMENT: MemoryType
MEMORY_TYPE_OPINION: MemoryType
MEMORY_TYPE_DECISION: MemoryType
MEMORY_TYPE_MESSAGE: MemoryType
MEMORY_TYPE_TOOL_INTERACTION: MemoryType
MEMORY_TYPE_SESSION_SUMMARY: MemoryType
MEMORY_TYPE_DAILY_DIGEST: MemoryType
MEMORY_ORDER_UNSPECIFIED: MemoryOrder
MEMORY_ORDER_NEWEST: MemoryOrder
MEMORY_ORDER_SALIENCE: MemoryOrder
MEMORY_STATUS_UNSPECIFIED: MemoryStatus
MEMORY_STATUS_ACTIVE: MemoryStatus
MEMORY_STATUS_WARM: MemoryStatus
MEMORY_STATUS_CONSOLIDATED: MemoryStatus
MEMORY_STATUS_ARCHIVED: MemoryStatus
MEMORY_STATUS_SUPERSEDED: MemoryStatus
MEMORY_STATUS_COMPLETED: MemoryStatus

class Memory(_message.Message):
    __slots__ = ("id", "content", "memory_type", "scope", "importance", "status", "metadata", "provenance", "entities", "created_at", "valid_at", "current_salience", "access_count", "last_accessed_at", "updated_at", "half_life_days")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPE_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    VALID_AT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_SALIENCE_FIELD_NUMBER: _ClassVar[int]
    ACCESS_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_ACCESSED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    HALF_LIFE_DAYS_FIELD_NUMBER: _ClassVar[int]
    id: str
    content: str
    memory_type: MemoryType
    scope: _scope_pb2.Scope
    importance: float
    status: MemoryStatus
    metadata: _containers.ScalarMap[str, str]
    provenance: _provenance_pb2.Provenance
    entities: _containers.RepeatedScalarFieldContainer[str]
    created_at: _timestamp_pb2.Timestamp
    valid_at: _timestamp_pb2.Timestamp
    current_salience: float
    access_count: int
    last_accessed_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    half_life_days: float
    def __init__(self, id: _Optional[str] = ..., content: _Optional[str] = ..., memory_type: _Optional[_Union[MemoryType, str]] = ..., scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., importance: _Optional[float] = ..., status: _Optional[_Union[MemoryStatus, str]] = ..., metadata: _Optional[_Mapping[str, str]] = ..., provenance: _Optional[_Union[_provenance_pb2.Provenance, _Mapping]] = ..., entities: _Optional[_Iterable[str]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., valid_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., current_salience: _Optional[float] = ..., access_count: _Optional[int] = ..., last_accessed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., half_life_days: _Optional[float] = ...) -> None: ...

class MemoryInput(_message.Message):
    __slots__ = ("content", "memory_type", "scope", "importance", "metadata", "valid_at", "idempotency_key", "entities", "provenance")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPE_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    VALID_AT_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_FIELD_NUMBER: _ClassVar[int]
    PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    content: str
    memory_type: MemoryType
    scope: _scope_pb2.Scope
    importance: float
    metadata: _containers.ScalarMap[str, str]
    valid_at: _timestamp_pb2.Timestamp
    idempotency_key: str
    entities: _containers.RepeatedScalarFieldContainer[str]
    provenance: _provenance_pb2.Provenance
    def __init__(self, content: _Optional[str] = ..., memory_type: _Optional[_Union[MemoryType, str]] = ..., scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., importance: _Optional[float] = ..., metadata: _Optional[_Mapping[str, str]] = ..., valid_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., idempotency_key: _Optional[str] = ..., entities: _Optional[_Iterable[str]] = ..., provenance: _Optional[_Union[_provenance_pb2.Provenance, _Mapping]] = ...) -> None: ...

class RecallResult(_message.Message):
    __slots__ = ("memory", "score", "similarity", "lexical_score", "salience", "importance", "embedding", "recency")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_SCORE_FIELD_NUMBER: _ClassVar[int]
    SALIENCE_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    RECENCY_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    score: float
    similarity: float
    lexical_score: float
    salience: float
    importance: float
    embedding: _containers.RepeatedScalarFieldContainer[float]
    recency: float
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ..., score: _Optional[float] = ..., similarity: _Optional[float] = ..., lexical_score: _Optional[float] = ..., salience: _Optional[float] = ..., importance: _Optional[float] = ..., embedding: _Optional[_Iterable[float]] = ..., recency: _Optional[float] = ...) -> None: ...

class RememberRequest(_message.Message):
    __slots__ = ("memories", "request_id")
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[MemoryInput]
    request_id: str
    def __init__(self, memories: _Optional[_Iterable[_Union[MemoryInput, _Mapping]]] = ..., request_id: _Optional[str] = ...) -> None: ...

class RememberResponse(_message.Message):
    __slots__ = ("memories",)
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[Memory]
    def __init__(self, memories: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ...) -> None: ...

class RecallRequest(_message.Message):
    __slots__ = ("query", "scope", "k", "memory_types", "statuses", "min_salience", "valid_after", "valid_before", "record_access", "include_embeddings", "session_id", "include_query_embedding", "scope_match")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPES_FIELD_NUMBER: _ClassVar[int]
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    MIN_SALIENCE_FIELD_NUMBER: _ClassVar[int]
    VALID_AFTER_FIELD_NUMBER: _ClassVar[int]
    VALID_BEFORE_FIELD_NUMBER: _ClassVar[int]
    RECORD_ACCESS_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_EMBEDDINGS_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_QUERY_EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    SCOPE_MATCH_FIELD_NUMBER: _ClassVar[int]
    query: str
    scope: _scope_pb2.Scope
    k: int
    memory_types: _containers.RepeatedScalarFieldContainer[MemoryType]
    statuses: _containers.RepeatedScalarFieldContainer[MemoryStatus]
    min_salience: float
    valid_after: _timestamp_pb2.Timestamp
    valid_before: _timestamp_pb2.Timestamp
    record_access: bool
    include_embeddings: bool
    session_id: str
    include_query_embedding: bool
    scope_match: _scope_pb2.ScopeMatch
    def __init__(self, query: _Optional[str] = ..., scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., k: _Optional[int] = ..., memory_types: _Optional[_Iterable[_Union[MemoryType, str]]] = ..., statuses: _Optional[_Iterable[_Union[MemoryStatus, str]]] = ..., min_salience: _Optional[float] = ..., valid_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., valid_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., record_access: _Optional[bool] = ..., include_embeddings: _Optional[bool] = ..., session_id: _Optional[str] = ..., include_query_embedding: _Optional[bool] = ..., scope_match: _Optional[_Union[_scope_pb2.ScopeMatch, str]] = ...) -> None: ...

class RecallResponse(_message.Message):
    __slots__ = ("results", "query_embedding", "embedding_model")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    QUERY_EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_MODEL_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[RecallResult]
    query_embedding: _containers.RepeatedScalarFieldContainer[float]
    embedding_model: str
    def __init__(self, results: _Optional[_Iterable[_Union[RecallResult, _Mapping]]] = ..., query_embedding: _Optional[_Iterable[float]] = ..., embedding_model: _Optional[str] = ...) -> None: ...

class RecordAccessRequest(_message.Message):
    __slots__ = ("memory_ids", "session_id", "reason", "request_id")
    MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    memory_ids: _containers.RepeatedScalarFieldContainer[str]
    session_id: str
    reason: str
    request_id: str
    def __init__(self, memory_ids: _Optional[_Iterable[str]] = ..., session_id: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RecordAccessResponse(_message.Message):
    __slots__ = ("recorded",)
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    recorded: int
    def __init__(self, recorded: _Optional[int] = ...) -> None: ...

class GetMemoryRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetMemoryResponse(_message.Message):
    __slots__ = ("memory",)
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ...) -> None: ...

class ListMemoriesRequest(_message.Message):
    __slots__ = ("scope", "memory_types", "statuses", "page_size", "page_token", "order_by", "scope_match")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPES_FIELD_NUMBER: _ClassVar[int]
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    SCOPE_MATCH_FIELD_NUMBER: _ClassVar[int]
    scope: _scope_pb2.Scope
    memory_types: _containers.RepeatedScalarFieldContainer[MemoryType]
    statuses: _containers.RepeatedScalarFieldContainer[MemoryStatus]
    page_size: int
    page_token: str
    order_by: MemoryOrder
    scope_match: _scope_pb2.ScopeMatch
    def __init__(self, scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., memory_types: _Optional[_Iterable[_Union[MemoryType, str]]] = ..., statuses: _Optional[_Iterable[_Union[MemoryStatus, str]]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., order_by: _Optional[_Union[MemoryOrder, str]] = ..., scope_match: _Optional[_Union[_scope_pb2.ScopeMatch, str]] = ...) -> None: ...

class ListMemoriesResponse(_message.Message):
    __slots__ = ("memories", "next_page_token")
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[Memory]
    next_page_token: str
    def __init__(self, memories: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class UpdateMemoryRequest(_message.Message):
    __slots__ = ("memory", "update_mask")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class UpdateMemoryResponse(_message.Message):
    __slots__ = ("memory",)
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ...) -> None: ...

class ForgetMemoryRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class ForgetMemoryResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ForgetSubjectRequest(_message.Message):
    __slots__ = ("subject", "session_ids", "request_id")
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    SESSION_IDS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    subject: _scope_pb2.Scope
    session_ids: _containers.RepeatedScalarFieldContainer[str]
    request_id: str
    def __init__(self, subject: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., session_ids: _Optional[_Iterable[str]] = ..., request_id: _Optional[str] = ...) -> None: ...

class ForgetSubjectResponse(_message.Message):
    __slots__ = ("memories_deleted", "episodes_deleted", "access_records_deleted", "working_memories_cleared")
    MEMORIES_DELETED_FIELD_NUMBER: _ClassVar[int]
    EPISODES_DELETED_FIELD_NUMBER: _ClassVar[int]
    ACCESS_RECORDS_DELETED_FIELD_NUMBER: _ClassVar[int]
    WORKING_MEMORIES_CLEARED_FIELD_NUMBER: _ClassVar[int]
    memories_deleted: int
    episodes_deleted: int
    access_records_deleted: int
    working_memories_cleared: int
    def __init__(self, memories_deleted: _Optional[int] = ..., episodes_deleted: _Optional[int] = ..., access_records_deleted: _Optional[int] = ..., working_memories_cleared: _Optional[int] = ...) -> None: ...

class RunDecayRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RunDecayResponse(_message.Message):
    __slots__ = ("updated", "computed_at")
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    COMPUTED_AT_FIELD_NUMBER: _ClassVar[int]
    updated: int
    computed_at: _timestamp_pb2.Timestamp
    def __init__(self, updated: _Optional[int] = ..., computed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RunConsolidationRequest(_message.Message):
    __slots__ = ("scope", "dry_run", "memory_types", "threshold")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    MEMORY_TYPES_FIELD_NUMBER: _ClassVar[int]
    THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    scope: _scope_pb2.Scope
    dry_run: bool
    memory_types: _containers.RepeatedScalarFieldContainer[MemoryType]
    threshold: float
    def __init__(self, scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., dry_run: _Optional[bool] = ..., memory_types: _Optional[_Iterable[_Union[MemoryType, str]]] = ..., threshold: _Optional[float] = ...) -> None: ...

class RunConsolidationResponse(_message.Message):
    __slots__ = ("examined", "groups", "consolidated", "dry_run")
    EXAMINED_FIELD_NUMBER: _ClassVar[int]
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    CONSOLIDATED_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    examined: int
    groups: int
    consolidated: int
    dry_run: bool
    def __init__(self, examined: _Optional[int] = ..., groups: _Optional[int] = ..., consolidated: _Optional[int] = ..., dry_run: _Optional[bool] = ...) -> None: ...

class ReindexRequest(_message.Message):
    __slots__ = ("force",)
    FORCE_FIELD_NUMBER: _ClassVar[int]
    force: bool
    def __init__(self, force: _Optional[bool] = ...) -> None: ...

class ReindexResponse(_message.Message):
    __slots__ = ("phase", "done", "total", "model", "dimension")
    PHASE_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    phase: str
    done: int
    total: int
    model: str
    dimension: int
    def __init__(self, phase: _Optional[str] = ..., done: _Optional[int] = ..., total: _Optional[int] = ..., model: _Optional[str] = ..., dimension: _Optional[int] = ...) -> None: ...

class ExportMemoriesRequest(_message.Message):
    __slots__ = ("scope", "page_size")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    scope: _scope_pb2.Scope
    page_size: int
    def __init__(self, scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., page_size: _Optional[int] = ...) -> None: ...

class ExportMemoriesResponse(_message.Message):
    __slots__ = ("memories",)
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[Memory]
    def __init__(self, memories: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ...) -> None: ...

class ImportMemoriesRequest(_message.Message):
    __slots__ = ("memories",)
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[Memory]
    def __init__(self, memories: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ...) -> None: ...

class ImportMemoriesResponse(_message.Message):
    __slots__ = ("imported", "skipped")
    IMPORTED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    imported: int
    skipped: int
    def __init__(self, imported: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class PurgeErasedRequest(_message.Message):
    __slots__ = ("deferred",)
    DEFERRED_FIELD_NUMBER: _ClassVar[int]
    deferred: bool
    def __init__(self, deferred: _Optional[bool] = ...) -> None: ...

class PurgedStore(_message.Message):
    __slots__ = ("store", "outcome", "kept", "detail")
    STORE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    KEPT_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    store: str
    outcome: str
    kept: int
    detail: str
    def __init__(self, store: _Optional[str] = ..., outcome: _Optional[str] = ..., kept: _Optional[int] = ..., detail: _Optional[str] = ...) -> None: ...

class PurgeErasedResponse(_message.Message):
    __slots__ = ("stores",)
    STORES_FIELD_NUMBER: _ClassVar[int]
    stores: _containers.RepeatedCompositeFieldContainer[PurgedStore]
    def __init__(self, stores: _Optional[_Iterable[_Union[PurgedStore, _Mapping]]] = ...) -> None: ...

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
