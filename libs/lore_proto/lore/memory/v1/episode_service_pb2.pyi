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

class ThreadStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    THREAD_STATUS_UNSPECIFIED: _ClassVar[ThreadStatus]
    THREAD_STATUS_OPEN: _ClassVar[ThreadStatus]
    THREAD_STATUS_BLOCKED: _ClassVar[ThreadStatus]
    THREAD_STATUS_RESOLVED: _ClassVar[ThreadStatus]
THREAD_STATUS_UNSPECIFIED: ThreadStatus
THREAD_STATUS_OPEN: ThreadStatus
THREAD_STATUS_BLOCKED: ThreadStatus
THREAD_STATUS_RESOLVED: ThreadStatus

class UserState(_message.Message):
    __slots__ = ("mood", "confidence", "focus")
    MOOD_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    FOCUS_FIELD_NUMBER: _ClassVar[int]
    mood: str
    confidence: str
    focus: str
    def __init__(self, mood: _Optional[str] = ..., confidence: _Optional[str] = ..., focus: _Optional[str] = ...) -> None: ...

class Outcome(_message.Message):
    __slots__ = ("type", "content")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    type: str
    content: str
    def __init__(self, type: _Optional[str] = ..., content: _Optional[str] = ...) -> None: ...

class OpenThread(_message.Message):
    __slots__ = ("topic", "status", "context", "resolution")
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    topic: str
    status: ThreadStatus
    context: str
    resolution: str
    def __init__(self, topic: _Optional[str] = ..., status: _Optional[_Union[ThreadStatus, str]] = ..., context: _Optional[str] = ..., resolution: _Optional[str] = ...) -> None: ...

class ActionItem(_message.Message):
    __slots__ = ("owner", "task", "deadline")
    OWNER_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    owner: str
    task: str
    deadline: str
    def __init__(self, owner: _Optional[str] = ..., task: _Optional[str] = ..., deadline: _Optional[str] = ...) -> None: ...

