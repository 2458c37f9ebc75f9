# ruff: noqa: F811  (the stalling_redis fixture is imported, then a parameter)
"""Turns said while the memory service's Redis stalls are answered (the transcript is what a turn
needs), and reach working memory once Redis answers again: reflection appends each live turn it
reflects, failing and retrying until working memory can be reached.

The agent and a memory service of their own run in-process on a database of their own (no other
agent's job worker takes these jobs); the memory service's Redis is the test's, frozen with SIGSTOP.
"""

from __future__ import annotations

import time
from contextlib import AsyncExitStack

import agent_svc.bootstrap
import agent_svc.config
import agent_svc.server
import grpc
import memory_svc.bootstrap
import memory_svc.config
import memory_svc.server
import pytest
from google.protobuf import field_mask_pb2
from lore.agent.v1 import agent_service_pb2 as pb
from lore.agent.v1 import agent_service_pb2_grpc
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import working_memory_service_pb2 as wm_pb
from lore.memory.v1 import working_memory_service_pb2_grpc

from tests.grpc_harness import start_service
from tests.integration.agent.support import tenant
from tests.polling import eventually
from tests.stalling_redis import stalling_redis, stopped  # noqa: F401 (a fixture)

REDIS_TIMEOUT = 0.5


@pytest.fixture
async def stalled_stack(isolated_pg, stalling_redis, services, tmp_path):
    quiet = {
        "LORE_DATABASE_URL": isolated_pg.app_dsn,
        "LORE_MAINTENANCE_INTERVAL_SECONDS": "0",
        "LORE_REVALIDATION_INTERVAL_SECONDS": "0",
        "LORE_IDLE_SCAN_SECONDS": "0",
        "LORE_DIGEST_INTERVAL_SECONDS": "0",
    }
    async with AsyncExitStack() as stack:
        memory = await start_service(
            stack,
            "memory",
            memory_svc.bootstrap,
            memory_svc.server,
            memory_svc.config.Settings,
            {
                **quiet,
                "LORE_REDIS_URL": stalling_redis.url,
                "LORE_REDIS_TIMEOUT_SECONDS": str(REDIS_TIMEOUT),
                "LORE_DATA_DIR": str(tmp_path / "memory"),
            },
        )
        agent = await start_service(
            stack,
            "agent",
            agent_svc.bootstrap,
            agent_svc.server,
            agent_svc.config.Settings,
            {
                **quiet,
                "LORE_REDIS_URL": stalling_redis.url,
                "LORE_DATA_DIR": str(tmp_path / "agent"),
                "LORE_MEMORY_ADDR": memory.address,
                "LORE_OBSERVATIONS_ADDR": services["observations"].address,
                "LORE_ASSEMBLER_ADDR": services["assembler"].address,
                "LORE_AGENT_JOB_BACKOFF_MS": "200",
            },
        )
        yield (
            agent_service_pb2_grpc.AgentServiceStub(agent.channel),
            working_memory_service_pb2_grpc.WorkingMemoryServiceStub(memory.channel),
        )


async def test_turns_said_while_redis_stalls_reach_working_memory_once_it_answers(
    stalled_stack, stalling_redis, org_id
):
    agent, working_memory = stalled_stack
    meta = tenant(org_id)
    started = await agent.StartSession(
        pb.StartSessionRequest(scope=scope_pb2.Scope(user_id="u-stall")), metadata=meta, timeout=10
    )
    session = started.session.id

    async def say(key: str, content: str) -> str:
        turn = turn_pb2.Turn(content=content, idempotency_key=key)
        done = await agent.ProcessTurn(pb.ProcessTurnRequest(session_id=session, turn=turn), metadata=meta, timeout=30)
        return done.turn.id

    said = [await say("t-0", "I'm vegetarian.")]
    with stopped(stalling_redis):
        began = time.monotonic()
        said += [await say("t-1", "I live in Lisbon."), await say("t-2", "I prefer tea over coffee.")]
        assert time.monotonic() - began < 10 * REDIS_TIMEOUT, "a stalled Redis costs a turn its deadline at most"

    async def kept() -> list[str] | None:
        request = wm_pb.GetWorkingMemoryRequest(
            session_id=session, read_mask=field_mask_pb2.FieldMask(paths=["recent_turns"])
        )
        try:
            found = await working_memory.GetWorkingMemory(request, metadata=meta, timeout=10)
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.UNAVAILABLE, error
            return None  # the memory service's breaker, still cooling down after the stall
        keys = [turn.idempotency_key for turn in found.working_memory.recent_turns]
        return keys if {f"turn:{turn_id}" for turn_id in said} <= set(keys) else None

    keys = await eventually(kept, timeout=60, what="the turns said during the stall never reached working memory")
    assert sorted(keys) == sorted(f"turn:{turn_id}" for turn_id in said), "each turn once"
