"""lore_runtime.timestamps: the one rule for a caller's times, and the stored form that reads back."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from hypothesis import given
from hypothesis import strategies as st
from lore.common.v1 import turn_pb2
from lore.memory.v1 import working_memory_service_pb2
from lore_runtime.errors import InvalidArgument
from lore_runtime.proto_time import from_timestamp, observed_from_timestamp, to_timestamp
from lore_runtime.timestamps import (
    CALENDAR_RANGE,
    CLOCK_SKEW,
    EARLIEST,
    LATEST,
    OBSERVED_RANGE,
    calendar_time,
    observed_time,
    parse_stored,
    repaired_text,
    stored_text,
)

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "moment",
    [
        datetime(1, 1, 1, tzinfo=UTC),
        EARLIEST - timedelta(microseconds=1),
        LATEST + timedelta(microseconds=1),
        datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC),
    ],
)
def test_a_moment_outside_the_calendar_is_invalid_naming_the_field_and_the_range(moment):
    with pytest.raises(InvalidArgument) as raised:
        calendar_time(moment, "memories[0].valid_at")
    assert raised.value.field == "memories[0].valid_at" and raised.value.description == CALENDAR_RANGE


@pytest.mark.parametrize("moment", [EARLIEST, LATEST, datetime(2999, 12, 31, 23, 59, 59, tzinfo=UTC), NOW])
def test_the_bounds_of_the_calendar_are_accepted_as_aware_utc(moment):
    assert calendar_time(moment, "valid_at") == moment and calendar_time(moment, "valid_at").tzinfo is UTC


def test_a_naive_or_offset_moment_is_read_as_utc():
    assert calendar_time(datetime(2023, 5, 8, 13, 56), "valid_at") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    lisbon = datetime(2023, 5, 8, 14, 56, tzinfo=timezone(timedelta(hours=1)))
    assert calendar_time(lisbon, "valid_at").tzinfo is UTC and calendar_time(lisbon, "valid_at").hour == 13


def test_an_observed_moment_may_be_up_to_the_clock_skew_ahead_of_now_and_no_more():
    assert observed_time(NOW + CLOCK_SKEW, "observed_at", NOW) == NOW + CLOCK_SKEW
    assert observed_time(EARLIEST, "observed_at", NOW) == EARLIEST
    for moment in (NOW + CLOCK_SKEW + timedelta(microseconds=1), EARLIEST - timedelta(seconds=1)):
        with pytest.raises(InvalidArgument) as raised:
            observed_time(moment, "evidence[1].observed_at", NOW)
        assert raised.value.field == "evidence[1].observed_at" and raised.value.description == OBSERVED_RANGE


def test_a_timestamp_no_datetime_can_hold_is_the_same_invalid_argument_as_one_outside_the_range():
    too_late = turn_pb2.Turn(created_at=Timestamp(seconds=10**12))
    with pytest.raises(InvalidArgument) as raised:
        from_timestamp(too_late, "created_at", "turns[3].created_at")
    assert raised.value.field == "turns[3].created_at" and raised.value.description == CALENDAR_RANGE
    reading = working_memory_service_pb2.EmotionReading(observed_at=Timestamp(seconds=10**12))
    with pytest.raises(InvalidArgument) as raised:
        observed_from_timestamp(reading, "observed_at", "readings[0].observed_at", NOW)
    assert raised.value.description == OBSERVED_RANGE


def test_proto_fields_unset_stay_none_and_the_bounds_read_back_exactly():
    assert from_timestamp(turn_pb2.Turn(), "created_at") is None
    for moment in (EARLIEST, datetime(2999, 12, 31, 23, 59, 59, tzinfo=UTC)):
        assert from_timestamp(turn_pb2.Turn(created_at=to_timestamp(moment)), "created_at") == moment


@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999_999)))
def test_the_stored_form_is_fixed_width_and_reads_back_exactly(moment):
    moment = moment.replace(tzinfo=UTC)
    text = stored_text(moment)
    assert len(text) == len("2023-05-08T13:56:00.000000Z") and text.endswith("Z")
    assert parse_stored(text) == moment


@given(
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)),
)
def test_the_stored_form_sorts_as_text_in_time_order(first, second):
    first, second = first.replace(tzinfo=UTC), second.replace(tzinfo=UTC)
    assert (stored_text(first) < stored_text(second)) == (first < second)


def test_a_naive_value_is_never_stored():
    with pytest.raises(ValueError):
        stored_text(datetime(2023, 5, 8))


@pytest.mark.parametrize(
    ("old", "read_as"),
    [
        ("1-01-01T00:00:00.000000Z", datetime(1, 1, 1, tzinfo=UTC)),  # strftime("%Y") of year 1
        ("999-12-31T23:59:59.000000Z", datetime(999, 12, 31, 23, 59, 59, tzinfo=UTC)),
        ("2023-05-08T13:56:00", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),  # naive
        ("2023-05-08T14:56:00+01:00", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("2023-05-08T13:56:00.123456789Z", datetime(2023, 5, 8, 13, 56, 0, 123456, tzinfo=UTC)),
    ],
)
def test_the_older_stored_forms_are_read(old, read_as):
    assert parse_stored(old) == read_as


@pytest.mark.parametrize(
    ("old", "repaired"),
    [
        ("1-01-01T00:00:00.000000Z", "1900-01-01T00:00:00.000000Z"),
        ("9999-12-31T23:59:59.000000Z", "2999-12-31T23:59:59.999999Z"),
        ("2023-05-08T13:56:00", "2023-05-08T13:56:00.000000Z"),
        ("2023-05-08T14:56:00+01:00", "2023-05-08T13:56:00.000000Z"),
        ("not a time", "1900-01-01T00:00:00.000000Z"),
    ],
)
def test_a_value_in_an_old_form_or_outside_the_calendar_is_repaired_into_the_stored_form(old, repaired):
    assert repaired_text(old) == repaired
    assert repaired_text(repaired) is None  # idempotent


def test_a_value_already_in_the_stored_form_needs_no_repair():
    assert repaired_text("2023-05-08T13:56:00.000000Z") is None
    assert repaired_text(stored_text(EARLIEST)) is None and repaired_text(stored_text(LATEST)) is None
