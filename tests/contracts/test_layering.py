"""The layering of STYLE.md, kept by parsing imports (tests/contracts/layering.py has the rules).

In every service package imports flow api -> usecases -> domain and adapters -> usecases, domain;
the top-level modules (bootstrap.py, server.py, config.py, ...) wire the layers and nothing imports
them back; domain is pure; only api/ (and outbound adapters/grpc_*.py) speaks protobuf; no service
imports another's package; no library imports a service; and applications (apps/: the `lore` command)
sit on top, imported by no library or service. The rules run on a planted tree too, so a checker that
silently stopped seeing an import would fail here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.contracts.layering import (
    PACKAGE_RULES,
    application_import_violations,
    application_names,
    library_sources,
    library_violations,
    service_packages,
    violations,
)

ROOT = Path(__file__).resolve().parents[2]
SERVICE_PACKAGES = service_packages(ROOT)


def test_there_is_something_to_check():
    assert len(SERVICE_PACKAGES) >= 5 and len(library_sources(ROOT)) > 10


@pytest.mark.parametrize("rule", PACKAGE_RULES)
@pytest.mark.parametrize("package", SERVICE_PACKAGES, ids=lambda path: path.name)
def test_service_package_keeps_its_layers(package: Path, rule: str) -> None:
    assert PACKAGE_RULES[rule](package, ROOT) == []


def test_no_library_imports_a_service():
    assert library_violations(ROOT) == []


def test_no_library_or_service_imports_an_application():
    assert application_names(ROOT) == {"lore_cli"}
    assert application_import_violations(ROOT) == []


# --- the test of the test: a small service that keeps every rule, then one planted violation per rule.

SVC = "services/demo/src/demo_svc"
CLEAN = {
    f"{SVC}/__init__.py": "",
    f"{SVC}/__main__.py": "from demo_svc.server import serve\n",
    f"{SVC}/config.py": "import os\n",
    f"{SVC}/server.py": "import grpc\nfrom lore.demo.v1 import demo_pb2_grpc\n\nfrom .api import servicer\n",
    f"{SVC}/bootstrap.py": (
        "from demo_svc import adapters\nfrom .adapters.postgres_store import Store\nfrom .config import os\n"
    ),
    f"{SVC}/domain/__init__.py": "",
    f"{SVC}/domain/model.py": "from dataclasses import dataclass\n\nfrom . import rules\n",
    f"{SVC}/domain/rules.py": "",
    f"{SVC}/usecases/__init__.py": "",
    f"{SVC}/usecases/ports.py": "from ..domain.model import dataclass\n",
    f"{SVC}/usecases/remember.py": "from demo_svc.domain import model\nfrom . import ports\n",
    f"{SVC}/api/__init__.py": "",
    f"{SVC}/api/servicer.py": (
        "from lore.demo.v1 import demo_pb2\n\nfrom ..usecases import remember\nfrom demo_svc.domain import model\n"
    ),
    f"{SVC}/adapters/__init__.py": "",
    f"{SVC}/adapters/postgres_store.py": (
        "import asyncpg\n\nfrom ..usecases.ports import dataclass\nfrom demo_svc.domain import model\n"
    ),
    f"{SVC}/adapters/grpc_peer.py": "import grpc\nfrom lore.peer.v1 import peer_pb2\n",
    # A back end as a folder (adapters/postgres/...): still adapters, its relative imports resolved.
    f"{SVC}/adapters/postgres/__init__.py": "",
    f"{SVC}/adapters/postgres/store.py": (
        "import asyncpg\n\nfrom ...usecases.ports import dataclass\nfrom . import rows\n"
        "from demo_svc.domain import model\n"
    ),
    f"{SVC}/adapters/postgres/rows.py": "import asyncpg\n",
    # The api in folders by job (api/http/...): still api, its relative imports resolved.
    f"{SVC}/api/http/__init__.py": "",
    f"{SVC}/api/http/routes.py": (
        "import fastapi\nfrom lore.demo.v1 import demo_pb2\n\n"
        "from ...usecases import remember\nfrom .. import servicer\n"
    ),
    "services/other/src/other_svc/__init__.py": "",
    "libs/lore_thing/src/lore_thing/__init__.py": "from lore_runtime import settings\n\nfrom . import helpers\n",
    "libs/lore_thing/src/lore_thing/helpers.py": "",
    "apps/lore_tool/src/lore_tool/__init__.py": "from demo_svc.config import os\nfrom lore_thing import helpers\n",
}


def plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def inside_a_function(statement: str) -> str:
    return f"def later():\n    {statement}\n"


def test_the_planted_clean_service_passes_every_rule(tmp_path):
    found = violations(plant(tmp_path, CLEAN))
    assert found == {rule: [] for rule in found}


PLANTED = [
    # (file, its text, the rule that must report it, the report)
    (
        f"{SVC}/domain/planted.py",
        inside_a_function("from demo_svc.usecases.ports import dataclass"),
        "layers",
        "domain imports demo_svc.usecases.ports.dataclass",
    ),
    (f"{SVC}/domain/planted.py", "from ..api import servicer\n", "layers", "domain imports demo_svc.api.servicer"),
    (f"{SVC}/domain/planted.py", "from demo_svc import adapters\n", "layers", "domain imports demo_svc.adapters"),
    (
        f"{SVC}/usecases/planted.py",
        "import demo_svc.api.servicer\n",
        "layers",
        "usecases imports demo_svc.api.servicer",
    ),
    (
        f"{SVC}/usecases/planted.py",
        inside_a_function("from ..adapters.postgres_store import asyncpg"),
        "layers",
        "usecases imports demo_svc.adapters.postgres_store.asyncpg",
    ),
    (f"{SVC}/usecases/planted.py", "from ..config import os\n", "layers", "usecases imports demo_svc.config.os"),
    (
        f"{SVC}/api/planted.py",
        "from ..adapters import grpc_peer\n",
        "layers",
        "api imports demo_svc.adapters.grpc_peer",
    ),
    (
        f"{SVC}/api/planted.py",
        "from demo_svc.bootstrap import Store\n",
        "layers",
        "api imports demo_svc.bootstrap.Store",
    ),
    (
        f"{SVC}/adapters/planted.py",
        "from ..api.servicer import demo_pb2\n",
        "layers",
        "adapters imports demo_svc.api.servicer.demo_pb2",
    ),
    (f"{SVC}/domain/planted.py", inside_a_function("import asyncpg"), "drivers", "domain imports asyncpg"),
    (
        f"{SVC}/domain/planted.py",
        "from google.protobuf import timestamp_pb2\n",
        "drivers",
        "domain imports google.protobuf.timestamp_pb2",
    ),
    (
        f"{SVC}/usecases/planted.py",
        "from lore.demo.v1 import demo_pb2\n",
        "generated code",
        "usecases imports lore.demo.v1.demo_pb2",
    ),
    (f"{SVC}/adapters/postgres_planted.py", "from lore import demo\n", "generated code", "adapters imports lore.demo"),
    (
        f"{SVC}/adapters/postgres/planted.py",
        "from ...api.servicer import demo_pb2\n",
        "layers",
        "adapters imports demo_svc.api.servicer.demo_pb2",
    ),
    (
        f"{SVC}/adapters/postgres/planted.py",
        inside_a_function("from demo_svc.bootstrap import Store"),
        "layers",
        "adapters imports demo_svc.bootstrap.Store",
    ),
    (f"{SVC}/adapters/postgres/planted.py", "from lore import demo\n", "generated code", "adapters imports lore.demo"),
    (
        f"{SVC}/api/http/planted.py",
        "from ...adapters import grpc_peer\n",
        "layers",
        "api imports demo_svc.adapters.grpc_peer",
    ),
    (
        f"{SVC}/api/http/planted.py",
        inside_a_function("from demo_svc.server import grpc"),
        "layers",
        "api imports demo_svc.server.grpc",
    ),
    (
        f"{SVC}/api/planted.py",
        inside_a_function("import other_svc.config"),
        "other services",
        "imports other_svc.config",
    ),
    (f"{SVC}/bootstrap.py", "from other_svc import bootstrap\n", "other services", "imports other_svc.bootstrap"),
    (
        "libs/lore_thing/src/lore_thing/planted.py",
        inside_a_function("from demo_svc.domain import model"),
        "libraries",
        "imports demo_svc.domain.model",
    ),
    ("libs/lore_thing/src/lore_thing/planted.py", "import lore_tool\n", "applications", "imports lore_tool"),
    (f"{SVC}/server.py", inside_a_function("from lore_tool import main"), "applications", "imports lore_tool.main"),
]


@pytest.mark.parametrize(
    ("file", "text", "rule", "report"), PLANTED, ids=[f"{rule}: {report}" for *_, rule, report in PLANTED]
)
def test_a_planted_violation_is_reported_by_its_rule(tmp_path, file, text, rule, report):
    found = violations(plant(tmp_path, {**CLEAN, file: text}))
    assert found == {name: [f"{file}: {report}"] if name == rule else [] for name in found}
