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


def test_half_lives_per_type_and_default():
    assert half_life_of(MemoryType.MESSAGE) == 14.0
    assert half_life_of(MemoryType.FACT) == half_life_of(MemoryType.PREFERENCE) == 90.0
    assert half_life_of(None) == DEFAULT_HALF_LIFE_DAYS == 30.0
    assert half_life_of(MemoryType.FACT, {MemoryType.FACT: 5.0}) == 5.0
    assert set(HALF_LIFE_DAYS) == set(MemoryType)
    at_half_life = START + timedelta(days=14)
    assert salience_of_type(MemoryType.MESSAGE, 0, START, at_half_life) == pytest.approx(0.5)


def test_a_future_last_access_counts_as_now():
    assert salience(0, START + timedelta(days=1), START) == 1.0
