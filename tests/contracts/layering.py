"""The import rules of STYLE.md as functions of a source tree, so a test can also run them on a planted one.

Every import counts: at module level, inside functions, under ``TYPE_CHECKING``; relative imports are
resolved against the importing module, and ``from pkg import name`` is read as ``pkg.name`` (the name may
be a submodule: ``from agent_svc import adapters``).
"""

from __future__ import annotations

import ast
from pathlib import Path

LAYERS = ("domain", "usecases", "api", "adapters")
# What each layer of a service package may not import from its own package. The top-level modules
# (bootstrap.py, server.py, config.py, __main__.py, ...) are the composition root, "root" here: they
# may import any layer, and no layer imports them (wiring depends on the layers, never the reverse).
FORBIDDEN_LAYERS = {
    "domain": ("usecases", "api", "adapters", "root"),
    "usecases": ("api", "adapters", "root"),
    "api": ("adapters", "root"),
    "adapters": ("api", "root"),
}
DRIVERS = (
    "grpc",
    "lore",
    "google.protobuf",
    "asyncpg",
    "redis",
    "qdrant_client",
    "qdrant_edge",
    "opentelemetry",
    "httpx",
    "fastapi",
    "onnxruntime",
    "tiktoken",
)
GENERATED = ("lore",)  # libs/lore_proto: only api/ and outbound adapters/grpc_*.py speak protobuf


def service_packages(root: Path) -> list[Path]:
    return sorted(root.glob("services/*/src/*_svc"))


def library_sources(root: Path) -> list[Path]:
    return sorted(path for path in root.glob("libs/*/**/*.py") if ".egg-info" not in str(path))


def application_names(root: Path) -> set[str]:
    """The import names of the applications under apps/ (the `lore` command's lore_cli)."""
    return {package.parent.name for package in root.glob("apps/*/src/*/__init__.py")}


def module_name(path: Path) -> str:
    """The dotted name ``path`` is imported by: its folders up to the first one that is no package."""
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def imported_names(path: Path) -> list[str]:
    """Absolute dotted names of everything ``path`` imports, anywhere in the file."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                source = ".".join(part for part in (base, node.module) if part)
            else:
                source = node.module or ""
            names += [f"{source}.{alias.name}" if alias.name != "*" else source for alias in node.names]
    return names


def matches(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def layer_of(path: Path, package: Path) -> str:
    """The layer a file of a service package belongs to; ``root`` for the top-level modules."""
    first = path.relative_to(package).parts[0]
    return first if first in LAYERS else "root"


def imported_layer(name: str, package: str) -> str | None:
    """The layer of ``package`` that the dotted ``name`` lies in; None when it lies outside the package."""
    parts = name.split(".")
    if parts[0] != package:
        return None
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "root"


def _where(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _sources(package: Path) -> list[Path]:
    return sorted(package.rglob("*.py"))


def layer_violations(package: Path, root: Path) -> list[str]:
    """Imports against the direction api -> usecases -> domain, adapters -> usecases, domain."""
    found = []
    for path in _sources(package):
        layer = layer_of(path, package)
        forbidden = FORBIDDEN_LAYERS.get(layer, ())
        for name in imported_names(path):
            if imported_layer(name, package.name) in forbidden:
                found.append(f"{_where(path, root)}: {layer} imports {name}")
    return found


def driver_violations(package: Path, root: Path) -> list[str]:
    """domain/ is pure: no driver, transport or telemetry."""
    return [
        f"{_where(path, root)}: domain imports {name}"
        for path in _sources(package)
        if layer_of(path, package) == "domain"
        for name in imported_names(path)
        if matches(name, DRIVERS)
    ]


def generated_code_violations(package: Path, root: Path) -> list[str]:
    """Only api/ (and the composition root) imports generated code, besides outbound ``adapters/grpc_*.py``:
    clients of another service's contract."""
    found = []
    for path in _sources(package):
        layer = layer_of(path, package)
        if layer in ("api", "root") or (layer == "adapters" and path.name.startswith("grpc_")):
            continue
        found += [
            f"{_where(path, root)}: {layer} imports {name}" for name in imported_names(path) if matches(name, GENERATED)
        ]
    return found


def foreign_service_violations(package: Path, root: Path) -> list[str]:
    """A service talks to another through its gRPC contract, never by importing its package."""
    return [
        f"{_where(path, root)}: imports {name}"
        for path in _sources(package)
        for name in imported_names(path)
        if (top := name.partition(".")[0]).endswith("_svc") and top != package.name
    ]


def library_violations(root: Path) -> list[str]:
    """Libraries sit below the services: none imports a service package."""
    return [
        f"{_where(path, root)}: imports {name}"
        for path in library_sources(root)
        for name in imported_names(path)
        if name.partition(".")[0].endswith("_svc")
    ]


def application_import_violations(root: Path) -> list[str]:
    """Applications sit on top: they may import services and libraries, and neither imports them."""
    applications = application_names(root)
    sources = library_sources(root) + [path for package in service_packages(root) for path in _sources(package)]
    return [
        f"{_where(path, root)}: imports {name}"
        for path in sources
        for name in imported_names(path)
        if name.partition(".")[0] in applications
    ]


PACKAGE_RULES = {
    "layers": layer_violations,
    "drivers": driver_violations,
    "generated code": generated_code_violations,
    "other services": foreign_service_violations,
}


def violations(root: Path) -> dict[str, list[str]]:
    """Every rule's findings in the tree at ``root``, by rule."""
    found = {
        rule: [line for package in service_packages(root) for line in check(package, root)]
        for rule, check in PACKAGE_RULES.items()
    }
    found["libraries"] = library_violations(root)
    found["applications"] = application_import_violations(root)
    return found
