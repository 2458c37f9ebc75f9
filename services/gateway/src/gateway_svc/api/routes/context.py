"""Context routes → ``lore.assembler.v1.AssemblerService``: assembly per turn, priming and the user
profile (``GET /v1/users/{user_id}/profile``, the user from the path; a credential pinned to a user
reads only its own profile: naming another is 403 ``USER_PINNED``).

All read memories and beliefs, so all need ``memories:read`` and ``observations:read``.
``GET /v1/memory/prime`` takes the scope as ``userId``/``agentId``/``teamId`` (ARCHITECTURE.md
§6; ``query_params`` reads those shorthands).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from lore.assembler.v1 import assembler_service_pb2 as pb

from gateway_svc.api.auth import authorized
from gateway_svc.api.calls import body_message
from gateway_svc.api.forwarding import Query, forward
from gateway_svc.api.openapi import json_body
from gateway_svc.api.proto_json import ProtoJSONResponse
from gateway_svc.api.routes.sessions import check_session
from gateway_svc.api.upstreams import ASSEMBLER
from gateway_svc.api.user_pin import pin_request
from gateway_svc.domain.credentials import Caller

router = APIRouter(tags=["context"])

ASSEMBLE_EXAMPLE = {
    "sessionId": "s-1",
    "scope": {"userId": "u-1", "agentId": "agent-1"},
    "message": "Can we move the migration to Friday?",
    "options": {
        "persona": "You are Ada, a careful database consultant.",
        "personaMode": "consultant",
        "toolResults": [
            {
                "toolName": "calendar",
                "intent": "find a free day",
                "summary": "Friday is free after 2 pm",
                "result": {"day": "Friday", "from": "14:00"},
                "salientFields": ["day", "from"],
            }
        ],
    },
}


# Both read memories and beliefs.
READS = ("memories:read", "observations:read")


@router.post(
    "/v1/context:assemble",
    summary="A ranked, deduplicated, token-budgeted context with its manifest (AssemblerService.AssembleContext)",
    openapi_extra=json_body(pb.AssembleContextRequest, ASSEMBLE_EXAMPLE, pb.AssembleContextResponse),
)
async def assemble_context(request: Request, caller: Caller = Depends(authorized(*READS))) -> Response:
    message = pin_request(caller, await body_message(request, pb.AssembleContextRequest))
    if message.session_id:  # the context reads and writes the session's working memory: its user's only
        await check_session(request, caller, message.session_id, change=True, for_user=message.scope.user_id)
    return ProtoJSONResponse(await ASSEMBLER.rpc("AssembleContext")(request, caller, message))


forward(
    router,
    "GET",
    "/v1/memory/prime",
    "prime",
    summary='"What I remember" at the start of a conversation (AssemblerService.Prime)',
    scopes=READS,
    rpc=ASSEMBLER.rpc("Prime"),
    message=Query(
        pb.PrimeRequest,
        {"scope.userId": "u-1", "scope.agentId": "agent-1", "initialMessage": "Hi again!", "budgetTokens": 800},
    ),
    response=pb.PrimeResponse,
    pin=True,
)


forward(
    router,
    "GET",
    "/v1/users/{user_id}/profile",
    "get_user_profile",
    summary="What Lore has learnt about a user, newest truth only: the context's user profile (AssemblerService"
    ".GetUserProfile)",
    scopes=READS,
    rpc=ASSEMBLER.rpc("GetUserProfile"),
    message=Query(pb.GetUserProfileRequest, {"agentId": "agent-1", "budgetTokens": 300}),
    response=pb.GetUserProfileResponse,
    path_field="user_id",
    pin=True,
)
