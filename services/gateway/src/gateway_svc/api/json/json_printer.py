"""Proto3 JSON of a response message, as ``json_format.MessageToDict(message,
always_print_fields_with_no_presence=True)`` prints it, about four times faster.

``json_format`` decides, for every field of every message it prints, what kind of field it is;
on the gateway's answers (ten memories, each with a scope, provenance and timestamps) that was
40% of the gateway's CPU per request. Here the decision is made once per message type: a plan of
(JSON name, field, converter) is built on first use and reused. Well-known types (Timestamp,
Struct, wrappers …) are handed to ``json_format`` itself. tests/unit/gateway/test_json_printer.py
compares both printers on generated messages of every type the gateway answers with.

Differences that do not change the JSON's meaning: keys come in declaration order (``json_format``
puts set fields first), and custom ``json_name`` enum value options are not supported (Lore's
protos declare none).
"""

from __future__ import annotations

import base64
import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.internal.type_checkers import ToShortestFloat
from google.protobuf.message import Message

Converter = Callable[[Any], Any]

_SINGLE, _REPEATED, _MAP = range(3)
_INT64 = {FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64}
_WELL_KNOWN_PREFIX = "google.protobuf."
_MIN_SECONDS, _MAX_SECONDS = -62_135_596_800, 253_402_300_799  # 0001-01-01 and 9999-12-31T23:59:59


@dataclass(frozen=True, slots=True)
class _Plan:
    """How to print one message type: the JSON of its unset fields without presence (printed as
    their defaults), and how to convert each field that ``ListFields`` reports as set."""

    defaults: dict[str, Any]
    lists: tuple[str, ...]
    maps: tuple[str, ...]
    fields: dict[FieldDescriptor, tuple[str, Converter, Converter | None, int]]


_plans: dict[str, _Plan] = {}


def message_to_dict(message: Message) -> Any:
    descriptor = message.DESCRIPTOR
    name = descriptor.full_name
    if name == "google.protobuf.Timestamp":
        return _timestamp(message)
    if name.startswith(_WELL_KNOWN_PREFIX):
        return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    plan = _plans.get(name) or _plan(descriptor)
    document = dict(plan.defaults)
    for json_name in plan.lists:
        document[json_name] = []
    for json_name in plan.maps:
        document[json_name] = {}
    for field, value in message.ListFields():  # only the set fields, in C
        json_name, convert, convert_key, mode = plan.fields[field]
        if mode == _SINGLE:
            document[json_name] = convert(value)
        elif mode == _REPEATED:
            document[json_name] = [convert(item) for item in value]
        else:
            assert convert_key is not None
            document[json_name] = {convert_key(key): convert(item) for key, item in value.items()}
    return document


def _plan(descriptor: Descriptor) -> _Plan:
    defaults: dict[str, Any] = {}
    lists: list[str] = []
    maps: list[str] = []
    fields: dict[FieldDescriptor, tuple[str, Converter, Converter | None, int]] = {}
    for field in descriptor.fields:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key, value = field.message_type.fields_by_name["key"], field.message_type.fields_by_name["value"]
            fields[field] = (field.json_name, _converter(value), _map_key(key), _MAP)
            maps.append(field.json_name)
        elif field.is_repeated:
            fields[field] = (field.json_name, _converter(field), None, _REPEATED)
            lists.append(field.json_name)
        else:
            fields[field] = (field.json_name, _converter(field), None, _SINGLE)
            if not field.has_presence:  # json_format prints those unset as their default; the rest not at all
                defaults[field.json_name] = _converter(field)(field.default_value)
    plan = _Plan(defaults, tuple(lists), tuple(maps), fields)
    _plans[descriptor.full_name] = plan
    return plan


def _timestamp(timestamp: Any) -> str:
    """RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits, as ``Timestamp.ToJsonString`` writes it
    (which builds a datetime and a timedelta for each one: the gateway prints four per memory)."""
    seconds, nanos = timestamp.seconds, timestamp.nanos
    if not _MIN_SECONDS <= seconds <= _MAX_SECONDS or not 0 <= nanos < 1_000_000_000:
        return timestamp.ToJsonString()  # raises as json_format would
    return _rfc3339(seconds, nanos)


@functools.lru_cache(maxsize=8_192)
def _rfc3339(seconds: int, nanos: int) -> str:
    # Cached: the same memories, with the same timestamps, come back in answer after answer.
    t = time.gmtime(seconds)
    text = f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"
    if nanos == 0:
        return f"{text}Z"
    if nanos % 1_000_000 == 0:
        return f"{text}.{nanos // 1_000_000:03d}Z"
    if nanos % 1_000 == 0:
        return f"{text}.{nanos // 1_000:06d}Z"
    return f"{text}.{nanos:09d}Z"


def _converter(field: FieldDescriptor) -> Converter:
    kind = field.cpp_type
    if kind == FieldDescriptor.CPPTYPE_MESSAGE:
        return message_to_dict
    if kind == FieldDescriptor.CPPTYPE_ENUM:
        return _enum_converter(field)
    if field.type == FieldDescriptor.TYPE_BYTES:
        return lambda value: base64.b64encode(value).decode("utf-8")
    if kind in _INT64:
        return str
    if kind == FieldDescriptor.CPPTYPE_DOUBLE:
        return _double
    if kind == FieldDescriptor.CPPTYPE_FLOAT:
        return _float
    return _same  # string, bool, 32-bit integers: already their JSON value


def _enum_converter(field: FieldDescriptor) -> Converter:
    enum = field.enum_type
    if enum.full_name == "google.protobuf.NullValue":
        return lambda value: None
    names = {number: value.name for number, value in enum.values_by_number.items()}
    if enum.is_closed:
        # json_format refuses an unknown number of a closed enum; so does indexing.
        return names.__getitem__
    return lambda value: names.get(value, value)  # an open enum prints an unknown number as itself


def _map_key(field: FieldDescriptor) -> Converter:
    if field.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
        return lambda key: "true" if key else "false"
    return str


def _same(value: Any) -> Any:
    return value


def _double(value: float) -> float | str:
    if math.isinf(value):
        return "-Infinity" if value < 0 else "Infinity"
    if math.isnan(value):
        return "NaN"
    return value


def _float(value: float) -> float | str:
    special = _double(value)
    return ToShortestFloat(value) if isinstance(special, float) else special
