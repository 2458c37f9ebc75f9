"""The agent service as a real child process (``python -m agent_svc``) on a fixed port, started
and killed at will: for the tests that SIGKILL it or start it against a service that is down."""

from __future__ import annotations

import asyncio
import signal
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.grpc_harness import SERVICE_TOKEN_ENV
from tests.polling import eventually


class AgentProcess:
    """``python -m agent_svc`` on a fixed port, started and killed at will."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env, self.log = {**SERVICE_TOKEN_ENV, **env}, log
        self.address = env["LORE_AGENT_ADDR"]
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        with self.log.open("ab") as sink:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "agent_svc", env=self.env, stdout=sink, stderr=sink
            )
        await eventually(self._serving_or_died, timeout=60, what="the agent never became SERVING")

    async def _serving_or_died(self) -> bool:
        assert self.process is not None and self.process.returncode is None, self.log.read_text()[-3000:]
        return await self._serving()

    async def _serving(self) -> bool:
        async with grpc.aio.insecure_channel(self.address) as channel:
            try:
                response = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1)
            except grpc.aio.AioRpcError:
                return False
            return response.status == health_pb2.HealthCheckResponse.SERVING

    async def kill(self) -> None:
        assert self.process is not None and self.process.returncode is None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


async def start_observations(
    stack: AsyncExitStack, address: str, database: Any, redis_url: str, data_dir: Path
) -> None:
    """A real observations service on ``address`` — the one a child agent was told to use while
    nothing listened there (the outage ends)."""
    import observations_svc.bootstrap
    import observations_svc.config
    import observations_svc.server

    from tests.grpc_harness import start_service

    environ = {
        "LORE_DATABASE_URL": database.app_dsn,
        "LORE_REDIS_URL": redis_url,
        "LORE_DATA_DIR": str(data_dir / "observations"),
        "LORE_REVALIDATION_INTERVAL_SECONDS": "0",
    }
    await start_service(
        stack,
        "observations",
        observations_svc.bootstrap,
        observations_svc.server,
        observations_svc.config.Settings,
        environ,
        address=address,
    )
