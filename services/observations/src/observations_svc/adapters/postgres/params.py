"""A query's parameters, numbered as they are added, so a SQL fragment never assumes the positions
of the query that embeds it: ``params.add(value)`` appends the value and returns its placeholder."""

from __future__ import annotations


class Params:
    """The arguments of one statement, in placeholder order (``$1`` is the first added)."""

    def __init__(self) -> None:
        self.values: list[object] = []

    def add(self, value: object) -> str:
        """Append ``value``; its placeholder (``$n``) to write where the SQL uses it, once or more."""
        self.values.append(value)
        return f"${len(self.values)}"
