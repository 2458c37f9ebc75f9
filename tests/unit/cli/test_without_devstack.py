"""Where lore-devstack is not installed (the service image; `pip install lore-cli` without `[dev]`),
commands that would start an embedded back end say what to set or install, never a traceback; with the
back ends configured they do not need it."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from pathlib import Path

from lore_cli import doctor, keys, migrate, up
from lore_cli.backends import Backends
from lore_runtime.settings import LOCAL_METRICS_ADDRESSES

# Runs `lore` with the dev stack unimportable, as where it is not installed (None in sys.modules makes
# `import lore_devstack` raise ImportError).
WITHOUT_DEVSTACK = "import sys; sys.modules['lore_devstack'] = None; from lore_cli.main import main; main(sys.argv[1:])"


def _hide_devstack(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "lore_devstack", None)


def _unconfigured(tmp_path: Path) -> dict[str, str]:
    return {"LORE_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}


def test_lore_up_names_the_setting_and_the_extra(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_DEVSTACK, "up"],
        env=_unconfigured(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )

    assert result.returncode == 2
    assert "LORE_DATABASE_URL is not set" in result.stderr, result.stderr
    assert "pip install 'lore-cli[dev]'" in result.stderr
    assert "Traceback" not in result.stderr


async def test_lore_migrate_without_a_database_names_the_setting_and_the_extra(tmp_path, monkeypatch, capsys):
    _hide_devstack(monkeypatch)

    assert await migrate.run(_unconfigured(tmp_path)) == 1
    message = capsys.readouterr().err
    assert message.startswith("lore migrate: LORE_DATABASE_URL is not set") and "lore-cli[dev]" in message


async def test_lore_keys_without_a_database_names_the_setting_and_the_extra(tmp_path, monkeypatch, capsys):
    _hide_devstack(monkeypatch)

    assert await keys.list_keys(_unconfigured(tmp_path), org="org-a") == 1
    message = capsys.readouterr().err
    assert message.startswith("lore keys list: LORE_DATABASE_URL is not set") and "lore-cli[dev]" in message


def test_lore_up_against_configured_servers_needs_no_devstack(tmp_path, monkeypatch):
    """A metrics page whose default port is taken gets a free port of lore up's own, not lore_devstack's."""
    _hide_devstack(monkeypatch)
    configured = Backends("postgresql://app@db/lore", "postgresql://owner@db/lore", "redis://cache:6379", None, ())
    environ = {"LORE_SERVICE_TOKEN": "t" * 40, "LORE_MEMORY_METRICS_ADDR": "", "LORE_AGENT_METRICS_ADDR": "x:1"}
    host, _, port = LOCAL_METRICS_ADDRESSES["observations"].rpartition(":")

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        with contextlib.suppress(OSError):  # already taken by someone else: just as good
            taken.bind((host, int(port)))
            taken.listen()
        env = up.child_environment(environ, configured, tmp_path)

    assert env["LORE_DATABASE_URL"] == "postgresql://app@db/lore" and env["LORE_REDIS_URL"] == "redis://cache:6379"
    assert env["LORE_MEMORY_METRICS_ADDR"] == "" and env["LORE_AGENT_METRICS_ADDR"] == "x:1"  # configured: kept
    chosen_host, _, chosen_port = env["LORE_OBSERVATIONS_METRICS_ADDR"].rpartition(":")
    assert chosen_host == "127.0.0.1" and chosen_port != port and int(chosen_port) > 0


async def test_lore_doctor_says_the_embedded_back_ends_are_not_installed(tmp_path, monkeypatch):
    _hide_devstack(monkeypatch)

    (postgres,) = await doctor.check_postgres(_unconfigured(tmp_path))
    (redis,) = await doctor.check_redis(_unconfigured(tmp_path))

    assert (postgres.status, redis.status) == (doctor.FAIL, doctor.FAIL)
    assert postgres.detail == "LORE_DATABASE_URL is not set and the embedded postgres is not installed"
    assert "lore-cli[dev]" in postgres.fix and redis.fix.startswith("set LORE_REDIS_URL")
