"""Internal gRPC calls need the service credential (lore_runtime/service_auth.py), on the real servers.

Without it, any process reaching a service port could read any org by naming it in
``x-lore-org-id``: GetMemory, ListTurns, ExportMemories and Prime would all answer. Now org metadata
counts only beside the shared token (or, under mutual TLS, a client certificate:
tests/integration/runtime/test_mutual_tls.py); health and reflection stay open to probes.
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from contextlib import AsyncExitStack
from datetime import UTC, datetime

import assembler_svc.bootstrap
import assembler_svc.config
import assembler_svc.server
import grpc
import pytest
from gateway_svc.server import create_app
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from grpc_status import rpc_status
from lore.agent.v1 import agent_service_pb2, agent_service_pb2_grpc
from lore.assembler.v1 import assembler_service_pb2, assembler_service_pb2_grpc
from lore.common.v1 import scope_pb2, turn_pb2
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_runtime.service_auth import TOKEN_KEY, ServiceTokens, token_interceptors

from tests.grpc_harness import SERVICE_TOKEN, invoke, start_service
from tests.integration.gateway.conftest import _create_key, asgi_client, gateway_settings

SERVICES = ("memory", "observations", "assembler", "agent")
NEW_TOKEN = "rotated-service-token-" + "9" * 32


def tenant(org: str) -> tuple[tuple[str, str], ...]:
    return (("x-lore-org-id", org), ("x-lore-principal", "intruder"))


def reason_of(error: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(error)
    assert status is not None and status.details, error.details()
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    return info.reason


async def refusal(call) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        result = await call if not hasattr(call, "__aiter__") else [item async for item in call]
        pytest.fail(f"answered: {result}")
    return raised.value


@pytest.fixture(scope="module")
async def seeded(services):
    """An org with a memory and a session with one turn, written the trusted way (with the token)."""
    org, user = f"org-{uuid.uuid4().hex[:12]}", "u-secret"
    memories = memory_service_pb2_grpc.MemoryServiceStub(services["memory"].channel)
    agent = agent_service_pb2_grpc.AgentServiceStub(services["agent"].channel)
    scope = scope_pb2.Scope(user_id=user)
    written = await memories.Remember(
        memory_service_pb2.RememberRequest(
            memories=[
                memory_service_pb2.MemoryInput(
                    content="The secret recipe uses cardamom.",
                    memory_type=memory_service_pb2.MEMORY_TYPE_FACT,
                    scope=scope,
                )
            ]
        ),
        metadata=tenant(org),
    )
    session = (
        await agent.StartSession(agent_service_pb2.StartSessionRequest(scope=scope), metadata=tenant(org))
    ).session
    said = turn_pb2.Turn(role=turn_pb2.TURN_ROLE_USER, content="My locker number is 4711.")
    said.created_at.FromDatetime(datetime(2026, 1, 5, 9, 30, tzinfo=UTC))
    await agent.ImportTurns(
        agent_service_pb2.ImportTurnsRequest(session_id=session.id, turns=[said]), metadata=tenant(org)
    )
    return {"org": org, "scope": scope, "memory_id": written.memories[0].id, "session_id": session.id}


def reads(channels: dict[str, grpc.aio.Channel], seeded: dict) -> dict[str, object]:
    """The four reads of the issue's report, as calls not yet awaited."""
    org, scope = seeded["org"], seeded["scope"]
    memories = memory_service_pb2_grpc.MemoryServiceStub(channels["memory"])
    return {
        "GetMemory": memories.GetMemory(
            memory_service_pb2.GetMemoryRequest(id=seeded["memory_id"]), metadata=tenant(org), timeout=10
        ),
        "ExportMemories": memories.ExportMemories(
            memory_service_pb2.ExportMemoriesRequest(scope=scope), metadata=tenant(org), timeout=10
        ),
        "ListTurns": agent_service_pb2_grpc.AgentServiceStub(channels["agent"]).ListTurns(
            agent_service_pb2.ListTurnsRequest(session_id=seeded["session_id"]), metadata=tenant(org), timeout=10
        ),
        "Prime": assembler_service_pb2_grpc.AssemblerServiceStub(channels["assembler"]).Prime(
            assembler_service_pb2.PrimeRequest(scope=scope), metadata=tenant(org), timeout=10
        ),
    }


async def test_org_metadata_alone_reads_nothing_of_the_org(services, seeded):
    async with AsyncExitStack() as stack:
        bare = {
            name: await stack.enter_async_context(grpc.aio.insecure_channel(services[name].address))
            for name in SERVICES
        }
        for rpc, call in reads(bare, seeded).items():
            error = await refusal(call)
            assert error.code() is grpc.StatusCode.UNAUTHENTICATED, rpc
            assert reason_of(error) == "MISSING_SERVICE_CREDENTIAL", rpc
            assert "cardamom" not in error.details() and "4711" not in error.details()
    # The same reads with the token answer: the refusals above were about the credential, not the data.
    trusted = reads({name: services[name].channel for name in SERVICES}, seeded)
    assert (await trusted["GetMemory"]).memory.content == "The secret recipe uses cardamom."
    exported = [memory.id async for page in trusted["ExportMemories"] for memory in page.memories]
    assert seeded["memory_id"] in exported  # with the imported turn, indexed as a message memory
    assert [turn.content for turn in (await trusted["ListTurns"]).turns] == ["My locker number is 4711."]
    assert "cardamom" in (await trusted["Prime"]).formatted_context


