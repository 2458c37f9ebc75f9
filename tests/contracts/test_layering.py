"""The layering of STYLE.md, kept by parsing imports: domain is pure, only api/ speaks protobuf."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVICE_PACKAGES = sorted(ROOT.glob("services/*/src/*_svc"))
DRIVERS = (
    "grpc",
    "lore.",
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


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _offending(folder: Path, forbidden: tuple[str, ...]) -> list[str]:
    found = []
    for path in folder.rglob("*.py"):
        for name in _imports(path):
            if any(
                name == prefix.rstrip(".")
                or name.startswith(prefix if prefix.endswith(".") else prefix + ".")
                or name == prefix
                for prefix in forbidden
            ):
                found.append(f"{path.relative_to(ROOT)}: {name}")
    return found


@pytest.mark.parametrize("package", SERVICE_PACKAGES, ids=lambda path: path.name)
def test_domain_imports_no_driver_transport_or_telemetry(package: Path) -> None:
    domain = package / "domain"
    if domain.exists():
        assert _offending(domain, DRIVERS) == []


@pytest.mark.parametrize("package", SERVICE_PACKAGES, ids=lambda path: path.name)
def test_only_the_api_layer_imports_generated_code(package: Path) -> None:
    """Outbound gRPC adapters (``adapters/grpc_*.py``: the assembler's sources) are the one other
    place that must speak protobuf: they are clients of another service's contract."""
    for layer in ("domain", "usecases", "adapters"):
        folder = package / layer
        if folder.exists():
            found = _offending(folder, ("lore.",))
            assert [line for line in found if not Path(line.split(":")[0]).name.startswith("grpc_")] == [], layer
