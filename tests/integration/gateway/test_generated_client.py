"""A client that openapi-python-client generates from the served OpenAPI document calls the gateway
and reads every answer as its response model: the document names its schemas and its bearer scheme
well enough for a generator to keep each success answer (Prime, StartSession and ProcessTurn
among them). It calls every documented operation, with the document's own examples, except the
store-wide and destructive ones, which ``NOT_CALLED`` lists.

The generator is not one of Lore's dependencies (its typer pin conflicts with the lock's):
``scripts/bootstrap --dev`` installs its exact versions (requirements-generator.lock) with
``--no-deps`` into .venv/generator, which runs before the project's environment, holding the rest of
its tree at the versions it needs.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from lore.common.v1 import scope_pb2
from lore.memory.v1 import episode_service_pb2 as epb
from lore.memory.v1 import episode_service_pb2_grpc
from lore_runtime.request_context import RequestContext

from tests.grpc_harness import service_channel
from tests.integration.gateway.conftest import _create_key, asgi_client

# Where scripts/bootstrap --dev installs openapi-python-client (requirements-generator.lock).
GENERATOR = Path(__file__).resolve().parents[3] / ".venv" / "generator"
PACKAGE = "lore_generated_client"


@pytest.fixture(scope="session")
def generator() -> Path:
    assert (GENERATOR / "openapi_python_client").is_dir(), f"{GENERATOR} is missing: run scripts/bootstrap --dev"
    return GENERATOR


@pytest.fixture(scope="session")
def generated(gateway, generator, tmp_path_factory) -> Iterator[ModuleType]:
    """The client package generated from the gateway's OpenAPI document (as /openapi.json serves
    it), importable."""
    folder = tmp_path_factory.mktemp("generated-client")
    (folder / "openapi.json").write_text(json.dumps(gateway.openapi()))
    environment = dict(
        os.environ, PYTHONPATH=str(generator), PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}"
    )
    command = [sys.executable, "-m", "openapi_python_client", "generate", "--path", "openapi.json"]
    command += ["--output-path", PACKAGE, "--meta", "none"]
    made = subprocess.run(command, cwd=folder, env=environment, capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stdout + made.stderr
    # A warning means the generator left out part of an operation (an answer it could not read).
    assert "Warning" not in made.stdout + made.stderr, made.stdout + made.stderr
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def _operation(package: ModuleType, tag: str, operation_id: str) -> ModuleType:
    return importlib.import_module(f"{package.__name__}.api.{tag}.{operation_id}")


async def test_the_generated_client_reads_every_answer_as_its_model(gateway, migrated_pg, generated):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    models = importlib.import_module(f"{PACKAGE}.models")
    client = generated.AuthenticatedClient(base_url="http://gateway", token=key)
    client.set_async_httpx_client(asgi_client(gateway, key))
    scope = {"userId": "u-hives", "agentId": "agent-1"}

    remembered = await _operation(generated, "memories", "memories_remember").asyncio_detailed(
        client=client,
        body=models.RememberRequest.from_dict(
            {
                "memories": [
                    {
                        "content": "Wren keeps two beehives on her roof.",
                        "memoryType": "MEMORY_TYPE_FACT",
                        "scope": scope,
                    }
                ]
            }
        ),
    )
    assert isinstance(remembered.parsed, models.RememberResponse), remembered.content

    primed = await _operation(generated, "context", "context_prime").asyncio_detailed(
        client=client,
        scope_user_id="u-hives",
        scope_agent_id="agent-1",
        initial_message="Hello again",
        budget_tokens=400,
    )
    assert isinstance(primed.parsed, models.PrimeResponse), primed.content
    assert "beehives" in primed.parsed.formatted_context

    started = await _operation(generated, "sessions", "sessions_start_session").asyncio_detailed(
        client=client, body=models.StartSessionRequest.from_dict({"scope": scope, "initialMessage": "Hi"})
    )
    assert isinstance(started.parsed, models.StartSessionResponse), started.content

    turned = await _operation(generated, "sessions", "sessions_process_turn").asyncio_detailed(
        uuid.UUID(started.parsed.session.id),
        client=client,
        body=models.ProcessTurnRequest.from_dict({"turn": {"role": "TURN_ROLE_USER", "content": "How are my bees?"}}),
    )
    assert isinstance(turned.parsed, models.ProcessTurnResponse), turned.content
    assert turned.parsed.turn.content == "How are my bees?"


async def test_the_generated_client_reads_an_error_as_the_error_model(gateway, migrated_pg, generated):
    key = await _create_key(migrated_pg.owner_dsn, f"org-{uuid.uuid4().hex[:12]}")
    models = importlib.import_module(f"{PACKAGE}.models")
    client = generated.AuthenticatedClient(base_url="http://gateway", token=key)
    client.set_async_httpx_client(asgi_client(gateway, key))

    missing = await _operation(generated, "sessions", "sessions_get_session").asyncio_detailed(
        uuid.uuid4(), client=client
    )

    assert missing.status_code == 404 and isinstance(missing.parsed, models.Error)
    assert missing.parsed.error.status == "NOT_FOUND"


# Operations the generated client does not call: they act on the whole store or destroy data, and
# their own tests cover them (test_admin_routes.py, test_erasure_*.py). Purging erased data has no
# REST operation (`lore erasure purge`).
NOT_CALLED = {
    "admin.reindex": "re-embeds every org's memories with the store's model (store-wide, operator scope)",
    "erasure.forgetSubject": "erases a subject's data everywhere (destructive)",
}
# The order operations are called in: those that make what a later one names by id come first
# (a memory, a session and its turn, a belief, a hypothesis, an unknown), those that end or archive
# it last. Every documented operation but NOT_CALLED stands here (the test checks it).
CALL_ORDER = [
    "health.healthz",
    "health.readyz",
    "health.status",
    "health.metrics",
    "credentials.whoami",
    "memories.remember",
    "memories.search",
    "memories.listMemories",
    "memories.getMemory",
    "memories.updateMemory",
    "memories.listEpisodes",
    "memories.listOpenThreads",
    "memories.resolveThread",
    "sessions.startSession",
    "sessions.listSessions",
    "sessions.getSession",
    "sessions.processTurn",
    "sessions.importTurns",
    "sessions.listTurns",
    "sessions.getTurnContext",
    "observations.observe",
    "observations.queryObservations",
    "observations.searchObservations",
    "observations.getObservation",
    "observations.observationHistory",
    "observations.confirmObservation",
    "observations.contradictObservation",
    "engagement.getEngagement",
    "engagement.formHypothesis",
    "engagement.addHypothesisEvidence",
    "engagement.reviseHypothesis",
    "engagement.promoteHypothesis",
    "engagement.archiveHypothesis",
    "engagement.addUnknown",
    "engagement.resolveUnknown",
    "engagement.advanceWeek",
    "context.assembleContext",
    "context.prime",
    "context.getUserProfile",
    "admin.runDecay",
    "admin.runConsolidation",
    "admin.runRevalidation",
    "admin.jobStats",
    "admin.listJobs",
    "admin.retryJobs",
    "sessions.endSession",
    "memories.forgetAbout",
    "memories.forgetMemory",
]
USER = "u-generated"
AGENT = "agent-1"
# Bodies other than the document's example: this test's user's.
BODIES = {
    "memories.remember": {
        "memories": [
            {"content": "Wren keeps two beehives.", "memoryType": "MEMORY_TYPE_FACT", "scope": {"userId": USER}}
        ]
    },
    "sessions.startSession": {"scope": {"userId": USER, "agentId": AGENT}},
}
# What a call makes that later ones name by id: operation id -> (the path parameter, where its answer holds it).
MAKES = {
    "memories.remember": ("memory_id", ("memories", 0, "id")),
    "sessions.startSession": ("session_id", ("session", "id")),
    "sessions.processTurn": ("turn_id", ("turn", "id")),
    "observations.observe": ("observation_id", ("observation", "id")),
    "engagement.formHypothesis": ("hypothesis_id", ("hypothesis", "id")),
    "engagement.addUnknown": ("unknown_id", ("unknown", "id")),
}


def _python_name(name: str) -> str:
    """A parameter's name in the generated code: ``scope.userId`` -> ``scope_user_id``."""
    return re.sub(r"[A-Z]", lambda letter: "_" + letter.group().lower(), name.replace(".", "_"))