@pytest.mark.parametrize("name", SERVICES)
async def test_every_rpc_of_every_service_refuses_a_caller_without_the_token(services, name):
    running = services[name]
    async with grpc.aio.insecure_channel(running.address) as bare:
        for service in running.server.service_names:
            for method in running.server.descriptors[service].methods:
                with pytest.raises(grpc.aio.AioRpcError) as raised:
                    await invoke(bare, method, metadata=tenant("org-any"))
                assert raised.value.code() is grpc.StatusCode.UNAUTHENTICATED, method.full_name
                assert reason_of(raised.value) == "MISSING_SERVICE_CREDENTIAL", method.full_name


@pytest.mark.parametrize("rpc", ["GetMemory", "ExportMemories", "ListTurns", "Prime"])
async def test_a_wrong_token_is_refused(services, seeded, rpc):
    wrong = ServiceTokens("not-the-service-token-" + "0" * 32)
    async with AsyncExitStack() as stack:
        channels = {
            name: await stack.enter_async_context(
                grpc.aio.insecure_channel(services[name].address, interceptors=token_interceptors(wrong))
            )
            for name in SERVICES
        }
        calls = reads(channels, seeded)
        call = calls.pop(rpc)
        for unused in calls.values():
            unused.cancel()
        error = await refusal(call)
    assert error.code() is grpc.StatusCode.UNAUTHENTICATED
    assert reason_of(error) == "INVALID_SERVICE_CREDENTIAL"


@pytest.mark.parametrize("name", SERVICES)
async def test_health_and_reflection_answer_without_a_token(services, name):
    async with grpc.aio.insecure_channel(services[name].address) as bare:
        answer = await health_pb2_grpc.HealthStub(bare).Check(health_pb2.HealthCheckRequest(), timeout=5)
    assert answer.status == health_pb2.HealthCheckResponse.SERVING

    def listed() -> set[str]:
        with grpc.insecure_channel(services[name].address) as channel:
            return set(ProtoReflectionDescriptorDatabase(channel).get_services())

    assert set(services[name].server.service_names) <= await asyncio.to_thread(listed)


async def test_during_a_rotation_the_previous_token_is_accepted_and_peers_still_answer(services, migrated_pg, seeded):
    """Step one of a rotation: this assembler has (new, previous=old) while memory and observations still
    have only the old one. Callers with either token are served, and its own calls reach its peers."""
    environ = {
        "LORE_MEMORY_ADDR": services["memory"].address,
        "LORE_OBSERVATIONS_ADDR": services["observations"].address,
        "LORE_SERVICE_TOKEN": NEW_TOKEN,
        "LORE_SERVICE_TOKEN_PREVIOUS": SERVICE_TOKEN,
    }
    async with AsyncExitStack() as stack:
        rotated = await start_service(
            stack, "assembler", assembler_svc.bootstrap, assembler_svc.server, assembler_svc.config.Settings, environ
        )
        request = assembler_service_pb2.PrimeRequest(scope=seeded["scope"])
        for token in (SERVICE_TOKEN, NEW_TOKEN):
            async with grpc.aio.insecure_channel(rotated.address) as channel:
                primed = await assembler_service_pb2_grpc.AssemblerServiceStub(channel).Prime(
                    request, metadata=(*tenant(seeded["org"]), (TOKEN_KEY, token)), timeout=10
                )
            # The memory came from the memory service, which knows only the old token: the assembler sent both.
            assert "cardamom" in primed.formatted_context, token
        async with grpc.aio.insecure_channel(rotated.address) as channel:
            error = await refusal(
                assembler_service_pb2_grpc.AssemblerServiceStub(channel).Prime(
                    request, metadata=(*tenant(seeded["org"]), (TOKEN_KEY, "x" * 40)), timeout=10
                )
            )
        assert reason_of(error) == "INVALID_SERVICE_CREDENTIAL"


async def test_a_service_with_neither_token_nor_tls_refuses_to_start():
    env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    env.update(LORE_ASSEMBLER_ADDR="127.0.0.1:0")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "assembler_svc", env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 2
    assert "LORE_SERVICE_TOKEN is required" in stderr.decode(), stderr.decode()


async def test_a_gateway_with_the_wrong_token_answers_500_not_401(services, migrated_pg, redis_url, caplog):
    """The services refusing the gateway is the deployment's fault: the client gets a plain 500 (its key
    was fine), the log says why."""
    settings = gateway_settings(services, migrated_pg, redis_url, LORE_SERVICE_TOKEN="w" * 40)
    app = create_app(settings)
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:8]}")
    async with app.router.lifespan_context(app), asgi_client(app, key) as client:
        answered = await client.get("/v1/memories")
    assert answered.status_code == 500, answered.text
    assert answered.json()["error"]["message"] == "internal error"
    assert "INVALID_SERVICE_CREDENTIAL" not in answered.text and "LORE_SERVICE_TOKEN" not in answered.text
    assert any("UNAUTHENTICATED" in record.getMessage() for record in caplog.records)
