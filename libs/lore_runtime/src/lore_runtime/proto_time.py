"""datetime → google.protobuf.Timestamp without ``Timestamp.FromDatetime``, and an optional Timestamp field back.

FromDatetime is pure Python in every protobuf backend and took a tenth of a QueryObservations
call (five timestamps per observation, twenty observations per page); integer arithmetic on
the timedelta gives the same message several times faster.
"""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_timestamp(moment: datetime | None) -> Timestamp | None:
    """``moment`` as a Timestamp (a naive datetime is taken as UTC, as FromDatetime does); None stays None."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    return Timestamp(seconds=delta.days * 86_400 + delta.seconds, nanos=delta.microseconds * 1_000)


def from_timestamp(message: Message, field: str) -> datetime | None:
    """The Timestamp field ``field`` of ``message`` as an aware UTC datetime; None when it is unset."""
    return getattr(message, field).ToDatetime(tzinfo=UTC) if message.HasField(field) else None