def _operations_by_id(document: dict) -> dict[str, dict]:
    return {operation["operationId"]: operation for item in document["paths"].values() for operation in item.values()}


def _schema_name(media: dict) -> str:
    return media["schema"]["$ref"].removeprefix("#/components/schemas/")


async def _episode_with_an_open_thread(memory_address: str, org_id: str) -> str:
    metadata = RequestContext(org_id=org_id, principal="seeder", request_id="").metadata()
    async with service_channel(memory_address) as channel:
        episode = epb.Episode(
            conversation_id=f"conv-{uuid.uuid4().hex[:8]}",
            scope=scope_pb2.Scope(user_id=USER, agent_id=AGENT),
            summary="Planned a beekeeping course.",
            open_threads=[epb.OpenThread(topic="Which course to take", status=epb.THREAD_STATUS_OPEN)],
            message_count=2,
        )
        stub = episode_service_pb2_grpc.EpisodeServiceStub(channel)
        created = await stub.CreateEpisode(epb.CreateEpisodeRequest(episode=episode), metadata=metadata, timeout=10)
        return created.episode.id


async def test_the_generated_client_calls_every_operation_but_the_store_wide_and_destructive_ones(
    gateway, migrated_pg, services, generated
):
    """Every documented operation (but ``NOT_CALLED``) is called through the generated client with
    the document's own example body and query values, on records made by the calls before it, and
    answers 200 with its documented model."""
    document = gateway.openapi()
    operations = _operations_by_id(document)
    assert sorted(CALL_ORDER) == sorted(set(operations) - set(NOT_CALLED)), "a documented operation is not called"
    assert len(CALL_ORDER) == len(set(CALL_ORDER))
    org_id = f"org-{uuid.uuid4().hex[:12]}"
    key = await _create_key(migrated_pg.owner_dsn, org_id)
    models = importlib.import_module(f"{PACKAGE}.models")
    client = generated.AuthenticatedClient(base_url="http://gateway", token=key)
    client.set_async_httpx_client(asgi_client(gateway, key))
    ids = {"user_id": USER, "thread_index": "0"}
    ids["episode_id"] = await _episode_with_an_open_thread(services["memory"].address, org_id)
    called = []

    async def call(operation_id: str, body: dict | None = None) -> object:
        operation = operations[operation_id]
        function = _operation(generated, operation["tags"][0], _python_name(operation_id.replace(".", "_")))
        arguments: dict[str, object] = {"client": client}
        accepted = inspect.signature(function.asyncio_detailed).parameters
        for parameter in operation.get("parameters", []):
            name = _python_name(parameter["name"])
            if name not in accepted:  # a query parameter named as a path one: each gets its place as a suffix
                name = f"{name}_{parameter['in']}"
            if parameter["in"] == "path":
                value = ids[parameter["name"]]
                arguments[name] = uuid.UUID(value) if parameter["schema"].get("format") == "uuid" else value
            elif "example" in parameter and parameter["schema"].get("type") in ("string", "integer", "number"):
                arguments[name] = USER if parameter["name"] in ("scope.userId", "userId") else parameter["example"]
        if "requestBody" in operation:
            media = operation["requestBody"]["content"]["application/json"]
            model = getattr(models, _schema_name(media))
            arguments["body"] = model.from_dict(media["example"] if body is None else body)
        assert set(arguments) <= set(accepted), (operation_id, sorted(set(arguments) - set(accepted)))
        answer = await function.asyncio_detailed(**arguments)
        assert answer.status_code == 200, (operation_id, answer.content[:500])
        media = operation["responses"]["200"]["content"].get("application/json")
        if media is not None:
            assert isinstance(answer.parsed, getattr(models, _schema_name(media))), (operation_id, answer.parsed)
        called.append(operation_id)
        return json.loads(answer.content) if media is not None else answer.content

    for operation_id in CALL_ORDER:
        if operation_id == "engagement.archiveHypothesis":  # another hypothesis: the first is a finding now
            second = operations["engagement.formHypothesis"]["requestBody"]["content"]["application/json"]["example"]
            made = await call("engagement.formHypothesis", second | {"requestId": "second"})
            ids["hypothesis_id"] = made["hypothesis"]["id"]
        answer = await call(operation_id, BODIES.get(operation_id))
        if operation_id in MAKES:
            name, where = MAKES[operation_id]
            for step in where:
                answer = answer[step]
            ids[name] = answer
    assert set(CALL_ORDER) <= set(called)
