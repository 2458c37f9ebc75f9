"""Every gRPC server starts on real stores and answers health, reflection, tenancy and
honest UNIMPLEMENTED for capabilities still to come — through real stubs."""

import asyncio

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from grpc_status import rpc_status
from lore_runtime.pending import is_pending

from tests.grpc_harness import invoke

SERVICES = {
    "memory": ["lore.memory.v1.WorkingMemoryService", "lore.memory.v1.MemoryService", "lore.memory.v1.EpisodeService"],
    "observations": ["lore.observations.v1.ObservationService", "lore.observations.v1.EngagementService"],
    "assembler": ["lore.assembler.v1.AssemblerService"],
    "agent": ["lore.agent.v1.AgentService"],
}
NAMES = list(SERVICES)


def _error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    status = rpc_status.from_call(error)
    assert status is not None, "the server sent no google.rpc.Status"
    info = error_details_pb2.ErrorInfo()
    assert status.details and status.details[0].Unpack(info)
    return info


@pytest.mark.parametrize("name", NAMES)
async def test_every_service_reports_serving_once_its_dependencies_answer(services, name):
    stub = health_pb2_grpc.HealthStub(services[name].channel)
    for service in ["", *SERVICES[name]]:
        response = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert response.status == health_pb2.HealthCheckResponse.SERVING, service


@pytest.mark.parametrize("name", NAMES)
async def test_reflection_lists_every_service_and_health(services, name):
    def list_services() -> set[str]:
        # The library's reflection client is synchronous: run it beside the event loop serving the server.
        with grpc.insecure_channel(services[name].address) as channel:
            return set(ProtoReflectionDescriptorDatabase(channel).get_services())

    listed = await asyncio.to_thread(list_services)
    assert set(SERVICES[name]) <= listed
    assert "grpc.health.v1.Health" in listed


@pytest.mark.parametrize("name", NAMES)
async def test_calls_without_tenant_metadata_are_unauthenticated(services, name):
    running = services[name]
    for service in running.server.service_names:
        descriptor = running.server.descriptors[service]
        for method in descriptor.methods:
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await invoke(running.channel, method, metadata=())
            assert raised.value.code() is grpc.StatusCode.UNAUTHENTICATED, method.full_name
            assert _error_info(raised.value).reason == "MISSING_TENANT"


@pytest.mark.parametrize("name", NAMES)
async def test_pending_rpcs_answer_unimplemented_naming_the_capability(services, name):
    running = services[name]
    for service in running.server.service_names:
        descriptor = running.server.descriptors[service]
        servicer = running.server.servicers[service]
        for method in descriptor.methods:
            if not is_pending(servicer, method.name):
                continue
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await invoke(running.channel, method)
            assert raised.value.code() is grpc.StatusCode.UNIMPLEMENTED, method.full_name
            assert "is not available yet: it arrives with the" in raised.value.details()
            info = _error_info(raised.value)
            assert (info.reason, info.domain) == ("CAPABILITY_PENDING", "lore.dev")
            assert info.metadata["method"] == method.full_name
