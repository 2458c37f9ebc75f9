"""Erasure: ``POST /v1/subjects:forget`` → ``AgentService.ForgetSubject`` (scope ``subjects:forget``,
which ``admin`` includes). Erasing a person is destructive and rare, so it is a scope of its own:
a privacy tool can hold it without the rest of ``admin``, and no ordinary read/write key has it.

The answer is the erasure job; asking again with the same ``requestId`` returns its current state
(``ERASURE_STATUS_PENDING`` → ``RUNNING`` → ``COMPLETED``, or ``DEAD_LETTERED``)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc

from gateway_svc.auth import Caller, authorized
from gateway_svc.calls import body_message, rpc_options
from gateway_svc.openapi import json_body
from gateway_svc.proto_json import ProtoJSONResponse
from gateway_svc.user_pin import pin_request

router = APIRouter(tags=["erasure"])

FORGET_EXAMPLE = {"subject": {"userId": "u-1"}, "requestId": "erase-u-1"}


@router.post(
    "/v1/subjects:forget",
    summary="Erase a subject's data everywhere, as a durable job that leaves a tombstone (AgentService.ForgetSubject)",
    openapi_extra=json_body(pb.ForgetSubjectRequest, FORGET_EXAMPLE, pb.ForgetSubjectResponse),
)
async def forget_subject(request: Request, caller: Caller = Depends(authorized("subjects:forget"))) -> Response:
    message = pin_request(caller, await body_message(request, pb.ForgetSubjectRequest))
    agent = agent_service_pb2_grpc.AgentServiceStub(request.app.state.container.channels["agent"])
    return ProtoJSONResponse(await agent.ForgetSubject(message, **rpc_options(request, caller)))
