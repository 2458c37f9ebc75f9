"""Engagement state routes → ``lore.observations.v1.EngagementService`` (scopes ``observations:*``).

One state per organisation, so a credential pinned to one user (``user_pin``) has no access."""

from __future__ import annotations

from fastapi import APIRouter
from lore.observations.v1 import engagement_service_pb2 as pb

from gateway_svc.api.forwarding import Body, PathOnly, forward
from gateway_svc.api.upstreams import ENGAGEMENT

router = APIRouter(tags=["engagement"])

HYPOTHESIS_EXAMPLE = {
    "statement": "Churn comes from onboarding, not price.",
    "evidence": [{"statement": "Most cancellations happen in week one.", "stance": "EVIDENCE_STANCE_SUPPORT"}],
    "requestId": "optional",
}
EVIDENCE_EXAMPLE = {
    "evidence": {
        "statement": "Churn is 42% in the first week.",
        "stance": "EVIDENCE_STANCE_SUPPORT",
        "weight": 2.0,
        "source": "billing export 2026-11",
    }
}
REVISE_EXAMPLE = {"confidence": 0.85, "reason": "The contradicting cohort had no onboarding emails."}
PROMOTE_EXAMPLE = {"statement": "", "source": ""}
ARCHIVE_EXAMPLE = {"note": "Superseded by the pricing study."}
UNKNOWN_EXAMPLE = {"question": "Which plan churns most?", "whyItMatters": "It decides where to act first."}
RESOLVE_EXAMPLE = {"resolution": "The monthly starter plan."}
ADVANCE_EXAMPLE = {"expectedWeekNumber": 1}


READ = ("observations:read",)
WRITE = ("observations:write",)

forward(
    router,
    "GET",
    "/v1/engagement",
    "get_engagement",
    summary="The organisation's engagement state; reading writes nothing (GetEngagement)",
    scopes=READ,
    org_wide=True,
    rpc=ENGAGEMENT.rpc("GetEngagement"),
    message=PathOnly(pb.GetEngagementRequest),
    response=pb.GetEngagementResponse,
)
forward(
    router,
    "POST",
    "/v1/engagement/hypotheses",
    "form_hypothesis",
    summary="Form a hypothesis (EngagementService.FormHypothesis)",
    scopes=WRITE,
    org_wide=True,
    rpc=ENGAGEMENT.rpc("FormHypothesis"),
    message=Body(pb.FormHypothesisRequest, HYPOTHESIS_EXAMPLE),
    response=pb.FormHypothesisResponse,
)
forward(
    router,
    "POST",
    "/v1/engagement/hypotheses/{hypothesis_id}/evidence",
    "add_hypothesis_evidence",
    summary="Add evidence; the confidence follows the documented rule (AddHypothesisEvidence)",
    scopes=WRITE,
    org_wide=True,
    rpc=ENGAGEMENT.rpc("AddHypothesisEvidence"),
    message=Body(pb.AddHypothesisEvidenceRequest, EVIDENCE_EXAMPLE),
    response=pb.AddHypothesisEvidenceResponse,
    path_field="hypothesis_id",
)
forward(
    router,
    "POST",
    "/v1/engagement/hypotheses/{hypothesis_id}:revise",
    "revise_hypothesis",
    summary="Set the confidence with a reason (ReviseHypothesis)",
    scopes=WRITE,
    org_wide=True,
    rpc=ENGAGEMENT.rpc("ReviseHypothesis"),
    message=Body(pb.ReviseHypothesisRequest, REVISE_EXAMPLE),
    response=pb.ReviseHypothesisResponse,
    path_field="hypothesis_id",
)
forward(
    router,
    "POST",
    "/v1/engagement/hypotheses/{hypothesis_id}:promote",
    "promote_hypothesis",
    summary="Turn a hypothesis into a finding (PromoteHypothesis)",
    scopes=WRITE,
    org_wide=True,
    rpc=ENGAGEMENT.rpc("PromoteHypothesis"),
    message=Body(pb.PromoteHypothesisRequest, PROMOTE_EXAMPLE, optional=True),
    response=pb.PromoteHypothesisResponse,
    path_field="hypothesis_id",
)
forward(
    router,
    "POST",
    "/v1/engagement/hypotheses/{hypothesis_id}:archive",
    "archive_hypothesis",
    summary="Archive a hypothesis with a note (ArchiveHypothesis)",
    scopes=WRITE,
    org_wide=True,
    rpc=ENGAGEMENT.rpc("ArchiveHypothesis"),
    message=Body(pb.ArchiveHypothesisRequest, ARCHIVE_EXAMPLE),
    response=pb.ArchiveHypothesisResponse,
    path_field="hypothesis_id",
)
forward(
    router,
    "POST",
    "/v1/engagement/unknowns",
    "add_unknown",
    summary="Record an open question (AddUnknown)",
    scopes=WRITE,
    org_wide=True,
    rpc=ENGAGEMENT.rpc("AddUnknown"),
    message=Body(pb.AddUnknownRequest, UNKNOWN_EXAMPLE),
    response=pb.AddUnknownResponse,
)
forward(
    router,
    "POST",
    "/v1/engagement/unknowns/{unknown_id}:resolve",
    "resolve_unknown",
    summary="Resolve an unknown with its answer (ResolveUnknown)",
    scopes=WRITE,
    org_wide=True,
    rpc=ENGAGEMENT.rpc("ResolveUnknown"),
    message=Body(pb.ResolveUnknownRequest, RESOLVE_EXAMPLE),
    response=pb.ResolveUnknownResponse,
    path_field="unknown_id",
)
forward(
    router,
    "POST",
    "/v1/engagement:advanceWeek",
    "advance_week",
    summary="Start the next week, only ever by this explicit call (AdvanceWeek)",
    scopes=WRITE,
    org_wide=True,
    rpc=ENGAGEMENT.rpc("AdvanceWeek"),
    message=Body(pb.AdvanceWeekRequest, ADVANCE_EXAMPLE, optional=True),
    response=pb.AdvanceWeekResponse,
)
