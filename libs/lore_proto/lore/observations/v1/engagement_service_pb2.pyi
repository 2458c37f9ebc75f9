import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from lore.observations.v1 import observation_service_pb2 as _observation_service_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HypothesisStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HYPOTHESIS_STATUS_UNSPECIFIED: _ClassVar[HypothesisStatus]
    HYPOTHESIS_STATUS_ACTIVE: _ClassVar[HypothesisStatus]
    HYPOTHESIS_STATUS_PROMOTED: _ClassVar[HypothesisStatus]
    HYPOTHESIS_STATUS_ARCHIVED: _ClassVar[HypothesisStatus]

class UnknownStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN_STATUS_UNSPECIFIED: _ClassVar[UnknownStatus]
    UNKNOWN_STATUS_OPEN: _ClassVar[UnknownStatus]
    UNKNOWN_STATUS_RESOLVED: _ClassVar[UnknownStatus]

class EngagementView(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENGAGEMENT_VIEW_UNSPECIFIED: _ClassVar[EngagementView]
    ENGAGEMENT_VIEW_FULL: _ClassVar[EngagementView]
    ENGAGEMENT_VIEW_DIGEST: _ClassVar[EngagementView]
HYPOTHESIS_STATUS_UNSPECIFIED: HypothesisStatus
HYPOTHESIS_STATUS_ACTIVE: HypothesisStatus
HYPOTHESIS_STATUS_PROMOTED: HypothesisStatus
HYPOTHESIS_STATUS_ARCHIVED: HypothesisStatus
UNKNOWN_STATUS_UNSPECIFIED: UnknownStatus
UNKNOWN_STATUS_OPEN: UnknownStatus
UNKNOWN_STATUS_RESOLVED: UnknownStatus
ENGAGEMENT_VIEW_UNSPECIFIED: EngagementView
ENGAGEMENT_VIEW_FULL: EngagementView
ENGAGEMENT_VIEW_DIGEST: EngagementView

class HypothesisEvidence(_message.Message):
    __slots__ = ("id", "statement", "stance", "weight", "source", "observed_at", "recorded_at", "reviewed", "epoch")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATEMENT_FIELD_NUMBER: _ClassVar[int]
    STANCE_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    OBSERVED_AT_FIELD_NUMBER: _ClassVar[int]
    RECORDED_AT_FIELD_NUMBER: _ClassVar[int]
    REVIEWED_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    id: str
    statement: str
    stance: _observation_service_pb2.EvidenceStance
    weight: float
    source: str
    observed_at: _timestamp_pb2.Timestamp
    recorded_at: _timestamp_pb2.Timestamp
    reviewed: bool
    epoch: int
    def __init__(self, id: _Optional[str] = ..., statement: _Optional[str] = ..., stance: _Optional[_Union[_observation_service_pb2.EvidenceStance, str]] = ..., weight: _Optional[float] = ..., source: _Optional[str] = ..., observed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., recorded_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reviewed: _Optional[bool] = ..., epoch: _Optional[int] = ...) -> None: ...

class HypothesisEvidenceInput(_message.Message):
    __slots__ = ("statement", "stance", "weight", "source", "observed_at")
    STATEMENT_FIELD_NUMBER: _ClassVar[int]
    STANCE_FIELD_NUMBER: _ClassVar[int]
    WEIGHT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    OBSERVED_AT_FIELD_NUMBER: _ClassVar[int]
    statement: str
    stance: _observation_service_pb2.EvidenceStance
    weight: float
    source: str
    observed_at: _timestamp_pb2.Timestamp
    def __init__(self, statement: _Optional[str] = ..., stance: _Optional[_Union[_observation_service_pb2.EvidenceStance, str]] = ..., weight: _Optional[float] = ..., source: _Optional[str] = ..., observed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class HypothesisRevision(_message.Message):
    __slots__ = ("previous_statement", "statement", "previous_confidence", "confidence", "reason", "revised_at")
    PREVIOUS_STATEMENT_FIELD_NUMBER: _ClassVar[int]
    STATEMENT_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REVISED_AT_FIELD_NUMBER: _ClassVar[int]
    previous_statement: str
    statement: str
    previous_confidence: float
    confidence: float
    reason: str
    revised_at: _timestamp_pb2.Timestamp
    def __init__(self, previous_statement: _Optional[str] = ..., statement: _Optional[str] = ..., previous_confidence: _Optional[float] = ..., confidence: _Optional[float] = ..., reason: _Optional[str] = ..., revised_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Hypothesis(_message.Message):
    __slots__ = ("id", "statement", "confidence", "status", "evidence", "revisions", "archive_note", "finding_id", "created_at", "updated_at", "finding", "evidence_count", "outstanding_contradictions")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATEMENT_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    REVISIONS_FIELD_NUMBER: _ClassVar[int]
    ARCHIVE_NOTE_FIELD_NUMBER: _ClassVar[int]
    FINDING_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    FINDING_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    OUTSTANDING_CONTRADICTIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    statement: str
    confidence: float
    status: HypothesisStatus
    evidence: _containers.RepeatedCompositeFieldContainer[HypothesisEvidence]
    revisions: _containers.RepeatedCompositeFieldContainer[HypothesisRevision]
    archive_note: str
    finding_id: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    finding: Finding
    evidence_count: int
    outstanding_contradictions: int
    def __init__(self, id: _Optional[str] = ..., statement: _Optional[str] = ..., confidence: _Optional[float] = ..., status: _Optional[_Union[HypothesisStatus, str]] = ..., evidence: _Optional[_Iterable[_Union[HypothesisEvidence, _Mapping]]] = ..., revisions: _Optional[_Iterable[_Union[HypothesisRevision, _Mapping]]] = ..., archive_note: _Optional[str] = ..., finding_id: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finding: _Optional[_Union[Finding, _Mapping]] = ..., evidence_count: _Optional[int] = ..., outstanding_contradictions: _Optional[int] = ...) -> None: ...

class Finding(_message.Message):
    __slots__ = ("id", "statement", "source", "hypothesis_id", "recorded_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    STATEMENT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    HYPOTHESIS_ID_FIELD_NUMBER: _ClassVar[int]
    RECORDED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    statement: str
    source: str
    hypothesis_id: str
    recorded_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., statement: _Optional[str] = ..., source: _Optional[str] = ..., hypothesis_id: _Optional[str] = ..., recorded_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Unknown(_message.Message):
    __slots__ = ("id", "question", "why_it_matters", "status", "resolution", "created_at", "resolved_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    WHY_IT_MATTERS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    question: str
    why_it_matters: str
    status: UnknownStatus
    resolution: str
    created_at: _timestamp_pb2.Timestamp
    resolved_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., question: _Optional[str] = ..., why_it_matters: _Optional[str] = ..., status: _Optional[_Union[UnknownStatus, str]] = ..., resolution: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., resolved_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetEngagementRequest(_message.Message):
    __slots__ = ("view",)
    VIEW_FIELD_NUMBER: _ClassVar[int]
    view: EngagementView
    def __init__(self, view: _Optional[_Union[EngagementView, str]] = ...) -> None: ...

class GetEngagementResponse(_message.Message):
    __slots__ = ("week_number", "first_session", "hypotheses", "unknowns", "findings")
    WEEK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    FIRST_SESSION_FIELD_NUMBER: _ClassVar[int]
    HYPOTHESES_FIELD_NUMBER: _ClassVar[int]
    UNKNOWNS_FIELD_NUMBER: _ClassVar[int]
    FINDINGS_FIELD_NUMBER: _ClassVar[int]
    week_number: int
    first_session: bool
    hypotheses: _containers.RepeatedCompositeFieldContainer[Hypothesis]
    unknowns: _containers.RepeatedCompositeFieldContainer[Unknown]
    findings: _containers.RepeatedCompositeFieldContainer[Finding]
    def __init__(self, week_number: _Optional[int] = ..., first_session: _Optional[bool] = ..., hypotheses: _Optional[_Iterable[_Union[Hypothesis, _Mapping]]] = ..., unknowns: _Optional[_Iterable[_Union[Unknown, _Mapping]]] = ..., findings: _Optional[_Iterable[_Union[Finding, _Mapping]]] = ...) -> None: ...

class FormHypothesisRequest(_message.Message):
    __slots__ = ("statement", "evidence", "request_id")
    STATEMENT_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    statement: str
    evidence: _containers.RepeatedCompositeFieldContainer[HypothesisEvidenceInput]
    request_id: str
    def __init__(self, statement: _Optional[str] = ..., evidence: _Optional[_Iterable[_Union[HypothesisEvidenceInput, _Mapping]]] = ..., request_id: _Optional[str] = ...) -> None: ...

class FormHypothesisResponse(_message.Message):
    __slots__ = ("hypothesis",)
    HYPOTHESIS_FIELD_NUMBER: _ClassVar[int]
    hypothesis: Hypothesis
    def __init__(self, hypothesis: _Optional[_Union[Hypothesis, _Mapping]] = ...) -> None: ...

class AddHypothesisEvidenceRequest(_message.Message):
    __slots__ = ("hypothesis_id", "evidence", "request_id")
    HYPOTHESIS_ID_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    hypothesis_id: str
    evidence: HypothesisEvidenceInput
    request_id: str
    def __init__(self, hypothesis_id: _Optional[str] = ..., evidence: _Optional[_Union[HypothesisEvidenceInput, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class AddHypothesisEvidenceResponse(_message.Message):
    __slots__ = ("hypothesis",)
    HYPOTHESIS_FIELD_NUMBER: _ClassVar[int]
    hypothesis: Hypothesis
    def __init__(self, hypothesis: _Optional[_Union[Hypothesis, _Mapping]] = ...) -> None: ...

class ReviseHypothesisRequest(_message.Message):
    __slots__ = ("hypothesis_id", "confidence", "reason", "statement")
    HYPOTHESIS_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    STATEMENT_FIELD_NUMBER: _ClassVar[int]
    hypothesis_id: str
    confidence: float
    reason: str
    statement: str
    def __init__(self, hypothesis_id: _Optional[str] = ..., confidence: _Optional[float] = ..., reason: _Optional[str] = ..., statement: _Optional[str] = ...) -> None: ...

class ReviseHypothesisResponse(_message.Message):
    __slots__ = ("hypothesis",)
    HYPOTHESIS_FIELD_NUMBER: _ClassVar[int]
    hypothesis: Hypothesis
    def __init__(self, hypothesis: _Optional[_Union[Hypothesis, _Mapping]] = ...) -> None: ...

class PromoteHypothesisRequest(_message.Message):
    __slots__ = ("hypothesis_id", "statement", "source")
    HYPOTHESIS_ID_FIELD_NUMBER: _ClassVar[int]
    STATEMENT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    hypothesis_id: str
    statement: str
    source: str
    def __init__(self, hypothesis_id: _Optional[str] = ..., statement: _Optional[str] = ..., source: _Optional[str] = ...) -> None: ...

class PromoteHypothesisResponse(_message.Message):
    __slots__ = ("hypothesis", "finding")
    HYPOTHESIS_FIELD_NUMBER: _ClassVar[int]
    FINDING_FIELD_NUMBER: _ClassVar[int]
    hypothesis: Hypothesis
    finding: Finding
    def __init__(self, hypothesis: _Optional[_Union[Hypothesis, _Mapping]] = ..., finding: _Optional[_Union[Finding, _Mapping]] = ...) -> None: ...

class ArchiveHypothesisRequest(_message.Message):
    __slots__ = ("hypothesis_id", "note")
    HYPOTHESIS_ID_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    hypothesis_id: str
    note: str
    def __init__(self, hypothesis_id: _Optional[str] = ..., note: _Optional[str] = ...) -> None: ...

class ArchiveHypothesisResponse(_message.Message):
    __slots__ = ("hypothesis",)
    HYPOTHESIS_FIELD_NUMBER: _ClassVar[int]
    hypothesis: Hypothesis
    def __init__(self, hypothesis: _Optional[_Union[Hypothesis, _Mapping]] = ...) -> None: ...

class AddUnknownRequest(_message.Message):
    __slots__ = ("question", "why_it_matters", "request_id")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    WHY_IT_MATTERS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    question: str
    why_it_matters: str
    request_id: str
    def __init__(self, question: _Optional[str] = ..., why_it_matters: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class AddUnknownResponse(_message.Message):
    __slots__ = ("unknown",)
    UNKNOWN_FIELD_NUMBER: _ClassVar[int]
    unknown: Unknown
    def __init__(self, unknown: _Optional[_Union[Unknown, _Mapping]] = ...) -> None: ...

class ResolveUnknownRequest(_message.Message):
    __slots__ = ("unknown_id", "resolution")
    UNKNOWN_ID_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    unknown_id: str
    resolution: str
    def __init__(self, unknown_id: _Optional[str] = ..., resolution: _Optional[str] = ...) -> None: ...

class ResolveUnknownResponse(_message.Message):
    __slots__ = ("unknown",)
    UNKNOWN_FIELD_NUMBER: _ClassVar[int]
    unknown: Unknown
    def __init__(self, unknown: _Optional[_Union[Unknown, _Mapping]] = ...) -> None: ...

class AdvanceWeekRequest(_message.Message):
    __slots__ = ("expected_week_number",)
    EXPECTED_WEEK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    expected_week_number: int
    def __init__(self, expected_week_number: _Optional[int] = ...) -> None: ...

class AdvanceWeekResponse(_message.Message):
    __slots__ = ("week_number",)
    WEEK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    week_number: int
    def __init__(self, week_number: _Optional[int] = ...) -> None: ...

class EngagementState(_message.Message):
    __slots__ = ("week_number", "week_started_at", "created_at", "updated_at")
    WEEK_NUMBER_FIELD_NUMBER: _ClassVar[int]
    WEEK_STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    week_number: int
    week_started_at: _timestamp_pb2.Timestamp
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, week_number: _Optional[int] = ..., week_started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ExportEngagementRequest(_message.Message):
    __slots__ = ("page_size",)
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    def __init__(self, page_size: _Optional[int] = ...) -> None: ...

class ExportEngagementResponse(_message.Message):
    __slots__ = ("engagement", "hypotheses", "unknowns")
    ENGAGEMENT_FIELD_NUMBER: _ClassVar[int]
    HYPOTHESES_FIELD_NUMBER: _ClassVar[int]
    UNKNOWNS_FIELD_NUMBER: _ClassVar[int]
    engagement: EngagementState
    hypotheses: _containers.RepeatedCompositeFieldContainer[Hypothesis]
    unknowns: _containers.RepeatedCompositeFieldContainer[Unknown]
    def __init__(self, engagement: _Optional[_Union[EngagementState, _Mapping]] = ..., hypotheses: _Optional[_Iterable[_Union[Hypothesis, _Mapping]]] = ..., unknowns: _Optional[_Iterable[_Union[Unknown, _Mapping]]] = ...) -> None: ...

class ImportEngagementRequest(_message.Message):
    __slots__ = ("engagement", "hypotheses", "unknowns")
    ENGAGEMENT_FIELD_NUMBER: _ClassVar[int]
    HYPOTHESES_FIELD_NUMBER: _ClassVar[int]
    UNKNOWNS_FIELD_NUMBER: _ClassVar[int]
    engagement: EngagementState
    hypotheses: _containers.RepeatedCompositeFieldContainer[Hypothesis]
    unknowns: _containers.RepeatedCompositeFieldContainer[Unknown]
    def __init__(self, engagement: _Optional[_Union[EngagementState, _Mapping]] = ..., hypotheses: _Optional[_Iterable[_Union[Hypothesis, _Mapping]]] = ..., unknowns: _Optional[_Iterable[_Union[Unknown, _Mapping]]] = ...) -> None: ...

class ImportEngagementResponse(_message.Message):
    __slots__ = ("imported_hypotheses", "imported_unknowns", "skipped")
    IMPORTED_HYPOTHESES_FIELD_NUMBER: _ClassVar[int]
    IMPORTED_UNKNOWNS_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    imported_hypotheses: int
    imported_unknowns: int
    skipped: int
    def __init__(self, imported_hypotheses: _Optional[int] = ..., imported_unknowns: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...
