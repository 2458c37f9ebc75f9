"""Operator routes (``admin`` scope): the maintenance jobs the services also run on schedule, and
the state of the agent's background job queue.

Each acts on the caller's organisation only: the org comes from the credential like
everywhere else, so an admin key of one tenant cannot decay or fold another's memories.
The exception is reindexing: the embedding model is the store's, so it re-embeds every org's
memories. It needs the ``operator`` scope, which ``admin`` does not imply and no org's key holds
unless whoever runs the store granted it (``lore keys create --scope operator``; ``lore up``'s dev key).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from lore.memory.v1 import memory_service_pb2

from gateway_svc.api.http.calls import body_message, rpc_options
from gateway_svc.api.http.forwarding import declared_route, forward, guard
from gateway_svc.api.http.upstreams import AGENT, MEMORY, OBSERVATIONS
from gateway_svc.api.json.proto_json import ProtoJSONResponse
from gateway_svc.domain.credentials import Caller

router = APIRouter()  # each route tagged as the route table says

CONSOLIDATION_EXAMPLE = {"scope": {"userId": "u-1"}, "dryRun": True, "threshold": 0.92}


forward(
    router,
    "admin.runDecay",
    rpc=MEMORY.rpc("RunDecay"),
)
forward(
    router,
    "admin.runConsolidation",
    rpc=MEMORY.rpc("RunConsolidation"),
    example=CONSOLIDATION_EXAMPLE,
)
forward(
    router,
    "admin.runRevalidation",
    rpc=OBSERVATIONS.rpc("RunRevalidation"),
    example={"agentId": ""},
)


@declared_route(router, "admin.reindex", example={"force": False})
async def reindex(request: Request, caller: Caller = Depends(guard("admin.reindex"))) -> Response:
    message = await body_message(request, memory_service_pb2.ReindexRequest, empty=True)
    # Bounded by the usual deadline: a longer run stops there and the next call resumes it (`lore reindex` has none).
    last = memory_service_pb2.ReindexResponse()
    async for step in MEMORY.on(request).Reindex(message, **rpc_options(request, caller)):
        last = step
    return ProtoJSONResponse(last)


forward(
    router,
    "admin.jobStats",
    rpc=AGENT.rpc("GetJobStats"),
)
# The jobs themselves, not their counts: GET /v1/admin/jobs is already the counts (GetJobStats, released).
forward(
    router,
    "admin.listJobs",
    rpc=AGENT.rpc("ListJobs"),
    example={"kind": "reflect", "state": "dead", "pageSize": 50},
)
forward(
    router,
    "admin.retryJobs",
    rpc=AGENT.rpc("RetryJobs"),
    example={"kinds": ["reflect"]},
)
