"""What an imported record must satisfy before it is stored as it is (``lore org import``).

An import restores beliefs and engagement state exactly, so nothing is recomputed: instead each
record is checked against the invariants the live rules would have kept (and the database
enforces), so a tampered file is refused with the field that is wrong rather than half-written.
Pure: values in, ``InvalidArgument`` naming the field out.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from lore_runtime.errors import InvalidArgument

from observations_svc.domain import engagement_limits
from observations_svc.domain import limits as observation_limits
from observations_svc.domain.engagement import (
    INITIAL_PRIOR,
    Finding,
    Hypothesis,
    HypothesisStatus,
    Unknown,
    UnknownStatus,
)
from observations_svc.domain.keys import canonical_key, validate_agent_id
from observations_svc.domain.model import CURRENT_STATUSES, SOURCE_TYPES, STANCES, STATUSES, Observation

# Records per import call (observations, or hypotheses plus unknowns).
MAX_IMPORT_BATCH = 500
# Evidence accumulates for the life of a belief: far more than one Observe may send.
MAX_IMPORTED_EVIDENCE = 10_000


@dataclass(frozen=True, slots=True)
class EngagementRow:
    """The org's engagement row: the week and when it started."""

    week_number: int
    week_started_at: datetime
    created_at: datetime
    updated_at: datetime


def record_id(value: str, field: str) -> str:
    """An id as stored: a canonical (lower-case, hyphenated) UUID."""
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        raise InvalidArgument(field, "must be a UUID") from None
    if str(parsed) != value:
        raise InvalidArgument(field, f"must be in canonical form ({parsed})")
    return value


def _fraction(value: float, field: str) -> None:
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise InvalidArgument(field, "must be between 0 and 1")


def _text(value: str, field: str, maximum: int, *, required: bool = True) -> None:
    if required and not value.strip():
        raise InvalidArgument(field, "must not be empty")
    if len(value) > maximum:
        raise InvalidArgument(field, f"at most {maximum} characters")


def _weight(value: float, field: str, maximum: float) -> None:
    if not (math.isfinite(value) and 0.0 < value <= maximum):
        raise InvalidArgument(field, f"must be in (0, {maximum:g}]")


def unique_ids(ids: Sequence[str], field: str) -> None:
    seen: dict[str, int] = {}
    for position, value in enumerate(ids):
        if value in seen:
            raise InvalidArgument(f"{field}[{position}].id", f"repeats {field}[{seen[value]}]")
        seen[value] = position


def batch_size(size: int, field: str) -> None:
    if not size:
        raise InvalidArgument(field, "at least one record is required")
    if size > MAX_IMPORT_BATCH:
        raise InvalidArgument(field, f"at most {MAX_IMPORT_BATCH} records per call")


