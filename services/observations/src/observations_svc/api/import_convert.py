"""pb2 -> domain for ``lore org import``: exported observations and engagement state back into
stored records, every field as given (nothing is re-scored). The structure is checked here, the
invariants in ``domain.restore``; errors name the field in proto path form (``observations[2].
evidence[0].weight``) so the CLI can point at the line of the file."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from google.protobuf.message import Message
from lore.observations.v1 import engagement_service_pb2 as engagement_pb
from lore.observations.v1 import observation_service_pb2 as pb
from lore_runtime.errors import InvalidArgument
from lore_runtime.proto_time import from_timestamp, observed_from_timestamp

from observations_svc.api.engagement_convert import HYPOTHESIS_STATUSES, LINE_STANCES, UNKNOWN_STATUSES
from observations_svc.api.observation_convert import (
    KINDS,
    SOURCE_TYPES,
    STANCES,
    STATUSES,
    SUBJECT_TYPES,
    components_from_pb,
    enum_value,
)
from observations_svc.domain import engagement as model
from observations_svc.domain import restore
from observations_svc.domain.keys import validate_scope_id, validate_slot, validate_subject
from observations_svc.domain.model import Evidence, Observation


def _time(message: Message, name: str, field: str, *, required: bool = True) -> datetime | None:
    found = from_timestamp(message, name, f"{field}.{name}")
    if found is None and required:
        raise InvalidArgument(f"{field}.{name}", "is required")
    return found


def _observed(message: Message, name: str, field: str, now: datetime) -> datetime:
    """A required moment something was seen or recorded: at most ``now`` plus the clock skew."""
    found = observed_from_timestamp(message, name, f"{field}.{name}", now)
    if found is None:
        raise InvalidArgument(f"{field}.{name}", "is required")
    return found


def _choice(mapping: dict, value: int, field: str):  # type: ignore[no-untyped-def]
    if value not in mapping:
        raise InvalidArgument(field, f"must be one of {', '.join(str(item) for item in mapping.values())}")
    return mapping[value]


def evidence_from_pb(item: pb.Evidence, field: str, now: datetime) -> Evidence:
    return Evidence(
        id=item.id,
        observation_id=item.observation_id,
        stance=enum_value(STANCES, item.stance, f"{field}.stance"),
        weight=item.weight,
        source_type=enum_value(SOURCE_TYPES, item.source_type, f"{field}.source_type"),
        source_id=item.source_id,
        excerpt=item.excerpt,
        observed_at=_observed(item, "observed_at", field, now),
        operator_confirmed=item.operator_confirmed,
        created_at=_time(item, "created_at", field),  # type: ignore[arg-type]
    )


def observation_from_pb(item: pb.Observation, org_id: str, field: str, now: datetime) -> Observation:
    kind = enum_value(KINDS, item.kind, f"{field}.kind")
    subject_type = enum_value(SUBJECT_TYPES, item.subject_type, f"{field}.subject_type")
    validate_subject(subject_type, item.subject_id, f"{field}.subject_id")
    observation = Observation(
        id=item.id,
        org_id=org_id,
        agent_id=item.agent_id,
        kind=kind,
        subject_type=subject_type,
        subject_id=item.subject_id,
        slot=validate_slot(item.slot, f"{field}.slot"),
        canonical_key=item.canonical_key,
        summary=item.summary,
        detail=item.detail,
        tags=tuple(item.tags),
        confidence=item.confidence,
        components=components_from_pb(item.confidence_components),
        freshness=item.freshness,
        last_supported_at=_time(item, "last_supported_at", field, required=False),
        revalidation_due_at=_time(item, "revalidation_due_at", field),  # type: ignore[arg-type]
        status=enum_value(STATUSES, item.status, f"{field}.status"),
        supersedes_observation_id=item.supersedes_observation_id or None,
        created_at=_time(item, "created_at", field),  # type: ignore[arg-type]
        updated_at=_time(item, "updated_at", field),  # type: ignore[arg-type]
        evidence=tuple(
            evidence_from_pb(evidence, f"{field}.evidence[{position}]", now)
            for position, evidence in enumerate(item.evidence)
        ),
        **_scope(item, subject_type, field),
    )
    return restore.validate_observation(observation, field)


def _scope(item: pb.Observation, subject_type: str, field: str) -> dict[str, Any]:
    """The belief's user, team and attribution. A line exported before beliefs had a scope has none:
    it is read as migration 0005 read such rows (``entity:<id>`` is user ``<id>``'s; any other belief
    unattributed), so an old export never turns a user's belief into the org's."""
    if not item.HasField("scope"):
        if subject_type == "entity":
            return {"user_id": item.subject_id, "team_id": "", "unattributed": item.unattributed}
        return {"user_id": "", "team_id": "", "unattributed": True}
    if item.scope.agent_id and item.scope.agent_id != item.agent_id:
        raise InvalidArgument(f"{field}.scope.agent_id", "must be agent_id, or be left out")
    return {
        "user_id": validate_scope_id(item.scope.user_id, f"{field}.scope.user_id"),
        "team_id": validate_scope_id(item.scope.team_id, f"{field}.scope.team_id"),
        "unattributed": item.unattributed,
    }


def observations_from_pb(request: pb.ImportObservationsRequest, org_id: str, now: datetime) -> list[Observation]:
    """``now``: the service's clock, the end of the range evidence times may take (with clock skew)."""
    restore.batch_size(len(request.observations), "observations")
    observations = [
        observation_from_pb(item, org_id, f"observations[{position}]", now)
        for position, item in enumerate(request.observations)
    ]
    restore.unique_ids([observation.id for observation in observations], "observations")
    restore.current_keys_unique(observations, "observations")
    return observations


