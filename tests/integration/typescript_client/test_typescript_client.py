"""The TypeScript client (clients/typescript, ``@lore/client``) built and tested with Node's own test
runner against a real gateway: the gateway app served by uvicorn on a loopback port, in front of the
in-process gRPC services on the embedded Postgres, Valkey and Qdrant-edge of the integration tier.

``node --test`` runs clients/typescript/test (every operation of the OpenAPI document through the
generated types and openapi-fetch, retries, errors, tools, cross-user and cross-org walls); this file
gives it the gateway's URL and keys in its environment and fails on a non-zero exit. The generated
files (``openapi.json``, ``src/schema.ts``, ``src/catalogue.ts``) are checked to be what the code
writes, and ``npm pack`` to give a tarball another project installs and imports.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from gateway_svc.adapters.postgres_key_admin import create_api_key
from gateway_svc.server import create_app
from lore_client.tools import (
    TOOLS_BY_NAME,
    ToolArgumentError,
    ToolCallError,
    UnknownToolError,
    anthropic_tools,
    openai_tools,
)
from lore_client.tools import check_arguments as python_check_arguments
from lore_devstack import free_port

from tests.integration.gateway.conftest import _create_key, gateway_settings
from tests.polling import eventually

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "clients" / "typescript"
NODE_TIMEOUT = 600
NODE_ONLY = re.compile(r"""\bfrom ["']node:|\brequire\(|\bprocess\.|\bBuffer\b|\b__dirname\b""")


# Arguments the Python catalogue refuses: the TypeScript one must refuse them with the same message.
BAD_ARGUMENTS = [
    ("nope", {}),
    ("remember", {}),
    ("remember", {"content": "   "}),
    ("remember", {"content": "x", "memory_type": "rumour"}),
    ("remember", {"content": "x", "importance": 2}),
    ("remember", {"content": "x", "entities": ["ok", ""]}),
    ("remember", {"content": "x", "color": "red"}),
    ("search_memories", {"query": "x", "k": 0}),
    ("search_memories", {"query": "x", "k": 2.5}),
    ("search_memories", {"query": "x", "memory_types": "fact"}),
    ("search_beliefs", {"query": "x", "kinds": ["bogus"]}),
    ("observe", {"kind": "world_fact", "subject_id": "x", "summary": "y"}),
    ("observe", {"kind": "world_fact", "subject_id": "x", "summary": "y", "slot": "Bad Slot"}),
    ("observe", {"kind": "world_fact", "subject_id": "-x", "summary": "y", "slot": "s"}),
    ("forget_memory", {"memory_id": 7}),
    ("get_context", {"message": "é" * 16001}),
]


def _argument_errors() -> list[dict]:
    found = []
    for name, arguments in BAD_ARGUMENTS:
        try:
            if name not in TOOLS_BY_NAME:
                raise UnknownToolError(name, f"unknown tool {name!r} (known: {', '.join(TOOLS_BY_NAME)})")
            python_check_arguments(TOOLS_BY_NAME[name], arguments)
        except ToolCallError as error:
            argument = error.argument if isinstance(error, ToolArgumentError) else None
            unknown = isinstance(error, UnknownToolError)
            found.append(
                {"tool": name, "arguments": arguments, "error": str(error), "argument": argument, "unknown": unknown}
            )
        else:
            raise AssertionError(f"{name} {arguments} is not refused")
    return found


