"""docker-compose.yml, checked against the code (no Docker engine runs here, so it is parsed, not run).

Every Lore service runs its own module from the repository's image; each LORE_* variable it is given
is one its settings class reads (``<svc>_svc.config.Settings``; ``lore migrate``'s own for the
migrations), and the settings load (required ones present, every value valid); each address it dials
names a compose service and the port that service listens on; each store URL names the store's
service, port and the roles the Postgres init script creates; healthchecks ask what the server
serves; depends_on waits for what each service uses. ``problems`` collects every finding, and mutated
copies prove it catches a misspelt setting, a wrong port, a missing setting, a missing module.
"""

from __future__ import annotations

import copy
import importlib.util
import re
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from lore_runtime.settings import SettingsError, load_settings

from tests.contracts.test_manifests import env_names, peers_dialled, registered_health_names, settings_model

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
LORE_SERVICES = ("memory", "observations", "assembler", "agent", "gateway")
STORES = {"database_url": ("postgres", 5432), "redis_url": ("redis", 6379), "qdrant_url": ("qdrant", 6333)}
STORE_IMAGES = {"postgres": "pgvector/pgvector:", "redis": "redis:", "qdrant": "qdrant/qdrant:"}
INTERPOLATION = re.compile(r"\$\{(\w+):-([^}]*)\}")
GRPC_PROBE = ["CMD", "python", "-m", "lore_runtime.probe", "grpc"]
HTTP_PROBE = ["CMD", "python", "-m", "lore_runtime.probe", "http"]


def load(text: str) -> dict[str, Any]:
    """The document as compose sees it with nothing set: ``${NAME:-default}`` is its default."""
    assert not re.search(r"\$\{\w+\}", text), "a ${NAME} without a default would be empty"
    return yaml.safe_load(INTERPOLATION.sub(lambda match: match.group(2), text))


def migrate_variables() -> set[str]:
    """What ``lore migrate`` reads: the ``environ.get("LORE_…")`` of lore_cli/migrate.py."""
    source = (ROOT / "apps" / "lore_cli" / "src" / "lore_cli" / "migrate.py").read_text()
    return set(re.findall(r'environ\.get\("(LORE_\w+)"\)', source))


def lore_script_module() -> str:
    scripts = tomllib.loads((ROOT / "apps" / "lore_cli" / "pyproject.toml").read_text())["project"]["scripts"]
    return scripts["lore"].partition(":")[0]


def listen_port(address: str) -> int:
    return int(address.rpartition(":")[2])


