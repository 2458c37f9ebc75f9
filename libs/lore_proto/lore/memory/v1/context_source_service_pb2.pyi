from lore.memory.v1 import episode_service_pb2 as _episode_service_pb2
from lore.memory.v1 import memory_service_pb2 as _memory_service_pb2
from lore.memory.v1 import working_memory_service_pb2 as _working_memory_service_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GatherContextRequest(_message.Message):
    __slots__ = ("working_memory", "recall", "recent_episodes", "episode_search", "open_threads", "salient_facts", "user_facts")
    WORKING_MEMORY_FIELD_NUMBER: _ClassVar[int]
    RECALL_FIELD_NUMBER: _ClassVar[int]
    RECENT_EPISODES_FIELD_NUMBER: _ClassVar[int]
    EPISODE_SEARCH_FIELD_NUMBER: _ClassVar[int]
    OPEN_THREADS_FIELD_NUMBER: _ClassVar[int]
    SALIENT_FACTS_FIELD_NUMBER: _ClassVar[int]
    USER_FACTS_FIELD_NUMBER: _ClassVar[int]
    working_memory: _working_memory_service_pb2.GetWorkingMemoryRequest
    recall: _memory_service_pb2.RecallRequest
    recent_episodes: _episode_service_pb2.ListEpisodesRequest
    episode_search: _episode_service_pb2.SearchEpisodesRequest
    open_threads: _episode_service_pb2.ListOpenThreadsRequest
    salient_facts: _memory_service_pb2.ListMemoriesRequest
    user_facts: _memory_service_pb2.ListMemoriesRequest
    def __init__(self, working_memory: _Optional[_Union[_working_memory_service_pb2.GetWorkingMemoryRequest, _Mapping]] = ..., recall: _Optional[_Union[_memory_service_pb2.RecallRequest, _Mapping]] = ..., recent_episodes: _Optional[_Union[_episode_service_pb2.ListEpisodesRequest, _Mapping]] = ..., episode_search: _Optional[_Union[_episode_service_pb2.SearchEpisodesRequest, _Mapping]] = ..., open_threads: _Optional[_Union[_episode_service_pb2.ListOpenThreadsRequest, _Mapping]] = ..., salient_facts: _Optional[_Union[_memory_service_pb2.ListMemoriesRequest, _Mapping]] = ..., user_facts: _Optional[_Union[_memory_service_pb2.ListMemoriesRequest, _Mapping]] = ...) -> None: ...

class PartError(_message.Message):
    __slots__ = ("code", "message", "reason")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    reason: str
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class WorkingMemoryPart(_message.Message):
    __slots__ = ("response", "error")
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    response: _working_memory_service_pb2.GetWorkingMemoryResponse
    error: PartError
    def __init__(self, response: _Optional[_Union[_working_memory_service_pb2.GetWorkingMemoryResponse, _Mapping]] = ..., error: _Optional[_Union[PartError, _Mapping]] = ...) -> None: ...

class RecallPart(_message.Message):
    __slots__ = ("response", "error")
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    response: _memory_service_pb2.RecallResponse
    error: PartError
    def __init__(self, response: _Optional[_Union[_memory_service_pb2.RecallResponse, _Mapping]] = ..., error: _Optional[_Union[PartError, _Mapping]] = ...) -> None: ...

class ListEpisodesPart(_message.Message):
    __slots__ = ("response", "error")
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    response: _episode_service_pb2.ListEpisodesResponse
    error: PartError
    def __init__(self, response: _Optional[_Union[_episode_service_pb2.ListEpisodesResponse, _Mapping]] = ..., error: _Optional[_Union[PartError, _Mapping]] = ...) -> None: ...

class SearchEpisodesPart(_message.Message):
    __slots__ = ("response", "error")
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    response: _episode_service_pb2.SearchEpisodesResponse
    error: PartError
    def __init__(self, response: _Optional[_Union[_episode_service_pb2.SearchEpisodesResponse, _Mapping]] = ..., error: _Optional[_Union[PartError, _Mapping]] = ...) -> None: ...

