from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from memory_svc.domain.model import MemoryType
from memory_svc.domain.salience import (
    DEFAULT_HALF_LIFE_DAYS,
    FLOOR,
    HALF_LIFE_DAYS,
    half_life_of,
    parse_half_lives,
    salience,
    salience_of_type,
)

START = datetime(2026, 1, 1, tzinfo=UTC)
types = st.sampled_from(list(MemoryType))


@given(types)
def test_day_zero_without_access_is_one(kind):
    assert salience_of_type(kind, 0, START, START) == 1.0
    assert salience(0, START, START) == 1.0


@given(types, st.floats(min_value=0, max_value=36_500, allow_nan=False))
def test_no_access_decays_with_the_types_half_life_and_never_below_the_floor(kind, days):
    value = salience_of_type(kind, 0, START, START + timedelta(days=days))
    assert FLOOR <= value <= 1.0
    assert value == pytest.approx(max(FLOOR, 0.5 ** (days / half_life_of(kind))))


@given(types, st.integers(min_value=0, max_value=1_000))
def test_very_old_memories_rest_on_the_floor(kind, accesses):
    assert salience_of_type(kind, accesses, START, START + timedelta(days=365 * 50)) == FLOOR


@given(types, st.integers(min_value=0, max_value=1_000), st.floats(min_value=0, max_value=3_650, allow_nan=False))
def test_more_accesses_never_lower_salience(kind, accesses, days):
    now = START + timedelta(days=days)
    assert salience_of_type(kind, accesses + 1, START, now) >= salience_of_type(kind, accesses, START, now)


def test_access_boost_is_ten_percent_per_access_on_day_zero():
    assert salience(3, START, START) == pytest.approx(1.3)


def test_every_type_defaults_to_seed_001s_thirty_day_half_life():
    assert set(HALF_LIFE_DAYS) == set(MemoryType)
    assert {half_life_of(kind) for kind in MemoryType} == {30.0}
    assert half_life_of(None) == DEFAULT_HALF_LIFE_DAYS == 30.0
    assert half_life_of(MemoryType.FACT, {MemoryType.FACT: 5.0}) == 5.0
    assert salience_of_type(MemoryType.FACT, 0, START, START + timedelta(days=30)) == pytest.approx(0.5)
    assert salience_of_type(MemoryType.MESSAGE, 0, START, START + timedelta(days=30)) == pytest.approx(0.5)


def test_an_override_changes_only_its_own_type():
    overrides = parse_half_lives("fact=90, preference = 60")
    assert overrides == {MemoryType.FACT: 90.0, MemoryType.PREFERENCE: 60.0}
    at_90_days = START + timedelta(days=90)
    assert salience_of_type(MemoryType.FACT, 0, START, at_90_days, overrides) == pytest.approx(0.5)
    assert salience_of_type(MemoryType.MESSAGE, 0, START, at_90_days, overrides) == pytest.approx(0.125)
    assert parse_half_lives("") == {}


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("belief=10", "unknown memory type"),
        ("fact", "type=days"),
        ("fact=1,fact=2", "type=days"),
        ("fact=soon", "a number"),
        ("fact=0", "days must be in"),
        ("fact=nan", "days must be in"),
        ("fact=1e9", "days must be in"),
    ],
)
def test_a_malformed_override_is_refused_naming_the_entry(text, named):
    with pytest.raises(ValueError, match=named):
        parse_half_lives(text)


def test_the_memory_setting_refuses_a_bad_override_at_start():
    from lore_runtime.settings import SettingsError, load_settings
    from memory_svc.config import Settings

    required = {
        "LORE_MEMORY_DATABASE_URL": "postgresql://localhost/lore",
        "LORE_REDIS_URL": "redis://localhost",
        "LORE_SERVICE_TOKEN": "t" * 32,
    }
    settings = load_settings(Settings, {**required, "LORE_HALF_LIFE_DAYS": "fact=90,skill=365"})
    assert settings.half_lives == {MemoryType.FACT: 90.0, MemoryType.SKILL: 365.0}
    assert load_settings(Settings, required).half_lives == {}
    with pytest.raises(SettingsError, match=r"LORE_HALF_LIFE_DAYS.*unknown memory type"):
        load_settings(Settings, {**required, "LORE_HALF_LIFE_DAYS": "facts=90"})
