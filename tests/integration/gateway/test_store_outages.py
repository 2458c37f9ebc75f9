"""Store outages through the REST API: a store that dies (Postgres killed as a crash would kill it,
Redis killed) is a 503 on every route that needs it, naming the store in ``ErrorInfo`` and carrying
``Retry-After``, never a 500; and every route answers again once the store is back, with no restart.

The module runs its own stack in-process: an embedded Postgres and a Redis of its own (never the
session's shared ones), the four gRPC services and the gateway on them. Requests carry an API key
(whose lookup is the gateway's own Postgres query) or a JWT (verified without any store, so the
request reaches the services while Postgres is down).
"""

from __future__ import annotations

import contextlib
import signal
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import agent_svc.bootstrap
import agent_svc.config
import agent_svc.server
import assembler_svc.bootstrap
import assembler_svc.config
import assembler_svc.server
import grpc
import httpx
import jwt
import memory_svc.bootstrap
import memory_svc.config
import memory_svc.server
import observations_svc.bootstrap
import observations_svc.config
import observations_svc.server
import psutil
import pytest
from fastapi import FastAPI
from gateway_svc.config import Settings
from gateway_svc.domain.credentials import ALL_SCOPES
from gateway_svc.server import create_app
from lore.memory.v1 import working_memory_service_pb2, working_memory_service_pb2_grpc
from lore_devstack import DatabaseUrls, EmbeddedRedis, free_port
from lore_runtime.grpc_errors import error_info_of

from tests.backends import fresh_migrated_database
from tests.dying_postgres import DyingPostgres, killed
from tests.grpc_harness import RunningService, start_service
from tests.integration.agent.support import tenant
from tests.integration.gateway.conftest import _create_key, gateway_settings
from tests.polling import eventually

SECRET = "outage-test-secret-" + "x" * 45
AUDIENCE = "lore-outage-test"
USER = "u-outage"


@dataclass
class Stack:
    postgres: DyingPostgres
    redis: EmbeddedRedis
    database: DatabaseUrls
    services: dict[str, RunningService]
    gateway: FastAPI

    def settings(self, **extra: str) -> Settings:
        """The gateway's settings on this stack, with JWTs verified (``token``) and ``extra``."""
        return gateway_settings(
            self.services,
            self.database,
            self.redis.url,
            LORE_JWT_HS256_SECRET=SECRET,
            LORE_JWT_AUDIENCE=AUDIENCE,
            **extra,
        )


async def start_services(stack: AsyncExitStack, database: DatabaseUrls, redis_url: str, data_dir: str):
    base = {
        "LORE_DATABASE_URL": database.app_dsn,
        "LORE_REDIS_URL": redis_url,
        "LORE_DATA_DIR": data_dir,
        "LORE_MAINTENANCE_INTERVAL_SECONDS": "0",
        "LORE_REVALIDATION_INTERVAL_SECONDS": "0",
        "LORE_IDLE_SCAN_SECONDS": "0",
        "LORE_DIGEST_INTERVAL_SECONDS": "0",
    }
    running: dict[str, RunningService] = {}
    for name, package in (
        ("memory", memory_svc),
        ("observations", observations_svc),
        ("assembler", assembler_svc),
        ("agent", agent_svc),
    ):
        addresses = {f"LORE_{started.upper()}_ADDR": service.address for started, service in running.items()}
        running[name] = await start_service(
            stack, name, package.bootstrap, package.server, package.config.Settings, {**base, **addresses}
        )
    return running


