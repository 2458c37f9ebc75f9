"""Fixtures of the agent's integration tests."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from lore.agent.v1 import agent_service_pb2_grpc
from lore.memory.v1 import episode_service_pb2_grpc, memory_service_pb2_grpc, working_memory_service_pb2_grpc
from lore.observations.v1 import observation_service_pb2_grpc
from lore_devstack import free_port

from tests.agent_process import AgentProcess
from tests.backends import fresh_migrated_database


@pytest_asyncio.fixture(loop_scope="session")
async def agent_process(services, pg_superuser_dsn, tmp_path) -> AsyncIterator[AgentProcess]:
    async with fresh_migrated_database(pg_superuser_dsn, "lore_fault") as urls:
        env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
        env.update(
            LORE_AGENT_ADDR=f"127.0.0.1:{free_port()}",
            LORE_DATABASE_URL=urls.app_dsn,
            LORE_MEMORY_ADDR=services["memory"].address,
            LORE_OBSERVATIONS_ADDR=services["observations"].address,
            LORE_ASSEMBLER_ADDR=services["assembler"].address,
            LORE_IDLE_SCAN_SECONDS="0",
            LORE_DIGEST_INTERVAL_SECONDS="0",
            LORE_AGENT_JOB_HEARTBEAT_SECONDS="2",
            LORE_AGENT_JOB_BACKOFF_MS="200",
            LORE_LOG_LEVEL="WARNING",
        )
        agent = AgentProcess(env, tmp_path / "agent.log")
        agent.database_url = urls.app_dsn  # type: ignore[attr-defined]
        try:
            yield agent
        finally:
            await agent.stop()


# Stubs of the in-process services (the ``services`` fixture of tests/integration/conftest.py).


@pytest.fixture
def agent(services):
    return agent_service_pb2_grpc.AgentServiceStub(services["agent"].channel)


@pytest.fixture
def memories(services):
    return memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)


@pytest.fixture
def working(services):
    return working_memory_service_pb2_grpc.WorkingMemoryServiceStub(services["memory"].channel)


@pytest.fixture
def episodes(services):
    return episode_service_pb2_grpc.EpisodeServiceStub(services["memory"].channel)


@pytest.fixture
def observations(services):
    return observation_service_pb2_grpc.ObservationServiceStub(services["observations"].channel)


@pytest.fixture(params=["fake", "postgres"])
def database(request):
    """A contract suite's back end, run once per side: None for the fake; for Postgres a migrated database
    of its own (started only when that side runs: the in-process agent's job worker would drain the
    jobs a contract counts)."""
    return request.getfixturevalue("isolated_pg") if request.param == "postgres" else None
