from datetime import UTC, datetime, timedelta, timezone

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from hypothesis import given
from hypothesis import strategies as st
from lore_runtime.proto_time import to_timestamp

zones = st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-8)), None])


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)), zones)
def test_the_same_message_as_from_datetime(moment, zone):
    moment = moment.replace(tzinfo=zone)
    expected = Timestamp()
    expected.FromDatetime(moment)
    assert to_timestamp(moment) == expected


def test_none_stays_none():
    assert to_timestamp(None) is None


def test_a_timestamp_field_reads_back_unset_as_none_and_out_of_range_as_a_named_invalid_argument():
    from lore.common.v1 import turn_pb2
    from lore_runtime.errors import InvalidArgument
    from lore_runtime.proto_time import from_timestamp

    said = datetime(2026, 11, 24, 10, 30, tzinfo=UTC)
    assert from_timestamp(turn_pb2.Turn(created_at=to_timestamp(said)), "created_at") == said
    assert from_timestamp(turn_pb2.Turn(), "created_at") is None
    too_late = turn_pb2.Turn(created_at=Timestamp(seconds=10**12))
    with pytest.raises(InvalidArgument) as raised:
        from_timestamp(too_late, "created_at", "turns[3].created_at")
    assert raised.value.field == "turns[3].created_at"
