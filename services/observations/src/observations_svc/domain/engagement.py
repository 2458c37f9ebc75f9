"""Engagement state (ARCHITECTURE.md §4, docs/engagement.md): hypotheses that collect evidence
and become findings or are archived, unknowns, and the week. Pure: every transition is a
function from the current state to the new one, so the adapter only has to persist it.

Confidence is a smoothed ratio of weighted support to total weight around a prior:
``(S + k·prior) / (S + C + k)`` with ``k = PRIOR_WEIGHT``, where S and C are the summed
weights of the supporting and contradicting evidence added since the last revision. At
formation the prior is 0.5; a revision sets the confidence, which becomes the new prior and
takes every earlier line into account (those lines are *reviewed*). More support never
lowers it, a contradiction never raises it, and it stays in [0, 1].
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from lore_runtime.errors import FailedPrecondition, InvalidArgument, QuotaExceeded

from observations_svc.domain import engagement_limits as limits
from observations_svc.domain.engagement_figures import states_precise_figure

INITIAL_PRIOR = 0.5
# The prior counts as this much evidence weight: two units of support take 0.5 to 0.75.
PRIOR_WEIGHT = 2.0
DEFAULT_PROMOTION_THRESHOLD = 0.8


class Stance(enum.StrEnum):
    SUPPORT = "support"
    CONTRADICT = "contradict"


class HypothesisStatus(enum.StrEnum):
    ACTIVE = "active"
    PROMOTED = "promoted"
    ARCHIVED = "archived"


class UnknownStatus(enum.StrEnum):
    OPEN = "open"
    RESOLVED = "resolved"


@dataclass(frozen=True, slots=True)
class EvidenceDraft:
    """An evidence line as a client sends it; ``observed_at`` None means the time of the call."""

    statement: str
    stance: Stance
    weight: float = limits.DEFAULT_WEIGHT
    source: str = ""
    observed_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class EvidenceLine:
    id: str
    statement: str
    stance: Stance
    weight: float
    source: str
    observed_at: datetime
    recorded_at: datetime
    # How many revisions the hypothesis had when this line was added.
    epoch: int


@dataclass(frozen=True, slots=True)
class Revision:
    previous_statement: str
    statement: str
    previous_confidence: float
    confidence: float
    reason: str
    revised_at: datetime


@dataclass(frozen=True, slots=True)
class Hypothesis:
    id: str
    statement: str
    confidence: float
    status: HypothesisStatus
    prior: float
    evidence: tuple[EvidenceLine, ...]
    revisions: tuple[Revision, ...]
    created_at: datetime
    updated_at: datetime
    archive_note: str = ""
    finding_id: str = ""

    @property
    def epoch(self) -> int:
        return len(self.revisions)

    def is_reviewed(self, line: EvidenceLine) -> bool:
        """A later revision took the line into account."""
        return line.epoch < self.epoch

    def outstanding_contradictions(self) -> list[EvidenceLine]:
        return [line for line in self.evidence if line.stance is Stance.CONTRADICT and not self.is_reviewed(line)]


@dataclass(frozen=True, slots=True)
class Finding:
    id: str
    statement: str
    source: str
    hypothesis_id: str
    recorded_at: datetime


@dataclass(frozen=True, slots=True)
class Unknown:
    id: str
    question: str
    why_it_matters: str
    status: UnknownStatus
    created_at: datetime
    resolution: str = ""
    resolved_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Engagement:
    week_number: int
    first_session: bool
    hypotheses: tuple[Hypothesis, ...] = ()
    unknowns: tuple[Unknown, ...] = ()
    findings: tuple[Finding, ...] = ()


FIRST_SESSION = Engagement(week_number=1, first_session=True)


@dataclass(frozen=True, slots=True)
class HypothesisDigest:
    """An active hypothesis without its lines: what a context or reflection reads of it."""

    id: str
    statement: str
    confidence: float
    created_at: datetime
    updated_at: datetime
    evidence_count: int
    outstanding_contradictions: int


@dataclass(frozen=True, slots=True)
class EngagementDigest:
    """GetEngagement's digest view: the full view's open part (active hypotheses, open unknowns) and
    its findings, in the same order; ``digest_of`` says exactly which."""

    week_number: int
    first_session: bool
    hypotheses: tuple[HypothesisDigest, ...] = ()
    unknowns: tuple[Unknown, ...] = ()
    findings: tuple[Finding, ...] = ()


def hypothesis_digest(hypothesis: Hypothesis) -> HypothesisDigest:
    return HypothesisDigest(
        id=hypothesis.id,
        statement=hypothesis.statement,
        confidence=hypothesis.confidence,
        created_at=hypothesis.created_at,
        updated_at=hypothesis.updated_at,
        evidence_count=len(hypothesis.evidence),
        outstanding_contradictions=len(hypothesis.outstanding_contradictions()),
    )


def digest_of(engagement: Engagement) -> EngagementDigest:
    """The digest of a full view: a store's ``digest`` equals this of its ``read``."""
    return EngagementDigest(
        week_number=engagement.week_number,
        first_session=engagement.first_session,
        hypotheses=tuple(hypothesis_digest(h) for h in engagement.hypotheses if h.status is HypothesisStatus.ACTIVE),
        unknowns=tuple(u for u in engagement.unknowns if u.status is UnknownStatus.OPEN),
        findings=engagement.findings,
    )


