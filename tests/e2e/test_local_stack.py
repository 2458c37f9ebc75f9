"""The whole stack started as the README starts it (`./lore up`), driven through REST.

One stack per module, in a temporary data directory with its own ports and the embedded
back ends (Postgres with pgvector, Redis, Qdrant through qdrant-edge), real embeddings.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from lore_devstack import free_port

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
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"lore up exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        with contextlib.suppress(httpx.HTTPError):  # not listening yet: poll again
            if httpx.get(f"{stack.url}/v1/status", timeout=2).status_code == 200:
                return stack
        time.sleep(0.5)
    process.kill()
    pytest.fail(f"the stack was not ready within {READY_TIMEOUT} s:\n{log.read_text()[-4000:]}")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lore-data")


@pytest.fixture(scope="module")
def stack(data_dir: Path) -> Iterator[Stack]:
    running = start_stack(data_dir, data_dir.parent / "lore-up.log")
    yield running
    if running.process.poll() is None:
        running.stop()


def _client(stack: Stack, key: str = DEV_KEY) -> httpx.Client:
    return httpx.Client(base_url=stack.url, headers={"Authorization": f"Bearer {key}"}, timeout=30)


MEMORIES = [
    ("Melanie bought a new violin for her daughter.", "D1:1"),
    ("Caroline went to the LGBTQ support group yesterday.", "D1:3"),
    ("The weather in Paris was rainy all week.", "D1:5"),
    ("John is training for a marathon in October.", "D1:7"),
]
PARAPHRASE = "Which musical instrument did someone purchase?"


def test_status_reports_every_service_serving(stack: Stack) -> None:
    body = httpx.get(f"{stack.url}/v1/status", timeout=5).json()
    assert body["status"] == "SERVING"
    assert set(body["services"]) == {"gateway", "memory", "observations", "assembler", "agent"}
    health = subprocess.run([str(ROOT / ".venv/bin/lore"), "health"], env=stack.env, capture_output=True, timeout=60)
    assert health.returncode == 0, health.stdout + health.stderr


def test_a_memory_is_found_by_meaning_with_no_word_in_common(stack: Stack) -> None:
    words = lambda text: set(re.findall(r"\w+", text.lower()))  # noqa: E731
    assert not words(MEMORIES[0][0]) & words(PARAPHRASE)
    with _client(stack) as client:
        written = client.post(
            "/v1/memories",
            json={
                "memories": [
                    {
                        "content": content,
                        "memoryType": "MEMORY_TYPE_MESSAGE",
                        "scope": {"userId": "conv-26"},
                        "validAt": "2023-05-08T13:56:00Z",
                        "metadata": {"dia_id": dia_id},
                        "idempotencyKey": f"conv-26/{dia_id}",
                    }
                    for content, dia_id in MEMORIES
                ]
            },
        )
        assert written.status_code == 200, written.text
        memories = written.json()["memories"]
        assert [memory["metadata"] for memory in memories] == [{"dia_id": dia_id} for _, dia_id in MEMORIES]
        assert memories[0]["validAt"] == "2023-05-08T13:56:00Z"

        found = client.post("/v1/memories:search", json={"query": PARAPHRASE, "scope": {"userId": "conv-26"}, "k": 3})
        assert found.status_code == 200, found.text
        results = found.json()["results"]
        assert results[0]["memory"]["content"] == MEMORIES[0][0]
        assert results[0]["memory"]["metadata"] == {"dia_id": "D1:1"}
        assert results[0]["similarity"] > results[1]["similarity"]


def test_a_retried_write_lands_once(stack: Stack) -> None:
    body = {
        "memories": [
            {
                "content": "Sam prefers tea to coffee.",
                "memoryType": "MEMORY_TYPE_PREFERENCE",
                "scope": {"userId": "retry-user"},
                "idempotencyKey": "retry-1",
            }
        ]
    }
    with _client(stack) as client:
        first = client.post("/v1/memories", json=body).json()["memories"][0]["id"]
        second = client.post("/v1/memories", json=body).json()["memories"][0]["id"]
        assert first == second
        results = client.post("/v1/memories:search", json={"query": "tea", "scope": {"userId": "retry-user"}}).json()
        assert [result["memory"]["id"] for result in results["results"]] == [first]


def test_a_wrong_key_gets_401_with_the_error_body(stack: Stack) -> None:
    with _client(stack, key="not-a-real-key-at-all") as client:
        response = client.post("/v1/memories:search", json={"query": "anything"})
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["code"] == 401 and error["status"] == "UNAUTHENTICATED"
    assert error["requestId"] == response.headers["x-request-id"]
    missing = httpx.post(f"{stack.url}/v1/memories:search", json={"query": "anything"}, timeout=10)
    assert missing.status_code == 401


@pytest.mark.parametrize(
    ("memory", "field"),
    [
        ({"content": "  ", "memoryType": "MEMORY_TYPE_FACT"}, "memories[1].content"),
        ({"content": "x" * 16_001, "memoryType": "MEMORY_TYPE_FACT"}, "memories[1].content"),
        ({"content": "fine", "memoryType": "MEMORY_TYPE_GOSSIP"}, "memories[1].memoryType"),
        ({"content": "fine", "memoryType": "MEMORY_TYPE_FACT", "importance": 1.5}, "memories[1].importance"),
    ],
)
def test_bad_input_is_refused_naming_the_field_and_nothing_is_written(stack: Stack, memory: dict, field: str) -> None:
    user = f"bad-input-{abs(hash(field + str(memory))) % 10**8}"
    batch = [
        {
            "content": "A perfectly valid memory about gardening.",
            "memoryType": "MEMORY_TYPE_FACT",
            "scope": {"userId": user},
        },
        {**memory, "scope": {"userId": user}},
    ]
    with _client(stack) as client:
        response = client.post("/v1/memories", json={"memories": batch})
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["status"] == "INVALID_ARGUMENT"
        assert field in error["message"]
        search = client.post("/v1/memories:search", json={"query": "gardening", "scope": {"userId": user}})
        assert search.json()["results"] == []


def test_a_batch_over_the_limit_is_refused(stack: Stack) -> None:
    batch = [{"content": f"memory {n}", "memoryType": "MEMORY_TYPE_FACT"} for n in range(101)]
    with _client(stack) as client:
        response = client.post("/v1/memories", json={"memories": batch})
    assert response.status_code == 400
    assert "memories" in response.json()["error"]["message"]


def test_openapi_and_docs_are_served(stack: Stack) -> None:
    spec = httpx.get(f"{stack.url}/openapi.json", timeout=10).json()
    assert "/v1/memories:search" in spec["paths"]
    assert httpx.get(f"{stack.url}/docs", timeout=10).status_code == 200
    assert httpx.get(f"{stack.url}/healthz", timeout=10).status_code == 200
    assert httpx.get(f"{stack.url}/readyz", timeout=10).status_code == 200


def test_sigterm_stops_cleanly_and_data_survives_a_restart(stack: Stack, data_dir: Path) -> None:
    assert stack.stop() == 0
    restarted = start_stack(data_dir, data_dir.parent / "lore-up-2.log")
    try:
        with _client(restarted) as client:
            found = client.post("/v1/memories:search", json={"query": PARAPHRASE, "scope": {"userId": "conv-26"}})
            assert found.json()["results"][0]["memory"]["content"] == MEMORIES[0][0]
    finally:
        assert restarted.stop() == 0


def test_lore_up_uses_configured_servers_instead_of_embedded_ones(tmp_path: Path, pg_dsns, redis_url) -> None:
    data_dir = tmp_path / "configured"
    env_overrides = {
        "LORE_DATABASE_URL": pg_dsns.app_dsn,
        "LORE_MIGRATIONS_DATABASE_URL": pg_dsns.owner_dsn,
        "LORE_REDIS_URL": redis_url,
    }
    running = start_stack(data_dir, tmp_path / "lore-up-configured.log", env_overrides)
    try:
        with _client(running) as client:
            written = client.post(
                "/v1/memories",
                json={"memories": [{"content": "Configured servers hold this.", "memoryType": "MEMORY_TYPE_FACT"}]},
            )
            assert written.status_code == 200, written.text
    finally:
        assert running.stop() == 0
    assert not (data_dir / "postgres").exists() and not (data_dir / "redis").exists()
    assert "embedded qdrant under" in (tmp_path / "lore-up-configured.log").read_text()
