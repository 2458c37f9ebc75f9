"""``lore doctor``: check every dependency and say what is wrong and how to fix it.

It reads the same ``LORE_*`` settings the services read and checks, each with a short timeout:
the settings themselves, Postgres (reachable, pgvector, migrations applied), Redis, Qdrant (a
server when ``LORE_QDRANT_URL`` is set), the embedding and language-model endpoints when
configured, every gRPC service's health and the gateway's readiness, and the local stack's data
directory. It only connects as a client: it never opens a store another process owns (the
embedded Qdrant belongs to the memory service, so its health stands for it).

Exit status 0 when nothing failed (warnings allowed), 1 otherwise; ``--json`` for tooling.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

import asyncpg
import grpc
import httpx
import redis.asyncio as redis
from lore.memory.v1 import memory_service_pb2, memory_service_pb2_grpc
from lore_migrations import discover
from lore_runtime.health import serving_status
from lore_runtime.service_auth import MIN_TOKEN_CHARS, TOKEN_VARIABLE
from lore_runtime.settings import DEFAULT_ADDRESSES, DialSettings, SettingsError, load_settings

from lore_cli import service_token
from lore_cli.health import gateway_url
from lore_cli.schemas import SCHEMAS
from lore_cli.service_calls import dial, tenant

TIMEOUT = 3.0
LOW_DISK_BYTES = 1 << 30
OK, WARN, FAIL = "ok", "warn", "fail"
_MARKS = {OK: "ok  ", WARN: "warn", FAIL: "FAIL"}


@dataclass(frozen=True)
class Finding:
    status: str
    subject: str
    detail: str
    fix: str = ""


Check = Callable[[Mapping[str, str]], Awaitable[list[Finding]]]


async def check_settings(environ: Mapping[str, str]) -> list[Finding]:
    """Each service's settings load from this environment (what it would refuse at start)."""
    from agent_svc.config import Settings as AgentSettings
    from assembler_svc.config import Settings as AssemblerSettings
    from gateway_svc.config import Settings as GatewaySettings
    from memory_svc.config import Settings as MemorySettings
    from observations_svc.config import Settings as ObservationsSettings

    stack_defaults = {} if environ.get("LORE_DATABASE_URL") else _local_stack_placeholders()
    # `lore up` gives its children a service token (its data dir's) when none is set; check_services
    # says whether this shell has one.
    stack_defaults["LORE_SERVICE_TOKEN"] = "placeholder-" + "x" * MIN_TOKEN_CHARS
    findings = []
    for name, settings_class in (
        ("memory", MemorySettings),
        ("observations", ObservationsSettings),
        ("assembler", AssemblerSettings),
        ("agent", AgentSettings),
        ("gateway", GatewaySettings),
    ):
        try:
            load_settings(settings_class, {**stack_defaults, **environ})
        except SettingsError as error:
            findings.append(Finding(FAIL, f"settings: {name}", str(error), "fix the LORE_* variable it names"))
        else:
            findings.append(Finding(OK, f"settings: {name}", "valid"))
    return findings


def _local_stack_placeholders() -> dict[str, str]:
    # `lore up` supplies these to its children; without servers configured they are not the user's to set.
    return {"LORE_DATABASE_URL": "postgresql://lore@localhost/lore", "LORE_REDIS_URL": "redis://localhost:6379/0"}


