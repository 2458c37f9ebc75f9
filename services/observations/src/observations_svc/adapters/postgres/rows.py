"""Records from rows: a frozen dataclass's fields read from the columns of the same name, so each
adapter names only the columns it converts (ids to text, enums, nested values). And the one refusal
every restore shares: an id another org holds."""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import Any, TypeVar

import asyncpg
from lore_runtime import errors

Record = TypeVar("Record")


@cache
def _field_names(record_type: type) -> tuple[str, ...]:
    return tuple(field.name for field in fields(record_type))


def from_row(record_type: type[Record], row: asyncpg.Record, **converted: Any) -> Record:
    """``record_type`` with each field taken from the column of its name, except those in ``converted``.
    Columns the record has no field for are ignored; a field with neither is a KeyError."""
    columns = {name: row[name] for name in _field_names(record_type) if name not in converted}
    return record_type(**columns, **converted)


def taken(kind: str, record_id: str) -> errors.AlreadyExists:
    """An id another org holds (ON CONFLICT skipped it, RLS hides it): refused, never moved across tenants."""
    return errors.id_of_another_org(kind, record_id)
