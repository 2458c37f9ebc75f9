import pytest
from lore_runtime.settings import LoreSettings, SettingsError, env, load_settings, service_address, service_database_url
from pydantic import ValidationError


class ExampleSettings(LoreSettings):
    addr: str = service_address("memory")
    database_url: str = service_database_url("memory")
    redis_url: str = env("LORE_REDIS_URL")
    recent_turns: int = env("LORE_RECENT_TURNS", default=20)


def test_defaults_and_required_values():
    settings = load_settings(ExampleSettings, {"LORE_DATABASE_URL": "postgresql://db/x", "LORE_REDIS_URL": "redis://r"})
    assert settings.addr == "127.0.0.1:50051"
    assert settings.database_url == "postgresql://db/x"
    assert settings.recent_turns == 20


def test_per_service_database_url_overrides_the_shared_one():
    settings = load_settings(
        ExampleSettings,
        {
            "LORE_DATABASE_URL": "postgresql://shared/x",
            "LORE_MEMORY_DATABASE_URL": "postgresql://memory/x",
            "LORE_REDIS_URL": "redis://r",
        },
    )
    assert settings.database_url == "postgresql://memory/x"


def test_every_missing_or_malformed_variable_is_reported_at_once():
    with pytest.raises(SettingsError) as raised:
        load_settings(ExampleSettings, {"LORE_RECENT_TURNS": "many"})
    problems = raised.value.problems
    assert "LORE_MEMORY_DATABASE_URL or LORE_DATABASE_URL is required" in problems
    assert "LORE_REDIS_URL is required" in problems
    assert any(problem.startswith("LORE_RECENT_TURNS:") for problem in problems)
    assert len(problems) == 3


def test_empty_variables_count_as_unset_and_settings_are_frozen():
    settings = load_settings(
        ExampleSettings,
        {"LORE_DATABASE_URL": "postgresql://db/x", "LORE_REDIS_URL": "redis://r", "LORE_MEMORY_ADDR": ""},
    )
    assert settings.addr == "127.0.0.1:50051"
    with pytest.raises(ValidationError):
        settings.addr = "0.0.0.0:1"  # type: ignore[misc]


def test_unrelated_environment_is_ignored():
    settings = load_settings(
        ExampleSettings, {"PATH": "/bin", "LORE_DATABASE_URL": "postgresql://db/x", "LORE_REDIS_URL": "redis://r"}
    )
    assert settings.redis_url == "redis://r"