class ListOpenThreadsPart(_message.Message):
    __slots__ = ("response", "error")
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    response: _episode_service_pb2.ListOpenThreadsResponse
    error: PartError
    def __init__(self, response: _Optional[_Union[_episode_service_pb2.ListOpenThreadsResponse, _Mapping]] = ..., error: _Optional[_Union[PartError, _Mapping]] = ...) -> None: ...

class ListMemoriesPart(_message.Message):
    __slots__ = ("response", "error")
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    response: _memory_service_pb2.ListMemoriesResponse
    error: PartError
    def __init__(self, response: _Optional[_Union[_memory_service_pb2.ListMemoriesResponse, _Mapping]] = ..., error: _Optional[_Union[PartError, _Mapping]] = ...) -> None: ...

class GatherContextResponse(_message.Message):
    __slots__ = ("working_memory", "recall", "recent_episodes", "episode_search", "open_threads", "salient_facts", "user_facts")
    WORKING_MEMORY_FIELD_NUMBER: _ClassVar[int]
    RECALL_FIELD_NUMBER: _ClassVar[int]
    RECENT_EPISODES_FIELD_NUMBER: _ClassVar[int]
    EPISODE_SEARCH_FIELD_NUMBER: _ClassVar[int]
    OPEN_THREADS_FIELD_NUMBER: _ClassVar[int]
    SALIENT_FACTS_FIELD_NUMBER: _ClassVar[int]
    USER_FACTS_FIELD_NUMBER: _ClassVar[int]
    working_memory: WorkingMemoryPart
    recall: RecallPart
    recent_episodes: ListEpisodesPart
    episode_search: SearchEpisodesPart
    open_threads: ListOpenThreadsPart
    salient_facts: ListMemoriesPart
    user_facts: ListMemoriesPart
    def __init__(self, working_memory: _Optional[_Union[WorkingMemoryPart, _Mapping]] = ..., recall: _Optional[_Union[RecallPart, _Mapping]] = ..., recent_episodes: _Optional[_Union[ListEpisodesPart, _Mapping]] = ..., episode_search: _Optional[_Union[SearchEpisodesPart, _Mapping]] = ..., open_threads: _Optional[_Union[ListOpenThreadsPart, _Mapping]] = ..., salient_facts: _Optional[_Union[ListMemoriesPart, _Mapping]] = ..., user_facts: _Optional[_Union[ListMemoriesPart, _Mapping]] = ...) -> None: ...

class RecordContextUseRequest(_message.Message):
    __slots__ = ("memory_access", "episode_access", "session_id", "context_fingerprint")
    MEMORY_ACCESS_FIELD_NUMBER: _ClassVar[int]
    EPISODE_ACCESS_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    memory_access: _memory_service_pb2.RecordAccessRequest
    episode_access: _episode_service_pb2.RecordEpisodeAccessRequest
    session_id: str
    context_fingerprint: str
    def __init__(self, memory_access: _Optional[_Union[_memory_service_pb2.RecordAccessRequest, _Mapping]] = ..., episode_access: _Optional[_Union[_episode_service_pb2.RecordEpisodeAccessRequest, _Mapping]] = ..., session_id: _Optional[str] = ..., context_fingerprint: _Optional[str] = ...) -> None: ...

class RecordPart(_message.Message):
    __slots__ = ("recorded", "error")
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    recorded: int
    error: PartError
    def __init__(self, recorded: _Optional[int] = ..., error: _Optional[_Union[PartError, _Mapping]] = ...) -> None: ...

class RecordContextUseResponse(_message.Message):
    __slots__ = ("memory_access", "episode_access", "context_fingerprint")
    MEMORY_ACCESS_FIELD_NUMBER: _ClassVar[int]
    EPISODE_ACCESS_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    memory_access: RecordPart
    episode_access: RecordPart
    context_fingerprint: RecordPart
    def __init__(self, memory_access: _Optional[_Union[RecordPart, _Mapping]] = ..., episode_access: _Optional[_Union[RecordPart, _Mapping]] = ..., context_fingerprint: _Optional[_Union[RecordPart, _Mapping]] = ...) -> None: ...
