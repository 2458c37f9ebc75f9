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
from lore.agent.v1 import agent_service_pb2, agent_service_pb2_grpc
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore.observations.v1 import observation_service_pb2, observation_service_pb2_grpc

from gateway_svc.api.auth import authorized
from gateway_svc.api.calls import body_message, rpc_options
from gateway_svc.api.openapi import json_body, json_response
from gateway_svc.api.proto_json import ProtoJSONResponse
from gateway_svc.domain.credentials import OPERATOR, Caller

router = APIRouter(tags=["admin"])

CONSOLIDATION_EXAMPLE = {"scope": {"userId": "u-1"}, "dryRun": True, "threshold": 0.92}


def _memories(request: Request) -> memory_service_pb2_grpc.MemoryServiceStub:
    return memory_service_pb2_grpc.MemoryServiceStub(request.app.state.container.channels["memory"])


@router.post(
    "/v1/admin/decay:run",
    summary="Materialise current salience now (MemoryService.RunDecay)",
    openapi_extra=json_body(memory_service_pb2.RunDecayRequest, {}, memory_service_pb2.RunDecayResponse),
)
async def run_decay(request: Request, caller: Caller = Depends(authorized("admin"))) -> Response:
    message = await body_message(request, memory_service_pb2.RunDecayRequest, empty=True)
    return ProtoJSONResponse(await _memories(request).RunDecay(message, **rpc_options(request, caller)))


@router.post(
    "/v1/admin/consolidation:run",
    summary="Fold near-duplicate memories now (MemoryService.RunConsolidation)",
    openapi_extra=json_body(
        memory_service_pb2.RunConsolidationRequest, CONSOLIDATION_EXAMPLE, memory_service_pb2.RunConsolidationResponse
    ),
)
async def run_consolidation(request: Request, caller: Caller = Depends(authorized("admin"))) -> Response:
    message = await body_message(request, memory_service_pb2.RunConsolidationRequest, empty=True)
    return ProtoJSONResponse(await _memories(request).RunConsolidation(message, **rpc_options(request, caller)))


@router.post(
    "/v1/admin/revalidation:run",
    summary="Recompute freshness and confidence of due observations now (ObservationService.RunRevalidation)",
    openapi_extra=json_body(
        observation_service_pb2.RunRevalidationRequest, {"agentId": ""}, observation_service_pb2.RunRevalidationResponse
    ),
)
async def run_revalidation(request: Request, caller: Caller = Depends(authorized("admin"))) -> Response:
    message = await body_message(request, observation_service_pb2.RunRevalidationRequest, empty=True)
    stub = observation_service_pb2_grpc.ObservationServiceStub(request.app.state.container.channels["observations"])
    return ProtoJSONResponse(await stub.RunRevalidation(message, **rpc_options(request, caller)))


@router.post(
    "/v1/admin/reindex",
    summary="Re-embed every org's memories (`operator` scope); answers the last progress step (MemoryService.Reindex)",
    openapi_extra=json_body(memory_service_pb2.ReindexRequest, {"force": False}, memory_service_pb2.ReindexResponse),
)
async def reindex(request: Request, caller: Caller = Depends(authorized(OPERATOR))) -> Response:
    message = await body_message(request, memory_service_pb2.ReindexRequest, empty=True)
    # Bounded by the usual deadline: a longer run stops there and the next call resumes it (`lore reindex` has none).
    last = memory_service_pb2.ReindexResponse()
    async for step in _memories(request).Reindex(message, **rpc_options(request, caller)):
        last = step
    return ProtoJSONResponse(last)


@router.get(
    "/v1/admin/jobs",
    summary="The org's background jobs by kind and state (AgentService.GetJobStats)",
    openapi_extra=json_response(agent_service_pb2.GetJobStatsResponse),
)
async def job_stats(request: Request, caller: Caller = Depends(authorized("admin"))) -> Response:
    agent = agent_service_pb2_grpc.AgentServiceStub(request.app.state.container.channels["agent"])
    return ProtoJSONResponse(
        await agent.GetJobStats(agent_service_pb2.GetJobStatsRequest(), **rpc_options(request, caller))
    )


@router.post(
    "/v1/admin/jobs:retry",
    summary="Queue the org's dead-lettered jobs again, once their cause is fixed (AgentService.RetryJobs)",
    openapi_extra=json_body(
        agent_service_pb2.RetryJobsRequest, {"kinds": ["reflect"]}, agent_service_pb2.RetryJobsResponse
    ),
)
async def retry_jobs(request: Request, caller: Caller = Depends(authorized("admin"))) -> Response:
    message = await body_message(request, agent_service_pb2.RetryJobsRequest, empty=True)
    agent = agent_service_pb2_grpc.AgentServiceStub(request.app.state.container.channels["agent"])
    return ProtoJSONResponse(await agent.RetryJobs(message, **rpc_options(request, caller)))
