"""``JsonModel``: a frozen dataclass read from the API's proto3 JSON by its own fields.

Each field is read under its protobuf JSON name (the field's name in lowerCamelCase:
``memory_type`` from ``memoryType``) as its type hint says:

- ``str``, ``int``, ``float``, ``bool``: the value converted (int64 arrives as a string), the
  proto3 default when absent;
- ``datetime | None``: an RFC 3339 timestamp, ``None`` when absent;
- another ``JsonModel``: the nested message, read from an empty answer when absent;
- ``tuple[X, ...]`` (a repeated field) and ``dict[str, X]`` (a map), where ``X`` is a scalar,
  a ``JsonModel`` or ``Json`` (a message the client keeps as its JSON).

A field read any other way says so in its metadata: ``field(metadata=read_with(reader))``. Keys a
model does not name are ignored, so a newer gateway's additional fields never break an older
client. A model's readers are built on its first ``from_json``; a type hint no rule covers fails
there, naming the field.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Self

Json = Mapping[str, Any]
# Reads one field: (the answer, the field's JSON name) -> the field's value.
FieldReader = Callable[[Json, str], Any]

_READER = "lore_client.read_with"
_SCALARS: dict[Any, Callable[[Any], Any]] = {str: str, int: int, float: float, bool: bool}


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp of the proto3 JSON mapping. Python ≥ 3.11 reads the ``Z`` and cuts
    nanoseconds to microseconds itself (the regular expression this replaced took about a
    quarter of the time of parsing a search's results)."""
    if not value or not isinstance(value, str):
        return None
    return datetime.fromisoformat(value)


def read_with(reader: FieldReader) -> dict[str, FieldReader]:
    """Field metadata: the field is read by ``reader(document, json_name)``, not by its type."""
    return {_READER: reader}


def whole_document(document: Json, json_name: str) -> Json:
    """The answer itself, as it came (a model's ``raw``)."""
    return document


class JsonModel:
    """The base of the API's models (frozen dataclasses): ``from_json`` reads one from its JSON."""

    __slots__ = ()

    @classmethod
    def from_json(cls, document: Json | None) -> Self:
        """The model of ``document``; ``None`` or ``{}`` read as an answer with every field unset."""
        document = document or {}
        return cls(**{name: read(document, json_name) for name, json_name, read in _field_readers(cls)})


@functools.cache
def _field_readers(model: type[JsonModel]) -> tuple[tuple[str, str, FieldReader], ...]:
    """Each field of ``model``: its name, its JSON name and how it is read."""
    hints = typing.get_type_hints(model)
    return tuple(
        (
            item.name,
            _json_name(item.name),
            item.metadata.get(_READER) or _reader_of(hints[item.name], f"{model.__name__}.{item.name}"),
        )
        for item in dataclasses.fields(model)  # type: ignore[arg-type]
    )


def _json_name(name: str) -> str:
    """The protobuf JSON name of a field: each letter after an underscore in upper case."""
    first, *rest = name.split("_")
    return first + "".join(word[:1].upper() + word[1:] for word in rest)


def _reader_of(hint: Any, where: str) -> FieldReader:
    """How a field of type ``hint`` is read from an answer (``where`` names it in an error)."""
    convert = _SCALARS.get(hint)
    if convert is not None:
        unset = hint()
        return lambda document, key: convert(document.get(key, unset))
    if hint == datetime | None:
        return lambda document, key: parse_time(document.get(key))
    if isinstance(hint, type) and issubclass(hint, JsonModel):
        return lambda document, key: hint.from_json(document.get(key))
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple and len(arguments) == 2 and arguments[1] is Ellipsis:
        item = _value_reader(arguments[0], where)
        return lambda document, key: tuple(item(value) for value in document.get(key) or ())
    if origin is dict and arguments[0] is str:
        value_of = _value_reader(arguments[1], where)
        return lambda document, key: {str(k): value_of(v) for k, v in (document.get(key) or {}).items()}
    raise TypeError(f"{where}: no JSON reader for {hint}; name one with read_with")


def _value_reader(hint: Any, where: str) -> Callable[[Any], Any]:
    """How one item of a repeated field, or one value of a map, is read."""
    if hint in _SCALARS:
        return _SCALARS[hint]
    if hint == Json:
        return lambda value: value
    if isinstance(hint, type) and issubclass(hint, JsonModel):
        return hint.from_json
    raise TypeError(f"{where}: no JSON reader for items of {hint}; name one with read_with")