class Episode(_message.Message):
    __slots__ = ("id", "conversation_id", "scope", "summary", "key_topics", "entities_discussed", "user_state", "outcomes", "open_threads", "decisions", "action_items", "next_session_questions", "message_count", "started_at", "ended_at", "importance", "current_salience", "access_count", "last_accessed_at", "created_at", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    KEY_TOPICS_FIELD_NUMBER: _ClassVar[int]
    ENTITIES_DISCUSSED_FIELD_NUMBER: _ClassVar[int]
    USER_STATE_FIELD_NUMBER: _ClassVar[int]
    OUTCOMES_FIELD_NUMBER: _ClassVar[int]
    OPEN_THREADS_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_ITEMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_SESSION_QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    CURRENT_SALIENCE_FIELD_NUMBER: _ClassVar[int]
    ACCESS_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_ACCESSED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    id: str
    conversation_id: str
    scope: _scope_pb2.Scope
    summary: str
    key_topics: _containers.RepeatedScalarFieldContainer[str]
    entities_discussed: _containers.RepeatedScalarFieldContainer[str]
    user_state: UserState
    outcomes: _containers.RepeatedCompositeFieldContainer[Outcome]
    open_threads: _containers.RepeatedCompositeFieldContainer[OpenThread]
    decisions: _containers.RepeatedScalarFieldContainer[str]
    action_items: _containers.RepeatedCompositeFieldContainer[ActionItem]
    next_session_questions: _containers.RepeatedScalarFieldContainer[str]
    message_count: int
    started_at: _timestamp_pb2.Timestamp
    ended_at: _timestamp_pb2.Timestamp
    importance: float
    current_salience: float
    access_count: int
    last_accessed_at: _timestamp_pb2.Timestamp
    created_at: _timestamp_pb2.Timestamp
    metadata: _containers.ScalarMap[str, str]
    def __init__(self, id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., summary: _Optional[str] = ..., key_topics: _Optional[_Iterable[str]] = ..., entities_discussed: _Optional[_Iterable[str]] = ..., user_state: _Optional[_Union[UserState, _Mapping]] = ..., outcomes: _Optional[_Iterable[_Union[Outcome, _Mapping]]] = ..., open_threads: _Optional[_Iterable[_Union[OpenThread, _Mapping]]] = ..., decisions: _Optional[_Iterable[str]] = ..., action_items: _Optional[_Iterable[_Union[ActionItem, _Mapping]]] = ..., next_session_questions: _Optional[_Iterable[str]] = ..., message_count: _Optional[int] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., importance: _Optional[float] = ..., current_salience: _Optional[float] = ..., access_count: _Optional[int] = ..., last_accessed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ScoredEpisode(_message.Message):
    __slots__ = ("episode", "similarity")
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    SIMILARITY_FIELD_NUMBER: _ClassVar[int]
    episode: Episode
    similarity: float
    def __init__(self, episode: _Optional[_Union[Episode, _Mapping]] = ..., similarity: _Optional[float] = ...) -> None: ...

class EpisodeThread(_message.Message):
    __slots__ = ("episode_id", "conversation_id", "thread", "ended_at", "index")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    conversation_id: str
    thread: OpenThread
    ended_at: _timestamp_pb2.Timestamp
    index: int
    def __init__(self, episode_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., thread: _Optional[_Union[OpenThread, _Mapping]] = ..., ended_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., index: _Optional[int] = ...) -> None: ...

class CreateEpisodeRequest(_message.Message):
    __slots__ = ("episode", "request_id")
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    episode: Episode
    request_id: str
    def __init__(self, episode: _Optional[_Union[Episode, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class CreateEpisodeResponse(_message.Message):
    __slots__ = ("episode",)
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    episode: Episode
    def __init__(self, episode: _Optional[_Union[Episode, _Mapping]] = ...) -> None: ...

class GetEpisodeRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetEpisodeResponse(_message.Message):
    __slots__ = ("episode",)
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    episode: Episode
    def __init__(self, episode: _Optional[_Union[Episode, _Mapping]] = ...) -> None: ...

class ListEpisodesRequest(_message.Message):
    __slots__ = ("scope", "page_size", "page_token", "ended_after", "min_salience", "scope_match")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ENDED_AFTER_FIELD_NUMBER: _ClassVar[int]
    MIN_SALIENCE_FIELD_NUMBER: _ClassVar[int]
    SCOPE_MATCH_FIELD_NUMBER: _ClassVar[int]
    scope: _scope_pb2.Scope
    page_size: int
    page_token: str
    ended_after: _timestamp_pb2.Timestamp
    min_salience: float
    scope_match: _scope_pb2.ScopeMatch
    def __init__(self, scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., ended_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., min_salience: _Optional[float] = ..., scope_match: _Optional[_Union[_scope_pb2.ScopeMatch, str]] = ...) -> None: ...

class ListEpisodesResponse(_message.Message):
    __slots__ = ("episodes", "next_page_token")
    EPISODES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    episodes: _containers.RepeatedCompositeFieldContainer[Episode]
    next_page_token: str
    def __init__(self, episodes: _Optional[_Iterable[_Union[Episode, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListOpenThreadsRequest(_message.Message):
    __slots__ = ("scope", "page_size", "page_token", "scope_match")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SCOPE_MATCH_FIELD_NUMBER: _ClassVar[int]
    scope: _scope_pb2.Scope
    page_size: int
    page_token: str
    scope_match: _scope_pb2.ScopeMatch
    def __init__(self, scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., scope_match: _Optional[_Union[_scope_pb2.ScopeMatch, str]] = ...) -> None: ...

class ListOpenThreadsResponse(_message.Message):
    __slots__ = ("threads", "next_page_token")
    THREADS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    threads: _containers.RepeatedCompositeFieldContainer[EpisodeThread]
    next_page_token: str
    def __init__(self, threads: _Optional[_Iterable[_Union[EpisodeThread, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ResolveThreadRequest(_message.Message):
    __slots__ = ("episode_id", "thread_index", "resolution")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_INDEX_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    thread_index: int
    resolution: str
    def __init__(self, episode_id: _Optional[str] = ..., thread_index: _Optional[int] = ..., resolution: _Optional[str] = ...) -> None: ...

class ResolveThreadResponse(_message.Message):
    __slots__ = ("thread",)
    THREAD_FIELD_NUMBER: _ClassVar[int]
    thread: EpisodeThread
    def __init__(self, thread: _Optional[_Union[EpisodeThread, _Mapping]] = ...) -> None: ...

class ExportEpisodesRequest(_message.Message):
    __slots__ = ("page_size",)
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    def __init__(self, page_size: _Optional[int] = ...) -> None: ...

class ExportEpisodesResponse(_message.Message):
    __slots__ = ("episodes",)
    EPISODES_FIELD_NUMBER: _ClassVar[int]
    episodes: _containers.RepeatedCompositeFieldContainer[Episode]
    def __init__(self, episodes: _Optional[_Iterable[_Union[Episode, _Mapping]]] = ...) -> None: ...

class ImportEpisodesRequest(_message.Message):
    __slots__ = ("episodes",)
    EPISODES_FIELD_NUMBER: _ClassVar[int]
    episodes: _containers.RepeatedCompositeFieldContainer[Episode]
    def __init__(self, episodes: _Optional[_Iterable[_Union[Episode, _Mapping]]] = ...) -> None: ...

class ImportEpisodesResponse(_message.Message):
    __slots__ = ("imported", "skipped")
    IMPORTED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    imported: int
    skipped: int
    def __init__(self, imported: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class SearchEpisodesRequest(_message.Message):
    __slots__ = ("scope", "scope_match", "query", "query_embedding", "query_embedding_model", "k", "min_salience")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SCOPE_MATCH_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    QUERY_EMBEDDING_FIELD_NUMBER: _ClassVar[int]
    QUERY_EMBEDDING_MODEL_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    MIN_SALIENCE_FIELD_NUMBER: _ClassVar[int]
    scope: _scope_pb2.Scope
    scope_match: _scope_pb2.ScopeMatch
    query: str
    query_embedding: _containers.RepeatedScalarFieldContainer[float]
    query_embedding_model: str
    k: int
    min_salience: float
    def __init__(self, scope: _Optional[_Union[_scope_pb2.Scope, _Mapping]] = ..., scope_match: _Optional[_Union[_scope_pb2.ScopeMatch, str]] = ..., query: _Optional[str] = ..., query_embedding: _Optional[_Iterable[float]] = ..., query_embedding_model: _Optional[str] = ..., k: _Optional[int] = ..., min_salience: _Optional[float] = ...) -> None: ...

class SearchEpisodesResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[ScoredEpisode]
    def __init__(self, results: _Optional[_Iterable[_Union[ScoredEpisode, _Mapping]]] = ...) -> None: ...

class RecordEpisodeAccessRequest(_message.Message):
    __slots__ = ("episode_ids", "session_id", "reason", "request_id")
    EPISODE_IDS_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    episode_ids: _containers.RepeatedScalarFieldContainer[str]
    session_id: str
    reason: str
    request_id: str
    def __init__(self, episode_ids: _Optional[_Iterable[str]] = ..., session_id: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class RecordEpisodeAccessResponse(_message.Message):
    __slots__ = ("recorded",)
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    recorded: int
    def __init__(self, recorded: _Optional[int] = ...) -> None: ...

class RewriteEpisodeRequest(_message.Message):
    __slots__ = ("id", "episode")
    ID_FIELD_NUMBER: _ClassVar[int]
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    id: str
    episode: Episode
    def __init__(self, id: _Optional[str] = ..., episode: _Optional[_Union[Episode, _Mapping]] = ...) -> None: ...

class RewriteEpisodeResponse(_message.Message):
    __slots__ = ("episode",)
    EPISODE_FIELD_NUMBER: _ClassVar[int]
    episode: Episode
    def __init__(self, episode: _Optional[_Union[Episode, _Mapping]] = ...) -> None: ...

class DeleteEpisodeRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteEpisodeResponse(_message.Message):
    __slots__ = ("deleted",)
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: bool
    def __init__(self, deleted: _Optional[bool] = ...) -> None: ...
