"""Proto enum numbers of the domain's names: each table is read off the proto enum, so it cannot
drift from the domain's list (``world_fact`` is ``OBSERVATION_KIND_WORLD_FACT``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper

Name = TypeVar("Name", bound=str)


def numbered(enum_type: EnumTypeWrapper, prefix: str, names: Iterable[Name]) -> dict[int, Name]:
    """``{number: name}`` for each domain name (a string or a StrEnum member), in the order of ``names``;
    a name the proto enum lacks fails at import, not on a request."""
    return {enum_type.Value(prefix + name.upper()): name for name in names}


def reverse(table: dict[int, Name]) -> dict[Name, int]:
    return {name: number for number, name in table.items()}
