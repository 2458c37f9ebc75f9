"""Engagement state routes → ``lore.observations.v1.EngagementService`` (scopes ``observations:*``).

One state per organisation, so a credential pinned to one user (``user_pin``) has no access."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from lore.observations.v1 import engagement_service_pb2 as pb
from lore.observations.v1 import engagement_service_pb2_grpc

from gateway_svc.api.auth import authorized
from gateway_svc.api.calls import body_message, rpc_options, with_path_id
from gateway_svc.api.openapi import json_body, json_response
from gateway_svc.api.proto_json import ProtoJSONResponse
from gateway_svc.domain.credentials import Caller

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


def _engagement(request: Request) -> engagement_service_pb2_grpc.EngagementServiceStub:
    return engagement_service_pb2_grpc.EngagementServiceStub(request.app.state.container.channels["observations"])


async def _hypothesis_call(
    request: Request, caller: Caller, hypothesis_id: str, message_class: type, method: str, *, empty: bool = False
) -> Response:
    message = with_path_id(await body_message(request, message_class, empty=empty), "hypothesis_id", hypothesis_id)
    return ProtoJSONResponse(await getattr(_engagement(request), method)(message, **rpc_options(request, caller)))


@router.get(
    "/v1/engagement",
    summary="The organisation's engagement state; reading writes nothing (GetEngagement)",
    openapi_extra=json_response(pb.GetEngagementResponse),
)
async def get_engagement(
    request: Request, caller: Caller = Depends(authorized("observations:read", org_wide=True))
) -> Response:
    response = await _engagement(request).GetEngagement(pb.GetEngagementRequest(), **rpc_options(request, caller))
    return ProtoJSONResponse(response)


@router.post(
    "/v1/engagement/hypotheses",
    summary="Form a hypothesis (EngagementService.FormHypothesis)",
    openapi_extra=json_body(pb.FormHypothesisRequest, HYPOTHESIS_EXAMPLE, pb.FormHypothesisResponse),
)
async def form_hypothesis(
    request: Request, caller: Caller = Depends(authorized("observations:write", org_wide=True))
) -> Response:
    message = await body_message(request, pb.FormHypothesisRequest)
    return ProtoJSONResponse(await _engagement(request).FormHypothesis(message, **rpc_options(request, caller)))


@router.post(
    "/v1/engagement/hypotheses/{hypothesis_id}/evidence",
    summary="Add evidence; the confidence follows the documented rule (AddHypothesisEvidence)",
    openapi_extra=json_body(pb.AddHypothesisEvidenceRequest, EVIDENCE_EXAMPLE, pb.AddHypothesisEvidenceResponse),
)
async def add_evidence(
    hypothesis_id: str, request: Request, caller: Caller = Depends(authorized("observations:write", org_wide=True))
) -> Response:
    message_class = pb.AddHypothesisEvidenceRequest
    return await _hypothesis_call(request, caller, hypothesis_id, message_class, "AddHypothesisEvidence")


@router.post(
    "/v1/engagement/hypotheses/{hypothesis_id}:revise",
    summary="Set the confidence with a reason (ReviseHypothesis)",
    openapi_extra=json_body(pb.ReviseHypothesisRequest, REVISE_EXAMPLE, pb.ReviseHypothesisResponse),
)
async def revise(
    hypothesis_id: str, request: Request, caller: Caller = Depends(authorized("observations:write", org_wide=True))
) -> Response:
    return await _hypothesis_call(request, caller, hypothesis_id, pb.ReviseHypothesisRequest, "ReviseHypothesis")


@router.post(
    "/v1/engagement/hypotheses/{hypothesis_id}:promote",
    summary="Turn a hypothesis into a finding (PromoteHypothesis)",
    openapi_extra=json_body(pb.PromoteHypothesisRequest, PROMOTE_EXAMPLE, pb.PromoteHypothesisResponse),
)
async def promote(
    hypothesis_id: str, request: Request, caller: Caller = Depends(authorized("observations:write", org_wide=True))
) -> Response:
    message_class = pb.PromoteHypothesisRequest
    return await _hypothesis_call(request, caller, hypothesis_id, message_class, "PromoteHypothesis", empty=True)


@router.post(
    "/v1/engagement/hypotheses/{hypothesis_id}:archive",
    summary="Archive a hypothesis with a note (ArchiveHypothesis)",
    openapi_extra=json_body(pb.ArchiveHypothesisRequest, ARCHIVE_EXAMPLE, pb.ArchiveHypothesisResponse),
)
async def archive(
    hypothesis_id: str, request: Request, caller: Caller = Depends(authorized("observations:write", org_wide=True))
) -> Response:
    return await _hypothesis_call(request, caller, hypothesis_id, pb.ArchiveHypothesisRequest, "ArchiveHypothesis")


@router.post(
    "/v1/engagement/unknowns",
    summary="Record an open question (AddUnknown)",
    openapi_extra=json_body(pb.AddUnknownRequest, UNKNOWN_EXAMPLE, pb.AddUnknownResponse),
)
async def add_unknown(
    request: Request, caller: Caller = Depends(authorized("observations:write", org_wide=True))
) -> Response:
    message = await body_message(request, pb.AddUnknownRequest)
    return ProtoJSONResponse(await _engagement(request).AddUnknown(message, **rpc_options(request, caller)))


@router.post(
    "/v1/engagement/unknowns/{unknown_id}:resolve",
    summary="Resolve an unknown with its answer (ResolveUnknown)",
    openapi_extra=json_body(pb.ResolveUnknownRequest, RESOLVE_EXAMPLE, pb.ResolveUnknownResponse),
)
async def resolve_unknown(
    unknown_id: str, request: Request, caller: Caller = Depends(authorized("observations:write", org_wide=True))
) -> Response:
    message = with_path_id(await body_message(request, pb.ResolveUnknownRequest), "unknown_id", unknown_id)
    return ProtoJSONResponse(await _engagement(request).ResolveUnknown(message, **rpc_options(request, caller)))


@router.post(
    "/v1/engagement:advanceWeek",
    summary="Start the next week, only ever by this explicit call (AdvanceWeek)",
    openapi_extra=json_body(pb.AdvanceWeekRequest, ADVANCE_EXAMPLE, pb.AdvanceWeekResponse),
)
async def advance_week(
    request: Request, caller: Caller = Depends(authorized("observations:write", org_wide=True))
) -> Response:
    message = await body_message(request, pb.AdvanceWeekRequest, empty=True)
    return ProtoJSONResponse(await _engagement(request).AdvanceWeek(message, **rpc_options(request, caller)))
