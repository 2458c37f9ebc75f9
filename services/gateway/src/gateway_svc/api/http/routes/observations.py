"""Knowledge observation routes → ``lore.observations.v1.ObservationService``."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from lore.observations.v1 import observation_service_pb2 as pb

from gateway_svc.api.auth.user_pin import check_readable
from gateway_svc.api.http.forwarding import declared_route, forward, guard, owned, readable
from gateway_svc.api.http.upstreams import OBSERVATIONS
from gateway_svc.api.json.proto_json import ProtoJSONResponse
from gateway_svc.domain.credentials import Caller

router = APIRouter()  # each route tagged as the route table says

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
    "observations.queryObservations",
    rpc=OBSERVATIONS.rpc("QueryObservations"),
    example={"agentId": "agent-1", "subjectId": "caroline", "minConfidence": 0.5, "pageSize": 20},
    pin=True,
)
forward(
    router,
    "observations.searchObservations",
    rpc=OBSERVATIONS.rpc("SearchObservations"),
    example=SEARCH_EXAMPLE,
    pin=True,
)
forward(
    router,
    "observations.observe",
    rpc=OBSERVATIONS.rpc("Observe"),
    example=OBSERVE_EXAMPLE,
    pin=True,
)
forward(
    router,
    "observations.getObservation",
    rpc=OBSERVATIONS.rpc("GetObservation"),
    path_field="id",
    after=readable("observation"),
)


@declared_route(router, "observations.observationHistory")
async def observation_history(
    observation_id: str, request: Request, caller: Caller = Depends(guard("observations.observationHistory"))
) -> Response:
    message = pb.GetObservationHistoryRequest(id=observation_id)
    found = await OBSERVATIONS.rpc("GetObservationHistory")(request, caller, message)
    for observation in found.observations:  # a chain keeps one scope; every link is checked all the same
        check_readable(caller, observation.scope.user_id, "observation", observation_id)
    return ProtoJSONResponse(found)


forward(
    router,
    "observations.confirmObservation",
    rpc=OBSERVATIONS.rpc("ConfirmObservation"),
    example=CONFIRM_EXAMPLE,
    path_field="id",
    before=CHANGEABLE_OBSERVATION,
)
forward(
    router,
    "observations.contradictObservation",
    rpc=OBSERVATIONS.rpc("ContradictObservation"),
    example=CONTRADICT_EXAMPLE,
    path_field="id",
    before=CHANGEABLE_OBSERVATION,
)