def host_port(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host, int(port)


def problems(compose: dict[str, Any]) -> list[str]:
    found: list[str] = []
    services = compose["services"]
    expected = {*STORE_IMAGES, "migrations", *LORE_SERVICES}
    if set(services) != expected:
        return [f"services are {sorted(services)}, not {sorted(expected)}"]
    for store, image in STORE_IMAGES.items():
        if not services[store]["image"].startswith(image) or services[store]["image"].endswith(":latest"):
            found.append(f"{store}: image {services[store]['image']} is not a pinned {image}")
    found += _migrations(services)
    settings = {}
    for service in LORE_SERVICES:
        found += _image(services, service)
        command = services[service].get("command")
        if command != ["python", "-m", f"{service}_svc"] or not importlib.util.find_spec(f"{service}_svc.__main__"):
            found.append(f"{service}: command {command} does not run {service}_svc")
        environment = {key: str(value) for key, value in services[service].get("environment", {}).items()}
        known = {name for names in env_names(settings_model(service)).values() for name in names}
        for variable in sorted(set(environment) - known):
            found.append(f"{service}: {variable} is no setting {service}_svc reads")
        try:
            settings[service] = load_settings(settings_model(service), environment)
        except SettingsError as error:
            found.append(f"{service}: {error}")
    for service, loaded in settings.items():
        found += _addresses(services, settings, service, loaded)
        found += _health(services, service, loaded)
    return found


def _image(services: dict[str, Any], service: str) -> list[str]:
    spec = services[service]
    if spec.get("build") != "." or not (ROOT / "Dockerfile").is_file():
        return [f"{service}: not built from the repository's Dockerfile (build: .)"]
    return []


def _migrations(services: dict[str, Any]) -> list[str]:
    found = _image(services, "migrations")
    spec = services["migrations"]
    command = spec.get("command")
    if command != ["lore", "migrate"] or not importlib.util.find_spec(lore_script_module()):
        found.append(f"migrations: command {command} is not `lore migrate`")
    environment = {key: str(value) for key, value in spec.get("environment", {}).items()}
    for variable in sorted(set(environment) - migrate_variables()):
        found.append(f"migrations: {variable} is no setting lore migrate reads")
    owner_url = environment.get("LORE_MIGRATIONS_DATABASE_URL", "")
    if not owner_url:  # the image has no embedded Postgres to fall back on
        found.append("migrations: LORE_MIGRATIONS_DATABASE_URL is required")
    else:
        found += _store_url(services, "migrations", "database_url", owner_url, role="lore_owner")
    if spec.get("restart") != "no":
        found.append("migrations: a one-shot job must not restart")
    if spec.get("depends_on", {}).get("postgres") != {"condition": "service_healthy"}:
        found.append("migrations: must wait for postgres to be healthy")
    return found


def _store_url(services: dict[str, Any], service: str, field: str, url: str, role: str = "lore_app") -> list[str]:
    store, port = STORES[field]
    parts = urlsplit(url)
    found = []
    if (parts.hostname, parts.port) != (store, port):
        found.append(f"{service}: {field} {url} is not {store}:{port}")
    if store == "postgres":
        init = services["postgres"]["environment"]
        password = init["LORE_OWNER_PASSWORD" if role == "lore_owner" else "LORE_APP_PASSWORD"]
        if (parts.username, parts.password, parts.path) != (role, password, "/lore"):
            found.append(f"{service}: {field} is not {role} on database lore with the init script's password")
    return found


def _addresses(services: dict[str, Any], settings: dict[str, Any], service: str, loaded: Any) -> list[str]:
    found = []
    if not loaded.addr.startswith("0.0.0.0:"):
        found.append(f"{service}: listens on {loaded.addr}, unreachable from the other containers")
    waits = services[service].get("depends_on", {})
    for peer in sorted(peers_dialled(service)):
        host, port = host_port(getattr(loaded, f"{peer}_addr"))
        if host != peer or peer not in settings or port != listen_port(settings[peer].addr):
            found.append(f"{service}: dials {peer} at {host}:{port}, where it does not listen")
        if waits.get(peer) != {"condition": "service_healthy"}:
            found.append(f"{service}: does not wait for {peer} to be healthy")
    for field, (store, _) in STORES.items():
        url = getattr(loaded, field, None)
        if url:
            found += _store_url(services, service, field, url)
            wanted = "migrations" if store == "postgres" else store
            condition = "service_completed_successfully" if store == "postgres" else "service_healthy"
            if waits.get(wanted) != {"condition": condition}:
                found.append(f"{service}: does not wait for {wanted} ({condition})")
    if service == "memory" and not loaded.qdrant_url:
        found.append("memory: without LORE_QDRANT_URL it keeps its vectors in the container's /tmp")
    return found


def _health(services: dict[str, Any], service: str, loaded: Any) -> list[str]:
    test = services[service].get("healthcheck", {}).get("test", [])
    if service == "gateway":
        port = listen_port(loaded.addr)
        if test != [*HTTP_PROBE, f"http://127.0.0.1:{port}/readyz"]:
            return [f"gateway: healthcheck {test} is not its /readyz on port {port}"]
        published = [str(mapping) for mapping in services[service].get("ports", [])]
        return [] if published == [f"{port}:{port}"] else [f"gateway: publishes {published}, not {port}"]
    expected = [*GRPC_PROBE, loaded.health_addr or "(no LORE_*_HEALTH_ADDR)"]
    if (
        test[: len(expected)] != expected
        or test[len(expected) :] == []
        or (test[-1] not in registered_health_names(service))
    ):
        return [f"{service}: healthcheck {test} does not ask its health listener for a service it registers"]
    return []


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return load(COMPOSE.read_text())


def test_the_compose_file_agrees_with_the_code(compose):
    assert problems(compose) == []


def test_stores_and_every_depends_on_target_have_healthchecks_and_volumes(compose):
    services = compose["services"]
    for name, spec in services.items():
        for target, condition in spec.get("depends_on", {}).items():
            assert target in services, f"{name} depends on {target}, which is no service"
            if condition == {"condition": "service_healthy"}:
                assert services[target].get("healthcheck", {}).get("test"), f"{target} has no healthcheck"
    for store in STORE_IMAGES:
        volume = services[store]["volumes"][0].partition(":")[0]
        assert volume in compose["volumes"], f"{store} keeps its data in no named volume"
    init_script = [volume for volume in services["postgres"]["volumes"] if "docker-entrypoint-initdb.d" in volume]
    assert init_script and (ROOT / init_script[0].partition(":")[0]).is_file()


def test_lore_containers_run_as_the_image_user_with_a_read_only_root(compose):
    for name in ("migrations", *LORE_SERVICES):
        spec = compose["services"][name]
        assert (spec["user"], spec["read_only"], spec["tmpfs"]) == ("10001:10001", True, ["/tmp"]), name


def _mutated(compose: dict[str, Any], service: str, change) -> dict[str, Any]:
    copied = copy.deepcopy(compose)
    change(copied["services"][service])
    return copied


def _rename(environment: dict[str, Any], old: str, new: str) -> None:
    environment[new] = environment.pop(old)


MUTATIONS = {
    "a misspelt setting": (
        "memory",
        lambda spec: _rename(spec["environment"], "LORE_REDIS_URL", "LORE_REDIS_ULR"),
        "memory: LORE_REDIS_ULR is no setting memory_svc reads",
    ),
    "a setting of another service": (
        "assembler",
        lambda spec: spec["environment"].update(LORE_DATABASE_URL="postgresql://lore_app:x@postgres:5432/lore"),
        "assembler: LORE_DATABASE_URL is no setting assembler_svc reads",
    ),
    "a required setting left out": (
        "observations",
        lambda spec: spec["environment"].pop("LORE_DATABASE_URL"),
        "LORE_OBSERVATIONS_DATABASE_URL or LORE_DATABASE_URL is required",
    ),
    "a peer dialled on the wrong port": (
        "agent",
        lambda spec: spec["environment"].update(LORE_MEMORY_ADDR="memory:50052"),
        "agent: dials memory at memory:50052, where it does not listen",
    ),
    "a peer that is no service": (
        "gateway",
        lambda spec: spec["environment"].update(LORE_AGENT_ADDR="lore-agent:50054"),
        "gateway: dials agent at lore-agent:50054",
    ),
    "a store on the wrong host": (
        "gateway",
        lambda spec: spec["environment"].update(LORE_REDIS_URL="redis://cache:6379/0"),
        "gateway: redis_url redis://cache:6379/0 is not redis:6379",
    ),
    "a command naming no module": (
        "assembler",
        lambda spec: spec.update(command=["python", "-m", "assembly_svc"]),
        "assembler: command ['python', '-m', 'assembly_svc'] does not run assembler_svc",
    ),
    "a migration setting lore migrate does not read": (
        "migrations",
        lambda spec: _rename(spec["environment"], "LORE_MIGRATIONS_DATABASE_URL", "LORE_MIGRATION_DATABASE_URL"),
        "migrations: LORE_MIGRATION_DATABASE_URL is no setting lore migrate reads",
    ),
    "a healthcheck asking another service": (
        "memory",
        lambda spec: spec["healthcheck"].update(test=[*GRPC_PROBE, "127.0.0.1:9091", "lore.agent.v1.AgentService"]),
        "memory: healthcheck",
    ),
    "no wait for a peer": (
        "agent",
        lambda spec: spec["depends_on"].pop("assembler"),
        "agent: does not wait for assembler to be healthy",
    ),
}


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_a_mutated_copy_is_caught(compose, mutation):
    service, change, message = MUTATIONS[mutation]
    found = problems(_mutated(compose, service, change))
    assert any(message in problem for problem in found), found
