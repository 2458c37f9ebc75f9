"""What ``lore org export`` and ``lore org import`` mean alike in every service that holds an org's
records: the page size an export accepts and what an import reports."""

from __future__ import annotations

from dataclasses import dataclass

from lore_runtime.errors import InvalidArgument


@dataclass(frozen=True, slots=True)
class ImportReport:
    """Records written, and records skipped because the org already held them (a re-import skips all)."""

    imported: int
    skipped: int


def export_page_size(value: int, *, default: int, maximum: int) -> int:
    """The page size an export asked for: 0 means ``default``; below 0 or above ``maximum`` is refused."""
    if value < 0 or value > maximum:
        raise InvalidArgument("page_size", f"must be between 1 and {maximum} (0 means {default})")
    return value or default
