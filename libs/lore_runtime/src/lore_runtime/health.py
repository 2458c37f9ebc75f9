"""Asking another gRPC server whether it serves (the standard grpc.health.v1 protocol)."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


async def serving_status(channel: grpc.aio.Channel, service: str = "", timeout: float = 2.0) -> str:
    """The status name (SERVING, NOT_SERVING, UNKNOWN, SERVICE_UNKNOWN) or UNREACHABLE."""
    try:
        response = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=service), timeout=timeout
        )
    except grpc.aio.AioRpcError:
        return "UNREACHABLE"
    return health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)


async def check_upstream(channel: grpc.aio.Channel, service: str = "") -> None:
    """Raise unless the upstream service is SERVING (a dependency check)."""
    status = await serving_status(channel, service)
    if status != "SERVING":
        raise ConnectionError(f"{service or 'server'} is {status}")
