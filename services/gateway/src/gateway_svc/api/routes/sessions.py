"""Session and transcript routes → ``lore.agent.v1.AgentService`` (scopes ``sessions:*``),
the per-turn loop included (``POST /v1/sessions/{id}/turns``). A turn's ``role`` may be written
short (``"assistant"``) as well as the enum's name (``gateway_svc.api.turn_roles``).

Starting a session may return its Prime (``initialMessage``, ``includePrime``) under
``sessions:write`` alone, as ProcessTurn returns its context: what a session's caller is shown
about its user is the same whichever of the two routes shows it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
from fastapi import APIRouter, Depends, Request, Response
from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc
from lore_runtime import errors

from gateway_svc.api import turn_roles
from gateway_svc.api.auth import authorized
from gateway_svc.api.calls import body_message, query_message, rpc_options, with_path_id
from gateway_svc.api.openapi import json_body, json_response, query_parameters
from gateway_svc.api.proto_json import ProtoJSONResponse
from gateway_svc.api.user_pin import check_readable, check_writable, pin_request
from gateway_svc.domain.credentials import Caller

router = APIRouter(tags=["sessions"])

IMPORT_EXAMPLE = {
    "turns": [
        {
            "role": "TURN_ROLE_USER",
            "content": "Caroline went to the LGBTQ support group yesterday.",
            "createdAt": "2023-05-08T13:56:00Z",
            "metadata": {"dia_id": "D1:3"},
            "idempotencyKey": "conv-26/D1:3",
        }
    ]
}
TURN_EXAMPLE = {
    "turn": {"role": "TURN_ROLE_USER", "content": "I'm vegetarian, by the way.", "idempotencyKey": "msg-17"},
    "contextOptions": {"persona": "You are Aria, a friendly cooking assistant."},
}
START_EXAMPLE = {
    "scope": {"userId": "u-1", "agentId": "agent-1"},
    "metadata": {"channel": "web"},
    "requestId": "r-1",
    "initialMessage": "Hi! Any ideas for dinner tonight?",
}


# What GetSession answers for an id the agent never issued: unknown, or not even a session id's shape.
NOT_A_SESSION = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT)


def _agent(request: Request) -> agent_service_pb2_grpc.AgentServiceStub:
    return agent_service_pb2_grpc.AgentServiceStub(request.app.state.container.channels["agent"])


async def check_session(
    request: Request, caller: Caller, session_id: str, *, change: bool, for_user: str | None = None
) -> None:
    """A caller pinned to a user reads (``change``: writes to) only that user's sessions (``user_pin``).
    ``for_user``: the session must also be that user's, whatever the credential — a context made for
    one user never reads another user's working memory, even with an org-wide key that may read both.
    An org-wide caller may name a session the agent never issued (its own conversation id): only
    AssembleContext itself has written that working memory, and it holds nothing of any user's."""
    if not caller.user_id and for_user is None:
        return
    try:
        found = await _agent(request).GetSession(pb.GetSessionRequest(id=session_id), **rpc_options(request, caller))
    except grpc.aio.AioRpcError as error:
        if caller.user_id or error.code() not in NOT_A_SESSION:
            raise
        return
    owner = found.session.scope.user_id
    if caller.user_id:
        check = check_writable if change else check_readable
        check(caller, owner, "session", session_id)
    if for_user is not None and owner != for_user:
        raise errors.InvalidArgument(
            "sessionId", "the session belongs to another user than scope.userId: a context is one user's"
        )


async def _write_turns(
    request: Request,
    caller: Caller,
    session_id: str,
    message_class: type,
    prepare: Callable[[dict[str, Any]], None],
    method: str,
) -> Response:
    """ProcessTurn and ImportTurns alike: the body's roles read (``turn_roles``), the path's session,
    which the caller must be allowed to write to."""
    message = with_path_id(await body_message(request, message_class, prepare=prepare), "session_id", session_id)
    await check_session(request, caller, session_id, change=True)
    return ProtoJSONResponse(await getattr(_agent(request), method)(message, **rpc_options(request, caller)))


