"""A real service process drains on SIGTERM: NOT_SERVING first, then a clean exit."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lore_devstack import free_port

from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.polling import eventually


async def _status(address: str) -> int | None:
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            response = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1)
        except grpc.aio.AioRpcError:
            return None
        return response.status


async def test_sigterm_reports_not_serving_then_exits_cleanly():
    address = f"127.0.0.1:{free_port()}"
    env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    # The assembler needs no store of its own; its upstreams are absent, which is fine here.
    env.update(
        LORE_ASSEMBLER_ADDR=address,
        LORE_MEMORY_ADDR="127.0.0.1:9",
        LORE_OBSERVATIONS_ADDR="127.0.0.1:9",
        LORE_DRAIN_SECONDS="1.5",
        LORE_STOP_GRACE_SECONDS="2",
        LORE_LOG_LEVEL="WARNING",
        **SERVICE_TOKEN_ENV,
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "assembler_svc", env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    try:

        async def answering() -> bool:
            assert process.returncode is None, (await process.stdout.read()).decode()
            return await _status(address) is not None

        await eventually(answering, what="the server answering health checks")
        process.send_signal(signal.SIGTERM)

        async def left_serving() -> tuple[int | None]:  # a tuple: truthy whatever the status
            status = await _status(address)
            return (status,) if status != health_pb2.HealthCheckResponse.SERVING else ()

        (status,) = await eventually(left_serving, what="the health status after SIGTERM")
        assert status == health_pb2.HealthCheckResponse.NOT_SERVING
        assert await asyncio.wait_for(process.wait(), timeout=20) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
