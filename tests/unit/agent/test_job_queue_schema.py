"""The job queue's migration is pgqueuer's own schema: an upgrade of pgqueuer that changes it must
come with a new migration, or the worker would run against tables it does not expect."""

from __future__ import annotations

from importlib import resources

from agent_svc.adapters.pgqueuer_jobs import SETTINGS
from pgqueuer.adapters.persistence.qb import QueryBuilderEnvironment


def _statements(sql: str) -> list[str]:
    lines = [line for line in sql.splitlines() if line.strip() and not line.lstrip().startswith("--")]
    return [" ".join(statement.split()) for statement in "\n".join(lines).split(";") if statement.strip()]


def test_the_migration_is_what_the_installed_pgqueuer_renders() -> None:
    migration = resources.files("agent_svc").joinpath("migrations/0002_job_queue.sql").read_text()
    rendered = QueryBuilderEnvironment(SETTINGS).build_install_query(create_schema=False)

    assert _statements(migration) == _statements(rendered)


def test_the_queue_lives_in_the_agent_schema_on_its_own_channel() -> None:
    assert SETTINGS.db_schema == "agent" and SETTINGS.channel == "lore_agent_jobs"