async def check_postgres(environ: Mapping[str, str]) -> list[Finding]:
    url = environ.get("LORE_DATABASE_URL")
    if not url:
        return [_embedded("postgres", environ, "postgres/postmaster.pid")]
    try:
        connection = await asyncpg.connect(url, timeout=TIMEOUT)
    except (TimeoutError, OSError, asyncpg.PostgresError) as error:
        return [
            Finding(FAIL, "postgres", f"cannot connect: {_reason(error)}", "check LORE_DATABASE_URL and the server")
        ]
    try:
        version = await connection.fetchval("SHOW server_version")
        findings = [Finding(OK, "postgres", f"reachable, PostgreSQL {version}")]
        vector = await connection.fetchval("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        if vector is None:
            available = await connection.fetchval("SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'")
            fix = "run `lore migrate` (it creates the extension)" if available else "install pgvector on the server"
            findings.append(Finding(FAIL, "postgres: pgvector", "the vector extension is not installed", fix))
        else:
            findings.append(Finding(OK, "postgres: pgvector", f"version {vector}"))
        findings.extend(await _migrations(connection))
        return findings
    finally:
        await connection.close()


async def _migrations(connection: asyncpg.Connection) -> list[Finding]:
    try:
        rows = await connection.fetch("SELECT schema, version FROM lore_migrations.applied")
    except asyncpg.UndefinedTableError:
        return [Finding(FAIL, "postgres: migrations", "none applied", "run `lore migrate`")]
    except asyncpg.InsufficientPrivilegeError:
        return [Finding(WARN, "postgres: migrations", "this role cannot read lore_migrations.applied", "")]
    applied = {(row["schema"], row["version"]) for row in rows}
    findings = []
    for schema, package in SCHEMAS.items():
        pending = [migration.version for migration in discover(package) if (schema, migration.version) not in applied]
        if pending:
            detail = f"{schema}: {len(pending)} not applied (versions {', '.join(map(str, pending))})"
            findings.append(Finding(FAIL, "postgres: migrations", detail, "run `lore migrate`"))
    return findings or [Finding(OK, "postgres: migrations", f"all applied ({len(SCHEMAS)} schemas)")]


async def check_redis(environ: Mapping[str, str]) -> list[Finding]:
    url = environ.get("LORE_REDIS_URL")
    if not url:
        return [_embedded("redis", environ, "redis")]
    client = redis.Redis.from_url(url, socket_timeout=TIMEOUT, socket_connect_timeout=TIMEOUT)
    try:
        info = await client.info("server")
        try:
            policy = (await client.config_get("maxmemory-policy")).get("maxmemory-policy", "")
        except redis.ResponseError:  # CONFIG is disabled on managed servers: the version is enough
            policy = ""
    except (redis.RedisError, OSError) as error:
        return [Finding(FAIL, "redis", f"cannot connect: {_reason(error)}", "check LORE_REDIS_URL and the server")]
    finally:
        await client.aclose()
    findings = [Finding(OK, "redis", f"reachable, version {info.get('redis_version', '?')}")]
    if policy and policy.startswith("allkeys"):
        detail = f"maxmemory-policy {policy} may evict working memory and session leases"
        findings.append(Finding(WARN, "redis: eviction", detail, "use noeviction or a volatile-* policy"))
    return findings


async def check_qdrant(environ: Mapping[str, str]) -> list[Finding]:
    url = environ.get("LORE_QDRANT_URL")
    if not url:
        detail = "embedded in the memory service (its health below stands for it)"
        return [Finding(OK, "qdrant", detail)]
    headers = {"api-key": environ["LORE_QDRANT_API_KEY"]} if environ.get("LORE_QDRANT_API_KEY") else {}
    return [await _http_probe("qdrant", f"{url.rstrip('/')}/collections", headers, "check LORE_QDRANT_URL / _API_KEY")]


async def check_models(environ: Mapping[str, str]) -> list[Finding]:
    findings = []
    for subject, variable, key in (
        ("embeddings", "LORE_EMBEDDINGS_BASE_URL", "LORE_EMBEDDINGS_API_KEY"),
        ("language model", "LORE_LLM_BASE_URL", "LORE_LLM_API_KEY"),
    ):
        base = environ.get(variable)
        if not base:
            findings.append(await asyncio.to_thread(_packaged_model) if subject == "embeddings" else _no_model())
            continue
        headers = {"Authorization": f"Bearer {environ[key]}"} if environ.get(key) else {}
        findings.append(await _http_probe(subject, f"{base.rstrip('/')}/models", headers, f"check {variable}"))
    return findings


def _packaged_model() -> Finding:
    from lore_embeddings.onnx import ModelIntegrityError, default_model_path, verify_model

    try:
        verify_model(default_model_path())
    except ModelIntegrityError as error:
        return Finding(
            FAIL, "embeddings", str(error), "reinstall: scripts/bootstrap (or pip install -r requirements.lock)"
        )
    return Finding(OK, "embeddings", "the packaged model, checksum verified")


def _no_model() -> Finding:
    return Finding(OK, "language model", "not configured: rule-based extraction (LORE_LLM_BASE_URL)")


async def check_services(environ: Mapping[str, str]) -> list[Finding]:
    try:  # the services' own settings checks name the problem; no service can be asked without it
        settings = load_settings(DialSettings, environ)
    except SettingsError as error:
        return [Finding(FAIL, "services", f"not asked: {error}", "fix the variables it names")]
    findings = [_credential(environ, settings)]
    for name in ("memory", "observations", "assembler", "agent"):
        address = environ.get(f"LORE_{name.upper()}_ADDR") or DEFAULT_ADDRESSES[name]
        target = address.replace("0.0.0.0:", "127.0.0.1:")
        async with dial(environ, target) as channel:
            state = await serving_status(channel, timeout=TIMEOUT)
            if state == "SERVING" and name == "memory":
                findings[0] = await _credential_accepted(channel, findings[0])
        if state == "SERVING":
            findings.append(Finding(OK, f"service: {name}", f"SERVING at {target}"))
        else:
            fix = f"start it (`lore up` locally) or set LORE_{name.upper()}_ADDR; its log says why it is not serving"
            findings.append(Finding(FAIL, f"service: {name}", f"{state} at {target}", fix))
    url = gateway_url(environ)
    findings.append(await _http_probe("gateway", f"{url}/readyz", {}, "start it, or set LORE_GATEWAY_ADDR"))
    return findings


def _credential(environ: Mapping[str, str], settings: DialSettings) -> Finding:
    """What the commands that call services (`lore reindex`, `lore org export` …) present."""
    if settings.service_tokens is not None:
        return Finding(OK, "service credential", f"{TOKEN_VARIABLE} is set")
    token_file = service_token.data_dir(environ) / service_token.FILE_NAME
    if service_token.local_tokens(environ) is not None:
        return Finding(OK, "service credential", f"the local stack's token ({token_file})")
    if settings.mutual_tls is not None:
        return Finding(OK, "service credential", "the LORE_TLS_* client certificate")
    return Finding(
        WARN,
        "service credential",
        f"no {TOKEN_VARIABLE} and no {token_file}: the services refuse this shell's commands",
        f"set {TOKEN_VARIABLE} to the services' token, or run `lore up` once (it writes the file)",
    )


async def _credential_accepted(memory: grpc.aio.Channel, presented: Finding) -> Finding:
    """Whether the memory service takes what this shell presents: a GetMemory of no id is refused
    for its argument (nothing read) by a service that accepted the credential, UNAUTHENTICATED otherwise."""
    try:
        await memory_service_pb2_grpc.MemoryServiceStub(memory).GetMemory(
            memory_service_pb2.GetMemoryRequest(), metadata=tenant("lore-doctor"), timeout=TIMEOUT
        )
    except grpc.aio.AioRpcError as error:
        if error.code() is grpc.StatusCode.UNAUTHENTICATED:
            fix = f"set {TOKEN_VARIABLE} to the token the services were started with"
            return Finding(FAIL, "service credential", f"{presented.detail}: refused by the memory service", fix)
    return Finding(OK, "service credential", f"{presented.detail}: accepted by the memory service")


async def check_data_dir(environ: Mapping[str, str]) -> list[Finding]:
    data_dir = Path(environ.get("LORE_DATA_DIR") or ".lore").resolve()
    if not data_dir.exists():
        return [Finding(OK, "data dir", f"{data_dir} does not exist yet (`lore up` creates it)")]
    if not os.access(data_dir, os.W_OK):
        return [Finding(FAIL, "data dir", f"{data_dir} is not writable", "fix its owner or permissions")]
    free = shutil.disk_usage(data_dir).free
    if free < LOW_DISK_BYTES:
        return [Finding(WARN, "data dir", f"{free >> 20} MiB free under {data_dir}", "free some disk space")]
    return [Finding(OK, "data dir", f"{data_dir}, {free >> 30} GiB free")]


CHECKS: tuple[Check, ...] = (
    check_settings,
    check_data_dir,
    check_postgres,
    check_redis,
    check_qdrant,
    check_models,
    check_services,
)


async def diagnose(environ: Mapping[str, str]) -> list[Finding]:
    results = await asyncio.gather(*(check(environ) for check in CHECKS))
    return [finding for findings in results for finding in findings]


async def run(environ: Mapping[str, str], *, as_json: bool = False) -> int:
    findings = await diagnose(environ)
    if as_json:
        print(json.dumps([asdict(finding) for finding in findings], indent=2))
    else:
        width = max(len(finding.subject) for finding in findings)
        for finding in findings:
            print(f"{_MARKS[finding.status]}  {finding.subject:<{width}}  {finding.detail}")
            if finding.fix:
                print(f"      {'':<{width}}  fix: {finding.fix}")
        failed = sum(finding.status == FAIL for finding in findings)
        print(f"\n{failed} failed, {sum(finding.status == WARN for finding in findings)} warnings")
    return 1 if any(finding.status == FAIL for finding in findings) else 0


def _embedded(subject: str, environ: Mapping[str, str], marker: str) -> Finding:
    """A back end `lore up` runs itself when no server is configured: say whether its data is there."""
    data_dir = Path(environ.get("LORE_DATA_DIR") or ".lore").resolve()
    if (data_dir / marker).exists():
        return Finding(OK, subject, f"embedded, under {data_dir / subject} (the services' health shows it answers)")
    if importlib.util.find_spec("lore_devstack") is None:  # the image, or lore-cli without its [dev] extra
        variable = {"postgres": "LORE_DATABASE_URL", "redis": "LORE_REDIS_URL"}[subject]
        fix = f"set {variable} to your server, or pip install 'lore-cli[dev]' for the embedded one"
        return Finding(FAIL, subject, f"{variable} is not set and the embedded {subject} is not installed", fix)
    return Finding(OK, subject, f"embedded: `lore up` starts it under {data_dir / subject}")


async def _http_probe(subject: str, url: str, headers: Mapping[str, str], fix: str) -> Finding:
    try:
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            response = await client.get(url, headers=dict(headers))
    except httpx.HTTPError as error:
        return Finding(FAIL, subject, f"cannot reach {url}: {_reason(error)}", fix)
    if response.status_code in (401, 403):
        return Finding(FAIL, subject, f"{url} refused the credential (HTTP {response.status_code})", fix)
    if response.status_code >= 400:
        return Finding(FAIL, subject, f"{url} answered HTTP {response.status_code}", fix)
    return Finding(OK, subject, f"{url} answers")


def _reason(error: BaseException) -> str:
    return str(error) or type(error).__name__
