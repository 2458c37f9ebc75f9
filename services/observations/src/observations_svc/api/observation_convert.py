"""pb2 <-> domain for the ObservationService: enum names, validation naming the field, limits."""

from __future__ import annotations

import math
from dataclasses import asdict, fields
from datetime import datetime

from lore.common.v1 import scope_pb2
from lore.observations.v1 import observation_service_pb2 as pb
from lore_embeddings import Embedder
from lore_runtime.errors import InvalidArgument
from lore_runtime.proto_time import observed_from_timestamp
from lore_runtime.request_context import RequestContext

from observations_svc.api.messages import message_of
from observations_svc.api.proto_enums import numbered, reverse
from observations_svc.domain import limits, model
from observations_svc.domain.keys import validate_agent_id, validate_scope_id, validate_slot, validate_subject
from observations_svc.domain.model import (
    BeliefScope,
    Candidate,
    ConfidenceComponents,
    Evidence,
    EvidenceDraft,
    Observation,
)
from observations_svc.usecases.ports import EngagementErasure, ErasureRequest, QueryFilters, SearchFilters
from observations_svc.usecases.read import SearchResult

KINDS = numbered(pb.ObservationKind, "OBSERVATION_KIND_", model.KINDS)
SUBJECT_TYPES = numbered(pb.SubjectType, "SUBJECT_TYPE_", model.SUBJECT_TYPES)
STATUSES = numbered(pb.ObservationStatus, "OBSERVATION_STATUS_", model.STATUSES)
STANCES = numbered(pb.EvidenceStance, "EVIDENCE_STANCE_", model.STANCES)
SOURCE_TYPES = numbered(pb.SourceType, "SOURCE_TYPE_", model.SOURCE_TYPES)
OUTCOMES = {
    "created": pb.OBSERVE_OUTCOME_CREATED,
    "supported": pb.OBSERVE_OUTCOME_SUPPORTED,
    "contradicted": pb.OBSERVE_OUTCOME_CONTRADICTED,
    "superseded": pb.OBSERVE_OUTCOME_SUPERSEDED,
}


_KIND_NUMBERS, _SUBJECT_NUMBERS, _STATUS_NUMBERS = reverse(KINDS), reverse(SUBJECT_TYPES), reverse(STATUSES)
_STANCE_NUMBERS, _SOURCE_NUMBERS = reverse(STANCES), reverse(SOURCE_TYPES)


def enum_value(mapping: dict[int, str], value: int, field: str, *, optional: bool = False) -> str:
    if optional and value == 0:
        return ""
    if value not in mapping:
        raise InvalidArgument(field, f"must be one of {', '.join(mapping.values())}")
    return mapping[value]


def bounded_text(value: str, field: str, maximum: int, *, required: bool = False) -> str:
    if required and not value.strip():
        raise InvalidArgument(field, "must not be empty")
    if len(value) > maximum:
        raise InvalidArgument(field, f"at most {maximum} characters")
    return value.strip() if required else value


def evidence_from_pb(
    item: pb.EvidenceInput, field: str, now: datetime, *, stance_optional: bool = False
) -> EvidenceDraft:
    stance = enum_value(STANCES, item.stance, f"{field}.stance", optional=stance_optional) or "contradict"
    weight = item.weight if item.HasField("weight") else limits.DEFAULT_WEIGHT
    if not (math.isfinite(weight) and 0 < weight <= limits.MAX_WEIGHT):
        raise InvalidArgument(f"{field}.weight", f"must be in (0, {limits.MAX_WEIGHT:g}]")
    source_id = bounded_text(item.source_id, f"{field}.source_id", limits.MAX_SOURCE_ID_CHARS, required=True)
    return EvidenceDraft(
        stance=stance,
        weight=weight,
        source_type=enum_value(SOURCE_TYPES, item.source_type, f"{field}.source_type"),
        source_id=source_id,
        excerpt=bounded_text(item.excerpt, f"{field}.excerpt", limits.MAX_EXCERPT_CHARS),
        observed_at=observed_from_timestamp(item, "observed_at", f"{field}.observed_at", now) or now,
    )


