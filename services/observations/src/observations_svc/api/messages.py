"""Domain records to proto messages: the fields a record and its message share are copied by name
(a datetime as a Timestamp), so each converter names only what it converts (enums, nested records).
The records and the messages name their fields alike, as ``components_to_pb`` relies on too."""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import Any, TypeVar

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp
from lore_runtime.proto_time import to_timestamp

Built = TypeVar("Built", bound=Message)


@cache
def _shared(message_type: type[Message], record_type: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names ``record_type`` shares with ``message_type``: those copied as they are, those that are Timestamps."""
    by_name = message_type.DESCRIPTOR.fields_by_name
    shared = [field.name for field in fields(record_type) if field.name in by_name]
    times = tuple(name for name in shared if by_name[name].message_type is Timestamp.DESCRIPTOR)
    return tuple(name for name in shared if name not in times), times


def message_of(message_type: type[Built], record: object, **converted: Any) -> Built:
    """``message_type`` with every field it shares with ``record`` copied (a datetime as a Timestamp), except
    those in ``converted`` (an enum left unconverted fails: the message takes its number, not the domain's name)."""
    plain, times = _shared(message_type, type(record))
    copied = {name: getattr(record, name) for name in plain if name not in converted}
    copied.update((name, to_timestamp(getattr(record, name))) for name in times if name not in converted)
    return message_type(**copied, **converted)