@pytest.fixture(scope="module")
async def stack(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    postgres = DyingPostgres(tmp_path_factory.mktemp("dying-postgres") / "data")
    superuser_dsn = postgres.start()
    redis = EmbeddedRedis(tmp_path_factory.mktemp("dying-redis"), port=free_port())
    redis.start()
    try:
        async with fresh_migrated_database(superuser_dsn, "lore_outage") as database, AsyncExitStack() as running:
            services = await start_services(running, database, redis.url, str(tmp_path_factory.mktemp("outage-data")))
            outage = Stack(postgres, redis, database, services, gateway=FastAPI())
            outage.gateway = create_app(outage.settings())
            async with outage.gateway.router.lifespan_context(outage.gateway):
                yield outage
    finally:
        redis.stop()
        postgres.stop()


@contextlib.contextmanager
def redis_killed(server: EmbeddedRedis) -> Iterator[None]:
    """Redis dead for the block (SIGKILL), started again on the same port and data on the way out."""
    process = psutil.Process(server.pid)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    server.stop()
    try:
        yield
    finally:
        server.start()


def client(app: FastAPI, credential: str) -> httpx.AsyncClient:
    """An HTTP client of the in-process gateway that sees a failure the app raised as the 500 a server
    would answer, not as an exception."""
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    headers = {"Authorization": f"Bearer {credential}"}
    return httpx.AsyncClient(transport=transport, base_url="http://gateway", headers=headers)


def token(org_id: str) -> str:
    now = int(time.time())
    claims = {"sub": f"tester-{org_id}", "org_id": org_id, "aud": AUDIENCE, "iat": now, "exp": now + 600}
    return jwt.encode({**claims, "scope": " ".join(ALL_SCOPES)}, SECRET, algorithm="HS256")


OBSERVE = {
    "agentId": "aria",
    "candidate": {
        "kind": "OBSERVATION_KIND_OPERATOR_PREFERENCE",
        "subjectType": "SUBJECT_TYPE_ENTITY",
        "subjectId": USER,
        "slot": "drink",
        "summary": "Prefers tea.",
        "evidence": [{"stance": "EVIDENCE_STANCE_SUPPORT", "sourceType": "SOURCE_TYPE_MESSAGE", "sourceId": "t-1"}],
    },
}
REMEMBER = {"memories": [{"content": "Likes tea.", "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": USER}}]}


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    options: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.method} {self.path}"

    async def call(self, http: httpx.AsyncClient) -> httpx.Response:
        return await http.request(self.method, self.path, **self.options)


def routes_needing_postgres(session_id: str) -> list[Route]:
    """A route of each group whose service keeps its records in Postgres: observations and
    engagement, sessions and turns, erasure, the job queue."""
    return [
        Route("GET", "/v1/observations"),
        Route("POST", "/v1/observations:observe", {"json": OBSERVE}),
        Route("GET", "/v1/engagement"),
        Route("POST", "/v1/sessions", {"json": {"scope": {"userId": USER, "agentId": "aria"}}}),
        Route("GET", "/v1/sessions", {"params": {"userId": USER}}),
        Route("GET", f"/v1/sessions/{session_id}"),
        Route("POST", f"/v1/sessions/{session_id}/turns", {"json": {"turn": {"role": "user", "content": "Tea?"}}}),
        Route("GET", f"/v1/sessions/{session_id}/turns"),
        Route("POST", "/v1/subjects:forget", {"json": {"subject": {"userId": f"gone-{uuid.uuid4().hex[:6]}"}}}),
        Route("GET", "/v1/admin/jobs"),
        Route("GET", "/v1/admin/jobs:list"),
    ]


def other_routes(memory_id: str) -> list[Route]:
    """Routes whose answer Postgres is not needed for: memories live in Qdrant (and Redis), a context
    and a Prime are assembled from the sources that answer."""
    return [
        Route("GET", "/v1/memories", {"params": {"userId": USER}}),
        Route("POST", "/v1/memories", {"json": REMEMBER}),
        Route("POST", "/v1/memories:search", {"json": {"query": "tea", "scope": {"userId": USER}}}),
        Route("GET", f"/v1/memories/{memory_id}"),
        Route("POST", "/v1/context:assemble", {"json": {"message": "Tea?", "scope": {"userId": USER}}}),
        Route("GET", "/v1/memory/prime", {"params": {"userId": USER}}),
        Route("GET", "/v1/whoami"),
    ]


