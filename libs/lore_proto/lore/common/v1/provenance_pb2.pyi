from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProvenanceSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROVENANCE_SOURCE_UNSPECIFIED: _ClassVar[ProvenanceSource]
    PROVENANCE_SOURCE_API: _ClassVar[ProvenanceSource]
    PROVENANCE_SOURCE_REFLECTION: _ClassVar[ProvenanceSource]
    PROVENANCE_SOURCE_IMPORT: _ClassVar[ProvenanceSource]
    PROVENANCE_SOURCE_CONSOLIDATION: _ClassVar[ProvenanceSource]
    PROVENANCE_SOURCE_EPISODE_EXTRACTION: _ClassVar[ProvenanceSource]
PROVENANCE_SOURCE_UNSPECIFIED: ProvenanceSource
PROVENANCE_SOURCE_API: ProvenanceSource
PROVENANCE_SOURCE_REFLECTION: ProvenanceSource
PROVENANCE_SOURCE_IMPORT: ProvenanceSource
PROVENANCE_SOURCE_CONSOLIDATION: ProvenanceSource
PROVENANCE_SOURCE_EPISODE_EXTRACTION: ProvenanceSource

class Provenance(_message.Message):
    __slots__ = ("session_id", "turn_ids", "source", "consolidated_into", "consolidated_from", "session_ids", "speaker")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_IDS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CONSOLIDATED_INTO_FIELD_NUMBER: _ClassVar[int]
    CONSOLIDATED_FROM_FIELD_NUMBER: _ClassVar[int]
    SESSION_IDS_FIELD_NUMBER: _ClassVar[int]
    SPEAKER_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    turn_ids: _containers.RepeatedScalarFieldContainer[str]
    source: ProvenanceSource
    consolidated_into: str
    consolidated_from: _containers.RepeatedScalarFieldContainer[str]
    session_ids: _containers.RepeatedScalarFieldContainer[str]
    speaker: str
    def __init__(self, session_id: _Optional[str] = ..., turn_ids: _Optional[_Iterable[str]] = ..., source: _Optional[_Union[ProvenanceSource, str]] = ..., consolidated_into: _Optional[str] = ..., consolidated_from: _Optional[_Iterable[str]] = ..., session_ids: _Optional[_Iterable[str]] = ..., speaker: _Optional[str] = ...) -> None: ...
