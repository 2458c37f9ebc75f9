"""Mutual TLS between Lore's services, against real servers and a throwaway CA.

The assembler is started the way every service is (its settings, bootstrap and ``create_server``)
with ``LORE_TLS_*`` set: it serves only callers that present a certificate from the CA, its own
channels to memory and observations present its certificate (its dependency checks pass against
peers that require one), and its plaintext health listener still answers the probes.
"""

from __future__ import annotations

import asyncio
import os
import sys
from contextlib import AsyncExitStack

import assembler_svc.bootstrap
import assembler_svc.config
import assembler_svc.server
import gateway_svc.bootstrap
import grpc
import pytest
from gateway_svc.config import Settings as GatewaySettings
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from lore.assembler.v1 import assembler_service_pb2, assembler_service_pb2_grpc
from lore.common.v1 import scope_pb2
from lore_cli import doctor
from lore_runtime.channels import create_channel
from lore_runtime.health import serving_status
from lore_runtime.server import SERVING, create_grpc_server
from lore_runtime.settings import ServerSettings, load_settings

from tests.grpc_harness import TENANT, service_channel, start_service
from tests.integration.runtime.certificates import Authority, write_tls_files

ASSEMBLER = "lore.assembler.v1.AssemblerService"
PEER_SERVICES = {"memory": "lore.memory.v1.MemoryService", "observations": "lore.observations.v1.ObservationService"}
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@pytest.fixture(scope="module")
def authority() -> Authority:
    return Authority("lore-test-ca")


@pytest.fixture(scope="module")
def tls_env(authority, tmp_path_factory) -> dict[str, str]:
    return write_tls_files(tmp_path_factory.mktemp("service-tls"), authority, authority.issue("lore-services"))


@pytest.fixture(scope="module")
async def cluster(tls_env):
    """Memory and observations stand-ins (Lore servers that require mTLS and report their services
    SERVING), and the real assembler dialling them, with a plaintext health listener."""
    async with AsyncExitStack() as stack:
        addresses = {}
        for name, service in PEER_SERVICES.items():
            peer = create_grpc_server("127.0.0.1:0", [], settings=load_settings(ServerSettings, tls_env))
            await peer.start()
            stack.push_async_callback(peer.stop, grace=None)
            await peer.health.set(service, SERVING)
            addresses[name] = f"127.0.0.1:{peer.port}"
        environ = {
            **tls_env,
            "LORE_MEMORY_ADDR": addresses["memory"],
            "LORE_OBSERVATIONS_ADDR": addresses["observations"],
            "LORE_ASSEMBLER_HEALTH_ADDR": "127.0.0.1:0",
            "LORE_SERVICE_TOKEN": "",  # none: under mutual TLS the client certificate is the credential
        }
        assembler = await start_service(
            stack, "assembler", assembler_svc.bootstrap, assembler_svc.server, assembler_svc.config.Settings, environ
        )
        yield assembler, addresses


def credentials_of(authority: Authority, common_name: str = "caller") -> grpc.ChannelCredentials:
    identity = authority.issue(common_name)
    return grpc.ssl_channel_credentials(authority.certificate, identity.key, identity.certificate)


async def health_status(channel: grpc.aio.Channel, service: str = ASSEMBLER) -> int:
    response = await health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service=service), timeout=5
    )
    return response.status


async def test_a_caller_with_a_certificate_from_the_ca_is_served(cluster, authority):
    assembler, _ = cluster
    async with grpc.aio.secure_channel(assembler.address, credentials_of(authority)) as channel:
        assert await health_status(channel) == SERVING


async def test_the_services_own_channels_present_its_certificate(cluster):
    assembler, _ = cluster
    # Memory and observations refuse any caller without a certificate from the CA: these checks go
    # through the channels the assembler's bootstrap created from its settings.
    assert await assembler.server.check_dependencies() == []


async def test_a_caller_without_a_client_certificate_is_refused(cluster, authority):
    assembler, _ = cluster
    only_trust = grpc.ssl_channel_credentials(authority.certificate)
    async with grpc.aio.secure_channel(assembler.address, only_trust) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await health_status(channel)
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE


async def test_with_mutual_tls_a_client_certificate_is_the_service_credential(cluster, authority):
    assembler, _ = cluster
    request = assembler_service_pb2.AssembleContextRequest(scope=scope_pb2.Scope(user_id="u-1"), message="hello")
    # No x-lore-service-token: the verified certificate stands for it, and the tenant metadata counts.
    async with grpc.aio.secure_channel(assembler.address, credentials_of(authority)) as channel:
        answer = await assembler_service_pb2_grpc.AssemblerServiceStub(channel).AssembleContext(
            request, metadata=TENANT, timeout=10
        )
    assert answer.HasField("context")
    # The plaintext port of probes never serves it, token or not.
    async with service_channel(f"127.0.0.1:{assembler.server.probe_port}") as channel:
        with pytest.raises(grpc.aio.AioRpcError) as not_here:
            await assembler_service_pb2_grpc.AssemblerServiceStub(channel).AssembleContext(
                request, metadata=TENANT, timeout=5
            )
    assert not_here.value.code() == grpc.StatusCode.UNIMPLEMENTED


