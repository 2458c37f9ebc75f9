"""The domain stays pure: no transport, generated code, tokenizer library, telemetry or driver."""

from __future__ import annotations

import ast
from pathlib import Path

import assembler_svc.domain

FORBIDDEN = ("grpc", "lore", "tiktoken", "tiktoken_ext", "opentelemetry", "redis", "asyncpg", "qdrant")
DOMAIN = Path(assembler_svc.domain.__file__).parent


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _forbidden(module: str) -> bool:
    root = module.split(".")[0]
    return root in FORBIDDEN or root.startswith("qdrant") or module.endswith("_pb2") or "_pb2" in module


def test_the_domain_imports_no_transport_driver_or_tokenizer() -> None:
    modules = sorted(DOMAIN.glob("*.py"))
    assert {path.name for path in modules} >= {"model.py", "pipeline.py", "dedupe.py", "budget.py"}
    offenders = {path.name: sorted(filter(_forbidden, _imported_modules(path))) for path in modules}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_the_checker_would_catch_a_forbidden_import() -> None:
    assert _forbidden("grpc.aio")
    assert _forbidden("lore.common.v1.context_pb2")
    assert _forbidden("qdrant_client")
    assert _forbidden("tiktoken")
    assert not _forbidden("assembler_svc.domain.model")
    assert not _forbidden("numpy")
