"""apps/lore_cli, the `lore` command, is an application that imports service packages: its pyproject
declares every distribution its code imports (and nothing it does not), so installing it alone brings
what it needs, and its wheel builds. The embedded back ends of `lore up` (lore-devstack) are the `dev`
extra, never a dependency: the service image installs lore-cli without them."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.contracts.layering import imported_names

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "apps" / "lore_cli"
OWN = {"lore_cli", "__future__", *sys.stdlib_module_names}
PIP_WHEEL = ("-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--disable-pip-version-check", "--quiet")


def project() -> dict:
    return tomllib.loads((APP / "pyproject.toml").read_text())["project"]


def declared() -> set[str]:
    """Dependencies and extras: an extra is imported only by the commands that need it."""
    extras = [text for group in project().get("optional-dependencies", {}).values() for text in group]
    return {canonicalize_name(Requirement(text).name) for text in [*project()["dependencies"], *extras]}


def test_the_dev_stack_is_the_dev_extra_and_no_dependency():
    required = {canonicalize_name(Requirement(text).name) for text in project()["dependencies"]}

    assert "lore-devstack" not in required
    assert project()["optional-dependencies"]["dev"] == ["lore-devstack"]


def imported_distributions() -> dict[str, set[str]]:
    """Each top-level module the app imports from outside itself and the standard library, with the
    distributions that provide it (a namespace such as ``google`` has several)."""
    owners = importlib.metadata.packages_distributions()
    tops = {
        name.partition(".")[0] for path in (APP / "src" / "lore_cli").rglob("*.py") for name in imported_names(path)
    }
    return {top: {canonicalize_name(owner) for owner in owners.get(top, [])} for top in sorted(tops - OWN)}


def test_every_imported_module_comes_from_a_declared_distribution():
    dependencies = declared()
    undeclared = {top: owners for top, owners in imported_distributions().items() if not owners & dependencies}
    assert undeclared == {}, "imported but not in apps/lore_cli/pyproject.toml (or not installed)"


def test_every_declared_distribution_is_imported():
    provided = set().union(*imported_distributions().values())
    assert declared() - provided == set()


def test_the_wheel_builds(tmp_path):
    """Built from a copy: an in-tree build would leave build/ and egg-info beside the sources."""
    source = tmp_path / "lore_cli"
    shutil.copytree(APP, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    result = subprocess.run(
        [sys.executable, *PIP_WHEEL, str(source), "--wheel-dir", str(tmp_path / "dist")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert [wheel.name for wheel in (tmp_path / "dist").iterdir()] == ["lore_cli-0.1.0-py3-none-any.whl"]