@router.post(
    "/v1/sessions",
    summary="Start a session; a repeated requestId returns the same one; with initialMessage or includePrime,"
    " the Prime of its scope too (AgentService.StartSession)",
    openapi_extra=json_body(pb.StartSessionRequest, START_EXAMPLE, pb.StartSessionResponse),
)
async def start_session(request: Request, caller: Caller = Depends(authorized("sessions:write"))) -> Response:
    message = pin_request(caller, await body_message(request, pb.StartSessionRequest, empty=True))
    return ProtoJSONResponse(await _agent(request).StartSession(message, **rpc_options(request, caller)))


@router.get(
    "/v1/sessions",
    summary="Sessions, newest first, by scope and status (AgentService.ListSessions)",
    openapi_extra=query_parameters(
        pb.ListSessionsRequest, pb.ListSessionsResponse, {"scope.userId": "u-1", "status": "SESSION_STATUS_ACTIVE"}
    ),
)
async def list_sessions(request: Request, caller: Caller = Depends(authorized("sessions:read"))) -> Response:
    message = pin_request(caller, query_message(request, pb.ListSessionsRequest))
    return ProtoJSONResponse(await _agent(request).ListSessions(message, **rpc_options(request, caller)))


@router.get(
    "/v1/sessions/{session_id}",
    summary="One session (AgentService.GetSession)",
    openapi_extra=json_response(pb.GetSessionResponse),
)
async def get_session(
    session_id: str, request: Request, caller: Caller = Depends(authorized("sessions:read"))
) -> Response:
    message = pb.GetSessionRequest(id=session_id)
    found = await _agent(request).GetSession(message, **rpc_options(request, caller))
    check_readable(caller, found.session.scope.user_id, "session", session_id)
    return ProtoJSONResponse(found)


@router.post(
    "/v1/sessions/{session_id}:end",
    summary="End a session (AgentService.EndSession); the body may be left out",
    openapi_extra=json_body(pb.EndSessionRequest, {}, pb.EndSessionResponse),
)
async def end_session(
    session_id: str, request: Request, caller: Caller = Depends(authorized("sessions:write"))
) -> Response:
    message = with_path_id(await body_message(request, pb.EndSessionRequest, empty=True), "id", session_id)
    await check_session(request, caller, session_id, change=True)
    return ProtoJSONResponse(await _agent(request).EndSession(message, **rpc_options(request, caller)))


@router.get(
    "/v1/sessions/{session_id}/turns",
    summary="The session's transcript in order (AgentService.ListTurns)",
    openapi_extra=query_parameters(pb.ListTurnsRequest, pb.ListTurnsResponse, {"pageSize": 50}),
)
async def list_turns(
    session_id: str, request: Request, caller: Caller = Depends(authorized("sessions:read"))
) -> Response:
    message = with_path_id(query_message(request, pb.ListTurnsRequest), "session_id", session_id)
    await check_session(request, caller, session_id, change=False)
    return ProtoJSONResponse(await _agent(request).ListTurns(message, **rpc_options(request, caller)))


@router.post(
    "/v1/sessions/{session_id}/turns",
    summary="The per-turn loop: store the turn, assemble context, reply when a model is configured, queue reflection;"
    ' role "assistant" stores the caller\'s own reply, with no context (AgentService.ProcessTurn)',
    openapi_extra=json_body(pb.ProcessTurnRequest, TURN_EXAMPLE, pb.ProcessTurnResponse),
)
async def process_turn(
    session_id: str, request: Request, caller: Caller = Depends(authorized("sessions:write"))
) -> Response:
    return await _write_turns(request, caller, session_id, pb.ProcessTurnRequest, turn_roles.in_turn, "ProcessTurn")


@router.post(
    "/v1/sessions/{session_id}/turns:import",
    summary="Historical turns with their real timestamps, indexed as message memories (AgentService.ImportTurns)",
    openapi_extra=json_body(pb.ImportTurnsRequest, IMPORT_EXAMPLE, pb.ImportTurnsResponse),
)
async def import_turns(
    session_id: str, request: Request, caller: Caller = Depends(authorized("sessions:write"))
) -> Response:
    return await _write_turns(request, caller, session_id, pb.ImportTurnsRequest, turn_roles.in_turns, "ImportTurns")