async def test_a_certificate_from_another_ca_is_refused(cluster, authority):
    assembler, _ = cluster
    stranger = Authority("another-ca").issue("intruder")
    # It trusts our CA (so the server's certificate checks out) but presents a certificate ours did not sign.
    credentials = grpc.ssl_channel_credentials(authority.certificate, stranger.key, stranger.certificate)
    async with grpc.aio.secure_channel(assembler.address, credentials) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await health_status(channel)
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE


async def test_a_plaintext_caller_is_refused(cluster):
    assembler, _ = cluster
    async with grpc.aio.insecure_channel(assembler.address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await health_status(channel)
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE


async def test_the_probe_listener_answers_plaintext_health_and_nothing_else(cluster):
    assembler, _ = cluster
    server = assembler.server
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.probe_port}") as channel:
        assert await health_status(channel) == SERVING
        assert await health_status(channel, "") == SERVING
        # The same health servicer: a dependency failure or a drain shows on the probe port at once.
        await server.set_serving(False)
        try:
            assert await health_status(channel) == NOT_SERVING
        finally:
            await server.set_serving(True)
        with pytest.raises(grpc.aio.AioRpcError) as not_here:
            await assembler_service_pb2_grpc.AssemblerServiceStub(channel).AssembleContext(
                assembler_service_pb2.AssembleContextRequest(), timeout=5
            )
        assert not_here.value.code() == grpc.StatusCode.UNIMPLEMENTED
        reflection = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5
        )
        with pytest.raises(grpc.aio.AioRpcError) as no_reflection:
            async for _ in reflection:
                pass
        assert no_reflection.value.code() == grpc.StatusCode.UNIMPLEMENTED


async def test_the_gateways_channels_present_the_certificate(cluster, tls_env, migrated_pg):
    assembler, peers = cluster
    environ = {
        **tls_env,
        "LORE_DATABASE_URL": migrated_pg.app_dsn,
        "LORE_ASSEMBLER_ADDR": assembler.address,
        "LORE_MEMORY_ADDR": peers["memory"],
        "LORE_OBSERVATIONS_ADDR": peers["observations"],
    }
    async with AsyncExitStack() as stack:
        gateway = await gateway_svc.bootstrap.build(load_settings(GatewaySettings, environ), stack)
        assert await serving_status(gateway.channels["assembler"], ASSEMBLER) == "SERVING"
        for name, service in PEER_SERVICES.items():
            assert await serving_status(gateway.channels[name], service) == "SERVING", name


async def test_create_channel_speaks_mtls_only_when_given_the_settings(cluster, tls_env):
    assembler, _ = cluster
    settings = load_settings(ServerSettings, tls_env)
    secured = create_channel(assembler.address, tls=settings.mutual_tls)
    plain = create_channel(assembler.address)
    try:
        assert await health_status(secured) == SERVING
        with pytest.raises(grpc.aio.AioRpcError):
            await health_status(plain)
    finally:
        await secured.close()
        await plain.close()


async def test_lore_doctor_asks_the_services_over_mtls_with_the_same_settings(cluster, tls_env):
    assembler, peers = cluster
    addresses = {
        "LORE_ASSEMBLER_ADDR": assembler.address,
        "LORE_MEMORY_ADDR": peers["memory"],
        "LORE_OBSERVATIONS_ADDR": peers["observations"],
    }
    asked = ("service: assembler", "service: memory", "service: observations")

    with_tls = {finding.subject: finding for finding in await doctor.check_services({**addresses, **tls_env})}
    assert [with_tls[subject].status for subject in asked] == [doctor.OK] * 3, with_tls

    without = {finding.subject: finding for finding in await doctor.check_services(addresses)}
    assert [without[subject].status for subject in asked] == [doctor.FAIL] * 3
    assert "UNREACHABLE" in without["service: assembler"].detail


async def test_a_service_refuses_to_start_with_only_some_of_the_tls_files(tls_env):
    env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    env.update(LORE_TLS_CERT_FILE=tls_env["LORE_TLS_CERT_FILE"], LORE_ASSEMBLER_ADDR="127.0.0.1:0")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "assembler_svc", env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 2
    message = stderr.decode()
    assert "LORE_TLS_CERT_FILE set but LORE_TLS_KEY_FILE, LORE_TLS_CA_FILE not" in message, message


async def test_a_server_certificate_that_does_not_name_the_dialled_host_is_refused(authority, tmp_path):
    # Why deploy/k8s/README.md asks for the dialled names (lore-memory …) as SANs.
    elsewhere = write_tls_files(tmp_path, authority, authority.issue("lore-memory", ("lore-memory",)))
    server = create_grpc_server("127.0.0.1:0", [], settings=load_settings(ServerSettings, elsewhere))
    await server.start()
    try:
        async with grpc.aio.secure_channel(f"127.0.0.1:{server.port}", credentials_of(authority)) as channel:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await health_status(channel, "")
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        await server.stop(grace=None)
