"""Engagement use cases: validate, then let the store run the domain's transition atomically."""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence

from lore_runtime.clock import Clock
from lore_runtime.errors import InvalidArgument

from observations_svc.domain import engagement as model
from observations_svc.domain import engagement_limits as limits
from observations_svc.usecases.engagement_ports import EngagementStore


def _new_id() -> str:
    return str(uuid.uuid4())


def _existing_id(value: str, field: str) -> str:
    """A well-formed id (a UUID), so a typo is INVALID_ARGUMENT rather than NOT_FOUND."""
    try:
        return str(uuid.UUID(value.strip()))
    except ValueError:
        raise InvalidArgument(field, "must be a hypothesis or unknown id (a UUID)") from None


async def get_engagement(org_id: str, *, store: EngagementStore) -> model.Engagement:
    return await store.read(org_id)


async def get_engagement_digest(org_id: str, *, store: EngagementStore) -> model.EngagementDigest:
    """The open part of the state and the findings, what a context or reflection reads."""
    return await store.digest(org_id)


async def form_hypothesis(
    org_id: str,
    statement: str,
    evidence: Sequence[model.EvidenceDraft],
    request_id: str,
    *,
    store: EngagementStore,
    clock: Clock,
) -> model.Hypothesis:
    statement = model.required_text(statement, "statement", limits.MAX_STATEMENT_CHARS)
    if len(evidence) > limits.MAX_EVIDENCE_PER_HYPOTHESIS:
        raise InvalidArgument("evidence", f"at most {limits.MAX_EVIDENCE_PER_HYPOTHESIS} lines")
    drafts = [(_new_id(), model.validate_evidence(draft, f"evidence[{i}]")) for i, draft in enumerate(evidence)]
    request_id = model.validate_request_id(request_id)
    now = clock.now()
    return await store.form_hypothesis(
        org_id, request_id, now, lambda active: model.form_hypothesis(_new_id(), statement, drafts, active, now)
    )


async def add_hypothesis_evidence(
    org_id: str,
    hypothesis_id: str,
    evidence: model.EvidenceDraft,
    request_id: str,
    *,
    store: EngagementStore,
    clock: Clock,
) -> model.Hypothesis:
    hypothesis_id = _existing_id(hypothesis_id, "hypothesis_id")
    draft = model.validate_evidence(evidence, "evidence")
    request_id = model.validate_request_id(request_id)
    now = clock.now()
    change = await store.change_hypothesis(
        org_id,
        hypothesis_id,
        lambda hypothesis: model.add_evidence(hypothesis, _new_id(), draft, now),
        request_id=request_id,
    )
    return change.hypothesis


async def revise_hypothesis(
    org_id: str,
    hypothesis_id: str,
    confidence: float | None,
    reason: str,
    statement: str,
    *,
    store: EngagementStore,
    clock: Clock,
) -> model.Hypothesis:
    hypothesis_id = _existing_id(hypothesis_id, "hypothesis_id")
    if confidence is None:
        raise InvalidArgument("confidence", "is required: a revision sets the confidence")
    if not math.isfinite(confidence) or not 0.0 <= confidence <= 1.0:
        raise InvalidArgument("confidence", "must be in [0, 1]")
    reason = model.required_text(reason, "reason", limits.MAX_TEXT_CHARS)
    statement = model.bounded_text(statement, "statement", limits.MAX_STATEMENT_CHARS)
    now = clock.now()
    change = await store.change_hypothesis(
        org_id, hypothesis_id, lambda hypothesis: model.revise(hypothesis, confidence, reason, statement, now)
    )
    return change.hypothesis


async def promote_hypothesis(
    org_id: str,
    hypothesis_id: str,
    statement: str,
    source: str,
    *,
    threshold: float,
    store: EngagementStore,
    clock: Clock,
) -> tuple[model.Hypothesis, model.Finding]:
    hypothesis_id = _existing_id(hypothesis_id, "hypothesis_id")
    statement = model.bounded_text(statement, "statement", limits.MAX_STATEMENT_CHARS)
    source = model.bounded_text(source, "source", limits.MAX_SOURCE_CHARS)
    now = clock.now()
    change = await store.change_hypothesis(
        org_id,
        hypothesis_id,
        lambda hypothesis: model.promote(hypothesis, _new_id(), statement, source, threshold, now),
    )
    assert change.finding is not None  # promote always produces one
    return change.hypothesis, change.finding


async def archive_hypothesis(
    org_id: str, hypothesis_id: str, note: str, *, store: EngagementStore, clock: Clock
) -> model.Hypothesis:
    hypothesis_id = _existing_id(hypothesis_id, "hypothesis_id")
    note = model.required_text(note, "note", limits.MAX_TEXT_CHARS)
    now = clock.now()
    change = await store.change_hypothesis(
        org_id, hypothesis_id, lambda hypothesis: model.archive(hypothesis, note, now)
    )
    return change.hypothesis


async def add_unknown(
    org_id: str, question: str, why_it_matters: str, request_id: str, *, store: EngagementStore, clock: Clock
) -> model.Unknown:
    question = model.required_text(question, "question", limits.MAX_TEXT_CHARS)
    why_it_matters = model.required_text(why_it_matters, "why_it_matters", limits.MAX_TEXT_CHARS)
    request_id = model.validate_request_id(request_id)
    now = clock.now()
    return await store.add_unknown(
        org_id,
        request_id,
        now,
        lambda open_count: model.new_unknown(_new_id(), question, why_it_matters, open_count, now),
    )


async def resolve_unknown(
    org_id: str, unknown_id: str, resolution: str, *, store: EngagementStore, clock: Clock
) -> model.Unknown:
    unknown_id = _existing_id(unknown_id, "unknown_id")
    resolution = model.required_text(resolution, "resolution", limits.MAX_TEXT_CHARS)
    now = clock.now()
    return await store.change_unknown(org_id, unknown_id, lambda unknown: model.resolve(unknown, resolution, now))


async def advance_week(org_id: str, expected_week: int | None, *, store: EngagementStore, clock: Clock) -> int:
    if expected_week is not None and expected_week < 1:
        raise InvalidArgument("expected_week_number", "weeks start at 1")
    return await store.advance_week(org_id, expected_week, clock.now())
