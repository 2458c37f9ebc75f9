"""pb2 <-> domain for the engagement service, with validation that names the offending field.

Structural checks (stance values, timestamps) happen here; text limits and the precise-figure
rule are the domain's. ``weight`` unset is 1.0; ``observed_at`` unset is the time of the call.
"""

from __future__ import annotations

from datetime import datetime

from lore.observations.v1 import engagement_service_pb2 as pb
from lore.observations.v1 import observation_service_pb2 as observation_pb
from lore_runtime import errors
from lore_runtime.proto_time import observed_from_timestamp

from observations_svc.api.messages import message_of
from observations_svc.api.proto_enums import numbered, reverse
from observations_svc.domain import engagement as model
from observations_svc.domain import engagement_limits as limits
from observations_svc.domain.restore import EngagementRow

# A hypothesis's evidence takes the observation service's stances, support or contradict (never context).
LINE_STANCES = numbered(observation_pb.EvidenceStance, "EVIDENCE_STANCE_", model.Stance)
HYPOTHESIS_STATUSES = numbered(pb.HypothesisStatus, "HYPOTHESIS_STATUS_", model.HypothesisStatus)
UNKNOWN_STATUSES = numbered(pb.UnknownStatus, "UNKNOWN_STATUS_", model.UnknownStatus)
_STANCE_NUMBERS, _HYPOTHESIS_STATUS_NUMBERS = reverse(LINE_STANCES), reverse(HYPOTHESIS_STATUSES)
_UNKNOWN_STATUS_NUMBERS = reverse(UNKNOWN_STATUSES)


def evidence_from_pb(evidence: pb.HypothesisEvidenceInput, field: str, now: datetime) -> model.EvidenceDraft:
    """``now``: the service's clock, the end of the range ``observed_at`` may take (with clock skew)."""
    stance = LINE_STANCES.get(evidence.stance)
    if stance is None:
        raise errors.InvalidArgument(f"{field}.stance", "must be EVIDENCE_STANCE_SUPPORT or EVIDENCE_STANCE_CONTRADICT")
    return model.EvidenceDraft(
        statement=evidence.statement,
        stance=stance,
        weight=evidence.weight if evidence.HasField("weight") else limits.DEFAULT_WEIGHT,
        source=evidence.source,
        observed_at=observed_from_timestamp(evidence, "observed_at", f"{field}.observed_at", now),
    )


def hypothesis_to_pb(hypothesis: model.Hypothesis, finding: model.Finding | None = None) -> pb.Hypothesis:
    """``finding``: the one it became, carried in exports (GetEngagement lists findings on their own)."""
    return message_of(
        pb.Hypothesis,
        hypothesis,
        status=_HYPOTHESIS_STATUS_NUMBERS[hypothesis.status],
        evidence=[
            message_of(
                pb.HypothesisEvidence,
                line,
                stance=_STANCE_NUMBERS[line.stance],
                reviewed=hypothesis.is_reviewed(line),
            )
            for line in hypothesis.evidence
        ],
        revisions=[message_of(pb.HypothesisRevision, revision) for revision in hypothesis.revisions],
        finding=finding_to_pb(finding) if finding is not None else None,
        evidence_count=len(hypothesis.evidence),
        outstanding_contradictions=len(hypothesis.outstanding_contradictions()),
    )


def hypothesis_digest_to_pb(hypothesis: model.HypothesisDigest) -> pb.Hypothesis:
    return message_of(pb.Hypothesis, hypothesis, status=pb.HYPOTHESIS_STATUS_ACTIVE)


def engagement_row_to_pb(row: EngagementRow) -> pb.EngagementState:
    return message_of(pb.EngagementState, row)


def finding_to_pb(finding: model.Finding) -> pb.Finding:
    return message_of(pb.Finding, finding)


def unknown_to_pb(unknown: model.Unknown) -> pb.Unknown:
    return message_of(pb.Unknown, unknown, status=_UNKNOWN_STATUS_NUMBERS[unknown.status])


def digest_requested(view: int) -> bool:
    """GetEngagementRequest.view: FULL when unset; a number outside the enum names the field."""
    if view in (pb.ENGAGEMENT_VIEW_UNSPECIFIED, pb.ENGAGEMENT_VIEW_FULL):
        return False
    if view == pb.ENGAGEMENT_VIEW_DIGEST:
        return True
    raise errors.InvalidArgument("view", "must be ENGAGEMENT_VIEW_FULL (the default) or ENGAGEMENT_VIEW_DIGEST")


def digest_to_pb(digest: model.EngagementDigest) -> pb.GetEngagementResponse:
    return message_of(
        pb.GetEngagementResponse,
        digest,
        hypotheses=[hypothesis_digest_to_pb(hypothesis) for hypothesis in digest.hypotheses],
        unknowns=[unknown_to_pb(unknown) for unknown in digest.unknowns],
        findings=[finding_to_pb(finding) for finding in digest.findings],
    )


def engagement_to_pb(engagement: model.Engagement) -> pb.GetEngagementResponse:
    return message_of(
        pb.GetEngagementResponse,
        engagement,
        hypotheses=[hypothesis_to_pb(hypothesis) for hypothesis in engagement.hypotheses],
        unknowns=[unknown_to_pb(unknown) for unknown in engagement.unknowns],
        findings=[finding_to_pb(finding) for finding in engagement.findings],
    )
