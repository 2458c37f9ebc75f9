"""Bulk writes through Postgres ``unnest``: one array per column, read off the records by name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def column_arrays(records: Sequence[object], *names: str) -> list[list[Any]]:
    """``[[record.<name> for record in records] for name in names]``: the arrays an
    ``INSERT ... SELECT ... FROM unnest($n::type[], ...)`` takes, in the order its column list names them."""
    return [[getattr(record, name) for record in records] for name in names]
