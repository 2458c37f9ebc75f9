"""Engagement state routes → ``lore.observations.v1.EngagementService`` (scopes ``observations:*``).

One state per organisation, so a credential pinned to one user (``user_pin``) has no access."""

from __future__ import annotations

from fastapi import APIRouter

from gateway_svc.api.http.forwarding import forward
from gateway_svc.api.http.upstreams import ENGAGEMENT

router = APIRouter()  # each route tagged as the route table says

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
    "engagement.getEngagement",
    rpc=ENGAGEMENT.rpc("GetEngagement"),
)
forward(
    router,
    "engagement.formHypothesis",
    rpc=ENGAGEMENT.rpc("FormHypothesis"),
    example=HYPOTHESIS_EXAMPLE,
)
forward(
    router,
    "engagement.addHypothesisEvidence",
    rpc=ENGAGEMENT.rpc("AddHypothesisEvidence"),
    example=EVIDENCE_EXAMPLE,
    path_field="hypothesis_id",
)
forward(
    router,
    "engagement.reviseHypothesis",
    rpc=ENGAGEMENT.rpc("ReviseHypothesis"),
    example=REVISE_EXAMPLE,
    path_field="hypothesis_id",
)
forward(
    router,
    "engagement.promoteHypothesis",
    rpc=ENGAGEMENT.rpc("PromoteHypothesis"),
    example=PROMOTE_EXAMPLE,
    path_field="hypothesis_id",
)
forward(
    router,
    "engagement.archiveHypothesis",
    rpc=ENGAGEMENT.rpc("ArchiveHypothesis"),
    example=ARCHIVE_EXAMPLE,
    path_field="hypothesis_id",
)
forward(
    router,
    "engagement.addUnknown",
    rpc=ENGAGEMENT.rpc("AddUnknown"),
    example=UNKNOWN_EXAMPLE,
)
forward(
    router,
    "engagement.resolveUnknown",
    rpc=ENGAGEMENT.rpc("ResolveUnknown"),
    example=RESOLVE_EXAMPLE,
    path_field="unknown_id",
)
forward(
    router,
    "engagement.advanceWeek",
    rpc=ENGAGEMENT.rpc("AdvanceWeek"),
    example=ADVANCE_EXAMPLE,
)