def candidate_from_pb(candidate: pb.ObservationCandidate, now: datetime) -> Candidate:
    kind = enum_value(KINDS, candidate.kind, "candidate.kind")
    subject_type = enum_value(SUBJECT_TYPES, candidate.subject_type, "candidate.subject_type")
    validate_subject(subject_type, candidate.subject_id, "candidate.subject_id")
    if len(candidate.tags) > limits.MAX_TAGS:
        raise InvalidArgument("candidate.tags", f"at most {limits.MAX_TAGS} tags")
    if len(candidate.evidence) > limits.MAX_EVIDENCE_ITEMS:
        raise InvalidArgument("candidate.evidence", f"at most {limits.MAX_EVIDENCE_ITEMS} items")
    return Candidate(
        kind=kind,
        subject_type=subject_type,
        subject_id=candidate.subject_id,
        slot=validate_slot(candidate.slot, "candidate.slot"),
        summary=bounded_text(candidate.summary, "candidate.summary", limits.MAX_SUMMARY_CHARS, required=True),
        detail=bounded_text(candidate.detail, "candidate.detail", limits.MAX_DETAIL_CHARS),
        tags=tuple(
            bounded_text(tag, f"candidate.tags[{index}]", limits.MAX_TAG_CHARS, required=True)
            for index, tag in enumerate(candidate.tags)
        ),
        evidence=tuple(
            evidence_from_pb(item, f"candidate.evidence[{index}]", now) for index, item in enumerate(candidate.evidence)
        ),
    )


def belief_scope_from_pb(request: pb.ObserveRequest) -> BeliefScope:
    """Whose belief an Observe records: ``agent_id`` and ``scope`` (whose ``agent_id``, when set, must be
    the same agent, or names it when ``agent_id`` is empty)."""
    agent_id = validate_agent_id(request.agent_id)
    named = validate_agent_id(request.scope.agent_id, "scope.agent_id")
    if named and agent_id and named != agent_id:
        raise InvalidArgument("scope.agent_id", "must be agent_id, or be left out")
    return BeliefScope(
        agent_id=agent_id or named,
        user_id=validate_scope_id(request.scope.user_id, "scope.user_id"),
        team_id=validate_scope_id(request.scope.team_id, "scope.team_id"),
    )


def _scope_match(value: int) -> bool:
    """True for SCOPE_MATCH_CONTEXT (a context's view), False for a browse."""
    if value not in (scope_pb2.SCOPE_MATCH_UNSPECIFIED, scope_pb2.SCOPE_MATCH_CONTEXT):
        raise InvalidArgument("scope_match", "must be SCOPE_MATCH_UNSPECIFIED or SCOPE_MATCH_CONTEXT")
    return value == scope_pb2.SCOPE_MATCH_CONTEXT


def query_filters_from_pb(request: pb.QueryObservationsRequest) -> QueryFilters:
    subject_type = enum_value(SUBJECT_TYPES, request.subject_type, "subject_type", optional=True)
    if request.subject_id:
        validate_subject(subject_type or "entity", request.subject_id)
    if len(request.tags) > limits.MAX_TAGS:
        raise InvalidArgument("tags", f"at most {limits.MAX_TAGS} tags")
    return QueryFilters(
        agent_id=validate_agent_id(request.agent_id),
        user_id=validate_scope_id(request.user_id, "user_id"),
        team_id=validate_scope_id(request.team_id, "team_id"),
        context=_scope_match(request.scope_match),
        kind=enum_value(KINDS, request.kind, "kind", optional=True),
        subject_type=subject_type,
        subject_id=request.subject_id,
        canonical_key=bounded_text(request.canonical_key, "canonical_key", 512),
        status=enum_value(STATUSES, request.status, "status", optional=True),
        min_confidence=_unit_interval(request, "min_confidence"),
        tags=tuple(bounded_text(tag, "tags", limits.MAX_TAG_CHARS) for tag in request.tags),
    )


def _unit_interval(request, field: str) -> float | None:
    if not request.HasField(field):
        return None
    value = getattr(request, field)
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise InvalidArgument(field, "must be in [0, 1]")
    return value


def search_filters_from_pb(request: pb.SearchObservationsRequest) -> SearchFilters:
    statuses = tuple(enum_value(STATUSES, value, "statuses") for value in request.statuses) or ("active",)
    return SearchFilters(
        agent_id=validate_agent_id(request.agent_id),
        user_id=validate_scope_id(request.user_id, "user_id"),
        team_id=validate_scope_id(request.team_id, "team_id"),
        kinds=tuple(enum_value(KINDS, value, "kinds") for value in request.kinds),
        statuses=statuses,
        min_confidence=_unit_interval(request, "min_confidence"),
    )


def page_size(value: int, field: str = "page_size") -> int:
    if value < 0:
        raise InvalidArgument(field, "must not be negative")
    return min(value, limits.MAX_PAGE_SIZE) or limits.DEFAULT_PAGE_SIZE


def search_k(value: int) -> int:
    if value < 0 or value > limits.MAX_SEARCH_K:
        raise InvalidArgument("k", f"must be in 0..{limits.MAX_SEARCH_K} (0 means {limits.DEFAULT_SEARCH_K})")
    return value or limits.DEFAULT_SEARCH_K


def id_from_pb(value: str, field: str = "id") -> str:
    if not value:
        raise InvalidArgument(field, "must not be empty")
    return bounded_text(value, field, 64)


