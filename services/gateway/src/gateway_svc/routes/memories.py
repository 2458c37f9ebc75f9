"""Long-term memory routes → ``lore.memory.v1.MemoryService``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc

from gateway_svc.auth import Caller, authenticated
from gateway_svc.calls import read_json, rpc_options
from gateway_svc.openapi import json_body
from gateway_svc.proto_json import parse, to_json

router = APIRouter(tags=["memories"])

REMEMBER_EXAMPLE = {
    "memories": [
        {
            "content": "Caroline went to the LGBTQ support group yesterday.",
            "memoryType": "MEMORY_TYPE_MESSAGE",
            "scope": {"userId": "conv-26"},
            "validAt": "2023-05-08T13:56:00Z",
            "metadata": {"dia_id": "D1:3"},
            "idempotencyKey": "conv-26/D1:3",
        }
    ],
    "requestId": "optional",
}
RECALL_EXAMPLE = {"query": "When did Caroline go to the support group?", "scope": {"userId": "conv-26"}, "k": 10}


def _stub(request: Request) -> memory_service_pb2_grpc.MemoryServiceStub:
    return memory_service_pb2_grpc.MemoryServiceStub(request.app.state.container.channels["memory"])


@router.post(
    "/v1/memories",
    summary="Remember a batch of memories (MemoryService.Remember)",
    openapi_extra=json_body(memory_service_pb2.RememberRequest, REMEMBER_EXAMPLE),
)
async def remember(request: Request, caller: Caller = Depends(authenticated)) -> dict[str, Any]:
    caller.require("memories:write")
    message = parse(await read_json(request), memory_service_pb2.RememberRequest)
    response = await _stub(request).Remember(message, **rpc_options(request, caller))
    return to_json(response)


@router.post(
    "/v1/memories:search",
    summary="Recall memories by meaning (MemoryService.Recall)",
    openapi_extra=json_body(memory_service_pb2.RecallRequest, RECALL_EXAMPLE),
)
async def recall(request: Request, caller: Caller = Depends(authenticated)) -> dict[str, Any]:
    caller.require("memories:read")
    message = parse(await read_json(request), memory_service_pb2.RecallRequest)
    response = await _stub(request).Recall(message, **rpc_options(request, caller))
    return to_json(response)
