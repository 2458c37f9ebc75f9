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
from lore.agent.v1 import agent_service_pb2
from lore.memory.v1 import memory_service_pb2
from lore.observations.v1 import observation_service_pb2

from gateway_svc.api.auth import authorized
from gateway_svc.api.calls import body_message, rpc_options
from gateway_svc.api.forwarding import Body, PathOnly, Query, forward
from gateway_svc.api.openapi import json_body
from gateway_svc.api.proto_json import ProtoJSONResponse
from gateway_svc.api.upstreams import AGENT, MEMORY, OBSERVATIONS
from gateway_svc.domain.credentials import OPERATOR, Caller

router = APIRouter(tags=["admin"])

CONSOLIDATION_EXAMPLE = {"scope": {"userId": "u-1"}, "dryRun": True, "threshold": 0.92}


forward(
    router,
    "POST",
    "/v1/admin/decay:run",
    "run_decay",
    summary="Materialise current salience now (MemoryService.RunDecay)",
    scopes=("admin",),
    rpc=MEMORY.rpc("RunDecay"),
    message=Body(memory_service_pb2.RunDecayRequest, {}, optional=True),
    response=memory_service_pb2.RunDecayResponse,
)
forward(
    router,
    "POST",
    "/v1/admin/consolidation:run",
    "run_consolidation",
    summary="Fold near-duplicate memories now (MemoryService.RunConsolidation)",
    scopes=("admin",),
    rpc=MEMORY.rpc("RunConsolidation"),
    message=Body(memory_service_pb2.RunConsolidationRequest, CONSOLIDATION_EXAMPLE, optional=True),
    response=memory_service_pb2.RunConsolidationResponse,
)
forward(
    router,
    "POST",
    "/v1/admin/revalidation:run",
    "run_revalidation",
    summary="Recompute freshness and confidence of due observations now (ObservationService.RunRevalidation)",
    scopes=("admin",),
    rpc=OBSERVATIONS.rpc("RunRevalidation"),
    message=Body(observation_service_pb2.RunRevalidationRequest, {"agentId": ""}, optional=True),
    response=observation_service_pb2.RunRevalidationResponse,
)


@router.post(
    "/v1/admin/reindex",
    summary="Re-embed every org's memories (`operator` scope); answers the last progress step (MemoryService.Reindex)",
    openapi_extra=json_body(memory_service_pb2.ReindexRequest, {"force": False}, memory_service_pb2.ReindexResponse),
)
async def reindex(request: Request, caller: Caller = Depends(authorized(OPERATOR))) -> Response:
    message = await body_message(request, memory_service_pb2.ReindexRequest, empty=True)
    # Bounded by the usual deadline: a longer run stops there and the next call resumes it (`lore reindex` has none).
    last = memory_service_pb2.ReindexResponse()
    async for step in MEMORY.on(request).Reindex(message, **rpc_options(request, caller)):
        last = step
    return ProtoJSONResponse(last)


forward(
    router,
    "GET",
    "/v1/admin/jobs",
    "job_stats",
    summary="The org's background jobs by kind and state (AgentService.GetJobStats)",
    scopes=("admin",),
    rpc=AGENT.rpc("GetJobStats"),
    message=PathOnly(agent_service_pb2.GetJobStatsRequest),
    response=agent_service_pb2.GetJobStatsResponse,
)
# The jobs themselves, not their counts: GET /v1/admin/jobs is already the counts (GetJobStats, released).
forward(
    router,
    "GET",
    "/v1/admin/jobs:list",
    "list_jobs",
    summary="The org's background jobs, newest first, by kind and state (queued, running, retrying, dead),"
    " with their last error (AgentService.ListJobs)",
    scopes=("admin",),
    rpc=AGENT.rpc("ListJobs"),
    message=Query(agent_service_pb2.ListJobsRequest, {"kind": "reflect", "state": "dead", "pageSize": 50}),
    response=agent_service_pb2.ListJobsResponse,
)
forward(
    router,
    "POST",
    "/v1/admin/jobs:retry",
    "retry_jobs",
    summary="Queue the org's dead-lettered jobs again, once their cause is fixed (AgentService.RetryJobs)",
    scopes=("admin",),
    rpc=AGENT.rpc("RetryJobs"),
    message=Body(agent_service_pb2.RetryJobsRequest, {"kinds": ["reflect"]}, optional=True),
    response=agent_service_pb2.RetryJobsResponse,
)
