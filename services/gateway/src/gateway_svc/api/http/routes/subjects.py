"""Erasure: ``POST /v1/subjects:forget`` → ``AgentService.ForgetSubject`` (scope ``subjects:forget``,
which ``admin`` includes). Erasing a person is destructive and rare, so it is a scope of its own:
a privacy tool can hold it without the rest of ``admin``, and no ordinary read/write key has it.

The answer is the erasure job; asking again with the same ``requestId`` returns its current state
(``ERASURE_STATUS_PENDING`` → ``RUNNING`` → ``COMPLETED``, or ``DEAD_LETTERED``). The gateway's own
part is done before it answers: its idempotency records naming the subject or one of its sessions
are deleted (the agent cannot reach the gateway's store; docs/decisions.md)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc
from lore.common.v1 import scope_pb2
from lore_runtime.text_rules import check_id

from gateway_svc.api.auth.user_pin import pin_request
from gateway_svc.api.http.calls import body_message, rpc_options
from gateway_svc.api.http.forwarding import declared_route, guard
from gateway_svc.api.http.upstreams import AGENT
from gateway_svc.api.json.proto_json import ProtoJSONResponse
from gateway_svc.domain.credentials import Caller
from gateway_svc.domain.idempotency_subjects import subject_ids

router = APIRouter()  # each route tagged as the route table says
SESSIONS_PAGE = 500  # the agent's largest ListSessions page

FORGET_EXAMPLE = {"subject": {"userId": "u-1"}, "requestId": "erase-u-1"}


@declared_route(router, "erasure.forgetSubject", example=FORGET_EXAMPLE)
async def forget_subject(request: Request, caller: Caller = Depends(guard("erasure.forgetSubject"))) -> Response:
    message = pin_request(caller, await body_message(request, pb.ForgetSubjectRequest))
    agent = AGENT.on(request)
    for name in ("userId", "agentId", "teamId"):  # named as written, not as the session listing's scope
        check_id(getattr(message.subject, name[:-2] + "_id"), f"subject.{name}")
    # Listed before the erasure is queued: its job deletes the sessions.
    sessions = await _sessions_of(agent, message.subject, rpc_options(request, caller))
    answer = await agent.ForgetSubject(message, **rpc_options(request, caller))
    # The responses this gateway keeps for Idempotency-Key replays hold the subject's words: they go
    # now (a replayed request deletes what is left, nothing else).
    subject = subject_ids(message.subject.user_id, message.subject.agent_id, message.subject.team_id)
    await request.app.state.container.idempotency.forget(caller.org_id, subject, sessions)
    return ProtoJSONResponse(answer)


async def _sessions_of(
    agent: agent_service_pb2_grpc.AgentServiceStub, subject: scope_pb2.Scope, options: dict[str, Any]
) -> list[str]:
    """Every session of the subject (none when the subject names nobody: the agent refuses it)."""
    if not (subject.user_id or subject.agent_id or subject.team_id):
        return []
    found, token = [], ""
    while True:
        page = await agent.ListSessions(
            pb.ListSessionsRequest(scope=subject, page_size=SESSIONS_PAGE, page_token=token), **options
        )
        found += [session.id for session in page.sessions]
        if not (token := page.next_page_token):
            return found
