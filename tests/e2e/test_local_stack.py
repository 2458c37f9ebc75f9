"""The whole stack started as the README starts it (`./lore up`), driven through REST.

One stack per module, in a temporary data directory with its own ports and the embedded
back ends (Postgres with pgvector, Redis, Qdrant through qdrant-edge), real embeddings.
Every API call goes through ``lore_client``, as a user makes it; raw httpx only where the test
is about HTTP itself (readiness polling, a request with no credential, the documents and probes).
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from lore_client import LoreApiError, LoreClient, NewMemory
from lore_devstack import free_port

from tests.polling import eventually_sync

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 240.0
DEV_KEY = "e2e-development-key-0123456789"

pytestmark = pytest.mark.e2e


@dataclass
class Stack:
    process: subprocess.Popen[bytes]
    url: str
    env: dict[str, str]
    log: Path

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=90)


def start_stack(data_dir: Path, log: Path, overrides: dict[str, str] | None = None) -> Stack:
    env = {key: value for key, value in os.environ.items() if not key.startswith("LORE_")}
    ports = {name: free_port() for name in ("MEMORY", "OBSERVATIONS", "ASSEMBLER", "AGENT", "GATEWAY")}
    env.update({f"LORE_{name}_ADDR": f"127.0.0.1:{port}" for name, port in ports.items()})
    env.update(LORE_DATA_DIR=str(data_dir), LORE_DEV_API_KEY=DEV_KEY, LORE_LOG_LEVEL="WARNING")
    env.update(overrides or {})
    with open(log, "ab") as output:
        process = subprocess.Popen(
            [str(ROOT / "lore"), "up"], env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    stack = Stack(process, f"http://127.0.0.1:{ports['GATEWAY']}", env, log)

    def ready() -> bool:
        if process.poll() is not None:
            pytest.fail(f"lore up exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        return httpx.get(f"{stack.url}/v1/status", timeout=2).status_code == 200

    try:
        # Raw HTTP: the gateway may not be listening yet, which the test must see as "poll again".
        eventually_sync(ready, READY_TIMEOUT, "the stack ready", interval=0.2, ignoring=(httpx.HTTPError,))
    except AssertionError:
        process.kill()
        pytest.fail(f"the stack was not ready within {READY_TIMEOUT} s:\n{log.read_text()[-4000:]}")
    return stack


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lore-data")


@pytest.fixture(scope="module")
def stack(data_dir: Path) -> Iterator[Stack]:
    running = start_stack(data_dir, data_dir.parent / "lore-up.log")
    yield running
    if running.process.poll() is None:
        running.stop()


def _client(stack: Stack, key: str = DEV_KEY) -> LoreClient:
    return LoreClient(stack.url, key, timeout=30, max_retries=0)


@pytest.fixture
async def lore(stack: Stack) -> AsyncIterator[LoreClient]:
    async with _client(stack) as client:
        yield client


MEMORIES = [
    ("Tomasz bought a new cello for his son.", "D1:1"),
    ("Noor volunteered at the animal shelter for the first time yesterday.", "D1:3"),
    ("The weather in Paris was rainy all week.", "D1:5"),
    ("Ines is training for a marathon in October.", "D1:7"),
]
PARAPHRASE = "Which musical instrument did someone purchase?"


async def test_status_reports_every_service_serving(stack: Stack) -> None:
    async with LoreClient(stack.url, timeout=5) as anonymous:  # /v1/status needs no credential
        status = await anonymous.status()
    assert status.serving
    assert set(status.services) == {"gateway", "memory", "observations", "assembler", "agent"}
    health = await asyncio.create_subprocess_exec(
        str(ROOT / ".venv/bin/lore"), "health", env=stack.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    output, _ = await asyncio.wait_for(health.communicate(), timeout=60)
    assert health.returncode == 0, output


async def test_the_services_loopback_ports_need_the_token_lore_up_keeps_for_the_cli(stack: Stack, data_dir: Path):
    import grpc
    from lore.agent.v1 import agent_service_pb2, agent_service_pb2_grpc

    token_file = data_dir / "service-token"
    assert token_file.stat().st_mode & 0o777 == 0o600
    tenant = (("x-lore-org-id", "dev"), ("x-lore-principal", "a-local-user"))
    async with grpc.aio.insecure_channel(stack.env["LORE_AGENT_ADDR"]) as bare:  # any local process can connect
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await agent_service_pb2_grpc.AgentServiceStub(bare).ListSessions(
                agent_service_pb2.ListSessionsRequest(), metadata=tenant, timeout=10
            )
    assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
    # The operator's commands find the token in the data dir (the stack's env has no LORE_SERVICE_TOKEN).
    assert "LORE_SERVICE_TOKEN" not in stack.env
    jobs = await asyncio.create_subprocess_exec(
        str(ROOT / ".venv/bin/lore"), "jobs", "list", "--org", "dev", env=stack.env, stdout=-1, stderr=-1
    )
    out, err = await asyncio.wait_for(jobs.communicate(), timeout=60)
    assert jobs.returncode == 0, err.decode()
    assert out.decode().split()[0] == "kind"


def test_the_dev_key_holds_the_operator_scope(stack: Stack) -> None:
    answered = httpx.post(f"{stack.url}/v1/admin/reindex", headers={"Authorization": f"Bearer {DEV_KEY}"}, timeout=60)
    assert answered.status_code == 200, answered.text
    assert answered.json()["phase"] == "done"


async def test_a_memory_is_found_by_meaning_with_no_word_in_common(lore: LoreClient) -> None:
    words = lambda text: set(re.findall(r"\w+", text.lower()))  # noqa: E731
    assert not words(MEMORIES[0][0]) & words(PARAPHRASE)
    memories = await lore.remember(
        [
            NewMemory(
                content=content,
                memory_type="message",
                valid_at="2023-05-08T13:56:00Z",
                metadata={"turn_ref": turn_ref},
                idempotency_key=f"u-noor/{turn_ref}",
            )
            for content, turn_ref in MEMORIES
        ],
        scope="u-noor",
    )
    assert [memory.metadata for memory in memories] == [{"turn_ref": turn_ref} for _, turn_ref in MEMORIES]
    assert memories[0].valid_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert memories[0].raw["validAt"] == "2023-05-08T13:56:00Z"

    results = await lore.search(PARAPHRASE, "u-noor", k=3)
    assert results[0].memory.content == MEMORIES[0][0]
    assert results[0].memory.metadata == {"turn_ref": "D1:1"}
    assert results[0].similarity > results[1].similarity


async def test_a_retried_write_lands_once(lore: LoreClient) -> None:
    memory = NewMemory(
        content="Sam prefers tea to coffee.", memory_type="preference", scope="retry-user", idempotency_key="retry-1"
    )
    [first] = await lore.remember(memory)
    [second] = await lore.remember(memory)
    assert first.id == second.id
    results = await lore.search("tea", "retry-user")
    assert [result.memory.id for result in results] == [first.id]


async def test_a_wrong_key_gets_401_with_the_error_body(stack: Stack) -> None:
    async with _client(stack, key="not-a-real-key-at-all") as impostor:
        with pytest.raises(LoreApiError) as refused:
            await impostor.search("anything")
    assert refused.value.status == 401 and refused.value.code == "UNAUTHENTICATED"
    assert refused.value.request_id
    # Raw HTTP: no credential at all, and the error body and X-Request-Id header as sent on the wire.
    async with httpx.AsyncClient(base_url=stack.url, timeout=10) as raw:
        missing = await raw.post("/v1/memories:search", json={"query": "anything"})
    assert missing.status_code == 401
    error = missing.json()["error"]
    assert error["code"] == 401 and error["status"] == "UNAUTHENTICATED"
    assert error["requestId"] == missing.headers["x-request-id"]


@pytest.mark.parametrize(
    ("memory", "field"),
    [
        (NewMemory(content="  ", memory_type="fact"), "memories[1].content"),
        (NewMemory(content="x" * 16_001, memory_type="fact"), "memories[1].content"),
        (NewMemory(content="fine", memory_type="MEMORY_TYPE_GOSSIP"), "memories[1].memoryType"),
        (NewMemory(content="fine", memory_type="fact", importance=1.5), "memories[1].importance"),
    ],
)
async def test_bad_input_is_refused_naming_the_field_and_nothing_is_written(
    lore: LoreClient, memory: NewMemory, field: str
) -> None:
    user = f"bad-input-{abs(hash(field + repr(memory))) % 10**8}"
    batch = [NewMemory(content="A perfectly valid memory about gardening.", memory_type="fact"), memory]
    with pytest.raises(LoreApiError) as refused:
        await lore.remember(batch, scope=user)
    assert refused.value.status == 400, refused.value
    assert refused.value.code == "INVALID_ARGUMENT"
    assert field in refused.value.message
    assert await lore.search("gardening", user) == []


async def test_a_batch_over_the_limit_is_refused(lore: LoreClient) -> None:
    batch = [NewMemory(content=f"memory {n}", memory_type="fact") for n in range(101)]
    with pytest.raises(LoreApiError) as refused:
        await lore.remember(batch)
    assert refused.value.status == 400
    assert "memories" in refused.value.message


def test_openapi_and_docs_are_served(stack: Stack) -> None:
    # Raw HTTP: these are documents and probes, not API calls the client models.
    spec = httpx.get(f"{stack.url}/openapi.json", timeout=10).json()
    assert "/v1/memories:search" in spec["paths"]
    assert httpx.get(f"{stack.url}/docs", timeout=10).status_code == 200
    assert httpx.get(f"{stack.url}/healthz", timeout=10).status_code == 200
    assert httpx.get(f"{stack.url}/readyz", timeout=10).status_code == 200


async def test_sigterm_stops_cleanly_and_data_survives_a_restart(stack: Stack, data_dir: Path) -> None:
    assert stack.stop() == 0
    restarted = start_stack(data_dir, data_dir.parent / "lore-up-2.log")
    try:
        async with _client(restarted) as lore:
            results = await lore.search(PARAPHRASE, "u-noor")
            assert results[0].memory.content == MEMORIES[0][0]
    finally:
        assert restarted.stop() == 0


async def test_lore_up_uses_configured_servers_instead_of_embedded_ones(tmp_path: Path, pg_dsns, redis_url) -> None:
    data_dir = tmp_path / "configured"
    env_overrides = {
        "LORE_DATABASE_URL": pg_dsns.app_dsn,
        "LORE_MIGRATIONS_DATABASE_URL": pg_dsns.owner_dsn,
        "LORE_REDIS_URL": redis_url,
    }
    running = start_stack(data_dir, tmp_path / "lore-up-configured.log", env_overrides)
    try:
        async with _client(running) as lore:
            [written] = await lore.remember(NewMemory(content="Configured servers hold this.", memory_type="fact"))
            assert written.id and written.content == "Configured servers hold this."
    finally:
        assert running.stop() == 0
    assert not (data_dir / "postgres").exists() and not (data_dir / "redis").exists()
    assert "embedded qdrant under" in (tmp_path / "lore-up-configured.log").read_text()
