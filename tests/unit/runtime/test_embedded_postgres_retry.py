"""The embedded Postgres starts again when pg_ctl itself dies of a signal, and only then."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from lore_devstack import postgres


class Server:
    def get_uri(self) -> str:
        return "postgresql://postgres@/postgres?host=/tmp/pg"


class FlakyPgserver:
    def __init__(self, *failures: int) -> None:
        self.failures = list(failures)
        self.calls = 0

    def get_server(self, data_dir: Path, cleanup_mode: str) -> Server:
        self.calls += 1
        if self.failures:
            raise subprocess.CalledProcessError(self.failures.pop(0), ["pg_ctl", "start"])
        return Server()


@pytest.fixture(autouse=True)
def no_server_to_secure(monkeypatch) -> None:
    """No real cluster behind the fake: nothing to ask for passwords."""
    monkeypatch.setattr(postgres.EmbeddedPostgres, "_secure", lambda self, uri: uri)


def test_a_pg_ctl_killed_by_a_signal_is_tried_once_more(monkeypatch, tmp_path: Path) -> None:
    flaky = FlakyPgserver(-11)
    monkeypatch.setattr(postgres, "_import_pgserver", lambda: flaky)

    assert postgres.EmbeddedPostgres(tmp_path / "pg").start().startswith("postgresql://")
    assert flaky.calls == 2


@pytest.mark.parametrize("failures", [(1,), (-11, -11)])
def test_a_real_failure_or_a_second_crash_is_raised(monkeypatch, tmp_path: Path, failures) -> None:
    monkeypatch.setattr(postgres, "_import_pgserver", lambda: FlakyPgserver(*failures))

    with pytest.raises(subprocess.CalledProcessError):
        postgres.EmbeddedPostgres(tmp_path / "pg").start()