def validate_observation(observation: Observation, field: str) -> Observation:
    record_id(observation.id, f"{field}.id")
    validate_agent_id(observation.agent_id, f"{field}.agent_id")
    key = canonical_key(observation.subject_type, observation.subject_id, observation.kind, observation.slot)
    if observation.canonical_key != key:
        raise InvalidArgument(f"{field}.canonical_key", f"must be {key}, built from subject, kind and slot")
    _text(observation.summary, f"{field}.summary", observation_limits.MAX_SUMMARY_CHARS)
    _text(observation.detail, f"{field}.detail", observation_limits.MAX_DETAIL_CHARS, required=False)
    if len(observation.tags) > observation_limits.MAX_TAGS:
        raise InvalidArgument(f"{field}.tags", f"at most {observation_limits.MAX_TAGS} tags")
    for position, tag in enumerate(observation.tags):
        _text(tag, f"{field}.tags[{position}]", observation_limits.MAX_TAG_CHARS)
    _fraction(observation.confidence, f"{field}.confidence")
    _fraction(observation.freshness, f"{field}.freshness")
    parts = observation.components
    if parts.source_count < 0:
        raise InvalidArgument(f"{field}.confidence_components.source_count", "must not be negative")
    for name in ("source_diversity", "support_weight", "contradiction_weight", "recency_weight"):
        value = getattr(parts, name)
        if not (math.isfinite(value) and value >= 0):
            raise InvalidArgument(f"{field}.confidence_components.{name}", "must be a non-negative number")
    if not math.isfinite(parts.operator_confirmed_boost):
        raise InvalidArgument(f"{field}.confidence_components.operator_confirmed_boost", "must be a number")
    if observation.status not in STATUSES:
        raise InvalidArgument(f"{field}.status", f"must be one of {', '.join(STATUSES)}")
    if observation.supersedes_observation_id is not None:
        record_id(observation.supersedes_observation_id, f"{field}.supersedes_observation_id")
        if observation.supersedes_observation_id == observation.id:
            raise InvalidArgument(f"{field}.supersedes_observation_id", "must not be the observation itself")
    if len(observation.evidence) > MAX_IMPORTED_EVIDENCE:
        raise InvalidArgument(f"{field}.evidence", f"at most {MAX_IMPORTED_EVIDENCE} items")
    for position, item in enumerate(observation.evidence):
        where = f"{field}.evidence[{position}]"
        record_id(item.id, f"{where}.id")
        if item.observation_id != observation.id:
            raise InvalidArgument(f"{where}.observation_id", "must be the id of the observation it belongs to")
        if item.stance not in STANCES:
            raise InvalidArgument(f"{where}.stance", f"must be one of {', '.join(STANCES)}")
        if item.source_type not in SOURCE_TYPES:
            raise InvalidArgument(f"{where}.source_type", f"must be one of {', '.join(SOURCE_TYPES)}")
        _weight(item.weight, f"{where}.weight", observation_limits.MAX_WEIGHT)
        _text(item.source_id, f"{where}.source_id", observation_limits.MAX_SOURCE_ID_CHARS)
        _text(item.excerpt, f"{where}.excerpt", observation_limits.MAX_EXCERPT_CHARS, required=False)
    unique_ids([item.id for item in observation.evidence], f"{field}.evidence")
    return observation


def supersession_order(observations: Sequence[Observation]) -> list[int]:
    """Positions of ``observations`` with every superseded belief before the one superseding it."""
    position_of = {observation.id: position for position, observation in enumerate(observations)}
    placed: set[int] = set()
    order: list[int] = []
    for start in range(len(observations)):
        chain: list[int] = []
        position: int | None = start
        while position is not None and position not in placed and position not in chain:
            chain.append(position)
            predecessor = observations[position].supersedes_observation_id
            position = position_of.get(predecessor) if predecessor else None
        if position is not None and position in chain:
            raise InvalidArgument(f"observations[{start}].supersedes_observation_id", "forms a supersession cycle")
        for item in reversed(chain):
            placed.add(item)
            order.append(item)
    return order


def current_keys_unique(observations: Sequence[Observation], field: str) -> None:
    """At most one current (active or stale) attributed belief per scope and key, as the database requires."""
    seen: dict[tuple[str, str, str, str], int] = {}
    for position, observation in enumerate(observations):
        if observation.status in CURRENT_STATUSES and not observation.unattributed:
            key = (observation.agent_id, observation.user_id, observation.team_id, observation.canonical_key)
            if key in seen:
                raise InvalidArgument(
                    f"{field}[{position}].status", f"a second current belief for its key ({field}[{seen[key]}])"
                )
            seen[key] = position


def validate_engagement_row(row: EngagementRow, field: str) -> EngagementRow:
    if row.week_number < 1:
        raise InvalidArgument(f"{field}.week_number", "must be at least 1")
    return row


