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

from gateway_svc.api.auth.user_pin import pin_request
from gateway_svc.api.http.calls import body_message
from gateway_svc.api.http.forwarding import declared_route, forward, guard
from gateway_svc.api.http.routes.sessions import check_session
from gateway_svc.api.http.upstreams import ASSEMBLER
from gateway_svc.api.json.proto_json import ProtoJSONResponse
from gateway_svc.api.openapi import tool_names
from gateway_svc.domain.credentials import Caller

router = APIRouter()  # each route tagged as the route table says

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
        "sectionBudgets": [{"section": "SECTION_KIND_MEMORIES", "tokens": 600}],
    },
}


# Both read memories and beliefs.
READS = ("memories:read", "observations:read")


@declared_route(router, "context.assembleContext", example=ASSEMBLE_EXAMPLE)
async def assemble_context(request: Request, caller: Caller = Depends(guard("context.assembleContext"))) -> Response:
    message = pin_request(
        caller,
        await body_message(
            request, pb.AssembleContextRequest, prepare=lambda body: tool_names.in_options(body, "options")
        ),
    )
    if message.session_id:  # the context reads and writes the session's working memory: its user's only
        await check_session(request, caller, message.session_id, change=True, for_user=message.scope.user_id)
    return ProtoJSONResponse(await ASSEMBLER.rpc("AssembleContext")(request, caller, message))


forward(
    router,
    "context.prime",
    rpc=ASSEMBLER.rpc("Prime"),
    example={"scope.userId": "u-1", "scope.agentId": "agent-1", "initialMessage": "Hi again!", "budgetTokens": 800},
    pin=True,
)


forward(
    router,
    "context.getUserProfile",
    rpc=ASSEMBLER.rpc("GetUserProfile"),
    example={"agentId": "agent-1", "budgetTokens": 300},
    path_field="user_id",
    pin=True,
)
