from datetime import UTC, datetime, timedelta, timezone

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