def request_id_from_pb(value: str) -> str:
    """The client's own retry key (never the transport's request id: a retry gets a new one)."""
    return bounded_text(value, "request_id", limits.MAX_REQUEST_ID_CHARS).strip()


def contradiction_from_pb(request: pb.ContradictObservationRequest, now: datetime) -> tuple[EvidenceDraft, str]:
    """The evidence (its stance contradict, or unset) and the correction of a ContradictObservation."""
    if not request.HasField("evidence"):
        raise InvalidArgument("evidence", "a contradiction needs its evidence")
    evidence = evidence_from_pb(request.evidence, "evidence", now, stance_optional=True)
    if evidence.stance != "contradict":
        raise InvalidArgument("evidence.stance", "must be contradict (or unset)")
    return evidence, bounded_text(request.correction, "correction", limits.MAX_SUMMARY_CHARS).strip()


def query_vector_from_pb(request: pb.SearchObservationsRequest, embedder: Embedder) -> list[float] | None:
    """The caller's query vector when it is this service's kind of vector; else None (embed).
    A vector of another model would be compared with ours as if it were one: never used."""
    given = request.query_embedding
    if not given or request.query_embedding_model != embedder.model_name:
        return None
    if len(given) != embedder.dimension or not all(math.isfinite(value) for value in given):
        raise InvalidArgument("query_embedding", f"must be {embedder.dimension} finite numbers")
    return list(given)


def erasure_from_pb(request: pb.EraseSubjectRequest, caller: RequestContext) -> ErasureRequest:
    """What an EraseSubject erases, with the caller's principal and the request's id or else the caller's."""
    if len(request.source_ids) > limits.MAX_SOURCE_IDS_TO_ERASE:
        raise InvalidArgument("source_ids", f"at most {limits.MAX_SOURCE_IDS_TO_ERASE} per call")
    source_ids = tuple(
        bounded_text(value, f"source_ids[{index}]", limits.MAX_SOURCE_ID_CHARS, required=True)
        for index, value in enumerate(request.source_ids)
    )
    return ErasureRequest(
        subject_type=enum_value(SUBJECT_TYPES, request.subject_type, "subject_type"),
        subject_id=request.subject_id,
        source_ids=source_ids,
        principal=caller.principal,
        request_id=bounded_text(request.request_id or caller.request_id, "request_id", limits.MAX_REQUEST_ID_CHARS),
        user_id=validate_scope_id(request.user_id, "user_id"),
    )


def evidence_to_pb(item: Evidence) -> pb.Evidence:
    return message_of(
        pb.Evidence, item, stance=_STANCE_NUMBERS[item.stance], source_type=_SOURCE_NUMBERS[item.source_type]
    )


def components_to_pb(parts: ConfidenceComponents) -> pb.ConfidenceComponents:
    return pb.ConfidenceComponents(**asdict(parts))


def components_from_pb(parts: pb.ConfidenceComponents) -> ConfidenceComponents:
    """The message names its fields as the domain does (and the stored JSON), so each is copied by name."""
    return ConfidenceComponents(**{field.name: getattr(parts, field.name) for field in fields(ConfidenceComponents)})


def observation_to_pb(observation: Observation) -> pb.Observation:
    return message_of(
        pb.Observation,
        observation,
        kind=_KIND_NUMBERS[observation.kind],
        subject_type=_SUBJECT_NUMBERS[observation.subject_type],
        confidence_components=components_to_pb(observation.components),
        status=_STATUS_NUMBERS[observation.status],
        supersedes_observation_id=observation.supersedes_observation_id or "",
        evidence=[evidence_to_pb(item) for item in observation.evidence],
        scope=scope_pb2.Scope(user_id=observation.user_id, agent_id=observation.agent_id, team_id=observation.team_id),
    )


def search_result_to_pb(result: SearchResult) -> pb.SearchObservationsResult:
    return pb.SearchObservationsResult(
        observation=observation_to_pb(result.observation),
        score=result.score,
        similarity=result.similarity,
        lexical_score=result.lexical,
        embedding=result.embedding or (),
    )


def fence_subject_from_pb(subject: scope_pb2.Scope) -> BeliefScope:
    """The subject a FenceSubject names: any ids a session's scope may hold (the erasure's)."""
    return BeliefScope(
        agent_id=validate_scope_id(subject.agent_id, "subject.agent_id"),
        user_id=validate_scope_id(subject.user_id, "subject.user_id"),
        team_id=validate_scope_id(subject.team_id, "subject.team_id"),
    )


def engagement_erasure_to_pb(erased: EngagementErasure | None) -> dict[str, int]:
    """EraseSubjectResponse's engagement counts."""
    if erased is None:
        return {}
    return {
        "hypotheses_erased": erased.hypotheses,
        "hypothesis_evidence_erased": erased.evidence,
        "findings_erased": erased.findings,
        "unknowns_erased": erased.unknowns,
    }
