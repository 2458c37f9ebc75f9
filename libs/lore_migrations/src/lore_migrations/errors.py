"""The one exception the runner raises for anything an operator has to fix by hand."""

from __future__ import annotations


class MigrationError(Exception):
    """A migration set that cannot be applied safely: bad files, edited history, a failing script.

    ``schema`` and ``version`` (when known) say where, so the message can be acted on
    without reading a traceback.
    """

    def __init__(self, message: str, *, schema: str | None = None, version: int | None = None) -> None:
        where = ""
        if schema is not None and version is not None:
            where = f"{schema} migration {version:04d}: "
        elif schema is not None:
            where = f"{schema}: "
        super().__init__(where + message)
        self.schema = schema
        self.version = version
