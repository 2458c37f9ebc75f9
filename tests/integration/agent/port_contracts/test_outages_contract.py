"""An outage, as every port the agent calls another service through reports it: each fake's
``down`` and each Grpc* adapter on a channel to an address where nothing listens both raise
DependencyUnavailable, but for the working memory's lease, which answers None (the transcript
orders turns without it). The use cases' fallbacks are built on exactly that."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import grpc
import pytest
from agent_svc.adapters.grpc_assembler import GrpcContextAssembler
from agent_svc.adapters.grpc_episodes import GrpcEpisodes
from agent_svc.adapters.grpc_erasure import GrpcSubjectEraser
from agent_svc.adapters.grpc_memories import GrpcMemories
from agent_svc.adapters.grpc_observations import GrpcEngagement, GrpcObservations
from agent_svc.adapters.grpc_timeline import GrpcTimeline
from agent_svc.adapters.grpc_working_memory import GrpcWorkingMemory
from agent_svc.domain.extraction import EpisodeDraft, ExtractedClaim
from agent_svc.domain.transcript import Scope, Session, Turn
from agent_svc.usecases.memory_ports import MemoryWrite
from agent_svc.usecases.reflection_ports import Evidence
from lore_devstack import free_port
from lore_runtime.channels import create_channel
from lore_runtime.errors import DependencyUnavailable

from tests.fakes_agent import (
    FakeContextAssembler,
    FakeEngagement,
    FakeEpisodes,
    FakeMemories,
    FakeObservations,
    FakeSubjectEraser,
    FakeTimeline,
    FakeWorkingMemory,
)
from tests.grpc_harness import SERVICE_TOKENS
from tests.integration.agent.port_contracts.conftest import ActingAs, new_org

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
SCOPE = Scope(user_id="u-1", agent_id="a-1")
SESSION = Session(str(uuid.uuid4()), "org-down", SCOPE, "active", T0, T0)
TURN = Turn(str(uuid.uuid4()), SESSION.id, 1, "user", "hello", T0)
CLAIM = ExtractedClaim("operator_preference", "user", "", "diet", "The user is vegetarian.", "I'm vegetarian")

# Each port: its fake, its adapter on the channel given, and one call of each kind the agent makes.
PORTS: dict[str, tuple[Callable[[], Any], Callable[[grpc.aio.Channel], Any], list[Callable[[Any], Awaitable]]]] = {
    "memories": (
        FakeMemories,
        GrpcMemories,
        [
            lambda port: port.remember(SCOPE, SESSION.id, [MemoryWrite.message(TURN)]),
            lambda port: port.supersede([str(uuid.uuid4())]),
            lambda port: port.complete_commitments(SCOPE, ["Send the report"]),
        ],
    ),
    "observations": (
        FakeObservations,
        GrpcObservations,
        [lambda port: port.observe(SCOPE, CLAIM, Evidence(TURN.id, (), T0), "r-1")],
    ),
    "engagement": (
        FakeEngagement,
        GrpcEngagement,
        [lambda port: port.state(), lambda port: port.form("A hypothesis.", "form-1")],
    ),
    "episodes": (
        FakeEpisodes,
        GrpcEpisodes,
        [
            lambda port: port.create(SESSION, EpisodeDraft("Talked."), 2, T0, T0),
            lambda port: port.open_threads(SCOPE, 10),
            lambda port: port.resolve_thread(str(uuid.uuid4()), 0, "Done."),
        ],
    ),
    "assembler": (
        FakeContextAssembler,
        GrpcContextAssembler,
        [lambda port: port.assemble(SESSION, "hello", None), lambda port: port.prime(SCOPE, "hello")],
    ),
    "working memory": (
        FakeWorkingMemory,
        GrpcWorkingMemory,
        [
            lambda port: port.append_turn(SESSION.id, TURN, None),
            lambda port: port.reflect(SESSION.id, "A summary.", None, []),
        ],
    ),
    "timeline": (
        FakeTimeline,
        GrpcTimeline,
        [lambda port: port.digests("org-down", SCOPE)],
    ),
    "subject eraser": (
        FakeSubjectEraser,
        lambda channel: GrpcSubjectEraser(channel, channel),
        [lambda port: port.memory_ids(SCOPE), lambda port: port.request_purge()],
    ),
}


@pytest.fixture(params=["fake", "grpc"])
async def down(request) -> AsyncIterator[Callable[[str], Any]]:
    """Builds the named port, down."""
    if request.param == "fake":

        def fake(name: str) -> Any:
            port = PORTS[name][0]()
            port.down = True
            return port

        yield fake
        return
    channel = create_channel(f"127.0.0.1:{free_port()}", token=SERVICE_TOKENS)
    try:
        yield lambda name: ActingAs(PORTS[name][1](channel), new_org())
    finally:
        await channel.close()


@pytest.mark.parametrize("name", list(PORTS))
async def test_a_service_down_is_dependency_unavailable(down, name: str) -> None:
    port = down(name)
    for call in PORTS[name][2]:
        with pytest.raises(DependencyUnavailable):
            await call(port)


async def test_no_lease_while_working_memory_is_down(down) -> None:
    assert await down("working memory").acquire_lease(SESSION.id, "h-1") is None
    assert await down("working memory").acquire_lease_and_append(SESSION.id, "h-1", TURN) is None