DIGEST_OF_FIRST_SESSION = digest_of(FIRST_SESSION)


@dataclass(frozen=True, slots=True)
class HypothesisChange:
    """A transition: the hypothesis's new state and what it adds (the adapter persists exactly this)."""

    hypothesis: Hypothesis
    new_evidence: tuple[EvidenceLine, ...] = ()
    new_revision: Revision | None = None
    finding: Finding | None = None


# --- the rules -----------------------------------------------------------------------------


def confidence_from(prior: float, evidence: Sequence[EvidenceLine], epoch: int) -> float:
    """``(S + k·prior) / (S + C + k)`` over the lines added since revision ``epoch`` (module docstring)."""
    support = sum(line.weight for line in evidence if line.epoch == epoch and line.stance is Stance.SUPPORT)
    contradiction = sum(line.weight for line in evidence if line.epoch == epoch and line.stance is Stance.CONTRADICT)
    value = (support + PRIOR_WEIGHT * prior) / (support + contradiction + PRIOR_WEIGHT)
    return min(1.0, max(0.0, value))


def promotion_blockers(hypothesis: Hypothesis, threshold: float) -> list[str]:
    """Why ``hypothesis`` cannot become a finding now; empty when it can."""
    if hypothesis.status is not HypothesisStatus.ACTIVE:
        return [f"the hypothesis is {hypothesis.status.value}, only an active one can be promoted"]
    reasons = []
    if hypothesis.confidence < threshold:
        reasons.append(f"confidence {hypothesis.confidence:.3f} is below the promotion threshold {threshold:.3f}")
    outstanding = hypothesis.outstanding_contradictions()
    if outstanding:
        reasons.append(
            f"{len(outstanding)} contradicting evidence line(s) outstanding "
            f"({', '.join(line.id for line in outstanding)}): revise the hypothesis to answer them"
        )
    return reasons


# --- validation ------------------------------------------------------------------------------


def required_text(value: str, field: str, max_chars: int) -> str:
    if not value.strip():
        raise InvalidArgument(field, "is required")
    return bounded_text(value, field, max_chars)


def bounded_text(value: str, field: str, max_chars: int) -> str:
    """``value`` without surrounding spaces; its length is counted as sent (what the OpenAPI's
    ``maxLength`` says), spaces included."""
    if len(value) > max_chars:
        raise InvalidArgument(field, f"must be at most {max_chars} characters")
    return value.strip()


def sourced(statement: str, source: str, field: str) -> None:
    """The precise-figure rule (``engagement_figures``): a figure without a source is refused."""
    if not source.strip() and states_precise_figure(statement):
        raise InvalidArgument(f"{field}source", "is required: the statement states a precise figure")


def validate_evidence(draft: EvidenceDraft, field: str) -> EvidenceDraft:
    """``draft`` with its text trimmed, or InvalidArgument naming ``field``.<the bad part>."""
    statement = required_text(draft.statement, f"{field}.statement", limits.MAX_STATEMENT_CHARS)
    source = bounded_text(draft.source, f"{field}.source", limits.MAX_SOURCE_CHARS)
    if not isinstance(draft.stance, Stance):
        raise InvalidArgument(f"{field}.stance", "must be support or contradict")
    if not math.isfinite(draft.weight) or not limits.MIN_WEIGHT_EXCLUSIVE < draft.weight <= limits.MAX_WEIGHT:
        raise InvalidArgument(f"{field}.weight", f"must be in (0, {limits.MAX_WEIGHT:g}]")
    sourced(statement, source, f"{field}.")
    return replace(draft, statement=statement, source=source)


def validate_request_id(request_id: str) -> str:
    return bounded_text(request_id, "request_id", limits.MAX_REQUEST_ID_CHARS)


def _line(line_id: str, draft: EvidenceDraft, epoch: int, now: datetime) -> EvidenceLine:
    return EvidenceLine(
        id=line_id,
        statement=draft.statement,
        stance=draft.stance,
        weight=draft.weight,
        source=draft.source,
        observed_at=draft.observed_at or now,
        recorded_at=now,
        epoch=epoch,
    )


def _require_active(hypothesis: Hypothesis, action: str) -> None:
    if hypothesis.status is not HypothesisStatus.ACTIVE:
        raise FailedPrecondition(
            f"cannot {action} a {hypothesis.status.value} hypothesis: only an active one changes",
            reason="HYPOTHESIS_CLOSED",
            metadata={"hypothesis_id": hypothesis.id, "status": hypothesis.status.value},
        )


# --- transitions -----------------------------------------------------------------------------


