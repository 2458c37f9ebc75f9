"""Session and transcript routes → ``lore.agent.v1.AgentService`` (scopes ``sessions:*``),
the per-turn loop included (``POST /v1/sessions/{id}/turns``). A turn's ``role`` may be written
short (``"assistant"``) as well as the enum's name (``gateway_svc.api.json.turn_roles``).

Starting a session may return its Prime (``initialMessage``, ``includePrime``) under
``sessions:write`` alone, as ProcessTurn returns its context: what a session's caller is shown
about its user is the same whichever of the two routes shows it."""

from __future__ import annotations

import grpc
from fastapi import APIRouter, Depends, Request, Response
from lore.agent.v1 import agent_service_pb2 as pb
from lore_runtime import errors

from gateway_svc.api.auth.user_pin import check_readable, check_writable
from gateway_svc.api.http.forwarding import declared_route, forward, guard, readable
from gateway_svc.api.http.upstreams import AGENT
from gateway_svc.api.json import turn_roles
from gateway_svc.api.json.proto_json import ProtoJSONResponse
from gateway_svc.domain.credentials import Caller

router = APIRouter()  # each route tagged as the route table says

IMPORT_EXAMPLE = {
    "turns": [
        {
            "role": "TURN_ROLE_USER",
            "content": "I sang with the community choir for the first time yesterday.",
            "speaker": "Noor",
            "createdAt": "2023-05-08T13:56:00Z",
            "metadata": {"channel": "chat"},
            "idempotencyKey": "chat-41/turn-3",
            "toolInteractions": [
                {
                    "toolName": "calendar",
                    "intent": "find the next rehearsal",
                    "summary": "Thursday at 7 pm",
                    "result": {"day": "Thursday", "time": "19:00"},
                    "salientFields": ["day"],
                }
            ],
        }
    ]
}
TURN_EXAMPLE = {
    "turn": {
        "role": "TURN_ROLE_USER",
        "content": "I'm vegetarian, by the way.",
        "idempotencyKey": "msg-17",
        "toolInteractions": [
            {
                "toolName": "pantry",
                "intent": "list what is in stock",
                "summary": "Lentils and rice",
                "result": {"items": ["lentils", "rice"]},
                "salientFields": ["items"],
            }
        ],
    },
    "contextOptions": {
        "persona": "You are Aria, a friendly cooking assistant.",
        "toolResults": [
            {"toolName": "pantry", "summary": "Lentils and rice", "result": {"items": ["lentils", "rice"]}}
        ],
        "sectionBudgets": [{"section": "SECTION_KIND_MEMORIES", "tokens": 600}],
    },
}
START_EXAMPLE = {
    "scope": {"userId": "u-1", "agentId": "agent-1"},
    "metadata": {"channel": "web"},
    "requestId": "r-1",
    "initialMessage": "Hi! Any ideas for dinner tonight?",
}


# What GetSession answers for an id the agent never issued: unknown, or not even a session id's shape.
NOT_A_SESSION = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT)


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
        found = await AGENT.rpc("GetSession")(request, caller, pb.GetSessionRequest(id=session_id))
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


async def _writable_session(request: Request, caller: Caller, session_id: str) -> None:
    await check_session(request, caller, session_id, change=True)


async def _readable_session(request: Request, caller: Caller, session_id: str) -> None:
    await check_session(request, caller, session_id, change=False)


forward(
    router,
    "sessions.startSession",
    rpc=AGENT.rpc("StartSession"),
    example=START_EXAMPLE,
    pin=True,
)
forward(
    router,
    "sessions.listSessions",
    rpc=AGENT.rpc("ListSessions"),
    example={"scope.userId": "u-1", "status": "SESSION_STATUS_ACTIVE"},
    pin=True,
)
forward(
    router,
    "sessions.getSession",
    rpc=AGENT.rpc("GetSession"),
    path_field="id",
    after=readable("session"),
)
forward(
    router,
    "sessions.endSession",
    rpc=AGENT.rpc("EndSession"),
    path_field="id",
    before=_writable_session,
)
forward(
    router,
    "sessions.listTurns",
    rpc=AGENT.rpc("ListTurns"),
    example={"pageSize": 50},
    path_field="session_id",
    before=_readable_session,
)
# ProcessTurn and ImportTurns alike: the body's roles read (``turn_roles``), the path's session,
# which the caller must be allowed to write to.
forward(
    router,
    "sessions.processTurn",
    rpc=AGENT.rpc("ProcessTurn"),
    example=TURN_EXAMPLE,
    prepare=turn_roles.in_turn,
    path_field="session_id",
    before=_writable_session,
)
forward(
    router,
    "sessions.importTurns",
    rpc=AGENT.rpc("ImportTurns"),
    example=IMPORT_EXAMPLE,
    prepare=turn_roles.in_turns,
    path_field="session_id",
    before=_writable_session,
)


# Two ids in the path (``forward`` takes one): written out, from the same pieces.
@declared_route(router, "sessions.getTurnContext")
async def get_turn_context(
    session_id: str, turn_id: str, request: Request, caller: Caller = Depends(guard("sessions.getTurnContext"))
) -> Response:
    await _readable_session(request, caller, session_id)
    message = pb.GetTurnContextRequest(session_id=session_id, turn_id=turn_id)
    return ProtoJSONResponse(await AGENT.rpc("GetTurnContext")(request, caller, message))
