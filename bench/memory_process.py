"""A memory service in its own process for benchmarks: embedded Postgres (migrated) and
Redis from lore_devstack, qdrant-edge in a temporary data directory, a free port.

    async with memory_service() as service:   # service.address, service.pid, service.root
        async with service.channel() as channel:  # sends the service token
            ...

With ``data_dir``, qdrant-edge's files live there instead and outlast the run, so a later run
can serve the same items without ingesting them again (Postgres and Redis start empty: they
hold no items, only access rows, working memory and leases).

Benchmarks then talk to it only through gRPC, like any client.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


@dataclass(frozen=True)
class MemoryProcess:
    address: str
    pid: int
    token: str  # its LORE_SERVICE_TOKEN
    root: Path  # the stores' directory: Postgres's cluster in root / "postgres" (measure.CpuMeter.of_children)

    def channel(self) -> grpc.aio.Channel:
        from lore_cli.service_calls import dial

        return dial({"LORE_SERVICE_TOKEN": self.token}, self.address)


async def _wait_serving(address: str, process: asyncio.subprocess.Process, log: Path) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for _ in range(600):
            if process.returncode is not None:
                raise SystemExit(f"the memory service exited: {log.read_text()[-3000:]}")
            with contextlib.suppress(grpc.aio.AioRpcError):  # not listening yet: poll again
                response = await stub.Check(health_pb2.HealthCheckRequest(), timeout=1)
                if response.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            await asyncio.sleep(0.2)
    raise SystemExit("the memory service did not become SERVING")


@asynccontextmanager
async def memory_service(
    extra_env: dict[str, str] | None = None, data_dir: Path | None = None
) -> AsyncIterator[MemoryProcess]:
    from lore_cli.migrate import apply_all
    from lore_devstack import EmbeddedPostgres, EmbeddedRedis, free_port, prepare_database

    with tempfile.TemporaryDirectory(prefix="lore-bench-") as tmp:
        root = Path(tmp)
        postgres, redis = EmbeddedPostgres(root / "postgres"), EmbeddedRedis(root / "redis")
        try:
            urls = await prepare_database(postgres.start(), f"lore_bench_{secrets.token_hex(4)}")
            await apply_all(urls.owner_dsn, quiet=True)
            address = f"127.0.0.1:{free_port()}"
            env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
            env.update(
                LORE_DATABASE_URL=urls.app_dsn,
                LORE_REDIS_URL=redis.start(),
                LORE_DATA_DIR=str(data_dir or root / "data"),
                LORE_MEMORY_ADDR=address,
                LORE_LOG_LEVEL="WARNING",
                LORE_SERVICE_TOKEN=secrets.token_hex(32),
                **(extra_env or {}),
            )
            log = root / "memory.log"
            with open(log, "wb") as output:
                process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "memory_svc", env=env, stdout=output, stderr=asyncio.subprocess.STDOUT
                )
            try:
                await _wait_serving(address, process, log)
                yield MemoryProcess(address, process.pid, env["LORE_SERVICE_TOKEN"], root)
            finally:
                process.terminate()
                await process.wait()
        finally:
            redis.stop()
            postgres.stop()