def form_hypothesis(
    hypothesis_id: str,
    statement: str,
    evidence: Sequence[tuple[str, EvidenceDraft]],
    active_count: int,
    now: datetime,
) -> Hypothesis:
    """A new active hypothesis with its first evidence (validated drafts, each with its new id)."""
    if active_count >= limits.MAX_ACTIVE_HYPOTHESES:
        raise QuotaExceeded(
            f"an organisation has at most {limits.MAX_ACTIVE_HYPOTHESES} active hypotheses: "
            "promote or archive one first",
            reason="TOO_MANY_ACTIVE_HYPOTHESES",
        )
    lines = tuple(_line(line_id, draft, 0, now) for line_id, draft in evidence)
    return Hypothesis(
        id=hypothesis_id,
        statement=statement,
        confidence=confidence_from(INITIAL_PRIOR, lines, 0),
        status=HypothesisStatus.ACTIVE,
        prior=INITIAL_PRIOR,
        evidence=lines,
        revisions=(),
        created_at=now,
        updated_at=now,
    )


def add_evidence(hypothesis: Hypothesis, line_id: str, draft: EvidenceDraft, now: datetime) -> HypothesisChange:
    _require_active(hypothesis, "add evidence to")
    if len(hypothesis.evidence) >= limits.MAX_EVIDENCE_PER_HYPOTHESIS:
        raise QuotaExceeded(
            f"a hypothesis holds at most {limits.MAX_EVIDENCE_PER_HYPOTHESIS} evidence lines: "
            "revise, promote or archive it",
            reason="TOO_MUCH_EVIDENCE",
            metadata={"hypothesis_id": hypothesis.id},
        )
    line = _line(line_id, draft, hypothesis.epoch, now)
    evidence = (*hypothesis.evidence, line)
    updated = replace(
        hypothesis,
        evidence=evidence,
        confidence=confidence_from(hypothesis.prior, evidence, hypothesis.epoch),
        updated_at=now,
    )
    return HypothesisChange(hypothesis=updated, new_evidence=(line,))


def revise(hypothesis: Hypothesis, confidence: float, reason: str, statement: str, now: datetime) -> HypothesisChange:
    """Set the confidence with a reason; it becomes the prior and reviews every line so far."""
    _require_active(hypothesis, "revise")
    if len(hypothesis.revisions) >= limits.MAX_REVISIONS_PER_HYPOTHESIS:
        raise QuotaExceeded(
            f"a hypothesis keeps at most {limits.MAX_REVISIONS_PER_HYPOTHESIS} revisions: "
            "form a new hypothesis instead",
            reason="TOO_MANY_REVISIONS",
            metadata={"hypothesis_id": hypothesis.id},
        )
    revision = Revision(
        previous_statement=hypothesis.statement,
        statement=statement or hypothesis.statement,
        previous_confidence=hypothesis.confidence,
        confidence=confidence,
        reason=reason,
        revised_at=now,
    )
    updated = replace(
        hypothesis,
        statement=revision.statement,
        confidence=confidence,
        prior=confidence,
        revisions=(*hypothesis.revisions, revision),
        updated_at=now,
    )
    return HypothesisChange(hypothesis=updated, new_revision=revision)


def promote(
    hypothesis: Hypothesis, finding_id: str, statement: str, source: str, threshold: float, now: datetime
) -> HypothesisChange:
    """The hypothesis becomes a finding, or FailedPrecondition saying every reason it cannot."""
    blockers = promotion_blockers(hypothesis, threshold)
    if blockers:
        raise FailedPrecondition(
            "cannot promote the hypothesis: " + "; ".join(blockers),
            reason="PROMOTION_BLOCKED",
            metadata={"hypothesis_id": hypothesis.id},
        )
    finding_statement = statement or hypothesis.statement
    sourced(finding_statement, source, "")
    finding = Finding(
        id=finding_id, statement=finding_statement, source=source, hypothesis_id=hypothesis.id, recorded_at=now
    )
    updated = replace(hypothesis, status=HypothesisStatus.PROMOTED, finding_id=finding_id, updated_at=now)
    return HypothesisChange(hypothesis=updated, finding=finding)


def archive(hypothesis: Hypothesis, note: str, now: datetime) -> HypothesisChange:
    _require_active(hypothesis, "archive")
    return HypothesisChange(
        hypothesis=replace(hypothesis, status=HypothesisStatus.ARCHIVED, archive_note=note, updated_at=now)
    )


def new_unknown(unknown_id: str, question: str, why_it_matters: str, open_count: int, now: datetime) -> Unknown:
    if open_count >= limits.MAX_OPEN_UNKNOWNS:
        raise QuotaExceeded(
            f"an organisation has at most {limits.MAX_OPEN_UNKNOWNS} open unknowns: resolve one first",
            reason="TOO_MANY_OPEN_UNKNOWNS",
        )
    return Unknown(
        id=unknown_id, question=question, why_it_matters=why_it_matters, status=UnknownStatus.OPEN, created_at=now
    )


def resolve(unknown: Unknown, resolution: str, now: datetime) -> Unknown:
    if unknown.status is not UnknownStatus.OPEN:
        raise FailedPrecondition(
            "the unknown is already resolved", reason="UNKNOWN_RESOLVED", metadata={"unknown_id": unknown.id}
        )
    return replace(unknown, status=UnknownStatus.RESOLVED, resolution=resolution, resolved_at=now)
