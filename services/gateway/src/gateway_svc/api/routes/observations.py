"""Knowledge observation routes → ``lore.observations.v1.ObservationService``."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from lore.observations.v1 import observation_service_pb2 as pb
from lore.observations.v1 import observation_service_pb2_grpc

from gateway_svc.api.auth import authorized
from gateway_svc.api.calls import body_message, check_owned, query_message, rpc_options, with_path_id
from gateway_svc.api.openapi import json_body, json_response, query_parameters
from gateway_svc.api.proto_json import ProtoJSONResponse
from gateway_svc.api.user_pin import check_readable, pin_request
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


def _observations(request: Request) -> observation_service_pb2_grpc.ObservationServiceStub:
    return observation_service_pb2_grpc.ObservationServiceStub(request.app.state.container.channels["observations"])


async def _check_changeable(request: Request, caller: Caller, observation_id: str) -> None:
    """A caller pinned to a user gives feedback only on that user's beliefs (``user_pin``)."""
    message = pb.GetObservationRequest(id=observation_id)
    await check_owned(request, caller, _observations(request).GetObservation, message, "observation", observation_id)


@router.get(
    "/v1/observations",
    summary="Observations by filters, best first (ObservationService.QueryObservations)",
    openapi_extra=query_parameters(
        pb.QueryObservationsRequest,
        pb.QueryObservationsResponse,
        {"agentId": "agent-1", "subjectId": "caroline", "minConfidence": 0.5, "pageSize": 20},
    ),
)
async def query_observations(request: Request, caller: Caller = Depends(authorized("observations:read"))) -> Response:
    message = pin_request(caller, query_message(request, pb.QueryObservationsRequest))
    return ProtoJSONResponse(await _observations(request).QueryObservations(message, **rpc_options(request, caller)))


@router.post(
    "/v1/observations:search",
    summary="Observations by meaning and words (ObservationService.SearchObservations)",
    openapi_extra=json_body(pb.SearchObservationsRequest, SEARCH_EXAMPLE, pb.SearchObservationsResponse),
)
async def search_observations(request: Request, caller: Caller = Depends(authorized("observations:read"))) -> Response:
    message = pin_request(caller, await body_message(request, pb.SearchObservationsRequest))
    return ProtoJSONResponse(await _observations(request).SearchObservations(message, **rpc_options(request, caller)))


@router.post(
    "/v1/observations:observe",
    summary="Create, support, contradict or supersede a belief (ObservationService.Observe)",
    openapi_extra=json_body(pb.ObserveRequest, OBSERVE_EXAMPLE, pb.ObserveResponse),
)
async def observe(request: Request, caller: Caller = Depends(authorized("observations:write"))) -> Response:
    message = pin_request(caller, await body_message(request, pb.ObserveRequest))
    return ProtoJSONResponse(await _observations(request).Observe(message, **rpc_options(request, caller)))


@router.get(
    "/v1/observations/{observation_id}",
    summary="One observation with its evidence (GetObservation)",
    openapi_extra=json_response(pb.GetObservationResponse),
)
async def get_observation(
    observation_id: str, request: Request, caller: Caller = Depends(authorized("observations:read"))
) -> Response:
    message = pb.GetObservationRequest(id=observation_id)
    found = await _observations(request).GetObservation(message, **rpc_options(request, caller))
    check_readable(caller, found.observation.scope.user_id, "observation", observation_id)
    return ProtoJSONResponse(found)


@router.get(
    "/v1/observations/{observation_id}/history",
    summary="The supersession chain both ways, newest first (GetObservationHistory)",
    openapi_extra=json_response(pb.GetObservationHistoryResponse),
)
async def observation_history(
    observation_id: str, request: Request, caller: Caller = Depends(authorized("observations:read"))
) -> Response:
    message = pb.GetObservationHistoryRequest(id=observation_id)
    found = await _observations(request).GetObservationHistory(message, **rpc_options(request, caller))
    for observation in found.observations:  # a chain keeps one scope; every link is checked all the same
        check_readable(caller, observation.scope.user_id, "observation", observation_id)
    return ProtoJSONResponse(found)


@router.post(
    "/v1/observations/{observation_id}:confirm",
    summary="An operator confirms a belief (ObservationService.ConfirmObservation)",
    openapi_extra=json_body(pb.ConfirmObservationRequest, CONFIRM_EXAMPLE, pb.ConfirmObservationResponse),
)
async def confirm_observation(
    observation_id: str, request: Request, caller: Caller = Depends(authorized("observations:write"))
) -> Response:
    message = await body_message(request, pb.ConfirmObservationRequest, empty=True)
    with_path_id(message, "id", observation_id)
    await _check_changeable(request, caller, observation_id)
    return ProtoJSONResponse(await _observations(request).ConfirmObservation(message, **rpc_options(request, caller)))


@router.post(
    "/v1/observations/{observation_id}:contradict",
    summary="A correction becomes contradicting evidence (ObservationService.ContradictObservation)",
    openapi_extra=json_body(pb.ContradictObservationRequest, CONTRADICT_EXAMPLE, pb.ContradictObservationResponse),
)
async def contradict_observation(
    observation_id: str, request: Request, caller: Caller = Depends(authorized("observations:write"))
) -> Response:
    message = await body_message(request, pb.ContradictObservationRequest)
    with_path_id(message, "id", observation_id)
    await _check_changeable(request, caller, observation_id)
    return ProtoJSONResponse(
        await _observations(request).ContradictObservation(message, **rpc_options(request, caller))
    )