def unavailable(answer: httpx.Response, reason: str) -> bool:
    """A 503 naming the store in ErrorInfo's reason, with a Retry-After the clients wait out."""
    assert answer.status_code == 503, answer.text
    assert int(answer.headers["retry-after"]) >= 1, answer.headers
    error = answer.json()["error"]
    assert error["status"] == "UNAVAILABLE", error
    assert [d["reason"] for d in error["details"] if d["@type"].endswith("google.rpc.ErrorInfo")] == [reason], error
    return True


async def first_records(http: httpx.AsyncClient) -> tuple[str, str]:
    """A session and a memory of the test's org, made while every store is up: (session id, memory id)."""
    started = await http.post("/v1/sessions", json={"scope": {"userId": USER, "agentId": "aria"}})
    remembered = await http.post("/v1/memories", json=REMEMBER)
    assert started.status_code == 200 and remembered.status_code == 200, (started.text, remembered.text)
    return started.json()["session"]["id"], remembered.json()["memories"][0]["id"]


async def test_with_postgres_killed_every_route_needing_it_answers_503_naming_it_and_recovers(stack: Stack) -> None:
    org = f"org-{uuid.uuid4().hex[:12]}"
    key = await _create_key(stack.database.owner_dsn, org)  # never used yet: its lookup must reach Postgres
    async with client(stack.gateway, token(org)) as http, client(stack.gateway, key) as keyed:
        session_id, memory_id = await first_records(http)
        needing, others = routes_needing_postgres(session_id), other_routes(memory_id)
        with killed(stack.postgres):
            # The API key's lookup, on any route, and the gateway's own idempotency records.
            assert unavailable(await keyed.get("/v1/memories", params={"userId": USER}), "POSTGRES_UNAVAILABLE")
            recorded = await http.post("/v1/memories", json=REMEMBER, headers={"Idempotency-Key": "outage-1"})
            assert unavailable(recorded, "POSTGRES_UNAVAILABLE")
            for route in needing:
                assert unavailable(await route.call(http), "POSTGRES_UNAVAILABLE"), route
            for route in others:
                answer = await route.call(http)
                assert answer.status_code == 200 or unavailable(answer, "POSTGRES_UNAVAILABLE"), (route, answer.text)

        async def key_works_again() -> bool:
            return (await keyed.get("/v1/memories", params={"userId": USER})).status_code == 200

        await eventually(key_works_again, timeout=30, what="the API key was not accepted once Postgres was back")
        for route in [*needing, *others]:
            answer = await route.call(keyed)
            assert answer.status_code == 200, (str(route), answer.text)


async def test_with_redis_killed_rate_limits_fail_open_counted_and_working_memory_is_503(stack: Stack) -> None:
    org = f"org-{uuid.uuid4().hex[:12]}"
    limited = create_app(stack.settings(LORE_RATE_LIMIT="1:1"))  # one request a second per key and scope
    async with limited.router.lifespan_context(limited), client(limited, token(org)) as http:
        session_id, _ = await first_records(http)
        assert (await http.get(f"/v1/sessions/{session_id}")).status_code == 200
        assert (await http.get(f"/v1/sessions/{session_id}")).status_code == 429
        with redis_killed(stack.redis):
            answers = [await http.get(f"/v1/sessions/{session_id}") for _ in range(4)]
            assert [answer.status_code for answer in answers] == [200] * 4, [answer.text for answer in answers]
            metrics = (await http.get("/metrics")).text
            assert 'lore_gateway_rate_limits_unenforced_total{scope="sessions:read"} 4.0' in metrics, metrics
            working_memory = working_memory_service_pb2_grpc.WorkingMemoryServiceStub(stack.services["memory"].channel)
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await working_memory.GetWorkingMemory(
                    working_memory_service_pb2.GetWorkingMemoryRequest(session_id=session_id),
                    metadata=tenant(org),
                )
            assert raised.value.code() is grpc.StatusCode.UNAVAILABLE
            assert error_info_of(raised.value).reason == "REDIS_UNAVAILABLE"

        async def limited_again() -> bool:
            return (await http.get(f"/v1/sessions/{session_id}")).status_code == 429

        await eventually(limited_again, timeout=30, what="the rate limit was not enforced once Redis was back")