def engagement_row_from_pb(row: engagement_pb.EngagementState, field: str) -> restore.EngagementRow:
    return restore.validate_engagement_row(
        restore.EngagementRow(
            week_number=row.week_number,
            week_started_at=_time(row, "week_started_at", field),  # type: ignore[arg-type]
            created_at=_time(row, "created_at", field),  # type: ignore[arg-type]
            updated_at=_time(row, "updated_at", field),  # type: ignore[arg-type]
        ),
        field,
    )


def hypothesis_from_pb(
    item: engagement_pb.Hypothesis, field: str, now: datetime
) -> tuple[model.Hypothesis, model.Finding | None]:
    revisions = tuple(
        model.Revision(
            previous_statement=revision.previous_statement,
            statement=revision.statement,
            previous_confidence=revision.previous_confidence,
            confidence=revision.confidence,
            reason=revision.reason,
            revised_at=_time(revision, "revised_at", f"{field}.revisions[{position}]"),  # type: ignore[arg-type]
        )
        for position, revision in enumerate(item.revisions)
    )
    finding = None
    if item.HasField("finding"):
        finding = model.Finding(
            id=item.finding.id,
            statement=item.finding.statement,
            source=item.finding.source,
            hypothesis_id=item.finding.hypothesis_id,
            recorded_at=_observed(item.finding, "recorded_at", f"{field}.finding", now),
        )
    hypothesis = model.Hypothesis(
        id=item.id,
        statement=item.statement,
        confidence=item.confidence,
        status=_choice(HYPOTHESIS_STATUSES, item.status, f"{field}.status"),
        prior=restore.prior_of([revision.confidence for revision in revisions]),
        evidence=tuple(
            model.EvidenceLine(
                id=line.id,
                statement=line.statement,
                stance=_choice(LINE_STANCES, line.stance, f"{field}.evidence[{position}].stance"),
                weight=line.weight,
                source=line.source,
                observed_at=_observed(line, "observed_at", f"{field}.evidence[{position}]", now),
                recorded_at=_observed(line, "recorded_at", f"{field}.evidence[{position}]", now),
                epoch=line.epoch,
            )
            for position, line in enumerate(item.evidence)
        ),
        revisions=revisions,
        created_at=_time(item, "created_at", field),  # type: ignore[arg-type]
        updated_at=_time(item, "updated_at", field),  # type: ignore[arg-type]
        archive_note=item.archive_note,
        finding_id=item.finding_id,
    )
    return restore.validate_hypothesis(hypothesis, finding, field), finding


def unknown_from_pb(item: engagement_pb.Unknown, field: str) -> model.Unknown:
    unknown = model.Unknown(
        id=item.id,
        question=item.question,
        why_it_matters=item.why_it_matters,
        status=_choice(UNKNOWN_STATUSES, item.status, f"{field}.status"),
        created_at=_time(item, "created_at", field),  # type: ignore[arg-type]
        resolution=item.resolution,
        resolved_at=_time(item, "resolved_at", field, required=False),
    )
    return restore.validate_unknown(unknown, field)


def engagement_import_from_pb(
    request: engagement_pb.ImportEngagementRequest, now: datetime
) -> tuple[restore.EngagementRow | None, list[tuple[model.Hypothesis, model.Finding | None]], list[model.Unknown]]:
    if len(request.hypotheses) + len(request.unknowns) > restore.MAX_IMPORT_BATCH:
        raise InvalidArgument("hypotheses", f"at most {restore.MAX_IMPORT_BATCH} hypotheses plus unknowns per call")
    row = engagement_row_from_pb(request.engagement, "engagement") if request.HasField("engagement") else None
    hypotheses = [
        hypothesis_from_pb(item, f"hypotheses[{position}]", now) for position, item in enumerate(request.hypotheses)
    ]
    unknowns = [unknown_from_pb(item, f"unknowns[{position}]") for position, item in enumerate(request.unknowns)]
    restore.unique_ids([hypothesis.id for hypothesis, _ in hypotheses], "hypotheses")
    restore.unique_ids([unknown.id for unknown in unknowns], "unknowns")
    return row, hypotheses, unknowns
