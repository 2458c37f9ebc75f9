"""Knowledge observation routes → ``lore.observations.v1.ObservationService``."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from lore.observations.v1 import observation_service_pb2 as pb

from gateway_svc.api.auth import authorized
from gateway_svc.api.forwarding import Body, PathOnly, Query, forward, owned, readable
from gateway_svc.api.openapi import json_response
from gateway_svc.api.proto_json import ProtoJSONResponse
from gateway_svc.api.upstreams import OBSERVATIONS
from gateway_svc.api.user_pin import check_readable
from gateway_svc.domain.credentials import Caller

router = APIRouter(tags=["observations"])

OBSERVE_EXAMPLE = {
    "agentId": "agent-1",
    "candidate": {
        "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
        "subjectType": "SUBJECT_TYPE_ENTITY",
        "subjectId": "user-42",
        "slot": "database",
        "summary": "Prefers Postgres for new services.",
        "evidence": [{"stance": "EVIDENCE_STANCE_SUPPORT", "sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": "turn-17"}],
    },
    "requestId": "optional",
}
SEARCH_EXAMPLE = {"agentId": "agent-1", "query": "which database do they like?", "k": 5}
CONFIRM_EXAMPLE = {"note": "Confirmed on the call.", "requestId": "optional"}
CONTRADICT_EXAMPLE = {
    "evidence": {"stance": "EVIDENCE_STANCE_CONTRADICT", "sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": "turn-40"},
    "correction": "Prefers MySQL now.",
}


# A caller pinned to a user gives feedback only on that user's beliefs (``user_pin``).
CHANGEABLE_OBSERVATION = owned(OBSERVATIONS.rpc("GetObservation"), pb.GetObservationRequest, "observation")

forward(
    router,
    "GET",
    "/v1/observations",
    "query_observations",
    summary="Observations by filters, best first (ObservationService.QueryObservations)",
    scopes=("observations:read",),
    rpc=OBSERVATIONS.rpc("QueryObservations"),
    message=Query(
        pb.QueryObservationsRequest,
        {"agentId": "agent-1", "subjectId": "caroline", "minConfidence": 0.5, "pageSize": 20},
    ),
    response=pb.QueryObservationsResponse,
    pin=True,
)
forward(
    router,
    "POST",
    "/v1/observations:search",
    "search_observations",
    summary="Observations by meaning and words (ObservationService.SearchObservations)",
    scopes=("observations:read",),
    rpc=OBSERVATIONS.rpc("SearchObservations"),
    message=Body(pb.SearchObservationsRequest, SEARCH_EXAMPLE),
    response=pb.SearchObservationsResponse,
    pin=True,
)
forward(
    router,
    "POST",
    "/v1/observations:observe",
    "observe",
    summary="Create, support, contradict or supersede a belief (ObservationService.Observe)",
    scopes=("observations:write",),
    rpc=OBSERVATIONS.rpc("Observe"),
    message=Body(pb.ObserveRequest, OBSERVE_EXAMPLE),
    response=pb.ObserveResponse,
    pin=True,
)
forward(
    router,
    "GET",
    "/v1/observations/{observation_id}",
    "get_observation",
    summary="One observation with its evidence (GetObservation)",
    scopes=("observations:read",),
    rpc=OBSERVATIONS.rpc("GetObservation"),
    message=PathOnly(pb.GetObservationRequest),
    response=pb.GetObservationResponse,
    path_field="id",
    after=readable("observation"),
)


@router.get(
    "/v1/observations/{observation_id}/history",
    summary="The supersession chain both ways, newest first (GetObservationHistory)",
    openapi_extra=json_response(pb.GetObservationHistoryResponse),
)
async def observation_history(
    observation_id: str, request: Request, caller: Caller = Depends(authorized("observations:read"))
) -> Response:
    message = pb.GetObservationHistoryRequest(id=observation_id)
    found = await OBSERVATIONS.rpc("GetObservationHistory")(request, caller, message)
    for observation in found.observations:  # a chain keeps one scope; every link is checked all the same
        check_readable(caller, observation.scope.user_id, "observation", observation_id)
    return ProtoJSONResponse(found)


forward(
    router,
    "POST",
    "/v1/observations/{observation_id}:confirm",
    "confirm_observation",
    summary="An operator confirms a belief (ObservationService.ConfirmObservation)",
    scopes=("observations:write",),
    rpc=OBSERVATIONS.rpc("ConfirmObservation"),
    message=Body(pb.ConfirmObservationRequest, CONFIRM_EXAMPLE, optional=True),
    response=pb.ConfirmObservationResponse,
    path_field="id",
    before=CHANGEABLE_OBSERVATION,
)
forward(
    router,
    "POST",
    "/v1/observations/{observation_id}:contradict",
    "contradict_observation",
    summary="A correction becomes contradicting evidence (ObservationService.ContradictObservation)",
    scopes=("observations:write",),
    rpc=OBSERVATIONS.rpc("ContradictObservation"),
    message=Body(pb.ContradictObservationRequest, CONTRADICT_EXAMPLE),
    response=pb.ContradictObservationResponse,
    path_field="id",
    before=CHANGEABLE_OBSERVATION,
)