def validate_hypothesis(hypothesis: Hypothesis, finding: Finding | None, field: str) -> Hypothesis:
    """Checks the imported hypothesis; its ``prior`` is the last revision's confidence (0.5 without)."""
    record_id(hypothesis.id, f"{field}.id")
    _text(hypothesis.statement, f"{field}.statement", engagement_limits.MAX_STATEMENT_CHARS)
    _fraction(hypothesis.confidence, f"{field}.confidence")
    _text(hypothesis.archive_note, f"{field}.archive_note", engagement_limits.MAX_TEXT_CHARS, required=False)
    if (hypothesis.status is HypothesisStatus.ARCHIVED) != bool(hypothesis.archive_note.strip()):
        raise InvalidArgument(f"{field}.archive_note", "is required of an archived hypothesis, and only of one")
    if (hypothesis.status is HypothesisStatus.PROMOTED) != (finding is not None):
        raise InvalidArgument(f"{field}.finding", "is required of a promoted hypothesis, and only of one")
    if finding is not None:
        record_id(finding.id, f"{field}.finding.id")
        if hypothesis.finding_id != finding.id:
            raise InvalidArgument(f"{field}.finding_id", "must be the id of its finding")
        if finding.hypothesis_id != hypothesis.id:
            raise InvalidArgument(f"{field}.finding.hypothesis_id", "must be the id of the hypothesis")
        _text(finding.statement, f"{field}.finding.statement", engagement_limits.MAX_STATEMENT_CHARS)
        _text(finding.source, f"{field}.finding.source", engagement_limits.MAX_SOURCE_CHARS, required=False)
    elif hypothesis.finding_id:
        raise InvalidArgument(f"{field}.finding_id", "only a promoted hypothesis has a finding")
    for position, revision in enumerate(hypothesis.revisions):
        where = f"{field}.revisions[{position}]"
        _text(revision.statement, f"{where}.statement", engagement_limits.MAX_STATEMENT_CHARS)
        _text(revision.previous_statement, f"{where}.previous_statement", engagement_limits.MAX_STATEMENT_CHARS)
        _text(revision.reason, f"{where}.reason", engagement_limits.MAX_TEXT_CHARS)
        _fraction(revision.confidence, f"{where}.confidence")
        _fraction(revision.previous_confidence, f"{where}.previous_confidence")
    for position, line in enumerate(hypothesis.evidence):
        where = f"{field}.evidence[{position}]"
        record_id(line.id, f"{where}.id")
        _text(line.statement, f"{where}.statement", engagement_limits.MAX_STATEMENT_CHARS)
        _text(line.source, f"{where}.source", engagement_limits.MAX_SOURCE_CHARS, required=False)
        _weight(line.weight, f"{where}.weight", engagement_limits.MAX_WEIGHT)
        if not 0 <= line.epoch <= len(hypothesis.revisions):
            raise InvalidArgument(
                f"{where}.epoch", f"must be between 0 and the revision count ({len(hypothesis.revisions)})"
            )
    unique_ids([line.id for line in hypothesis.evidence], f"{field}.evidence")
    return hypothesis


def prior_of(revisions_confidences: Sequence[float]) -> float:
    """The rule's prior: the confidence the last revision set, or the initial prior."""
    return revisions_confidences[-1] if revisions_confidences else INITIAL_PRIOR


def validate_unknown(unknown: Unknown, field: str) -> Unknown:
    record_id(unknown.id, f"{field}.id")
    _text(unknown.question, f"{field}.question", engagement_limits.MAX_TEXT_CHARS)
    _text(unknown.why_it_matters, f"{field}.why_it_matters", engagement_limits.MAX_TEXT_CHARS)
    _text(unknown.resolution, f"{field}.resolution", engagement_limits.MAX_TEXT_CHARS, required=False)
    resolved = unknown.status is UnknownStatus.RESOLVED
    if resolved != (unknown.resolved_at is not None and bool(unknown.resolution.strip())):
        raise InvalidArgument(
            f"{field}.resolution", "a resolved unknown has a resolution and resolved_at; an open one neither"
        )
    return unknown
