"""Per-call load balancing across replicas, the way a headless Kubernetes Service presents them.

A headless Service is a DNS name that answers with one A record per ready pod. Here a small DNS
server on loopback plays kube-dns: gRPC's own resolver (c-ares) asks it, through the target
``dns://<that server>/lore-memory.test:<port>``, exactly as a pod's channel asks the cluster's DNS for
``lore-memory:50051``. The replicas are two real Lore servers on the same port of 127.0.0.1 and
127.0.0.2. Each reports a different health status for the name ``replica``, so the caller can tell
which one answered.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections import Counter
from contextlib import AsyncExitStack

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from lore_runtime.channels import create_channel
from lore_runtime.server import NOT_SERVING, SERVING, create_grpc_server

from tests.grpc_harness import server_settings
from tests.polling import eventually

REPLICA_ADDRESSES = ("127.0.0.1", "127.0.0.2")
# The status each replica reports for "replica": its identity, as seen by a caller.
IDENTITY = {SERVING: "127.0.0.1", NOT_SERVING: "127.0.0.2"}
# gRPC re-resolves at most every 30 s by default; the tests cannot wait that long.
FAST_RERESOLUTION = [("grpc.dns_min_time_between_resolutions_ms", 100)]


class HeadlessServiceDns(asyncio.DatagramProtocol):
    """Answers every A query with ``addresses`` (change them to scale), every other query with none."""

    def __init__(self, addresses: list[str]) -> None:
        self.addresses = addresses
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        (ident,) = struct.unpack("!H", data[:2])
        end = 12
        while data[end]:  # the question's name: length-prefixed labels, then a zero byte
            end += data[end] + 1
        question = data[12 : end + 5]  # name, zero byte, type, class
        (query_type,) = struct.unpack("!H", data[end + 1 : end + 3])
        records = self.addresses if query_type == 1 else []
        header = struct.pack("!6H", ident, 0x8180, 1, len(records), 0, 0)  # a response, no error
        answers = b"".join(
            struct.pack("!HHHIH", 0xC00C, 1, 1, 1, 4) + socket.inet_aton(address)  # name: the question's
            for address in records
        )
        assert self.transport is not None
        self.transport.sendto(header + question + answers, addr)


@pytest.fixture
async def dns():
    loop = asyncio.get_running_loop()
    transport, server = await loop.create_datagram_endpoint(
        lambda: HeadlessServiceDns(list(REPLICA_ADDRESSES)), local_addr=("127.0.0.1", 0)
    )
    server.port = transport.get_extra_info("sockname")[1]
    yield server
    transport.close()


async def start_replicas(stack: AsyncExitStack, environ: dict[str, str]) -> int:
    """Two replicas on one port of two loopback addresses; the port."""
    port = 0
    for address, status in zip(REPLICA_ADDRESSES, IDENTITY, strict=True):
        replica = create_grpc_server(f"{address}:{port}", [], settings=server_settings(**environ))
        port = replica.port
        await replica.start()
        stack.push_async_callback(replica.stop, grace=None)
        await replica.health.set("replica", status)
    return port


async def answered_by(channel: grpc.aio.Channel, calls: int) -> Counter[str]:
    stub = health_pb2_grpc.HealthStub(channel)
    seen: Counter[str] = Counter()
    for _ in range(calls):
        response = await stub.Check(health_pb2.HealthCheckRequest(service="replica"), timeout=5)
        seen[IDENTITY[response.status]] += 1
    return seen


async def test_calls_rotate_over_every_replica_the_name_resolves_to(dns):
    async with AsyncExitStack() as stack:
        port = await start_replicas(stack, {})
        target = f"dns://127.0.0.1:{dns.port}/lore-memory.test:{port}"
        channel = create_channel(target)
        stack.push_async_callback(channel.close)
        await channel.channel_ready()

        async def both_ready() -> bool:  # round_robin connects to every address: the second one is ready too
            return len(await answered_by(channel, 2)) == 2

        await eventually(both_ready, what="both replicas answering")
        seen = await answered_by(channel, 20)
        assert seen["127.0.0.1"] >= 8 and seen["127.0.0.2"] >= 8, seen

        # Without the policy (gRPC's default, pick_first) the same name keeps every call on one replica.
        plain = grpc.aio.insecure_channel(target)
        stack.push_async_callback(plain.close)
        assert len(await answered_by(plain, 20)) == 1


async def calls_reaching_a_replica_added_later(dns, environ: dict[str, str], seconds: float) -> Counter[str]:
    """Start with one replica in DNS, make calls, add the second, keep calling for ``seconds``."""
    dns.addresses[:] = REPLICA_ADDRESSES[:1]
    async with AsyncExitStack() as stack:
        port = await start_replicas(stack, environ)
        channel = create_channel(f"dns://127.0.0.1:{dns.port}/lore-memory.test:{port}", options=FAST_RERESOLUTION)
        stack.push_async_callback(channel.close)
        assert await answered_by(channel, 10) == Counter({"127.0.0.1": 10})
        dns.addresses[:] = REPLICA_ADDRESSES  # the autoscaler added a pod; the headless Service lists it
        later: Counter[str] = Counter()
        deadline = asyncio.get_running_loop().time() + seconds
        while asyncio.get_running_loop().time() < deadline:
            later += await answered_by(channel, 1)
            await asyncio.sleep(0.05)  # traffic at a steady pace over the whole window, not a wait
        return later


async def test_aged_connections_bring_existing_clients_to_a_replica_added_since(dns):
    # The server's GOAWAY after LORE_GRPC_MAX_CONNECTION_AGE_SECONDS makes the channel reconnect and re-resolve.
    later = await calls_reaching_a_replica_added_later(dns, {"LORE_GRPC_MAX_CONNECTION_AGE_SECONDS": "1"}, 6.0)
    assert later["127.0.0.2"] > 0 and later["127.0.0.1"] > 0, later


async def test_without_connection_age_an_existing_client_never_sees_the_new_replica(dns):
    # The control: the same channel and DNS change, connections that never age out.
    later = await calls_reaching_a_replica_added_later(dns, {"LORE_GRPC_MAX_CONNECTION_AGE_SECONDS": "0"}, 3.0)
    assert later == Counter({"127.0.0.1": later["127.0.0.1"]}) and later["127.0.0.1"] > 0, later
