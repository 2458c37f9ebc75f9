"""A client that openapi-python-client generates from the served OpenAPI document calls the gateway
and reads every answer as its response model: the document names its schemas and its bearer scheme
well enough for a generator to keep each success answer (Prime, StartSession and ProcessTurn
among them).

The generator is not one of Lore's dependencies (its typer pin conflicts with the lock's):
``scripts/bootstrap --dev`` installs its exact versions (requirements-generator.lock) with
``--no-deps`` into .venv/generator, which runs before the project's environment, holding the rest of
its tree at the versions it needs.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

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