def _run(command: list[str], cwd: Path, timeout: float = 300, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def built() -> Path:
    """The package compiled (dist/) with its tests (build/test/), as ``npm test`` compiles them."""
    assert (PACKAGE / "node_modules" / ".bin" / "tsc").exists(), "clients/typescript: run scripts/bootstrap --dev"
    _run(["npm", "run", "--silent", "build"], PACKAGE)
    _run(["npm", "run", "--silent", "build:test"], PACKAGE)
    return PACKAGE


@asynccontextmanager
async def _served(app) -> AsyncIterator[str]:
    """``app`` answering HTTP on a loopback port, in this event loop, until the block ends."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws="none", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    await eventually(lambda: server.started or task.done(), timeout=60, what="the gateway did not start")
    assert not task.done(), "the gateway stopped while starting"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


def test_the_generated_files_are_what_the_code_writes(tmp_path):
    """openapi.json and catalogue.ts from the Python code, schema.ts from openapi.json: as committed
    (after a change to a route or a tool: ``npm run generate`` in clients/typescript)."""
    writer = PACKAGE / "scripts" / "write_generated.py"
    _run([sys.executable, str(writer), str(tmp_path)], ROOT)
    for name in ("openapi.json", "src/catalogue.ts"):
        assert (tmp_path / name).read_text() == (PACKAGE / name).read_text(), f"{name} is stale: npm run generate"
    tool = PACKAGE / "node_modules" / ".bin" / "openapi-typescript"
    _run([str(tool), str(tmp_path / "openapi.json"), "--output", str(tmp_path / "schema.ts")], PACKAGE)
    assert (tmp_path / "schema.ts").read_text() == (PACKAGE / "src" / "schema.ts").read_text(), (
        "src/schema.ts is stale: npm run generate"
    )


def test_npm_pack_gives_a_tarball_a_project_installs_and_imports(built, tmp_path):
    tarball = _run(["npm", "pack", "--silent", "--pack-destination", str(tmp_path)], built).strip().splitlines()[-1]
    project = tmp_path / "app"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "app", "private": True, "type": "module"}))
    _run(["npm", "install", "--prefer-offline", "--no-audit", "--no-fund", str(tmp_path / tarball)], project)
    script = (
        "import { createLoreClient, openaiTools, LoreApiError } from '@lore/client';"
        "const lore = createLoreClient({ baseUrl: 'http://127.0.0.1:9' });"
        "console.log(typeof lore.GET, openaiTools().length, new LoreApiError({status: 0, code: 'X', message: ''})"
        ".name);"
    )
    printed = _run(["node", "--input-type=module", "-e", script], project)
    assert printed.split() == ["function", str(len(openai_tools())), "LoreApiError"]
    installed = project / "node_modules" / "@lore" / "client"
    assert not (installed / "src").exists()  # only dist/ is shipped
    # fetch only: nothing of Node's, so edge runtimes (which have no process, Buffer or node: modules) load it.
    for module in (installed / "dist").glob("*.js"):
        assert not NODE_ONLY.search(module.read_text()), f"{module.name} uses a Node-only API"


async def test_node_tests_pass_against_a_real_gateway(built, services, migrated_pg, redis_url, tmp_path):
    org, other_org = f"org-ts-{uuid.uuid4().hex[:10]}", f"org-ts-{uuid.uuid4().hex[:10]}"
    owner = migrated_pg.owner_dsn
    _, pinned = await create_api_key(owner, org_id=org, principal="app-of-ana", scopes=["admin"], user_id="ana")
    python_tools = tmp_path / "python-tools.json"
    python_tools.write_text(
        json.dumps(
            {
                "openai": openai_tools(),
                "openaiResponses": openai_tools(responses_api=True),
                "anthropic": anthropic_tools(),
                "argumentErrors": _argument_errors(),
            }
        )
    )
    plain = create_app(gateway_settings(services, migrated_pg, redis_url))
    limited = create_app(gateway_settings(services, migrated_pg, redis_url, LORE_RATE_LIMIT="2:3"))
    async with _served(plain) as url, _served(limited) as limited_url:
        async with httpx.AsyncClient() as http:
            served = (await http.get(f"{url}/openapi.json")).json()
        assert served == json.loads((built / "openapi.json").read_text()), "the served document is not openapi.json"
        env = {
            **{name: value for name, value in os.environ.items() if not name.startswith("LORE_")},
            "LORE_URL": url,
            "LORE_KEY": await _create_key(owner, org),
            "LORE_OTHER_ORG_KEY": await _create_key(owner, other_org),
            "LORE_PINNED_KEY": pinned,
            "LORE_PINNED_USER": "ana",
            "LORE_LIMITED_URL": limited_url,
            "LORE_LIMITED_KEY": await _create_key(owner, f"org-ts-{uuid.uuid4().hex[:10]}"),
            "LORE_PYTHON_TOOLS": str(python_tools),
        }
        tests = sorted(str(path) for path in (built / "build" / "test").glob("*.test.js"))
        assert tests, "no compiled tests in clients/typescript/build/test"
        node = shutil.which("node")
        assert node, "node is required (Node.js 18+)"
        process = await asyncio.create_subprocess_exec(
            node, "--test", "--test-reporter=spec", *tests,
            cwd=built, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        try:
            output, _ = await asyncio.wait_for(process.communicate(), timeout=NODE_TIMEOUT)
        except TimeoutError:
            process.kill()
            await process.wait()
            pytest.fail(f"node --test did not finish within {NODE_TIMEOUT} s")
    assert process.returncode == 0, output.decode()[-20000:]
